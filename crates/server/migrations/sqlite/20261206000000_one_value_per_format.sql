-- One value per panel format (issue 48). `billboard_12m2` was the 4 × 3 m panel under a second
-- name, so a filter on 4 × 3 missed those sites; `billboard_8m2` meant 4 × 2 m, a size no French
-- list carries: the trade's 8 m² is the 320 × 240 cm panel. A size the old format filled in
-- (400 × 200 cm) becomes the real one; a size given by hand is kept. Both values are still
-- accepted on input (ooh::FORMER_FORMATS). Kept in step with
-- ../postgres/20261206000000_one_value_per_format.sql.
UPDATE locations SET format = 'billboard_4x3' WHERE format = 'billboard_12m2';
UPDATE locations
SET format = 'billboard_320x240',
    panel_width_cm = CASE
        WHEN panel_width_cm = 400 AND panel_height_cm = 200 THEN 320 ELSE panel_width_cm END,
    panel_height_cm = CASE
        WHEN panel_width_cm = 400 AND panel_height_cm = 200 THEN 240 ELSE panel_height_cm END
WHERE format = 'billboard_8m2';
