CREATE SCHEMA IF NOT EXISTS fake_broken;

CREATE OR REPLACE FUNCTION fake_broken.binary(n integer)
    RETURNS TABLE (disk integer, source integer, target integer)
    LANGUAGE plpgsql
    AS $$
BEGIN
    RETURN QUERY SELEC 1, 0, 2;
END;
$$;
