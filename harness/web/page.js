"use strict";
// Replays any cell of the report on a drawn board. A passing cell's moves are the reference, unfolded
// here from n and the puzzle exactly as harness/model.py unfolds them; a cell that did not pass
// replays the reference up to where its moves part from it, then the moves the port printed from
// there. Text from ports only ever reaches the page as textContent.
(() => {
  const report = JSON.parse(document.getElementById("report").textContent);
  const TARGET = { classic: 2, cyclic: 1 };
  const cells = new Map(report.cells.map((cell) => [cell.id, cell]));
  const $ = (id) => document.getElementById(id);

  // One level of the recursion: transfers [discs, src, dst] still to unfold, and single moves.
  function split(puzzle, discs, src, dst) {
    const move = { disk: discs, src, dst };
    if (puzzle === "classic") {
      const spare = 3 - src - dst;
      return [[discs - 1, src, spare], move, [discs - 1, spare, dst]];
    }
    const on = (src + 1) % 3;
    const rest = discs - 1;
    if (dst === on) {
      const after = (dst + 1) % 3;
      return [[rest, src, after], move, [rest, after, dst]];
    }
    return [[rest, src, dst], { disk: discs, src, dst: on }, [rest, dst, src], { disk: discs, src: on, dst }, [rest, src, dst]];
  }

  const counts = new Map();
  function count(puzzle, discs, src, dst) {
    if (discs === 0) return 0;
    const key = `${puzzle} ${discs} ${src} ${dst}`;
    if (!counts.has(key)) {
      counts.set(key, split(puzzle, discs, src, dst).reduce((sum, piece) => sum + (Array.isArray(piece) ? count(puzzle, ...piece) : 1), 0));
    }
    return counts.get(key);
  }

  function start(n) {
    return [Array.from({ length: n }, (_, i) => n - i), [], []];
  }

  // The board after the reference's first k moves, and its move k + 1 (null past the end), in a
  // few steps whatever k is: a whole transfer that fits in what is left moves its discs at once.
  function walk(puzzle, n, k) {
    const pegs = start(n);
    const stack = [[n, 0, TARGET[puzzle]]];
    let left = k;
    while (stack.length) {
      const piece = stack.pop();
      if (!Array.isArray(piece)) {
        if (left === 0) return { pegs, next: piece };
        pegs[piece.dst].push(pegs[piece.src].pop());
        left -= 1;
      } else if (piece[0]) {
        const size = count(puzzle, ...piece);
        if (size <= left) {
          const [discs, src, dst] = piece;
          pegs[dst].push(...pegs[src].splice(pegs[src].length - discs));
          left -= size;
        } else {
          stack.push(...split(puzzle, ...piece).reverse());
        }
      }
    }
    return { pegs, next: null };
  }

  // The reference after k moves: its pegs and move k (null at the start).
  function referenceAt(puzzle, n, k) {
    if (k === 0) return { pegs: walk(puzzle, n, 0).pegs, made: null };
    const { pegs, next } = walk(puzzle, n, k - 1);
    pegs[next.dst].push(pegs[next.src].pop());
    return { pegs, made: next };
  }

  // The open cell's pegs as its port names them (its manifest's pegs), the canonical number beside a
  // name that is not it, as the harness's messages name them: "peg left (0)", or "peg 0".
  let pegNamesOfCell = ["0", "1", "2"];
  const pegLabel = (index) => pegNamesOfCell[index] === String(index) ? `peg ${index}` : `peg ${pegNamesOfCell[index]} (${index})`;

  // Why a move cannot be made on these pegs, as the harness words it; null if it can.
  function refusal(pegs, move, puzzle) {
    if (move.src === move.dst) return "source and target are the same peg";
    if (puzzle === "cyclic" && move.dst !== (move.src + 1) % 3) return "a disc may only go from peg p to peg (p + 1) mod 3";
    const source = pegs[move.src];
    const target = pegs[move.dst];
    if (!source.length) return `${pegLabel(move.src)} is empty`;
    const disk = source[source.length - 1];
    if (move.disk !== null && move.disk !== disk) return `the top of ${pegLabel(move.src)} is disc ${disk}, not disc ${move.disk}`;
    if (target.length && target[target.length - 1] < disk) return `puts disc ${disk} on smaller disc ${target[target.length - 1]}`;
    return null;
  }

  // What the page can replay of a cell: the moves that agree with the reference, then the port's
  // own from where they part, as far as the first one that breaks a rule (which is shown, not made).
  function track(cell) {
    const optimal = count(cell.puzzle, cell.n, 0, TARGET[cell.puzzle]);
    if (cell.outcome === "pass") return { optimal, agreed: optimal, own: [], length: optimal };
    const agreed = cell.parting ? cell.parting.at - 1 : Math.min(cell.moves, optimal);
    const own = [];
    let pegs = referenceAt(cell.puzzle, cell.n, agreed).pegs;
    for (const [disk, src, dst] of cell.parting ? cell.parting.printed : []) {
      const given = { disk, src, dst };
      const refused = refusal(pegs, given, cell.puzzle);
      if (refused) {
        own.push({ pegs, made: given, refused });
        break;
      }
      pegs = pegs.map((peg) => peg.slice());
      const moved = pegs[src].pop();
      pegs[dst].push(moved);
      own.push({ pegs, made: { disk: moved, src, dst }, refused: null });
    }
    return { optimal, agreed, own, length: agreed + own.length };
  }

  function portAt(cell, tracked, k) {
    if (k <= tracked.agreed) return { ...referenceAt(cell.puzzle, cell.n, k), refused: null };
    return tracked.own[k - tracked.agreed - 1];
  }

  const describe = (move) => `${move.disk === null ? "a disc" : `disc ${move.disk}`} from ${pegLabel(move.src)} to ${pegLabel(move.dst)}`;
  const boardText = (pegs) => pegs.map((peg) => peg.join(" ")).join("|");

  function draw(board, n, pegs, made, refused) {
    board.replaceChildren();
    pegs.forEach((peg, index) => {
      const column = document.createElement("div");
      column.className = "peg";
      column.style.minHeight = `${1.3 * (n + 1)}rem`;
      peg.forEach((disk, height) => {
        const disc = document.createElement("div");
        disc.className = "disc";
        disc.textContent = String(disk);
        disc.style.width = `${Math.round((100 * disk) / Math.max(n, 1))}%`;
        const top = height === peg.length - 1;
        if (top && made && !refused && made.dst === index) disc.classList.add("moved");
        if (top && refused && made.src === index) disc.classList.add("refused");
        column.append(disc);
      });
      board.append(column);
    });
    board.dataset.board = boardText(pegs);
    board.setAttribute("aria-label", pegs.map((peg, index) => `${pegLabel(index)}: ${peg.length ? peg.join(" ") : "empty"}`).join("; "));
  }

  function pegNames(board, cyclic) {
    let names = board.nextElementSibling;
    if (!names || !names.classList.contains("peg-names")) {
      names = document.createElement("div");
      names.className = "peg-names";
      names.setAttribute("aria-hidden", "true");
      board.after(names);
    }
    names.replaceChildren(...[0, 1, 2].map((index) => {
      const name = document.createElement("span");
      name.className = "peg-name";
      name.textContent = cyclic ? `${pegLabel(index)} → ${pegNamesOfCell[(index + 1) % 3]}` : pegLabel(index);
      return name;
    }));
  }

  const state = { cell: null, tracked: null, k: 0, timer: null };

  function address(cell, k) {
    return `#${cell.id.split("/").map(encodeURIComponent).join("/")}@${k}`;
  }

  function fact(term, text) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = text;
    return [dt, dd];
  }

  function open(cell, k) {
    stop();
    document.querySelectorAll("td.open").forEach((td) => td.classList.remove("open"));
    const link = document.querySelector(`td a[data-cell="${CSS.escape(cell.id)}"]`);
    if (link) link.parentElement.classList.add("open");
    const fresh = state.cell !== cell;
    state.cell = cell;
    pegNamesOfCell = Array.isArray(cell.pegs) && cell.pegs.length === 3 ? cell.pegs.map(String) : ["0", "1", "2"];
    state.tracked = track(cell);
    const viewer = $("viewer");
    viewer.hidden = false;
    $("viewer-title").textContent = `${cell.port}/${cell.method} n=${cell.n}`;
    const port = report.ports[cell.port] || { versions: {} };
    const versions = Object.entries(port.versions).map(([tool, version]) => `${tool}: ${version ?? "unknown"}`).join("; ");
    const follows = (port.sources || []).filter((source) => source.methods.includes(cell.method)).map((source) => `${source.title}, by ${source.author}`).join("; ");
    const mark = { pass: "✓", fail: "✗", error: "⚠", skipped: "–" }[cell.outcome] || "";
    $("facts").replaceChildren(
      ...fact("outcome", `${mark} ${cell.outcome}${cell.reason ? ` (${cell.reason})` : ""}`),
      ...(cell.detail ? fact("detail", cell.detail) : []),
      ...fact("moves printed", String(cell.moves)),
      ...fact("time", `${cell.seconds.toFixed(3)} s`),
      ...fact("puzzle", `${cell.puzzle}, ${state.tracked.optimal} moves for ${cell.n} discs`),
      ...(versions ? fact("versions", versions) : []),
      ...(follows ? fact("follows", follows) : []),
      ...(cell.rerun && cell.rerun.program ? fact("program", cell.rerun.program) : []),
      ...(cell.rerun ? cell.rerun.build.flatMap((step) => fact("build", step)) : []),
    );
    $("rerun").hidden = !cell.rerun;
    $("rerun-command").textContent = cell.rerun ? cell.rerun.command : "";
    $("rerun").querySelector(".copied").textContent = "";
    const parting = cell.parting && cell.outcome !== "pass" ? cell.parting.at : null;
    $("parting").hidden = parting === null;
    if (parting !== null) {
      $("parting-link").textContent = `move ${parting}`;
      $("parting-link").href = address(cell, parting);
    }
    $("direction").hidden = cell.puzzle !== "cyclic";
    $("port-caption").textContent = cell.outcome === "pass" ? "The moves (the reference's, which the port printed)" : "What the port printed";
    $("reference-figure").hidden = cell.outcome === "pass";
    pegNames($("port-board"), cell.puzzle === "cyclic");
    pegNames($("reference-board"), cell.puzzle === "cyclic");
    const diff = $("diff");
    diff.hidden = !cell.diff.length;
    diff.replaceChildren(...cell.diff.map((line) => {
      const span = document.createElement("span");
      span.className = { "-": "diff-del", "+": "diff-add", "@": "diff-hunk" }[line[0]] || "";
      span.textContent = `${line}\n`;
      return span;
    }));
    show(k);
    if (fresh) {
      viewer.scrollIntoView();
      $("viewer-title").focus({ preventScroll: true });
    }
  }

  function show(k) {
    const { cell, tracked } = state;
    state.k = Math.max(0, Math.min(k, tracked.length));
    const at = state.k;
    const here = portAt(cell, tracked, at);
    draw($("port-board"), cell.n, here.pegs, here.made, here.refused);
    let line = at === 0 ? `move 0 of ${tracked.length}: the start, ${cell.n} discs on ${pegLabel(0)}` : `move ${at} of ${tracked.length}: ${describe(here.made)}`;
    if (here.refused) line += `, refused: ${here.refused}`;
    const parting = cell.parting && cell.outcome !== "pass" ? cell.parting.at : null;
    const first = at === parting;
    if (first) line += " (the first difference)";
    $("move").textContent = line;
    $("port-figure").classList.toggle("first-difference", first);
    $("reference-figure").classList.toggle("first-difference", first);
    if (cell.outcome !== "pass") {
      const reference = referenceAt(cell.puzzle, cell.n, Math.min(at, tracked.optimal));
      draw($("reference-board"), cell.n, reference.pegs, reference.made, null);
      $("reference-move").textContent = at > tracked.optimal
        ? `the reference ended after move ${tracked.optimal}`
        : at === 0 ? "the reference starts here too" : `the reference's move ${at}: ${describe(reference.made)}`;
    }
    remember();
    $("play").textContent = state.timer ? "⏸ pause" : "▶ play";
  }

  // The address follows the move shown, once the moves settle: browsers refuse a flood of history changes.
  // An address followed meanwhile (its hashchange still to come) is left for that change to show.
  let settling = null;
  function remember() {
    clearTimeout(settling);
    const seen = location.hash;
    settling = setTimeout(() => {
      if (location.hash === seen) history.replaceState(null, "", address(state.cell, state.k));
    }, 250);
  }

  function stop() {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    if (state.cell) $("play").textContent = "▶ play";
  }

  function play() {
    if (state.timer) return stop();
    if (state.k >= state.tracked.length) show(0);
    state.timer = setInterval(() => {
      if (state.k >= state.tracked.length) return stop();
      show(state.k + 1);
    }, 1000 / Number($("speed").value));
    $("play").textContent = "⏸ pause";
  }

  function step(by) {
    stop();
    show(state.k + by);
  }

  function follow() {
    let text;
    try {
      text = decodeURIComponent(location.hash.slice(1));
    } catch {
      return;
    }
    const found = /^(.*)@(\d+)$/.exec(text);
    const cell = cells.get(found ? found[1] : text);
    if (cell) open(cell, found ? Number(found[2]) : 0);
  }

  $("first").addEventListener("click", () => step(-Infinity));
  $("back").addEventListener("click", () => step(-1));
  $("forward").addEventListener("click", () => step(1));
  $("last").addEventListener("click", () => step(Infinity));
  $("play").addEventListener("click", play);
  $("speed").addEventListener("change", () => {
    if (state.timer) {
      stop();
      play();
    }
  });
  // A rerun line to the clipboard: by the Clipboard API where the page may use it, else by selecting
  // the line and the browser's copy command (a page opened from file:// in some browsers).
  async function copy(button) {
    const line = $(button.dataset.copies);
    const said = button.parentElement.querySelector(".copied");
    try {
      await navigator.clipboard.writeText(line.textContent);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(line);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      if (!document.execCommand("copy")) {
        said.textContent = "selected: press Ctrl+C to copy";
        return;
      }
    }
    said.textContent = "copied";
  }
  document.querySelectorAll("button.copy").forEach((button) => button.addEventListener("click", () => copy(button)));

  document.addEventListener("keydown", (event) => {
    if (!state.cell || event.target.classList.contains("copy") || event.altKey || event.ctrlKey || event.metaKey || ["SELECT", "INPUT", "TEXTAREA"].includes(event.target.tagName)) return;
    const keys = { ArrowRight: () => step(1), ArrowLeft: () => step(-1), Home: () => step(-Infinity), End: () => step(Infinity), " ": play };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });
  window.addEventListener("hashchange", follow);
  // The reference's moves as the page replays them (each by referenceAt, as a cell opened at that move
  // is), for the tests to hold against the harness's.
  window.hanoi = { reference: (puzzle, n) => Array.from({ length: count(puzzle, n, 0, TARGET[puzzle]) }, (_, k) => referenceAt(puzzle, n, k + 1).made) };
  follow();
})();
