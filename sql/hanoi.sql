-- The Tower of Hanoi in PL/pgSQL, after the Tower of Hanoi notes' PostgreSQL listings.
--
-- Everything lives in the schema hanoi; loading this file again replaces it in place, in one
-- transaction. Three functions make the same 2^n - 1 moves of n discs from peg 0 to peg 2 and, as
-- the notes' b_toh does, raise each move as a NOTICE the moment it is made: the disc, the source
-- peg and the target peg. A client hears each move while the function goes on (psql prints it on
-- standard error, psycopg hands it to a notice handler), and the server keeps no move once it is
-- out, so its memory does not grow with the number of moves.
--
--   SELECT hanoi.binary(3);       -- the bitwise formula of the notes' b_toh
--   SELECT hanoi.recursive(3);    -- the recursion of the notes' r_toh, a function that calls itself
--   SELECT hanoi.iterative(3);    -- the notes' i_toh: the one legal move between two pegs, in turn
--
-- and a fourth the moves of the cyclic Tower of Hanoi, n discs from peg 0 to peg 1, one peg on at a
-- time:
--
--   SELECT hanoi.cyclic(3);       -- the cyclic Tower of Hanoi article's two transfers
--
--   NOTICE:  1 0 2
--   NOTICE:  2 0 1
--   ...
--
-- The notes' own functions are kept beside them, as hanoi.b_toh and hanoi.r_toh: with
-- SET search_path = hanoi, public; the notes' session (SELECT b_toh (3); SELECT r_toh (3, 0, 2, 1);)
-- runs unchanged.
--
-- Mind PostgreSQL's precedence: - binds tighter than &, | and <<, so i & i - 1 is i & (i - 1).

BEGIN;

CREATE SCHEMA IF NOT EXISTS hanoi;

-- n is a number of discs from 0 to 62 (binary counts its moves in a bigint, and 2^62 - 1 is as far
-- as 1 << n goes in one); anything else, NULL included, is refused with SQLSTATE 22023,
-- invalid_parameter_value, before any move.
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
    RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    i bigint := 1;
    source integer;
    target integer;
    disk integer;
    rest bigint;
BEGIN
    PERFORM hanoi.check_discs(n);
    WHILE i < 1::bigint << n LOOP
        source := (i & i - 1) % 3;
        target := ((i | i - 1) + 1) % 3;
        IF n % 2 = 0 THEN
            source := (3 - source) % 3;
            target := (3 - target) % 3;
        END IF;
        disk := 1;
        rest := i;
        WHILE rest & 1 = 0 LOOP
            rest := rest >> 1;
            disk := disk + 1;
        END LOOP;
        RAISE NOTICE '% % %', disk, source, target;
        i := i + 1;
    END LOOP;
END;
$$;
-- endregion binary

-- region recursive
-- r_toh (disks, origin, target, spare): the disks but the largest from the origin to the spare, the
-- largest from the origin to the target, then the others from the spare onto it.
CREATE OR REPLACE FUNCTION hanoi.r_move(disks integer, origin integer, target integer, spare integer)
    RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF disks > 0 THEN
        PERFORM hanoi.r_move(disks - 1, origin, spare, target);
        RAISE NOTICE '% % %', disks, origin, target;
        PERFORM hanoi.r_move(disks - 1, spare, target, origin);
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION hanoi.recursive(n integer)
    RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM hanoi.check_discs(n);
    PERFORM hanoi.r_move(n, 0, 2, 1);
END;
$$;
-- endregion recursive

-- region iterative
-- i_toh: the pegs taken two at a time, in turn, 0-1, 0-2, 1-2 for even n and 0-2, 0-1, 1-2 for odd
-- n, and between each two the one legal move (legal: onto an empty peg, or the smaller top disc onto
-- the larger), until peg 2 holds every disc. stacks[peg][height] are the three stacks, bottom first.
CREATE OR REPLACE FUNCTION hanoi.iterative(n integer)
    RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    stacks integer[];
    heights integer[] := ARRAY[n, 0, 0];
    firsts integer[] := ARRAY[0, 0, 1];
    seconds integer[];
    source integer;
    target integer;
    disk integer;
