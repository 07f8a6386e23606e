CREATE OR REPLACE FUNCTION lockout() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'locked out';
END $$;
CREATE EVENT TRIGGER lockout ON login EXECUTE FUNCTION lockout();
