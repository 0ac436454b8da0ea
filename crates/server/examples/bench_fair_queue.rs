//! Benchmark of the fair job queue (issue 26): another user's one-image heatmap, queued behind
//! one user's 50-render batch, is done within 20 s.
//!
//! ```text
//! cargo run -p regard --example bench_fair_queue [-- WIDTHxHEIGHT]
//! ```
//!
//! Runs twice, each time on a fresh server started in this process (SQLite and local storage,
//! two job workers as on a 2-core machine): first with `REGARD_JOB_FAIR_QUEUE=false` (the
//! oldest job first: the order before the fix), then with the fair claim (the default). Each
//! time, user A uploads a photo (4000×3000 by default: a 12-megapixel camera photo) and a
//! Full-HD creative and queues 50 renders of it (`POST /simulations/batch` over 50 locations);
//! then user B, whose Full-HD image is already uploaded, asks for a one-image heatmap. The
//! figure is B's wait, from `POST /heatmaps` to the `done` event of its item, and how many of
//! A's renders were done by then.

use std::time::{Duration, Instant};

use serde_json::json;

mod support;
use support::{Events, Server, encode_jpeg, synthetic_photo};

const BATCH: usize = 50;
const WORKERS: usize = 2;
/// B's heatmap must be done within this.
const TARGET: Duration = Duration::from_secs(20);
/// A run that waits longer than this is reported as a failure.
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

/// B's wait (seconds) and how many of A's renders were done by then.
async fn run(fair: bool, photo: &[u8], creative: &[u8], small: &[u8]) -> (f64, usize) {
    let server = Server::start_with(|config| {
        config.job_fair_queue = fair;
        config.workers = Some(WORKERS);
    })
    .await;
    let base = server.base.clone();
    let client = reqwest::Client::new();
    let a = server.sign_up_as(&client, "a@example.com").await;
    let b = server.sign_up_as(&client, "b@example.com").await;

    let photo = support::upload_jpeg(&client, &base, &a, "image.jpg", photo.to_vec()).await;
    let creative_media =
        support::upload_jpeg(&client, &base, &a, "image.jpg", creative.to_vec()).await;
    let creative = support::post_json(
        &client,
        &base,
        &a,
        "/creatives",
        json!({"media_id": creative_media["id"], "name": "Creative"}),
    )
    .await;
    let mut locations = Vec::with_capacity(BATCH);
    for n in 0..BATCH {
        let location = support::post_json(
            &client,
            &base,
            &a,
            "/locations",
            json!({"name": format!("Site {n}"), "photo_media_id": photo["id"],
                   "panel_width_cm": 400, "panel_height_cm": 300,
                   "panel_quad": [{"x": 0.30, "y": 0.25}, {"x": 0.74, "y": 0.30},
                                  {"x": 0.73, "y": 0.68}, {"x": 0.31, "y": 0.72}]}),
        )
        .await;
        locations.push(location["id"].clone());
    }
    let image = support::upload_jpeg(&client, &base, &b, "image.jpg", small.to_vec()).await;
    let mut a_events = Events::open(&client, &base, &a).await;
    let mut b_events = Events::open(&client, &base, &b).await;

    let batch = support::post_json(
        &client,
        &base,
        &a,
        "/simulations/batch",
        json!({"creative_id": creative["id"], "location_ids": locations}),
    )
    .await;
    let queued = batch["items"].as_array().map_or(0, Vec::len);
    assert_eq!(queued, BATCH, "the batch queued {queued} renders: {batch}");

    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + RUN_TIMEOUT;
    let heatmap = support::post_json(
        &client,
        &base,
        &b,
        "/heatmaps",
        json!({"name": "Mine", "media_ids": [image["id"]]}),
    )
    .await;
    let heatmap_id = heatmap["id"].as_str().unwrap().to_owned();
    loop {
        let (name, data) = b_events.next(deadline).await;
        assert_ne!(name, "resync", "the event stream fell behind");
        if name == "heatmap_item" && data["heatmap_id"] == heatmap_id.as_str() {
            match data["status"].as_str() {
                Some("done") => break,
                Some("failed") => panic!("the heatmap failed: {data}"),
                _ => {}
            }
        }
    }
    let wait = started.elapsed().as_secs_f64();

    // A's renders done so far: the `done` events already in A's stream.
    let mut renders_done = 0;
    // (`next` panics at its own deadline: give it a later one than the look's.)
    let soon = tokio::time::Instant::now() + Duration::from_millis(200);
    let later = soon + Duration::from_secs(60);
    while let Ok((name, data)) = tokio::time::timeout_at(soon, a_events.next(later)).await {
        if name == "simulation" && data["status"] == "done" {
            renders_done += 1;
        }
    }
    drop(a_events);
    drop(b_events);
    // Stop without waiting for the rest of the batch: workers finish the job in hand.
    server.stop().await;
    (wait, renders_done)
}

#[tokio::main]
async fn main() {
    let (width, height) = std::env::args()
        .nth(1)
        .map(|arg| {
            let (w, h) = arg.split_once('x').expect("WIDTHxHEIGHT");
            (w.parse().unwrap(), h.parse().unwrap())
        })
        .unwrap_or((4000u32, 3000u32));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    let photo = encode_jpeg(&synthetic_photo(width, height, 1));
    let creative = encode_jpeg(&synthetic_photo(1920, 1080, 7));
    let small = encode_jpeg(&synthetic_photo(1920, 1080, 3));
    println!(
        "bench_fair_queue: user A queues {BATCH} renders of a {width}x{height} photo, then user B \
         a one-image heatmap (1920x1080); {WORKERS} job workers, {cores} cores, {profile} profile"
    );
    for (label, fair) in [
        ("before (REGARD_JOB_FAIR_QUEUE=false, oldest first)", false),
        ("after  (fair claim, the default)", true),
    ] {
        let (wait, renders) = run(fair, &photo, &creative, &small).await;
        println!(
            "{label}: B's heatmap done {wait:.1} s after it was queued, when {renders} of A's \
             {BATCH} renders were done; target <= {} s -> {}",
            TARGET.as_secs(),
            if wait <= TARGET.as_secs_f64() {
                "met"
            } else {
                "NOT met"
            }
        );
    }
}
