-- Recovery codes for two-step verification (issue 31): single use, shown once, stored as an
-- HMAC keyed by the server secret (auth::mfa::recovery), so a copy of the database alone
-- cannot test guesses. A new set replaces the old one; the last verified factor's removal
-- deletes them. Kept in step with ../postgres/20261202000000_recovery_codes.sql.
CREATE TABLE mfa_recovery_codes (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    used_at BIGINT,
    PRIMARY KEY (user_id, code_hash)
);
