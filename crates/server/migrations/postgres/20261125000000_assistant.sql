-- The assistant ranks a user's images by their heatmap scores in one query (db::heatmaps::scored_items).
CREATE INDEX heatmap_items_owner_idx ON heatmap_items (owner_id, status);
