// The cyclic Tower of Hanoi in JavaScript: the discs go from the first tower to the second, each
// move one tower on (first to second, second to third, third to first). After each move, and
// before the first, it prints the three towers, each listed from the bottom.
const DISCS = 4;

const towers = [[], [], []];
for (let disc = DISCS; disc >= 1; disc--) towers[0].push(disc);
console.log(JSON.stringify(towers));

function move(from, to) {
  towers[to].push(towers[from].pop());
  console.log(JSON.stringify(towers));
}

// k discs one tower on: k - 1 two on, disc k one on, the k - 1 two on again.
function oneOn(k, from) {
  if (k === 0) return;
  twoOn(k - 1, from);
  move(from, (from + 1) % 3);
  twoOn(k - 1, (from + 2) % 3);
}

// k discs two towers on: k - 1 two on, disc k one on, k - 1 one on, disc k one on, k - 1 two on.
function twoOn(k, from) {
  if (k === 0) return;
  const next = (from + 1) % 3, last = (from + 2) % 3;
  twoOn(k - 1, from);
  move(from, next);
  oneOn(k - 1, last);
  move(next, last);
  twoOn(k - 1, from);
}

oneOn(DISCS, 0);
