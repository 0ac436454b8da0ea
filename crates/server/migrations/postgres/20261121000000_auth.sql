-- Auth schema (GoTrue-compatible users, sessions, AMR claims and refresh tokens).
-- Kept in step with ../sqlite/20261121000000_auth.sql: ids are TEXT uuids, times are BIGINT
-- epoch milliseconds, JSON is TEXT, so the same queries run through sqlx's Any driver.

CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    email TEXT NOT NULL UNIQUE,
    encrypted_password TEXT NOT NULL,
    email_confirmed_at BIGINT,
    app_metadata TEXT NOT NULL,
    user_metadata TEXT NOT NULL,
    last_sign_in_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE sessions (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    aal TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    refreshed_at BIGINT,
    user_agent TEXT,
    ip TEXT
);

CREATE INDEX sessions_user_id_idx ON sessions (user_id);

CREATE TABLE session_amr_claims (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    method TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (session_id, method)
);

-- session_id deliberately has no foreign key: a token outlives its session so that presenting
-- it after sign-out answers session_not_found rather than refresh_token_not_found.
CREATE TABLE refresh_tokens (
    id TEXT PRIMARY KEY NOT NULL,
    token TEXT NOT NULL UNIQUE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    parent TEXT,
    -- NULL while the token is the session's active one. (A timestamp rather than a boolean:
    -- sqlx's Any driver cannot decode SQLite booleans, and the reuse rules need the time.)
    revoked_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX refresh_tokens_session_id_idx ON refresh_tokens (session_id);
