-- Workspaces (issue 29): every library row belongs to a workspace instead of an account. Each
-- account has a personal workspace whose id is the account's own, so the library tables keep
-- their `owner_id` column and every value in it: it now names the owning workspace, and only
-- its foreign key moves from `users` to `workspaces`. Kept in step with
-- ../postgres/20261204000000_workspaces.sql.
--
-- SQLite cannot change a foreign key in place, so the eight library tables are rebuilt as its
-- documentation says (https://sqlite.org/lang_altertable.html#otheralter), column for column
-- and row for row, with their indexes and the library revision's triggers. `Db::migrate` runs
-- SQLite migrations with foreign keys off and checks them all afterwards.

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
CREATE TRIGGER users_personal_workspace AFTER INSERT ON users
BEGIN
    INSERT INTO workspaces (id, name, personal_of, library_revision, created_at, updated_at)
    VALUES (NEW.id, '', NEW.id, 0, NEW.created_at, NEW.created_at);
    INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
    VALUES (NEW.id, NEW.id, 'owner', NEW.created_at);
END;

CREATE TABLE media_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('upload', 'render', 'heatmap')),
    mime TEXT NOT NULL,
    width BIGINT NOT NULL,
    height BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    original_name TEXT,
    original_key TEXT NOT NULL,
    preview_key TEXT NOT NULL,
    preview_mime TEXT NOT NULL,
    thumbnail_key TEXT NOT NULL,
    thumbnail_mime TEXT NOT NULL,
    gps_latitude DOUBLE PRECISION,
    gps_longitude DOUBLE PRECISION,
    created_at BIGINT NOT NULL
);
INSERT INTO media_rebuilt SELECT * FROM media;
DROP TABLE media;
ALTER TABLE media_rebuilt RENAME TO media;
CREATE INDEX media_owner_id_idx ON media (owner_id, created_at);
CREATE INDEX media_sha256_idx ON media (sha256);

CREATE TABLE creatives_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    media_id TEXT NOT NULL REFERENCES media (id),
    name TEXT NOT NULL,
    brand TEXT,
    campaign TEXT,
    notes TEXT,
    search TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
, sort_name TEXT NOT NULL DEFAULT '');
INSERT INTO creatives_rebuilt SELECT * FROM creatives;
DROP TABLE creatives;
ALTER TABLE creatives_rebuilt RENAME TO creatives;
CREATE INDEX creatives_owner_created_idx ON creatives (owner_id, created_at, id);
CREATE INDEX creatives_media_id_idx ON creatives (media_id);

CREATE TABLE locations_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    address TEXT,
    city TEXT,
    postal_code TEXT,
    country TEXT,
    latitude DOUBLE PRECISION,
    longitude DOUBLE PRECISION,
    format TEXT NOT NULL,
    panel_width_cm BIGINT,
    panel_height_cm BIGINT,
    illumination TEXT NOT NULL,
    orientation_deg DOUBLE PRECISION,
    photo_media_id TEXT REFERENCES media (id),
    panel_quad TEXT,
    notes TEXT,
    search TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
, audience TEXT, viewing_distance_min_m DOUBLE PRECISION, viewing_distance_max_m DOUBLE PRECISION, speed_kmh DOUBLE PRECISION, screen_width_px BIGINT, screen_height_px BIGINT, sort_name TEXT NOT NULL DEFAULT '', sort_city TEXT NOT NULL DEFAULT '');
INSERT INTO locations_rebuilt SELECT * FROM locations;
DROP TABLE locations;
ALTER TABLE locations_rebuilt RENAME TO locations;
CREATE INDEX locations_owner_created_idx ON locations (owner_id, created_at, id);
CREATE INDEX locations_photo_media_id_idx ON locations (photo_media_id);

CREATE TABLE heatmaps_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    search TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
, sort_name TEXT NOT NULL DEFAULT '');
INSERT INTO heatmaps_rebuilt SELECT * FROM heatmaps;
DROP TABLE heatmaps;
ALTER TABLE heatmaps_rebuilt RENAME TO heatmaps;
CREATE INDEX heatmaps_owner_created_idx ON heatmaps (owner_id, created_at, id);

CREATE TABLE heatmap_items_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    heatmap_id TEXT NOT NULL REFERENCES heatmaps (id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    source_media_id TEXT NOT NULL REFERENCES media (id),
    status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'done', 'failed')),
    error_code TEXT,
    error_message TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    result TEXT,
    score DOUBLE PRECISION,
    map_media_id TEXT REFERENCES media (id),
    overlay_media_id TEXT REFERENCES media (id),
    fog_media_id TEXT REFERENCES media (id),
    started_at BIGINT,
    finished_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
