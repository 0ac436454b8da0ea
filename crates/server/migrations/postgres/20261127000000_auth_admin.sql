-- The rest of GoTrue's user model (issue 15): an address is optional (phone-only and anonymous
-- users), and users carry a phone number, a pending email change, invitation, ban, soft
-- deletion and anonymity. Kept in step with ../sqlite/20261127000000_auth_admin.sql (which
-- rebuilds the table, as SQLite cannot drop NOT NULL in place).

ALTER TABLE users ALTER COLUMN email DROP NOT NULL;

-- E.164 digits without the '+', as GoTrue stores them.
ALTER TABLE users ADD COLUMN phone TEXT UNIQUE;
ALTER TABLE users ADD COLUMN phone_confirmed_at BIGINT;
-- The address a pending email change goes to (shown as `new_email`).
ALTER TABLE users ADD COLUMN email_change TEXT;
ALTER TABLE users ADD COLUMN invited_at BIGINT;
-- Sign-ins and refreshes are refused until then.
ALTER TABLE users ADD COLUMN banned_until BIGINT;
-- Soft deletion: the row stays (for what it owns), its address, phone and sessions go.
ALTER TABLE users ADD COLUMN deleted_at BIGINT;
-- 1 for users of an anonymous sign-in until they add an address (0/1 as in SQLite).
ALTER TABLE users ADD COLUMN is_anonymous BIGINT NOT NULL DEFAULT 0;

CREATE INDEX users_created_at_idx ON users (created_at);
