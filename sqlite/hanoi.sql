-- The Tower of Hanoi in SQLite: n discs from peg 0 to peg 2 by three methods, and the cyclic
-- Tower of Hanoi: n discs from peg 0 to peg 1, each move one peg on. Each method is one query
-- WITH RECURSIVE, which the sqlite3 shell runs with the method and n it is given as parameters:
--
--     sqlite3 -bail :memory: '.parameter set :method recursive' '.parameter set :n 3' '.read hanoi.sql'
--
-- as hanoi.sh does (sh hanoi.sh recursive 3), once it has checked the method and n.
--
-- Each row is a move, DISC|FROM|TO as the shell prints it: 1|0|2. A query's rows come out as
-- SQLite makes them, the recursive table's rows one at a time from its queue, which holds a few
-- rows for each disc at most: no query builds its list of moves first.

-- The method and n, checked as they go into a one-row table that every query reads. A check that
-- fails is an error naming it, and -bail stops there, before any move.
CREATE TEMP TABLE setting (
  method TEXT CONSTRAINT "METHOD must be binary, recursive, iterative or cyclic"
    CHECK (ifnull(method IN ('binary', 'recursive', 'iterative', 'cyclic'), 0)),
  n INTEGER CONSTRAINT "N must be a whole number of discs, from 0 to 62"
    CHECK (typeof(n) = 'integer' AND n BETWEEN 0 AND 62)
);
INSERT INTO setting VALUES (:method, :n);

-- region binary
-- The Tower of Hanoi notes' bitwise formula: move i (1 <= i < 2^n) takes disc 1 + (trailing zero
-- bits of i) from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3; i & -i is i's lowest 1
-- bit, 2^(disc - 1). For even n the formula ends on peg 1, so pegs 1 and 2 swap names: peg p
-- is called (3 - p) % 3.
WITH RECURSIVE
  move(i, last, swap) AS (
    SELECT 1, (1 << n) - 1, n % 2 = 0 FROM setting WHERE method = 'binary' AND n > 0
    UNION ALL
    SELECT i + 1, last, swap FROM move WHERE i < last
  ),
  formula(disc, source, target, swap) AS (
    SELECT 1 + CAST(log2(i & -i) AS INTEGER), (i & (i - 1)) % 3, ((i | (i - 1)) + 1) % 3, swap
    FROM move
  )
SELECT
  disc,
  CASE WHEN swap THEN (3 - source) % 3 ELSE source END,
  CASE WHEN swap THEN (3 - target) % 3 ELSE target END
FROM formula;
-- endregion binary

-- region recursive
-- The classic recursion, as Simply Logical's hanoi/5 and the notes' r_toh have it: to move a
-- tower from source to target, move the discs above its bottom disc out of the way onto spare,
-- move the bottom disc across, and move the discs above it back on top of it. Each row is a task,
-- to move the discs top to bottom: a tower (1 to bottom), or one disc (top = bottom), which is
-- a move. The query takes its rows from a queue; ORDER BY makes it take first the task whose
-- moves come first (first: the number of its first move; a tower of k discs takes 2^k - 1), so
-- the queue is the recursion's stack, and the moves come out in order, as they are made.
WITH RECURSIVE
  task(top, bottom, source, target, spare, first) AS (
    SELECT 1, n, 0, 2, 1, 1 FROM setting WHERE method = 'recursive' AND n > 0
    UNION ALL
    -- the discs above the bottom one out of the way, onto the spare peg
    SELECT top, bottom - 1, source, spare, target, first AS first FROM task WHERE top < bottom
    UNION ALL
    -- the bottom disc across, alone
    SELECT bottom, bottom, source, target, spare, first + (1 << (bottom - 1)) - 1
    FROM task WHERE top < bottom
    UNION ALL
    -- the discs above it back, on top of it
    SELECT top, bottom - 1, spare, target, source, first + (1 << (bottom - 1))
    FROM task WHERE top < bottom
    ORDER BY first
  )
SELECT bottom, source, target FROM task WHERE top = bottom;
-- endregion recursive

