-- Audiences and campaign plans (issue 48). A location's daily contacts (visibility-adjusted
-- contacts a day, as the audience measurement gives them: Affimétrie, Route, Geopath, a count)
-- and where the figure comes from. A plan: one creative on a set of sites between two dates,
-- each site with the simulation that shows it there. Kept in step with
-- ../sqlite/20261207000000_audiences_and_plans.sql.
ALTER TABLE locations ADD COLUMN daily_contacts BIGINT;
ALTER TABLE locations ADD COLUMN audience_source TEXT;

CREATE TABLE plans (
    id TEXT PRIMARY KEY NOT NULL,
    owner_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    search TEXT NOT NULL,
    -- Deleting the creative deletes its plans (their sites are its simulations).
    creative_id TEXT NOT NULL REFERENCES creatives (id) ON DELETE CASCADE,
    -- YYYY-MM-DD; end_date is not before start_date (the API checks it, and that daily_contacts
    -- is not negative).
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX plans_owner_created_idx ON plans (owner_id, created_at, id);
CREATE INDEX plans_creative_idx ON plans (creative_id);

-- A site of a plan: a location, in the order the plan lists them, and its simulation of the
-- plan's creative (NULL once that simulation is deleted: the plan makes another when asked).
CREATE TABLE plan_sites (
    plan_id TEXT NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
    location_id TEXT NOT NULL REFERENCES locations (id) ON DELETE CASCADE,
    simulation_id TEXT REFERENCES simulations (id) ON DELETE SET NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (plan_id, location_id)
);

CREATE INDEX plan_sites_location_idx ON plan_sites (location_id);
CREATE INDEX plan_sites_simulation_idx ON plan_sites (simulation_id);
