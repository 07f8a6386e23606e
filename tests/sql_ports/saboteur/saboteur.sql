CREATE SCHEMA IF NOT EXISTS hanoi;
CREATE OR REPLACE FUNCTION hanoi.sabotage() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    other int;
BEGIN
    -- Every other role's server process it can see: the real port's queries, the harness's own, the
    -- server's own workers. Not a client's that has no role yet: it is still logging in, and may be
    -- one of this port's own cells, which its role may end (a race that is the port's own fault).
    FOR other IN
        SELECT pid FROM pg_catalog.pg_stat_activity
        WHERE usename IS DISTINCT FROM current_user AND (usename IS NOT NULL OR backend_type <> 'client backend')
    LOOP
        BEGIN
            PERFORM pg_catalog.pg_terminate_backend(other);
        EXCEPTION WHEN OTHERS THEN
            RAISE NOTICE 'could not end %: %', other, SQLERRM;
        END;
    END LOOP;
    BEGIN
        SET ROLE postgres;
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'could not become postgres: %', SQLERRM;
    END;
END $$;
CREATE OR REPLACE FUNCTION hanoi.binary(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM hanoi.sabotage();
    RETURN QUERY SELECT m.disk, m.target, m.source FROM moves(n) AS m;
END $$;
CREATE OR REPLACE FUNCTION hanoi.recursive(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE sql AS
    'SELECT * FROM hanoi.binary(n)';
CREATE OR REPLACE FUNCTION hanoi.iterative(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE sql AS
    'SELECT * FROM hanoi.binary(n)';
