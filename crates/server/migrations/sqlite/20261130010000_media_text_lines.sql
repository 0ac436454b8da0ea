-- The lines of text found in an image (issue 28: legibility on the panel), read once from its
-- preview variant and kept: JSON text [{"x", "y", "width", "height", "letter_height", "score"}]
-- relative to the image. A row per analysed image; deleted with it.
-- Kept in step with ../postgres/20261130010000_media_text_lines.sql.
CREATE TABLE media_text_lines (
    media_id TEXT PRIMARY KEY NOT NULL REFERENCES media (id) ON DELETE CASCADE,
    lines TEXT NOT NULL,
    detector_version BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
