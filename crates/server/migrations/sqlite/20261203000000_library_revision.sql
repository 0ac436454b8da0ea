-- A revision of each account's library (issue 30, the list's speed): any write to the account's
-- creatives or media rows raises it, by triggers, so that no code path can forget to. A list
-- answer is the same as long as the revision is (the server keeps recent answers under it);
-- the revision is read with the user on every request, so every node sees a write at once.
-- Kept in step with ../postgres/20261203000000_library_revision.sql.
ALTER TABLE users ADD COLUMN library_revision BIGINT NOT NULL DEFAULT 0;

CREATE TRIGGER creatives_revision_insert AFTER INSERT ON creatives
BEGIN
    UPDATE users SET library_revision = library_revision + 1 WHERE id = NEW.owner_id;
END;
CREATE TRIGGER creatives_revision_update AFTER UPDATE ON creatives
BEGIN
    UPDATE users SET library_revision = library_revision + 1
    WHERE id IN (OLD.owner_id, NEW.owner_id);
END;
CREATE TRIGGER creatives_revision_delete AFTER DELETE ON creatives
BEGIN
    UPDATE users SET library_revision = library_revision + 1 WHERE id = OLD.owner_id;
END;

CREATE TRIGGER media_revision_insert AFTER INSERT ON media
BEGIN
    UPDATE users SET library_revision = library_revision + 1 WHERE id = NEW.owner_id;
END;
CREATE TRIGGER media_revision_update AFTER UPDATE ON media
BEGIN
    UPDATE users SET library_revision = library_revision + 1
    WHERE id IN (OLD.owner_id, NEW.owner_id);
END;
CREATE TRIGGER media_revision_delete AFTER DELETE ON media
BEGIN
    UPDATE users SET library_revision = library_revision + 1 WHERE id = OLD.owner_id;
END;