BEGIN
    PERFORM hanoi.check_discs(n);
    stacks := array_fill(0, ARRAY[3, greatest(n, 1)], ARRAY[0, 1]);
    FOR height IN 1 .. n LOOP
        stacks[0][height] := n + 1 - height;
    END LOOP;
    seconds := CASE WHEN n % 2 = 0 THEN ARRAY[1, 2, 2] ELSE ARRAY[2, 1, 2] END;
    <<turns>>
    LOOP
        FOR pair IN 1 .. 3 LOOP
            EXIT turns WHEN heights[3] = n;
            -- legal (a, b)
            source := firsts[pair];
            target := seconds[pair];
            IF heights[source + 1] = 0
                    OR (heights[target + 1] > 0
                        AND stacks[target][heights[target + 1]] < stacks[source][heights[source + 1]]) THEN
                source := seconds[pair];
                target := firsts[pair];
            END IF;
            disk := stacks[source][heights[source + 1]];
            heights[source + 1] := heights[source + 1] - 1;
            heights[target + 1] := heights[target + 1] + 1;
            stacks[target][heights[target + 1]] := disk;
            RAISE NOTICE '% % %', disk, source, target;
        END LOOP;
    END LOOP;
END;
$$;
-- endregion iterative

-- region cyclic
-- The cyclic Tower of Hanoi, after the cyclic Tower of Hanoi article: n discs from peg 0 to peg 1, a
-- disc only ever going from peg p to the next, (p + 1) % 3. Two transfers, each calling the other:
-- discs to the adjacent peg, and discs to the peg after it (post-adjacent). The article's base case
-- is one disc; its disc is the largest of those a transfer moves.
CREATE OR REPLACE FUNCTION hanoi.next_peg(peg integer)
    RETURNS integer
    LANGUAGE sql
    IMMUTABLE
    RETURN (peg + 1) % 3;

-- To the adjacent peg: one disc moves. More: the others out of the way two pegs on (to the peg
-- after the target), the largest one on, the others two pegs on again, onto it.
CREATE OR REPLACE FUNCTION hanoi.transfer_direct(discs integer, source integer, target integer)
    RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF discs = 1 THEN
        RAISE NOTICE '% % %', discs, source, target;
    ELSE
        PERFORM hanoi.transfer_indirect(discs - 1, source, hanoi.next_peg(target));
        RAISE NOTICE '% % %', discs, source, target;
        PERFORM hanoi.transfer_indirect(discs - 1, hanoi.next_peg(target), target);
    END IF;
END;
$$;

-- To the post-adjacent peg: one disc goes one peg on twice. More: the others to the target, the
-- largest one on, the others back to the source (one peg on for them), the largest one on again,
-- the others to the target.
CREATE OR REPLACE FUNCTION hanoi.transfer_indirect(discs integer, source integer, target integer)
    RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF discs = 1 THEN
        PERFORM hanoi.transfer_direct(1, source, hanoi.next_peg(source));
        PERFORM hanoi.transfer_direct(1, hanoi.next_peg(source), target);
    ELSE
        PERFORM hanoi.transfer_indirect(discs - 1, source, target);
        RAISE NOTICE '% % %', discs, source, hanoi.next_peg(source);
        PERFORM hanoi.transfer_direct(discs - 1, target, source);
        RAISE NOTICE '% % %', discs, hanoi.next_peg(source), target;
        PERFORM hanoi.transfer_indirect(discs - 1, source, target);
    END IF;
END;
$$;

CREATE OR REPLACE FUNCTION hanoi.cyclic(n integer)
    RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM hanoi.check_discs(n);
    IF n > 0 THEN
        PERFORM hanoi.transfer_direct(n, 0, 1);
    END IF;
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
