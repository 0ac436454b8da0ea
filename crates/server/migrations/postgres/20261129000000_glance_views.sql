-- The first glance's images (issue 27): the map of the fixations that start within the first
-- second, its colour overlay and its fog view, stored beside the full map's so the results
-- page, the exports and the share pages can switch between "First glance (1 s)" and
-- "Exploration (3 s)". NULL for items analysed before they were stored (the page then offers
-- the full map only). Kept in step with ../sqlite/20261129000000_glance_views.sql.
ALTER TABLE heatmap_items ADD COLUMN glance_map_media_id TEXT REFERENCES media (id);
ALTER TABLE heatmap_items ADD COLUMN glance_overlay_media_id TEXT REFERENCES media (id);
ALTER TABLE heatmap_items ADD COLUMN glance_fog_media_id TEXT REFERENCES media (id);

CREATE INDEX heatmap_items_glance_map_idx ON heatmap_items (glance_map_media_id);
CREATE INDEX heatmap_items_glance_overlay_idx ON heatmap_items (glance_overlay_media_id);
CREATE INDEX heatmap_items_glance_fog_idx ON heatmap_items (glance_fog_media_id);
