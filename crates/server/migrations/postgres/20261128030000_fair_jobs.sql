-- Fair job queue (issue 26): each job names the user it works for, so workers share
-- themselves between users instead of serving the oldest job first (one user's 50-render batch
-- no longer holds everyone else's work back). Kept in step with
-- ../sqlite/20261128030000_fair_jobs.sql.
--
-- owner_id: the user whose heatmap item or simulation the job works on; NULL only for a job
-- whose subject was already gone when this ran (it is claimed first and fails at once).
-- claimed_at: when the job was last claimed (epoch ms); the latest of a user's tells the
-- claim which user waited longest since being served.
ALTER TABLE jobs ADD COLUMN owner_id TEXT;
ALTER TABLE jobs ADD COLUMN claimed_at BIGINT;

UPDATE jobs SET owner_id = (SELECT i.owner_id FROM heatmap_items i WHERE i.id = jobs.subject_id)
WHERE kind = 'heatmap_item';
UPDATE jobs SET owner_id = (SELECT s.owner_id FROM simulations s WHERE s.id = jobs.subject_id)
WHERE kind = 'render_simulation';
UPDATE jobs SET claimed_at = updated_at WHERE status <> 'queued';

CREATE INDEX jobs_owner_status_idx ON jobs (owner_id, status);
CREATE INDEX jobs_owner_claimed_idx ON jobs (owner_id, claimed_at);
