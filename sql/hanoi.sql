-- The Tower of Hanoi in PL/pgSQL, after the Tower of Hanoi notes' PostgreSQL listings.
--
-- Everything lives in the schema hanoi; loading this file again replaces it in place, in one
-- transaction. Three set-returning functions give the same 2^n - 1 moves of n discs from peg 0 to
-- peg 2, one row a move, streamed as they are made:
--
--   SELECT * FROM hanoi.binary(3);       -- the bitwise formula of the notes' b_toh
--   SELECT * FROM hanoi.recursive(3);    -- the recursion of the notes' r_toh
--   SELECT * FROM hanoi.iterative(3);    -- the smallest disc cycling, three arrays as the stacks
--
-- and a fourth the moves of the cyclic Tower of Hanoi, n discs from peg 0 to peg 1, one peg on at a
-- time:
--
--   SELECT * FROM hanoi.cyclic(3);       -- the cyclic Tower of Hanoi article's recursion
--
--    move | disk | source | target
--   ------+------+--------+--------
--       1 |    1 |      0 |      2
--
-- The notes' own functions are kept beside them, as hanoi.b_toh and hanoi.r_toh: with
-- SET search_path = hanoi, public; the notes' session (SELECT b_toh (3); SELECT r_toh (3, 0, 2, 1);)
-- runs unchanged.
--
-- Mind PostgreSQL's precedence: - binds tighter than &, | and <<, so i & i - 1 is i & (i - 1).

BEGIN;

CREATE SCHEMA IF NOT EXISTS hanoi;

-- n is a number of discs from 0 to 62 (2^63 - 1 moves is the most a bigint counts); anything else,
-- NULL included, is refused with SQLSTATE 22023, invalid_parameter_value.
CREATE OR REPLACE FUNCTION hanoi.check_discs(n integer)
    RETURNS void
    LANGUAGE plpgsql
    IMMUTABLE
    AS $$
