//! The durable job queue (`regard::db::jobs`), driven directly on the server's database. The
//! jobs are made the real way (`POST /heatmaps`, one per image) on a server without workers,
//! so only the test claims them; times are passed in, so no test waits for a lease to expire.

use std::collections::HashSet;

use regard::db::jobs::{self, ClaimedJob, JobState};
use regard::db::{Db, now_ms};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::png;
use crate::helpers::{TestApp, spawn_app};

const LEASE: i64 = 30_000;

/// A server without workers and the item ids of a heatmap of `count` images (one job each).
async fn queue_with(count: u32) -> (TestApp, Vec<String>) {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut ids = Vec::new();
    for n in 0..count {
        let media = app.upload_ok(&user, "a.png", png(40 + n, 30)).await;
        ids.push(media["id"].clone());
    }
    let response = app
        .api_json(
            Method::POST,
            "/heatmaps",
            &user,
            &json!({"name": "Jobs", "media_ids": ids}),
        )
        .await;
    assert_eq!(response.status(), 202);
    let heatmap: Value = response.json().await.unwrap();
    let items = heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect();
    (app, items)
}

async fn claim(db: &Db, owner: &str, now: i64) -> Option<ClaimedJob> {
    jobs::claim(db, owner, now, LEASE).await.unwrap()
}

async fn state(db: &Db, subject: &str) -> JobState {
    let mut states = jobs::for_subject(db, subject).await.unwrap();
    assert_eq!(states.len(), 1, "one job for {subject}");
    states.remove(0)
}

#[tokio::test]
async fn a_claimed_job_belongs_to_one_worker_until_its_lease_expires() {
    let (app, items) = queue_with(1).await;
    let db = &app.state.db;
    let now = now_ms();
    let job = claim(db, "w1", now).await.expect("a queued job is claimed");
    assert_eq!(job.kind, "heatmap_item");
    assert_eq!(job.subject_id, items[0]);
    assert_eq!(job.attempts, 1);
    let payload: Value = serde_json::from_str(&job.payload).unwrap();
    assert_eq!(payload, json!({"item_id": items[0]}));
    let running = state(db, &items[0]).await;
    assert_eq!(running.status, "running");
    assert_eq!(running.lease_owner.as_deref(), Some("w1"));

    // Exclusive: nobody else gets it while the lease runs.
    assert_eq!(claim(db, "w2", now).await, None);
    assert_eq!(claim(db, "w2", now + LEASE - 1).await, None);
    // Nobody else can extend, finish or reschedule it.
    assert!(
        !jobs::extend(db, &job.id, "w2", now + 2 * LEASE)
            .await
            .unwrap()
    );
    assert!(!jobs::finish(db, &job.id, "w2", "done", None).await.unwrap());
    assert!(
        !jobs::retry_later(db, &job.id, "w2", now, "x")
            .await
            .unwrap()
    );
    assert_eq!(state(db, &items[0]).await, running);
    // The owner can extend it.
    assert!(
        jobs::extend(db, &job.id, "w1", now + 2 * LEASE)
            .await
            .unwrap()
    );
    assert_eq!(claim(db, "w2", now + LEASE + 1).await, None, "extended");

    // Once the lease has run out, another worker takes it over: a new attempt.
    let again = claim(db, "w2", now + 2 * LEASE + 1)
        .await
        .expect("an expired lease is claimable");
    assert_eq!(again.id, job.id);
    assert_eq!(again.attempts, 2);
    assert_eq!(
        state(db, &items[0]).await.lease_owner.as_deref(),
        Some("w2")
    );
    // The first worker has lost it: its writes are refused.
    assert!(
        !jobs::extend(db, &job.id, "w1", now + 5 * LEASE)
            .await
            .unwrap()
    );
    assert!(!jobs::finish(db, &job.id, "w1", "done", None).await.unwrap());
    assert!(jobs::finish(db, &job.id, "w2", "done", None).await.unwrap());
    assert_eq!(
        state(db, &items[0]).await,
        JobState {
            status: "done".into(),
            attempts: 2,
            lease_owner: None,
            last_error: None,
        }
    );
    // A finished job is never claimed again.
    assert_eq!(claim(db, "w3", now + 100 * LEASE).await, None);
}

#[tokio::test]
async fn a_job_put_back_waits_for_its_time() {
    let (app, items) = queue_with(1).await;
    let db = &app.state.db;
    let now = now_ms();
    let job = claim(db, "w1", now).await.unwrap();
    assert!(
        jobs::retry_later(db, &job.id, "w1", now + 60_000, "storage down")
            .await
            .unwrap()
    );
    let queued = state(db, &items[0]).await;
    assert_eq!(queued.status, "queued");
    assert_eq!(queued.lease_owner, None);
    assert_eq!(queued.last_error.as_deref(), Some("storage down"));
    assert_eq!(claim(db, "w2", now + 59_999).await, None, "not due yet");
    let again = claim(db, "w2", now + 60_000).await.expect("due");
    assert_eq!(again.attempts, 2);
    assert!(
        jobs::finish(db, &job.id, "w2", "failed", Some("gave up"))
            .await
            .unwrap()
    );
    let failed = state(db, &items[0]).await;
    assert_eq!(failed.status, "failed");
    assert_eq!(failed.last_error.as_deref(), Some("gave up"));
}

