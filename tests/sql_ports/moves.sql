-- The optimal moves, as rows: the recursion of the notes' r_toh, with a stack.
CREATE OR REPLACE FUNCTION moves(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE plpgsql AS $$
DECLARE
    todo int[] := ARRAY[n, 0, 2];
    discs int; src int; dst int;
BEGIN
    WHILE cardinality(todo) > 0 LOOP
        discs := todo[cardinality(todo) - 2]; src := todo[cardinality(todo) - 1]; dst := todo[cardinality(todo)];
        todo := todo[1:cardinality(todo) - 3];
        IF discs > 0 THEN
            -- the moves come out in reverse of the push order: after, the move, before
            todo := todo || ARRAY[discs - 1, 3 - src - dst, dst] || ARRAY[-discs, src, dst] || ARRAY[discs - 1, src, 3 - src - dst];
        ELSIF discs < 0 THEN
            disk := -discs; source := src; target := dst;
            RETURN NEXT;
        END IF;
    END LOOP;
END $$;
