-- Viewing conditions of a location (issue 28; docs/viewing.md): who passes (audience
-- 'pedestrian' or 'road', NULL when unknown), the typical viewing distances in metres, the
-- approach speed in km/h (NULL: the audience's default), and a screen's resolution in pixels.
-- Locations saved before keep working: the panel size of a standard format is filled in where
-- none was given; nothing else can be inferred, so the rest stays empty.
-- Kept in step with ../postgres/20261130000000_viewing_conditions.sql.
ALTER TABLE locations ADD COLUMN audience TEXT;
ALTER TABLE locations ADD COLUMN viewing_distance_min_m DOUBLE PRECISION;
ALTER TABLE locations ADD COLUMN viewing_distance_max_m DOUBLE PRECISION;
ALTER TABLE locations ADD COLUMN speed_kmh DOUBLE PRECISION;
ALTER TABLE locations ADD COLUMN screen_width_px BIGINT;
ALTER TABLE locations ADD COLUMN screen_height_px BIGINT;

UPDATE locations SET panel_width_cm = 400, panel_height_cm = 300
    WHERE format IN ('billboard_4x3', 'billboard_12m2')
    AND panel_width_cm IS NULL AND panel_height_cm IS NULL;
UPDATE locations SET panel_width_cm = 120, panel_height_cm = 176
    WHERE format IN ('bus_shelter', 'mupi_2m2')
    AND panel_width_cm IS NULL AND panel_height_cm IS NULL;
