-- Simulations (DESIGN §4, §7; docs/architecture/simulations.md) and the area of interest of a
-- heatmap item. Kept in step with ../postgres/20261123000000_simulations.sql: TEXT uuids, BIGINT
-- epoch-millisecond times, JSON as TEXT.
--
-- creative_id and location_id reference their rows WITHOUT "ON DELETE CASCADE", on purpose:
-- deleting a creative or a location must also delete the simulations' jobs (jobs have no
-- foreign key) and release their media (output, PNG, mask), which needs the ids of the deleted
-- rows. The server deletes them explicitly, in the same transaction, before the creative or
-- location (db/simulations.rs); the plain reference makes a forgotten delete fail loudly
-- instead of silently leaving jobs and media behind.
--
-- quad: JSON text of four normalised points, or NULL for the location's panel_quad.
-- adjustments: JSON text (regard_vision::composite::Adjustments). render_token: changes with
-- every queued render; a job saves its result only while the row still carries its token.
-- output_media_id: the JPEG (kind 'render', with preview and thumbnail variants);
-- output_png_media_id: the same render as PNG.
CREATE TABLE simulations (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
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

CREATE INDEX simulations_owner_created_idx ON simulations (owner_id, created_at, id);
CREATE INDEX simulations_creative_idx ON simulations (creative_id);
CREATE INDEX simulations_location_idx ON simulations (location_id);
CREATE INDEX simulations_output_idx ON simulations (output_media_id);
CREATE INDEX simulations_output_png_idx ON simulations (output_png_media_id);
CREATE INDEX simulations_mask_idx ON simulations (mask_media_id);

-- Attention in context. aoi: the automatic area of interest of a heatmap item, JSON text of the
-- panel's four normalised points, or NULL. panel: once done, JSON text of the panel's
-- {share, area_share, visibility} (also inside result; kept apart so that simulation lists read
-- a few bytes instead of each result's grid).
ALTER TABLE heatmap_items ADD COLUMN aoi TEXT;
ALTER TABLE heatmap_items ADD COLUMN panel TEXT;
