-- Areas of interest on heatmap items (issue 13; docs/architecture/heatmaps.md). Kept in step
-- with the other backend's file of the same name: TEXT uuids, BIGINT epoch-millisecond times,
-- JSON as TEXT.
--
-- points: JSON text [{"x", "y"}, …] relative to the image (0..1); shape 'rect' (four
-- axis-aligned corners) or 'polygon' (3 to 32 points). name_key: the name lowercased without
-- diacritics, unique per item, so that areas of the same name line up across the images of a
-- heatmap (copy, compare view, reports). position: the order the item's areas were made in.
CREATE TABLE heatmap_aois (
    id TEXT PRIMARY KEY NOT NULL,
    item_id TEXT NOT NULL REFERENCES heatmap_items (id) ON DELETE CASCADE,
    heatmap_id TEXT NOT NULL REFERENCES heatmaps (id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    shape TEXT NOT NULL CHECK (shape IN ('rect', 'polygon')),
    points TEXT NOT NULL,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE UNIQUE INDEX heatmap_aois_item_name_idx ON heatmap_aois (item_id, name_key);
CREATE INDEX heatmap_aois_heatmap_idx ON heatmap_aois (heatmap_id);