, aoi TEXT, panel TEXT, glance_map_media_id TEXT REFERENCES media (id), glance_overlay_media_id TEXT REFERENCES media (id), glance_fog_media_id TEXT REFERENCES media (id));
INSERT INTO heatmap_items_rebuilt SELECT * FROM heatmap_items;
DROP TABLE heatmap_items;
ALTER TABLE heatmap_items_rebuilt RENAME TO heatmap_items;
CREATE INDEX heatmap_items_heatmap_idx ON heatmap_items (heatmap_id, position);
CREATE INDEX heatmap_items_source_idx ON heatmap_items (source_media_id, created_at);
CREATE INDEX heatmap_items_map_idx ON heatmap_items (map_media_id);
CREATE INDEX heatmap_items_overlay_idx ON heatmap_items (overlay_media_id);
CREATE INDEX heatmap_items_fog_idx ON heatmap_items (fog_media_id);
CREATE INDEX heatmap_items_owner_idx ON heatmap_items (owner_id, status);
CREATE INDEX heatmap_items_glance_map_idx ON heatmap_items (glance_map_media_id);
CREATE INDEX heatmap_items_glance_overlay_idx ON heatmap_items (glance_overlay_media_id);
CREATE INDEX heatmap_items_glance_fog_idx ON heatmap_items (glance_fog_media_id);

CREATE TABLE simulations_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    search TEXT NOT NULL,
    creative_id TEXT NOT NULL REFERENCES creatives (id),
    location_id TEXT NOT NULL REFERENCES locations (id),
    quad TEXT,
    fit TEXT NOT NULL CHECK (fit IN ('stretch', 'cover', 'contain')),
    background TEXT NOT NULL,
    adjustments TEXT NOT NULL,
    mask_media_id TEXT REFERENCES media (id),
    status TEXT NOT NULL CHECK (status IN ('draft', 'queued', 'rendering', 'done', 'failed')),
    error_code TEXT,
    error_message TEXT,
    render_token TEXT,
    output_media_id TEXT REFERENCES media (id),
    output_png_media_id TEXT REFERENCES media (id),
    rendered_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
INSERT INTO simulations_rebuilt SELECT * FROM simulations;
DROP TABLE simulations;
ALTER TABLE simulations_rebuilt RENAME TO simulations;
CREATE INDEX simulations_owner_created_idx ON simulations (owner_id, created_at, id);
CREATE INDEX simulations_creative_idx ON simulations (creative_id);
CREATE INDEX simulations_location_idx ON simulations (location_id);
CREATE INDEX simulations_output_idx ON simulations (output_media_id);
CREATE INDEX simulations_output_png_idx ON simulations (output_png_media_id);
CREATE INDEX simulations_mask_idx ON simulations (mask_media_id);

CREATE TABLE heatmap_aois_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    item_id TEXT NOT NULL REFERENCES heatmap_items (id) ON DELETE CASCADE,
    heatmap_id TEXT NOT NULL REFERENCES heatmaps (id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    shape TEXT NOT NULL CHECK (shape IN ('rect', 'polygon')),
    points TEXT NOT NULL,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
INSERT INTO heatmap_aois_rebuilt SELECT * FROM heatmap_aois;
DROP TABLE heatmap_aois;
ALTER TABLE heatmap_aois_rebuilt RENAME TO heatmap_aois;
CREATE UNIQUE INDEX heatmap_aois_item_name_idx ON heatmap_aois (item_id, name_key);
CREATE INDEX heatmap_aois_heatmap_idx ON heatmap_aois (heatmap_id);

CREATE TABLE heatmap_shares_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    heatmap_id TEXT NOT NULL REFERENCES heatmaps (id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
INSERT INTO heatmap_shares_rebuilt SELECT * FROM heatmap_shares;
DROP TABLE heatmap_shares;
ALTER TABLE heatmap_shares_rebuilt RENAME TO heatmap_shares;
CREATE INDEX heatmap_shares_heatmap_idx ON heatmap_shares (heatmap_id, created_at);

-- The library revision, now the workspace's (the old triggers went with the rebuilt tables).
CREATE TRIGGER creatives_revision_insert AFTER INSERT ON creatives
BEGIN
    UPDATE workspaces SET library_revision = library_revision + 1 WHERE id = NEW.owner_id;
END;
CREATE TRIGGER creatives_revision_update AFTER UPDATE ON creatives
BEGIN
    UPDATE workspaces SET library_revision = library_revision + 1
    WHERE id IN (OLD.owner_id, NEW.owner_id);
END;
CREATE TRIGGER creatives_revision_delete AFTER DELETE ON creatives
BEGIN
    UPDATE workspaces SET library_revision = library_revision + 1 WHERE id = OLD.owner_id;
END;
CREATE TRIGGER media_revision_insert AFTER INSERT ON media
BEGIN
    UPDATE workspaces SET library_revision = library_revision + 1 WHERE id = NEW.owner_id;
END;
CREATE TRIGGER media_revision_update AFTER UPDATE ON media
BEGIN
    UPDATE workspaces SET library_revision = library_revision + 1
    WHERE id IN (OLD.owner_id, NEW.owner_id);
END;
CREATE TRIGGER media_revision_delete AFTER DELETE ON media
BEGIN
    UPDATE workspaces SET library_revision = library_revision + 1 WHERE id = OLD.owner_id;
END;

ALTER TABLE users DROP COLUMN library_revision;
