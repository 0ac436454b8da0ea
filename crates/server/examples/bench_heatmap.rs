//! Benchmark of the heatmap target: a heatmap of 10 Full-HD images goes from `POST /heatmaps`
//! to its last item `done` in at most 3 s on 2 cores.
//!
//! ```text
//! cargo run --release -p regard --example bench_heatmap [-- RUNS]
//! ```
//!
//! Starts the real server in this process on a temporary data folder (SQLite and local storage,
//! the embedded default; job workers: `REGARD_WORKERS`, default one per CPU), signs up over HTTP,
//! uploads 10 distinct 1920×1080 JPEGs and opens `GET /api/v1/events`. Then, RUNS times
//! (default 5), it creates a new heatmap of the 10 images and times it from the request to the
//! `done` event of the last item, and reads each item's processing time (`finished_at` −
//! `started_at`: read the preview, compute, store, save) from `GET /heatmaps/{id}`.
//!
//! The images are the first 10 OSIE stimuli (`../shared/datasets/osie/stimuli`, next to the
//! repository, or `BENCH_IMAGES_DIR`), cropped and scaled to 1920×1080, when that folder
//! exists; otherwise synthetic textured images. They are read at run time only.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use image::imageops::FilterType;
use image::{Rgb, RgbImage};
use serde_json::{Value, json};

mod support;
use support::{Events, Server, encode_jpeg, median};

const IMAGES: usize = 10;
const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
/// A run that takes longer than this is reported as a failure.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// Where the OSIE stimuli are expected: `BENCH_IMAGES_DIR`, or the shared datasets folder next
/// to the repository.
fn stimuli_dir() -> PathBuf {
    let dir = std::env::var_os("BENCH_IMAGES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/osie/stimuli")
        });
    dir.canonicalize().unwrap_or(dir)
}

/// A photo-like synthetic image, different for each `seed`: gradients, stripes, a few bright
/// shapes and noise.
fn synthetic(seed: u32) -> RgbImage {
    let mut state = 0x9e37_79b9u32.wrapping_mul(seed + 1);
    let mut noise = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 27) as i32 - 16
    };
    let (cx, cy) = (
        0.2 + 0.06 * (seed % 10) as f32,
        0.3 + 0.04 * (seed % 7) as f32,
    );
    RgbImage::from_fn(WIDTH, HEIGHT, |x, y| {
        let (fx, fy) = (x as f32 / WIDTH as f32, y as f32 / HEIGHT as f32);
        let disc = ((fx - cx).powi(2) + (fy - cy).powi(2)).sqrt() < 0.12;
        let stripes = (((x + seed * 37) / (20 + seed * 3) + y / 45) % 2) as f32 * 35.0;
        let base = if disc {
            [230.0, 40.0 + 15.0 * seed as f32, 40.0]
        } else {
            [
                90.0 + 110.0 * fx + stripes,
                70.0 + 120.0 * fy,
                60.0 + 80.0 * fx * fy + 8.0 * seed as f32,
            ]
        };
        let mut px = [0u8; 3];
        for (out, channel) in px.iter_mut().zip(base) {
            *out = (channel as i32 + noise()).clamp(0, 255) as u8;
        }
        Rgb(px)
    })
}

/// The 10 JPEGs to upload, and where they came from.
fn images() -> (Vec<Vec<u8>>, String) {
    let dir = stimuli_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("jpg")))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    if files.len() >= IMAGES {
        let images = files[..IMAGES]
            .iter()
            .map(|path| {
                let image = image::open(path)
                    .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
                let full = image.resize_to_fill(WIDTH, HEIGHT, FilterType::Lanczos3);
                encode_jpeg(&full.to_rgb8())
            })
            .collect();
        let source = format!(
            "OSIE stimuli {}..{} from {}, cropped and scaled to {WIDTH}x{HEIGHT}",
            files[0].file_name().unwrap().to_string_lossy(),
            files[IMAGES - 1].file_name().unwrap().to_string_lossy(),
            dir.display()
        );
        (images, source)
    } else {
        let images = (0..IMAGES as u32)
            .map(|seed| encode_jpeg(&synthetic(seed)))
            .collect();
        let source = format!(
            "synthetic textured {WIDTH}x{HEIGHT} images ({} not found)",
            dir.display()
        );
        (images, source)
    }
}

fn parse_ms(value: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(value.as_str().expect("a timestamp"))
        .expect("an RFC 3339 timestamp")
        .timestamp_millis()
}

fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("RUNS must be a number"))
        .unwrap_or(5)
        .max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());

    let preparing = Instant::now();
    let (jpegs, source) = images();
    println!(
        "bench_heatmap: {IMAGES} images, {source}; prepared in {:.1} s",
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
    let mut media_ids = Vec::with_capacity(IMAGES);
    let mut upload_bytes = 0;
    for (n, jpeg) in jpegs.into_iter().enumerate() {
        upload_bytes += jpeg.len();
        let part = reqwest::multipart::Part::bytes(jpeg)
            .file_name(format!("image-{n}.jpg"))
            .mime_str("image/jpeg")
            .unwrap();
        let response = client
            .post(format!("{base}/api/v1/media"))
            .bearer_auth(&token)
            .multipart(reqwest::multipart::Form::new().part("file", part))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201, "upload {n} failed");
        let media: Value = response.json().await.unwrap();
        assert_eq!(
            (media["width"].as_u64(), media["height"].as_u64()),
            (Some(WIDTH as u64), Some(HEIGHT as u64))
        );
        media_ids.push(media["id"].as_str().unwrap().to_owned());
    }
    println!(
        "uploaded {IMAGES} JPEGs ({:.1} MB) in {:.1} s (not part of the timings below)",
        upload_bytes as f64 / 1e6,
        uploading.elapsed().as_secs_f64()
    );

    let mut events = Events::open(&client, &base, &token).await;

    println!(
        "\n{runs} runs: POST /heatmaps with {IMAGES} media -> `done` event of the last item \
         (outputs are content-addressed, so runs after the first find identical objects already \
         stored and skip writing them; everything else is redone)"
    );
    let mut walls = Vec::with_capacity(runs);
    let mut item_ms = Vec::with_capacity(runs * IMAGES);
    for run in 1..=runs {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + RUN_TIMEOUT;
        let response = client
            .post(format!("{base}/api/v1/heatmaps"))
            .bearer_auth(&token)
            .json(&json!({"name": format!("Bench run {run}"), "media_ids": media_ids}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202, "creating the heatmap failed");
        let heatmap: Value = response.json().await.unwrap();
        let heatmap_id = heatmap["id"].as_str().unwrap().to_owned();
        let mut pending: Vec<String> = heatmap["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(pending.len(), IMAGES);
        while !pending.is_empty() {
            let (name, data) = events.next(deadline).await;
            if name == "resync" {
                panic!("the event stream fell behind (resync)");
            }
            if name != "heatmap_item" || data["heatmap_id"] != heatmap_id.as_str() {
                continue;
            }
            match data["status"].as_str() {
                Some("done") => pending.retain(|id| data["item_id"] != id.as_str()),
                Some("failed") => panic!("an item failed: {data}"),
                _ => {}
            }
        }
        let wall = started.elapsed().as_secs_f64();
        walls.push(wall);

        let found: Value = client
            .get(format!("{base}/api/v1/heatmaps/{heatmap_id}"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(found["status"], "done", "{found}");
        let times: Vec<f64> = found["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| (parse_ms(&item["finished_at"]) - parse_ms(&item["started_at"])) as f64)
            .collect();
        let run_times = sorted(times.clone());
        item_ms.extend(times);
        println!(
            "  run {run}: {wall:.2} s ({:.0} images/min), per item median {:.0} ms, max {:.0} ms",
            IMAGES as f64 / wall * 60.0,
            median(&run_times),
            run_times[run_times.len() - 1],
        );
    }

    let walls = sorted(walls);
    let item_ms = sorted(item_ms);
    let wall_median = median(&walls);
    println!(
        "\nwall time per run ({IMAGES} images): median {wall_median:.2} s, min {:.2} s, max {:.2} s",
        walls[0],
        walls[walls.len() - 1]
    );
    println!(
        "throughput: {:.0} images/min (median run), {:.0} images/min (best run)",
        IMAGES as f64 / wall_median * 60.0,
        IMAGES as f64 / walls[0] * 60.0
    );
    println!(
        "per-item processing time (finished_at - started_at): median {:.0} ms, min {:.0} ms, \
         max {:.0} ms (n = {})",
        median(&item_ms),
        item_ms[0],
        item_ms[item_ms.len() - 1],
        item_ms.len()
    );
    println!(
        "machine: {cores} cores, {workers} job workers; target: <= 3 s for {IMAGES} images on 2 \
         cores -> {}",
        if wall_median <= 3.0 {
            "met (median)"
        } else {
            "NOT met (median)"
        }
    );

    drop(events);
    server.stop().await;
}
