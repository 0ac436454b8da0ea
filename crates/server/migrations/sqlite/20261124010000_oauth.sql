-- Third-party sign-in (OpenID Connect) and PKCE flow states. Kept in step with
-- ../postgres/20261124010000_oauth.sql: ids are TEXT uuids, times are BIGINT epoch
-- milliseconds, JSON is TEXT.

-- One sign-in in progress (GoTrue's flow_state): created by /authorize (OAuth) or by a flow
-- that mails a link (recovery, email change); its id is the OAuth `state`. It is completed when
-- the user is known (provider callback, link followed): user_id and the hash of a one-time auth
-- code are set, and the code is exchanged once with `POST /token?grant_type=pkce`.
CREATE TABLE flow_states (
    id TEXT PRIMARY KEY NOT NULL,
    -- The provider's name (`google`, ...) or `email` for flows started by a mailed link.
    provider TEXT NOT NULL,
    -- The session's AMR method once exchanged: oauth, recovery, email_change...
    authentication_method TEXT NOT NULL,
    -- NULL for the implicit flow (tokens in the redirect's fragment, no exchange).
    code_challenge TEXT,
    -- 's256' or 'plain'; NULL with code_challenge.
    code_challenge_method TEXT,
    -- Where the browser goes back to (already checked against the allow-list).
    redirect_to TEXT NOT NULL,
    -- OpenID Connect nonce sent to the provider and expected in its ID token.
    nonce TEXT,
    -- NULL until the flow is completed.
    user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
    -- SHA-256 (hex) of the auth code given to the client; NULL until completed.
    auth_code_hash TEXT UNIQUE,
    auth_code_issued_at BIGINT,
    -- The provider's tokens, handed to the client once with the session (provider_token).
    provider_access_token TEXT,
    provider_refresh_token TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX flow_states_created_at_idx ON flow_states (created_at);

-- A way to sign in as a user other than the password: one row per provider account
-- (provider_id is the ID token's `sub`). The email identity of password users is implied by
-- the users row and not stored here.
CREATE TABLE identities (
    id TEXT PRIMARY KEY NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    identity_data TEXT NOT NULL,
    email TEXT,
    last_sign_in_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (provider, provider_id)
);

CREATE INDEX identities_user_id_idx ON identities (user_id);
