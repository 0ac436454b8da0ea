-- A revision of each account's library (issue 30, the list's speed): any write to the account's
-- creatives or media rows raises it, by triggers, so that no code path can forget to. A list
-- answer is the same as long as the revision is (the server keeps recent answers under it);
-- the revision is read with the user on every request, so every node sees a write at once.
-- Kept in step with ../sqlite/20261203000000_library_revision.sql.
ALTER TABLE users ADD COLUMN library_revision BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION raise_library_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE users SET library_revision = library_revision + 1 WHERE id = NEW.owner_id;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE users SET library_revision = library_revision + 1
        WHERE id IN (OLD.owner_id, NEW.owner_id);
    ELSE
        UPDATE users SET library_revision = library_revision + 1 WHERE id = OLD.owner_id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER creatives_revision AFTER INSERT OR UPDATE OR DELETE ON creatives
    FOR EACH ROW EXECUTE FUNCTION raise_library_revision();
CREATE TRIGGER media_revision AFTER INSERT OR UPDATE OR DELETE ON media
    FOR EACH ROW EXECUTE FUNCTION raise_library_revision();