#[tokio::test]
async fn concurrent_claims_never_share_a_job() {
    let (app, items) = queue_with(3).await;
    let db = &app.state.db;
    let now = now_ms();
    let claims = (0..8).map(|n| {
        let db = db.clone();
        tokio::spawn(async move { claim(&db, &format!("w{n}"), now).await })
    });
    let mut claimed = Vec::new();
    for handle in claims.collect::<Vec<_>>() {
        if let Some(job) = handle.await.unwrap() {
            claimed.push(job);
        }
    }
    assert_eq!(claimed.len(), 3, "each job once: {claimed:?}");
    let subjects: HashSet<&str> = claimed.iter().map(|j| j.subject_id.as_str()).collect();
    let expected: HashSet<&str> = items.iter().map(String::as_str).collect();
    assert_eq!(subjects, expected);
    assert!(claimed.iter().all(|j| j.attempts == 1));
    for job in &claimed {
        let owner = jobs::for_subject(db, &job.subject_id).await.unwrap()[0]
            .lease_owner
            .clone();
        assert!(owner.is_some_and(|o| o.starts_with('w')));
    }
}

/// The item ids of a new heatmap of `count` images of `user` (one queued job each).
async fn heatmap_jobs(app: &TestApp, user: &crate::helpers::User, count: u32) -> Vec<String> {
    let mut media = Vec::new();
    for n in 0..count {
        media.push(app.upload_ok(user, "a.png", png(40 + n, 30)).await);
    }
    let heatmap = app
        .heatmap(user, "Fair", &media.iter().collect::<Vec<_>>())
        .await;
    heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Whose job (a letter) each claimed subject is.
fn owner_of(job: &ClaimedJob, owners: &[(char, &[String])]) -> char {
    owners
        .iter()
        .find(|(_, items)| items.contains(&job.subject_id))
        .map(|(name, _)| *name)
        .expect("a known subject")
}

#[tokio::test]
async fn another_users_job_is_claimed_next_while_a_large_batch_runs() {
    let app = spawn_app().await;
    let db = &app.state.db;
    let (a, b) = (app.new_user().await, app.new_user().await);
    let batch = heatmap_jobs(&app, &a, 12).await;
    let single = heatmap_jobs(&app, &b, 1).await;
    let owners: [(char, &[String]); 2] = [('A', &batch), ('B', &single)];
    let now = now_ms() + 1000;
    // Two workers take jobs and keep them running: the second claim is already B's, though
    // A's twelve jobs were all queued first (first in, first out would give it the 13th).
    let mut order = String::new();
    for n in 0..3 {
        let job = claim(db, &format!("w{n}"), now).await.expect("a ready job");
        order.push(owner_of(&job, &owners));
    }
    assert_eq!(order, "ABA");
}

#[tokio::test]
async fn users_take_turns_when_each_job_ends_before_the_next_claim() {
    let app = spawn_app().await;
    let db = &app.state.db;
    let (a, b, c) = (
        app.new_user().await,
        app.new_user().await,
        app.new_user().await,
    );
    let a_items = heatmap_jobs(&app, &a, 5).await;
    let b_items = heatmap_jobs(&app, &b, 2).await;
    let c_items = heatmap_jobs(&app, &c, 1).await;
    let owners: [(char, &[String]); 3] = [('A', &a_items), ('B', &b_items), ('C', &c_items)];
    // One worker: each job is done before the next claim. The user served least recently goes
    // first: round-robin over the users that have work, and A alone once the others are done.
    let start = now_ms() + 1000;
    let mut order = String::new();
    for n in 0..8 {
        let job = claim(db, "w1", start + n * 1000)
            .await
            .expect("a ready job");
        order.push(owner_of(&job, &owners));
        assert!(jobs::finish(db, &job.id, "w1", "done", None).await.unwrap());
    }
    assert_eq!(order, "ABCABAAA");
    assert_eq!(claim(db, "w1", start + 9000).await, None);
}

#[tokio::test]
async fn the_fifo_order_stays_available_for_comparisons() {
    let app = spawn_app().await;
    let db = &app.state.db;
    let (a, b) = (app.new_user().await, app.new_user().await);
    let batch = heatmap_jobs(&app, &a, 3).await;
    let single = heatmap_jobs(&app, &b, 1).await;
    let owners: [(char, &[String]); 2] = [('A', &batch), ('B', &single)];
    let now = now_ms() + 1000;
    let mut order = String::new();
    for n in 0..4 {
        let job = jobs::claim_ordered(db, &format!("w{n}"), now, LEASE, jobs::ClaimOrder::Fifo)
            .await
            .unwrap()
            .expect("a ready job");
        order.push(owner_of(&job, &owners));
    }
    assert_eq!(order, "AAAB");
}
