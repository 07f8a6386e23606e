// The Tower of Hanoi in JavaScript (Node.js): N discs from peg A to peg C by
// three methods, and the cyclic Tower of Hanoi: N discs from peg A to peg B,
// each move one peg on (A → B → C → A).
//
//     node hanoi.js binary|recursive|iterative|cyclic N
//
// Each method calls move(disc, from, to), pegs 0, 1 and 2, as it makes a move,
// and the move is printed at once, one a line: "1: A → C". No list of moves is
// ever built, so memory stays O(N).
'use strict';

const fs = require('node:fs');

// region binary
// The Tower of Hanoi notes' bitwise formula: move i goes from peg
// (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3, and moves disc
// 1 + (the trailing zero bits of i). The formula ends on peg 1 when n is even,
// so for even n pegs 1 and 2 swap names. JavaScript's bitwise operators work
// on 32-bit integers, so n is at most 31 (MAX_BINARY_DISCS).
function binary(n, move) {
  const peg = n % 2 === 0 ? [0, 2, 1] : [0, 1, 2];
  for (let i = 1; i < 2 ** n; i++) {
    const disc = 32 - Math.clz32(i & -i);
    move(disc, peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3]);
  }
}
// endregion binary

const MAX_BINARY_DISCS = 31;

// region recursive
// The classic recursion, as Simply Logical's hanoi/5 and the Tower of Hanoi
// notes' r_toh have it: n - 1 discs out of the way to the spare peg, the
// largest to the target, the n - 1 back on top.
function recursive(n, source, target, spare, move) {
  if (n === 0) return;
  recursive(n - 1, source, spare, target, move);
  move(n, source, target);
  recursive(n - 1, spare, target, source, move);
}
// endregion recursive

// region iterative
// COMP9021's iterative_towers: every other move is the smallest disc's, always
// the same way round (direction -1 for odd n, +1 for even n); each move between
// is the only legal move between the two pegs the smallest disc is not on. A
// stack holds its discs bottom first, the top last.
function iterative(n, move) {
  const direction = n % 2 === 1 ? -1 : 1;
  const stacks = [[], [], []];
  for (let disc = n; disc >= 1; disc--) stacks[0].push(disc);
  let smallDiscPos = 0;
  for (let i = 0; i < 2 ** n - 1; i++) {
    let from;
    let to;
    if (i % 2 === 0) {
      from = smallDiscPos;
      to = (smallDiscPos + direction + 3) % 3; // + 3, as -1 % 3 is -1 here
      smallDiscPos = to;
    } else {
      from = (smallDiscPos + 1) % 3;
      to = (smallDiscPos + 2) % 3;
      const fromTop = stacks[from].at(-1);
      const toTop = stacks[to].at(-1);
      if (fromTop === undefined || (toTop !== undefined && toTop < fromTop)) {
        [from, to] = [to, from];
      }
    }
    const disc = stacks[from].pop();
    stacks[to].push(disc);
    move(disc, from, to);
  }
}
// endregion iterative

// region cyclic
// The cyclic Tower of Hanoi article's two transfers: a disc may only go one peg
// on, from p to (p + 1) % 3, and the article moves n discs either to the
// adjacent tower or to the post-adjacent one, each transfer made of the other.
const nextPeg = (peg) => (peg + 1) % 3;

// To the adjacent peg: n - 1 discs to the post-adjacent peg, out of the way,
// the largest one on, and the n - 1 on top of it, which is the post-adjacent
// peg from where they wait.
function transferAdjacent(n, from, move) {
  if (n === 0) return;
  const to = nextPeg(from);
  transferPostAdjacent(n - 1, from, move);
  move(n, from, to);
  transferPostAdjacent(n - 1, nextPeg(to), move);
}

// To the post-adjacent peg: the n - 1 there first, the largest one on, the
// n - 1 one on (back where they began), the largest one on again, and the
// n - 1 to the post-adjacent peg, on top of it.
function transferPostAdjacent(n, from, move) {
  if (n === 0) return;
  const via = nextPeg(from);
  const to = nextPeg(via);
  transferPostAdjacent(n - 1, from, move);
  move(n, from, via);
  transferAdjacent(n - 1, to, move);
  move(n, via, to);
  transferPostAdjacent(n - 1, from, move);
}

function cyclic(n, move) {
  transferAdjacent(n, 0, move);
}
// endregion cyclic

const METHODS = {
  binary,
  recursive: (n, move) => recursive(n, 0, 2, 1, move),
  iterative,
  cyclic,
};

const PEGS = ['A', 'B', 'C'];
const LINES_PER_WRITE = 4096;

// Prints moves a chunk of LINES_PER_WRITE lines at a time. fs.writeSync waits
// while the reader is behind, so no output piles up in memory, as it would
// behind process.stdout.write, which queues what a pipe cannot take yet. A
// reader that goes away (| head) ends the program quietly.
class Printer {
  chunk = '';
  lines = 0;

  move = (disc, from, to) => {
    this.chunk += `${disc}: ${PEGS[from]} → ${PEGS[to]}\n`;
    if (++this.lines === LINES_PER_WRITE) this.flush();
  };

  flush() {
    const bytes = Buffer.from(this.chunk);
    try {
      for (let done = 0; done < bytes.length; ) {
        done += fs.writeSync(1, bytes, done);
      }
    } catch (err) {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    }
    this.chunk = '';
    this.lines = 0;
  }
}

function usage(why) {
  process.stderr.write(
    `hanoi.js: ${why}\n` +
      'usage: node hanoi.js binary|recursive|iterative|cyclic N' +
      ' (N a whole number of discs, 0 or more)\n',
  );
  process.exit(2);
}

function main(args) {
  if (args.length !== 2) {
    const count = args.length;
    usage(`expected a method and a number of discs, not ${count} arguments`);
  }
  const [method, text] = args;
  if (!Object.hasOwn(METHODS, method)) usage(`unknown method '${method}'`);
  if (!/^[0-9]+$/.test(text)) {
    usage(`N must be a whole number of discs, 0 or more, not '${text}'`);
  }
  const n = Number(text);
  if (method === 'binary' && n > MAX_BINARY_DISCS) {
    const max = MAX_BINARY_DISCS;
    usage(`binary works on 32-bit integers: N at most ${max}, not ${n}`);
  }
  const printer = new Printer();
  METHODS[method](n, printer.move);
  printer.flush();
}

main(process.argv.slice(2));
