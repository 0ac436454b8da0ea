-- Accounts: multi-factor factors and their challenges, one-time tokens sent by mail (recovery,
-- sign-up confirmation, email change). Kept in step with ../postgres/20261124000000_accounts.sql.

-- A second factor: TOTP (secret encrypted at rest) or phone (codes sent by SMS).
CREATE TABLE mfa_factors (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    friendly_name TEXT,
    factor_type TEXT NOT NULL,
    -- 'unverified' until the first successful verification, then 'verified'.
    status TEXT NOT NULL,
    -- TOTP: the base32 secret sealed with a key derived from the server secret.
    secret TEXT,
    -- Phone: the E.164 number.
    phone TEXT,
    -- The last TOTP time step accepted, so that a code is accepted once.
    last_step BIGINT,
    last_challenged_at BIGINT,
    -- Wrong codes in the current window (rate limit on verification).
    failed_count BIGINT NOT NULL DEFAULT 0,
    failed_window_start BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX mfa_factors_user_id_idx ON mfa_factors (user_id);

CREATE TABLE mfa_challenges (
    id TEXT PRIMARY KEY NOT NULL,
    factor_id TEXT NOT NULL REFERENCES mfa_factors (id) ON DELETE CASCADE,
    ip TEXT NOT NULL,
    -- Phone: SHA-256 of the code sent (hex); NULL for TOTP.
    code_hash TEXT,
    verified_at BIGINT,
    created_at BIGINT NOT NULL
);

CREATE INDEX mfa_challenges_factor_id_idx ON mfa_challenges (factor_id);
CREATE INDEX mfa_challenges_created_at_idx ON mfa_challenges (created_at);

-- The factor whose verification raised the session to aal2 (downgraded when it is removed).
ALTER TABLE sessions ADD COLUMN factor_id TEXT;

-- Tokens mailed to a user; only their SHA-256 is stored. kind: recovery, confirmation,
-- email_change. relates_to: the address the mail went to (the new address for email_change).
CREATE TABLE one_time_tokens (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    -- SHA-256 of the user id and the 6-digit code printed in the same mail (verifyOtp with an
    -- email and a code); wrong codes are counted and the token dies after a few.
    otp_hash TEXT NOT NULL,
    failed_count BIGINT NOT NULL DEFAULT 0,
    relates_to TEXT NOT NULL,
    -- PKCE: the flow state that the link completes (recovery from a PKCE client).
    flow_state_id TEXT,
    created_at BIGINT NOT NULL
);

CREATE INDEX one_time_tokens_user_kind_idx ON one_time_tokens (user_id, kind);
CREATE INDEX one_time_tokens_created_at_idx ON one_time_tokens (created_at);
