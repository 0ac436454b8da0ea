-- Rate-limit buckets that nodes sharing a database keep there (issue 47). A SQLite server is
-- one node and keeps its limits in the process; the table is here so that both schemas stay
-- the same (and for the tests of its SQL). Kept in step with
-- ../postgres/20261205000000_rate_limits.sql.
CREATE TABLE rate_limits (
    key TEXT PRIMARY KEY NOT NULL,
    tat BIGINT NOT NULL
);
