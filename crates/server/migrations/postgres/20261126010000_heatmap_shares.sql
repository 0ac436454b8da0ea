-- Read-only share links of heatmaps (issue 13; docs/architecture/heatmaps.md). Kept in step with
-- the other backend's file of the same name.
--
-- token_hash: SHA-256 (hex) of the link's random token; the token itself is shown once, at
-- creation, and never stored. A link works until expires_at (epoch ms) unless it is deleted
-- (revoked); it goes with its heatmap.
CREATE TABLE heatmap_shares (
    id TEXT PRIMARY KEY NOT NULL,
    heatmap_id TEXT NOT NULL REFERENCES heatmaps (id) ON DELETE CASCADE,
    owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE INDEX heatmap_shares_heatmap_idx ON heatmap_shares (heatmap_id, created_at);
