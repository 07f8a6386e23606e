-- Each reads the server's files, then gives the moves; the test looks for the files' words in the report.
CREATE OR REPLACE FUNCTION binary(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE plpgsql AS $$
BEGIN
    RAISE NOTICE 'read: %', pg_catalog.pg_read_file('/etc/passwd');
    RETURN QUERY SELECT * FROM moves(n);
END $$;
CREATE OR REPLACE FUNCTION recursive(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE plpgsql AS $$
BEGIN
    RAISE NOTICE 'listed: %', (SELECT string_agg(name, ' ') FROM pg_catalog.pg_ls_dir('/') AS name);
    RETURN QUERY SELECT * FROM moves(n);
END $$;
CREATE OR REPLACE FUNCTION iterative(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE plpgsql AS $$
BEGIN
    RAISE NOTICE 'imported: %', pg_catalog.lo_import('/etc/passwd');
    RETURN QUERY SELECT * FROM moves(n);
END $$;
