-- The rest of GoTrue's user model (issue 15): an address is optional (phone-only and anonymous
-- users), and users carry a phone number, a pending email change, invitation, ban, soft
-- deletion and anonymity. Kept in step with ../postgres/20261127000000_auth_admin.sql.
--
-- SQLite cannot drop NOT NULL in place, so the table is rebuilt as its documentation says
-- (https://sqlite.org/lang_altertable.html#otheralter). `Db::migrate` runs SQLite migrations
-- with foreign keys off, so dropping the old table does not cascade into the tables that
-- reference it (they keep referring to `users` by name), and checks them all afterwards.

CREATE TABLE users_rebuilt (
    id TEXT PRIMARY KEY NOT NULL,
    -- NULL for users without an address (UNIQUE allows many NULLs).
    email TEXT UNIQUE,
    encrypted_password TEXT NOT NULL,
    email_confirmed_at BIGINT,
    app_metadata TEXT NOT NULL,
    user_metadata TEXT NOT NULL,
    last_sign_in_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- E.164 digits without the '+', as GoTrue stores them.
    phone TEXT UNIQUE,
    phone_confirmed_at BIGINT,
    -- The address a pending email change goes to (shown as `new_email`).
    email_change TEXT,
    invited_at BIGINT,
    -- Sign-ins and refreshes are refused until then.
    banned_until BIGINT,
    -- Soft deletion: the row stays (for what it owns), its address, phone and sessions go.
    deleted_at BIGINT,
    -- 1 for users of an anonymous sign-in until they add an address (0/1: sqlx's Any driver
    -- cannot decode SQLite booleans).
    is_anonymous BIGINT NOT NULL DEFAULT 0
);

INSERT INTO users_rebuilt (id, email, encrypted_password, email_confirmed_at, app_metadata,
                           user_metadata, last_sign_in_at, created_at, updated_at)
SELECT id, email, encrypted_password, email_confirmed_at, app_metadata, user_metadata,
       last_sign_in_at, created_at, updated_at
FROM users;

DROP TABLE users;

ALTER TABLE users_rebuilt RENAME TO users;

CREATE INDEX users_created_at_idx ON users (created_at);
