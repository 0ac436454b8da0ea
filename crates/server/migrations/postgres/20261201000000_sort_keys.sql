-- Names sorted as people read them (issue 31): accents and case folded by the server
-- (db::search::normalize: "Éclat" sorts with the e's, after "Café"), since neither database
-- collates portably. Rows written before get theirs from db::search::backfill at start-up,
-- which also writes the creatives' search text anew (it now holds their notes).
-- Kept in step with ../sqlite/20261201000000_sort_keys.sql.
ALTER TABLE creatives ADD COLUMN sort_name TEXT NOT NULL DEFAULT '';
ALTER TABLE locations ADD COLUMN sort_name TEXT NOT NULL DEFAULT '';
ALTER TABLE locations ADD COLUMN sort_city TEXT NOT NULL DEFAULT '';
ALTER TABLE heatmaps ADD COLUMN sort_name TEXT NOT NULL DEFAULT '';
