-- Heatmaps and the job queue (DESIGN §4, §6). Kept in step with
-- ../sqlite/20261121020000_heatmaps_jobs.sql: TEXT uuids, BIGINT epoch-millisecond times,
-- JSON as TEXT.

-- search: normalised name (lowercase, no diacritics), written by the server.
CREATE TABLE heatmaps (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    search TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX heatmaps_owner_created_idx ON heatmaps (owner_id, created_at, id);

-- One image of a heatmap. result: JSON text (scores, hotspots, regions, grid) once done. The
-- three output media (16-bit map, overlay, fog) are rows of kind 'heatmap'.
CREATE TABLE heatmap_items (
    id TEXT PRIMARY KEY NOT NULL,
    heatmap_id TEXT NOT NULL REFERENCES heatmaps (id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
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
);

CREATE INDEX heatmap_items_heatmap_idx ON heatmap_items (heatmap_id, position);
CREATE INDEX heatmap_items_source_idx ON heatmap_items (source_media_id, created_at);
CREATE INDEX heatmap_items_map_idx ON heatmap_items (map_media_id);
CREATE INDEX heatmap_items_overlay_idx ON heatmap_items (overlay_media_id);
CREATE INDEX heatmap_items_fog_idx ON heatmap_items (fog_media_id);

-- Durable jobs. A worker claims a ready job (queued and due, or running with an expired lease)
-- by setting status 'running', its lease owner and lease expiry in one statement; it extends
-- the lease while it works. subject_id: the row the job works on (a heatmap item), so deleting
-- that row can delete its jobs. payload: JSON text.
CREATE TABLE jobs (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    attempts BIGINT NOT NULL DEFAULT 0,
    max_attempts BIGINT NOT NULL,
    run_after BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX jobs_queued_idx ON jobs (status, run_after);
CREATE INDEX jobs_lease_idx ON jobs (status, lease_until);
CREATE INDEX jobs_subject_idx ON jobs (subject_id);
