-- Comments and approval on heatmaps and simulations, and the activity of a workspace
-- (issue 29). Kept in step with ../sqlite/20261204010000_reviews_activity.sql.

-- A comment is on one heatmap or one simulation (exactly one of the two ids), and goes with it.
CREATE TABLE comments (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    heatmap_id TEXT REFERENCES heatmaps (id) ON DELETE CASCADE,
    simulation_id TEXT REFERENCES simulations (id) ON DELETE CASCADE,
    -- NULL once the author's account is deleted (the comment stays).
    author_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    body TEXT NOT NULL,
    -- The members the body mentions (`@address`), as a JSON list of user ids.
    mentions TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CHECK ((heatmap_id IS NULL) <> (simulation_id IS NULL))
);
CREATE INDEX comments_heatmap_idx ON comments (heatmap_id, created_at);
CREATE INDEX comments_simulation_idx ON comments (simulation_id, created_at);

-- The review status of a heatmap or a simulation; no row: `pending`, set by nobody.
CREATE TABLE approvals (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    heatmap_id TEXT UNIQUE REFERENCES heatmaps (id) ON DELETE CASCADE,
    simulation_id TEXT UNIQUE REFERENCES simulations (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'changes_requested')),
    set_by TEXT REFERENCES users (id) ON DELETE SET NULL,
    set_at BIGINT NOT NULL,
    CHECK ((heatmap_id IS NULL) <> (simulation_id IS NULL))
);

-- Who did what to what, and when; kept 180 days (the sweep deletes older rows). The action and
-- the kind of subject are the API's `ActivityAction` and `ActivitySubject` (no CHECK, so that a
-- new value needs no table rebuild on SQLite). `subject_name` is the name at the time, kept
-- when the subject is deleted.
CREATE TABLE activity (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    actor_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    action TEXT NOT NULL,
    subject_type TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    subject_name TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX activity_workspace_idx ON activity (workspace_id, created_at, id);
CREATE INDEX activity_created_idx ON activity (created_at);
