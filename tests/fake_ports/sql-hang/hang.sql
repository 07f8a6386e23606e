CREATE SCHEMA IF NOT EXISTS fake_hang;

CREATE OR REPLACE FUNCTION fake_hang.binary(n integer)
    RETURNS TABLE (disk integer, source integer, target integer)
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_sleep(3600);
END;
$$;