BEGIN
    IF n IS NULL OR n < 0 OR n > 62 THEN
        RAISE EXCEPTION 'the number of discs must be from 0 to 62, not %', coalesce(n::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END;
$$;

-- region binary
-- Move i goes from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3, and the disc it moves is
-- 1 + the number of trailing zero bits of i. The formula ends on peg 1 when n is even, so for even n
-- pegs 1 and 2 trade names (p becomes (3 - p) % 3), and the discs end on peg 2 for every n.
CREATE OR REPLACE FUNCTION hanoi.binary(n integer)
    RETURNS TABLE (move bigint, disk integer, source integer, target integer)
    LANGUAGE plpgsql
    AS $$
DECLARE
    moves bigint;
    rest bigint;
BEGIN
    PERFORM hanoi.check_discs(n);
    moves := (1::bigint << n) - 1;
    move := 1;
    WHILE move <= moves LOOP
        source := (move & (move - 1)) % 3;
        target := ((move | (move - 1)) + 1) % 3;
        IF n % 2 = 0 THEN
            source := (3 - source) % 3;
            target := (3 - target) % 3;
        END IF;
        disk := 1;
        rest := move;
        WHILE rest & 1 = 0 LOOP
            rest := rest >> 1;
            disk := disk + 1;
        END LOOP;
        RETURN NEXT;
        move := move + 1;
    END LOOP;
END;
$$;
-- endregion binary

-- region recursive
-- The recursion of r_toh (n, origin, target, spare), written as a recursive query: each row of
-- `calls` is one call, with the number its first move will have. A call of d discs makes the move
-- of disc d, numbered first + 2^(d-1) - 1, between its two calls of d - 1 discs: one from the origin
-- to the spare, one from the spare to the target. Ordered by that number, the moves come out as
-- r_toh prints them. (A PL/pgSQL function that calls itself would copy every level's rows up into
-- its caller's, n * 2^n row copies: four times slower at n = 20.)
CREATE OR REPLACE FUNCTION hanoi.recursive(n integer)
    RETURNS TABLE (move bigint, disk integer, source integer, target integer)
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM hanoi.check_discs(n);
    RETURN QUERY
    WITH RECURSIVE calls (discs, origin, goal, spare, first) AS (
        SELECT n, 0, 2, 1, 1::bigint
        WHERE n > 0
      UNION ALL
        SELECT call.discs - 1, half.origin, half.goal, half.spare, half.first
        FROM calls AS call,
            LATERAL (VALUES (call.origin, call.spare, call.goal, call.first),
                            (call.spare, call.goal, call.origin, call.first + (1::bigint << (call.discs - 1))))
                AS half (origin, goal, spare, first)
        WHERE call.discs > 1
    )
    SELECT calls.first + (1::bigint << (calls.discs - 1)) - 1, calls.discs, calls.origin, calls.goal
    FROM calls
    ORDER BY 1;
END;
$$;
-- endregion recursive

-- region iterative
-- Three stacks, stacks[peg][height], with the height of each. Every odd move is the smallest disc's,
-- always the same way round: 0 -> 1 -> 2 -> 0 for even n, 0 -> 2 -> 1 -> 0 for odd n. Every even
-- move is the one legal move between the two other pegs.
CREATE OR REPLACE FUNCTION hanoi.iterative(n integer)
    RETURNS TABLE (move bigint, disk integer, source integer, target integer)
    LANGUAGE plpgsql
    AS $$
DECLARE
    stacks integer[];
    heights integer[] := ARRAY[n, 0, 0];
    moves bigint;
    step integer;
    smallest integer := 0;
    other integer;
BEGIN
    PERFORM hanoi.check_discs(n);
    moves := (1::bigint << n) - 1;
    stacks := array_fill(0, ARRAY[3, greatest(n, 1)], ARRAY[0, 1]);
    FOR height IN 1 .. n LOOP
        stacks[0][height] := n + 1 - height;
    END LOOP;
    step := CASE WHEN n % 2 = 0 THEN 1 ELSE 2 END;
    move := 1;
    WHILE move <= moves LOOP
        IF move % 2 = 1 THEN
            source := smallest;
            target := (smallest + step) % 3;
            smallest := target;
        ELSE
            source := (smallest + 1) % 3;
            other := (smallest + 2) % 3;
            IF heights[source + 1] = 0
                    OR (heights[other + 1] > 0
                        AND stacks[other][heights[other + 1]] < stacks[source][heights[source + 1]]) THEN
                target := source;
                source := other;
            ELSE
                target := other;
            END IF;
        END IF;
        disk := stacks[source][heights[source + 1]];
        heights[source + 1] := heights[source + 1] - 1;
        heights[target + 1] := heights[target + 1] + 1;
        stacks[target][heights[target + 1]] := disk;
        RETURN NEXT;
        move := move + 1;
    END LOOP;
END;
$$;
-- endregion iterative

-- region cyclic
-- The cyclic Tower of Hanoi, after the cyclic Tower of Hanoi article: n discs from peg 0 to peg 1, a
-- disc only ever going from peg p to peg (p + 1) % 3. Taking k discs one peg on: k - 1 discs two pegs
-- on, disc k one on, the k - 1 two on again. Two pegs on: k - 1 two on, disc k one on, the k - 1 one on
-- (back where they started), disc k one on, the k - 1 two on. As with hanoi.recursive, each row of
-- the recursive query is one call, knowing the number of its first move; one_on[k + 1] and
-- two_on[k + 1] count the moves of k discs, one peg and two pegs on.
CREATE OR REPLACE FUNCTION hanoi.cyclic(n integer)
    RETURNS TABLE (move bigint, disk integer, source integer, target integer)
    LANGUAGE plpgsql
    AS $$
DECLARE
    one_on bigint[] := ARRAY[0];
    two_on bigint[] := ARRAY[0];
BEGIN
    PERFORM hanoi.check_discs(n);
    IF n > 40 THEN
        RAISE EXCEPTION 'the cyclic moves of % discs are more than a bigint counts (40 discs at most)', n
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR k IN 1 .. n LOOP
        one_on := one_on || 2 * two_on[k] + 1;
        two_on := two_on || 2 * two_on[k] + one_on[k] + 2;
    END LOOP;
    RETURN QUERY
    WITH RECURSIVE calls (discs, origin, goal, first) AS (
        SELECT n, 0, 1, 1::bigint
        WHERE n > 0
      UNION ALL
        SELECT call.discs - 1, part.origin, part.goal, part.first
        FROM calls AS call,
            LATERAL (SELECT call.goal = (call.origin + 1) % 3 AS adjacent,
                            two_on[call.discs] AS around, one_on[call.discs] AS back) AS via,
            LATERAL (VALUES (call.origin, (call.goal + 1) % 3, call.first, via.adjacent),
                            ((call.goal + 1) % 3, call.goal, call.first + via.around + 1, via.adjacent),
                            (call.origin, call.goal, call.first, NOT via.adjacent),
                            (call.goal, call.origin, call.first + via.around + 1, NOT via.adjacent),
                            (call.origin, call.goal, call.first + via.around + via.back + 2, NOT via.adjacent))
                AS part (origin, goal, first, taken)
        WHERE call.discs > 1 AND part.taken
    )
    SELECT step.move, calls.discs, step.source, step.target
    FROM calls,
        LATERAL (SELECT (calls.origin + 1) % 3 AS next, calls.goal = (calls.origin + 1) % 3 AS adjacent,
                        two_on[calls.discs] AS around, one_on[calls.discs] AS back) AS via,
        LATERAL (VALUES (calls.first + via.around, calls.origin, calls.goal, via.adjacent),
                        (calls.first + via.around, calls.origin, via.next, NOT via.adjacent),
                        (calls.first + via.around + via.back + 1, via.next, calls.goal, NOT via.adjacent))
            AS step (move, source, target, taken)
    WHERE step.taken
    ORDER BY 1;
END;
$$;
-- endregion cyclic

-- The notes' binary listing, which raises each move as a NOTICE. As printed it never returns, and
-- PostgreSQL stops it with "control reached end of function without RETURN"; here it returns the
-- number of moves. Like the listing, it ends on peg 1 when n is even.
CREATE OR REPLACE FUNCTION hanoi.b_toh (int)
    RETURNS varchar
    LANGUAGE plpgsql
    AS $$
DECLARE
    orig numeric;
    targ numeric;
BEGIN
    FOR i IN 1.. (1 << $1) - 1 LOOP
        orig := (i & i - 1) % 3;
        targ := ((i | i - 1) + 1) % 3;
        RAISE NOTICE 'Move %: From % to %', i, orig, targ;
    END LOOP;
    RETURN ((1 << $1) - 1) || ' moves';
END;
$$;

-- The notes' recursive listing: disks, origin, target, spare; the moves as one text. As printed
-- but for the schema name on its calls to itself, so that it runs whatever the search_path.
CREATE OR REPLACE FUNCTION hanoi.r_toh (int, int, int, int)
    RETURNS varchar
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF $1 > 0 THEN
        RETURN hanoi.r_toh ($1 - 1, $2, $4, $3) || $1 || ' from ' || $2 || ' to ' || $3 || E'\n' || hanoi.r_toh ($1 - 1, $4, $3, $2);
    ELSE
        RETURN '';
    END IF;
END;
$$;

COMMIT;