-- region iterative
-- COMP9021's iterative towers: every other move is the smallest disc's, always the same way round
-- (-1 mod 3, that is + 2, for odd n, and + 1 for even n); each move between is the only legal one
-- between the two pegs the smallest disc is not on. Each row is a round of the notes' loop: a move
-- between (none in the first round), then the smallest disc's move, from here to ahead; behind is
-- the third peg, where the smallest disc goes after, so the next round's pegs are (ahead, behind,
-- here) and its move between is between here and behind. The row carries the towers in at, the
-- peg each disc is on, disc d the d-th character: instr(at, p) is the disc on top of peg p (0 if
-- it has none).
WITH RECURSIVE
  halves(half) AS (VALUES (1), (2)),
  round(rounds_left, here, ahead, behind, at, disc, source, target) AS (
    -- the first round: the smallest disc's first move, alone
    SELECT 1 << (n - 1), 0, 1 + n % 2, 2 - n % 2, (1 + n % 2) || substr(printf('%.*c', n, '0'), 2),
      NULL, NULL, NULL
    FROM setting WHERE method = 'iterative' AND n > 0
    UNION ALL
    -- after a round, the smallest disc is on ahead: the move between here and behind takes the top
    -- disc of here onto behind if it is the smaller top (or behind has none), ...
    SELECT rounds_left - 1, ahead, behind, here,
      behind || substr(at, 2, instr(at, here) - 2) || behind || substr(at, instr(at, here) + 1),
      instr(at, here), here, behind
    FROM round WHERE rounds_left > 1
      AND instr(at, here) > 0 AND (instr(at, behind) = 0 OR instr(at, here) < instr(at, behind))
    UNION ALL
    -- ... else the top disc of behind onto here; and the smallest disc (at's first character) goes
    -- on, from ahead to behind
    SELECT rounds_left - 1, ahead, behind, here,
      behind || substr(at, 2, instr(at, behind) - 2) || here || substr(at, instr(at, behind) + 1),
      instr(at, behind), behind, here
    FROM round WHERE rounds_left > 1
      AND instr(at, behind) > 0 AND (instr(at, here) = 0 OR instr(at, behind) < instr(at, here))
  )
-- Each round's two moves, in order: the move between, if any, then the smallest disc's. CROSS JOIN
-- keeps round the outer loop, so that its rows are read as they are made.
SELECT
  CASE half WHEN 1 THEN disc ELSE 1 END,
  CASE half WHEN 1 THEN source ELSE here END,
  CASE half WHEN 1 THEN target ELSE ahead END
FROM round CROSS JOIN halves
WHERE half = 2 OR disc IS NOT NULL;
-- endregion iterative

-- region cyclic
-- The cyclic Tower of Hanoi article's two transfers, each disc moving one peg on (0 -> 1 -> 2 -> 0),
-- as tasks in the query's queue, the article's transfer<Discs, Src, Dst> each a row: 'adjacent'
-- moves discs from source to the next peg, 'post-adjacent' two pegs on; a 'move' row is one disc's
-- move. Each task's path is its parent's and a letter for its place among its parent's steps, and
-- ORDER BY path makes the queue take the tasks in the order of their moves, as the article's calls
-- make them.
WITH RECURSIVE
  task(transfer, discs, source, target, path) AS (
    SELECT 'adjacent', n, 0, 1, '' FROM setting WHERE method = 'cyclic' AND n > 0
    UNION ALL
    -- To the adjacent tower: discs - 1 to the post-adjacent tower, out of the way, ...
    SELECT 'post-adjacent', discs - 1, source, (target + 1) % 3, path || 'a' AS path
    FROM task WHERE transfer = 'adjacent' AND discs > 1
    UNION ALL
    -- ... the largest disc one on, ...
    SELECT 'move', discs, source, target, path || 'b'
    FROM task WHERE transfer = 'adjacent'
    UNION ALL
    -- ... and the discs - 1 two on again, on top of it.
    SELECT 'post-adjacent', discs - 1, (target + 1) % 3, target, path || 'c'
    FROM task WHERE transfer = 'adjacent' AND discs > 1
    UNION ALL
    -- To the post-adjacent tower: discs - 1 two on, ...
    SELECT 'post-adjacent', discs - 1, source, target, path || 'a'
    FROM task WHERE transfer = 'post-adjacent' AND discs > 1
    UNION ALL
    -- ... the largest one on, ...
    SELECT 'move', discs, source, (source + 1) % 3, path || 'b'
    FROM task WHERE transfer = 'post-adjacent'
    UNION ALL
    -- ... the discs - 1 one on (back where they began), ...
    SELECT 'adjacent', discs - 1, target, source, path || 'c'
    FROM task WHERE transfer = 'post-adjacent' AND discs > 1
    UNION ALL
    -- ... the largest one on again, ...
    SELECT 'move', discs, (source + 1) % 3, target, path || 'd'
    FROM task WHERE transfer = 'post-adjacent'
    UNION ALL
    -- ... and the discs - 1 two on.
    SELECT 'post-adjacent', discs - 1, source, target, path || 'e'
    FROM task WHERE transfer = 'post-adjacent' AND discs > 1
    ORDER BY path
  )
SELECT discs, source, target FROM task WHERE transfer = 'move';
-- endregion cyclic
