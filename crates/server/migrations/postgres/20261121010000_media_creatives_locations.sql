-- Media, creatives and locations (DESIGN §4). Kept in step with
-- ../sqlite/20261121010000_media_creatives_locations.sql: TEXT uuids, BIGINT epoch-millisecond
-- times, DOUBLE PRECISION coordinates, JSON as TEXT.

-- One row per image per owner. Objects are content-addressed by sha256 and may be shared by
-- several rows (two users uploading the same file); they are deleted with the last such row.
CREATE TABLE media (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
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

CREATE INDEX media_owner_id_idx ON media (owner_id, created_at);
CREATE INDEX media_sha256_idx ON media (sha256);

-- search: normalised name, brand and campaign (lowercase, no diacritics), written by the server.
CREATE TABLE creatives (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    media_id TEXT NOT NULL REFERENCES media (id),
    name TEXT NOT NULL,
    brand TEXT,
    campaign TEXT,
    notes TEXT,
    search TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX creatives_owner_created_idx ON creatives (owner_id, created_at, id);
CREATE INDEX creatives_media_id_idx ON creatives (media_id);

-- search: normalised name, address, city and postal code. panel_quad: JSON text, four points
-- normalised to 0..1 in the photo, clockwise from top-left.
CREATE TABLE locations (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
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
);

CREATE INDEX locations_owner_created_idx ON locations (owner_id, created_at, id);
CREATE INDEX locations_photo_media_id_idx ON locations (photo_media_id);
