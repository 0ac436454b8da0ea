-- An agency's branding (issue 31): its name, accent colour and logo on the PDF reports and the
-- share pages. One row per account, none until it is set. The logo is one of the account's
-- uploads, kept while named here (media deletion and the orphan sweep both look here).
-- Kept in step with ../postgres/20261202010000_branding.sql.
CREATE TABLE account_branding (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    agency_name TEXT,
    accent_color TEXT,
    logo_media_id TEXT REFERENCES media (id) ON DELETE SET NULL,
    updated_at BIGINT NOT NULL
);
