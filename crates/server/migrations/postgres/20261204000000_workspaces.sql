-- Workspaces (issue 29): every library row belongs to a workspace instead of an account. Each
-- account has a personal workspace whose id is the account's own, so the library tables keep
-- their `owner_id` column and every value in it: it now names the owning workspace, and only
-- its foreign key moves from `users` to `workspaces`. Kept in step with
-- ../sqlite/20261204000000_workspaces.sql.

CREATE TABLE workspaces (
    id TEXT PRIMARY KEY NOT NULL,
    -- Empty for a personal workspace: the app names it in the reader's language.
    name TEXT NOT NULL,
    -- The account whose personal workspace this is (then `id` is that account's id), NULL for a
    -- shared one. Deleting the account deletes its personal workspace and what it holds.
    personal_of TEXT UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    -- Raised by triggers on any write to the workspace's creatives or media (the server keeps
    -- recent list answers under it; was `users.library_revision`).
    library_revision BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE workspace_members (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON workspace_members (user_id);

CREATE TABLE workspace_invitations (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    -- Lower-cased; only an account with this address can accept.
    email TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
    -- SHA-256 of the token the mail carries (the token itself is never stored).
    token_hash TEXT NOT NULL UNIQUE,
    invited_by TEXT REFERENCES users (id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    accepted_at BIGINT,
    revoked_at BIGINT
);
CREATE INDEX workspace_invitations_workspace_idx ON workspace_invitations (workspace_id, created_at);

-- Every account, deleted ones included (their rows still own data), gets its personal
-- workspace, with the revision its library had.
INSERT INTO workspaces (id, name, personal_of, library_revision, created_at, updated_at)
SELECT id, '', id, library_revision, created_at, created_at FROM users;
INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
SELECT id, id, 'owner', created_at FROM users;

-- And so does every account made from now on, whichever code path makes it.
CREATE FUNCTION create_personal_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO workspaces (id, name, personal_of, library_revision, created_at, updated_at)
    VALUES (NEW.id, '', NEW.id, 0, NEW.created_at, NEW.created_at);
    INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
    VALUES (NEW.id, NEW.id, 'owner', NEW.created_at);
    RETURN NULL;
END;
$$;
CREATE TRIGGER users_personal_workspace AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION create_personal_workspace();

-- The library tables' owner is now a workspace.
ALTER TABLE media DROP CONSTRAINT media_owner_id_fkey,
    ADD CONSTRAINT media_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE creatives DROP CONSTRAINT creatives_owner_id_fkey,
    ADD CONSTRAINT creatives_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE locations DROP CONSTRAINT locations_owner_id_fkey,
    ADD CONSTRAINT locations_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE heatmaps DROP CONSTRAINT heatmaps_owner_id_fkey,
    ADD CONSTRAINT heatmaps_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE heatmap_items DROP CONSTRAINT heatmap_items_owner_id_fkey,
    ADD CONSTRAINT heatmap_items_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE simulations DROP CONSTRAINT simulations_owner_id_fkey,
    ADD CONSTRAINT simulations_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE heatmap_aois DROP CONSTRAINT heatmap_aois_owner_id_fkey,
    ADD CONSTRAINT heatmap_aois_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;
ALTER TABLE heatmap_shares DROP CONSTRAINT heatmap_shares_owner_id_fkey,
    ADD CONSTRAINT heatmap_shares_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES workspaces (id) ON DELETE CASCADE;

-- The library revision, now the workspace's.
CREATE OR REPLACE FUNCTION raise_library_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE workspaces SET library_revision = library_revision + 1 WHERE id = NEW.owner_id;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE workspaces SET library_revision = library_revision + 1
        WHERE id IN (OLD.owner_id, NEW.owner_id);
    ELSE
        UPDATE workspaces SET library_revision = library_revision + 1 WHERE id = OLD.owner_id;
    END IF;
    RETURN NULL;
END;
$$;

ALTER TABLE users DROP COLUMN library_revision;
