CREATE OR REPLACE FUNCTION stubborn(n int) RETURNS TABLE (disk int, source int, target int) LANGUAGE plpgsql AS $$
BEGIN
    LOOP
        BEGIN
            PERFORM pg_catalog.pg_sleep(0.2);
        EXCEPTION WHEN query_canceled THEN
            NULL;
        END;
    END LOOP;
END $$;
