//! Benchmark of the render target: "save" of a simulation on a 12-megapixel photo (4000×3000)
//! with a Full-HD creative goes from `POST /simulations` to the `done` event, with the JPEG
//! stored, in at most 2 s on 2 cores.
//!
//! ```text
//! cargo run --release -p regard --example bench_simulation [-- RUNS]
//! ```
//!
//! Starts the real server in this process on a temporary data folder (SQLite and local storage,
//! the embedded default; job workers: `REGARD_WORKERS`, default one per CPU), signs up over HTTP,
//! uploads a synthetic 4000×3000 JPEG photo (a location with a perspective panel quad) and a
//! 1920×1080 creative, and opens `GET /api/v1/events`. Then, RUNS times (default 5), it creates a
//! simulation with different adjustments each run (so every run renders and stores new pixels)
//! and times it from the request to the `done` event; it then fetches the stored JPEG once to
//! check that it is there and has the photo's size.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;
use support::{Events, Server, encode_jpeg, median, synthetic_photo};

const PHOTO: (u32, u32) = (4000, 3000);
const CREATIVE: (u32, u32) = (1920, 1080);
/// A run that takes longer than this is reported as a failure.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

#[tokio::main]
async fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("RUNS must be a number"))
        .unwrap_or(5)
        .max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let preparing = Instant::now();
    let photo = encode_jpeg(&synthetic_photo(PHOTO.0, PHOTO.1, 1));
    let creative = encode_jpeg(&synthetic_photo(CREATIVE.0, CREATIVE.1, 7));
    println!(
        "bench_simulation: synthetic {}x{} photo ({:.1} MB) and {}x{} creative; prepared in {:.1} s",
        PHOTO.0,
        PHOTO.1,
        photo.len() as f64 / 1e6,
        CREATIVE.0,
        CREATIVE.1,
        preparing.elapsed().as_secs_f64()
    );

    let server = Server::start().await;
    let (base, workers) = (server.base.clone(), server.workers);
    println!(
        "server: {base}, SQLite + local storage, {workers} job workers, {cores} cores available"
    );

    let client = reqwest::Client::new();
    let token = server.sign_up(&client).await;

    let uploading = Instant::now();
    let photo = support::upload_jpeg(&client, &base, &token, "site.jpg", photo).await;
    let creative_media =
        support::upload_jpeg(&client, &base, &token, "creative.jpg", creative).await;
    let creative = support::post_json(
        &client,
        &base,
        &token,
        "/creatives",
        json!({"media_id": creative_media["id"], "name": "Creative"}),
    )
    .await;
    // A 4×3 billboard seen slightly from the left: about a fifth of the photo.
    let location = support::post_json(
        &client,
        &base,
        &token,
        "/locations",
        json!({"name": "Site", "photo_media_id": photo["id"], "panel_width_cm": 400,
               "panel_height_cm": 300,
               "panel_quad": [{"x": 0.30, "y": 0.25}, {"x": 0.74, "y": 0.30},
                              {"x": 0.73, "y": 0.68}, {"x": 0.31, "y": 0.72}]}),
    )
    .await;
    println!(
        "uploaded the photo and the creative in {:.1} s (not part of the timings below)",
        uploading.elapsed().as_secs_f64()
    );

    let mut events = Events::open(&client, &base, &token).await;

    println!(
        "\n{runs} runs: POST /simulations -> `done` event (decode both originals, render at \
         {}x{}, JPEG q92 + preview + thumbnail, PNG, store, save)",
        PHOTO.0, PHOTO.1
    );
    let mut walls = Vec::with_capacity(runs);
    let mut last = None;
    for run in 1..=runs {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + RUN_TIMEOUT;
        let sim = support::post_json(
            &client,
            &base,
            &token,
            "/simulations",
            json!({"creative_id": creative["id"], "location_id": location["id"],
                   "name": format!("Run {run}"),
                   "adjustments": {"brightness": 0.05 * run as f64, "auto_match": true}}),
        )
        .await;
        let sim_id = sim["id"].as_str().unwrap().to_owned();
        loop {
            let (name, data) = events.next(deadline).await;
            if name == "resync" {
                panic!("the event stream fell behind (resync)");
            }
            if name != "simulation" || data["simulation_id"] != sim_id.as_str() {
                continue;
            }
            match data["status"].as_str() {
                Some("done") => break,
                Some("failed") => panic!("the render failed: {data}"),
                _ => {}
            }
        }
        let wall = started.elapsed().as_secs_f64();
        walls.push(wall);
        println!("  run {run}: {wall:.2} s");
        last = Some(sim_id);
    }

    // The stored JPEG is there, at the photo's size.
    let found: Value = client
        .get(format!("{base}/api/v1/simulations/{}", last.unwrap()))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let url = found["output"]["urls"]["original"]
        .as_str()
        .expect("an output");
    let jpeg = client
        .get(format!("{base}{url}"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let decoded = image::load_from_memory(&jpeg).expect("the stored render decodes");
    assert_eq!((decoded.width(), decoded.height()), PHOTO);
    println!(
        "stored render: {}x{} JPEG, {:.1} MB",
        decoded.width(),
        decoded.height(),
        jpeg.len() as f64 / 1e6
    );

    walls.sort_by(f64::total_cmp);
    let wall_median = median(&walls);
    println!(
        "\nsave -> done: median {wall_median:.2} s, min {:.2} s, max {:.2} s",
        walls[0],
        walls[walls.len() - 1]
    );
    println!(
        "machine: {cores} cores, {workers} job workers; target: <= 2 s -> {}",
        if wall_median <= 2.0 {
            "met (median)"
        } else {
            "NOT met (median)"
        }
    );

    drop(events);
    server.stop().await;
}
