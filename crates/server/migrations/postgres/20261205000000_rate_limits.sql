-- Rate-limit buckets that every node shares (issue 47): one row per limited key, with the
-- moment its bucket is full again (epoch milliseconds). Unlogged: a crash empties it, which only
-- refills the buckets early, and the writes skip the WAL. Kept in step with
-- ../sqlite/20261205000000_rate_limits.sql.
CREATE UNLOGGED TABLE rate_limits (
    key TEXT PRIMARY KEY NOT NULL,
    tat BIGINT NOT NULL
);
