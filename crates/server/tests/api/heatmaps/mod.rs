//! `/api/v1/heatmaps`, `/api/v1/media/{id}/heatmap` and the live events of their jobs
//! (docs/architecture/heatmaps.md).
//!
//! Servers start without job workers, so items stay `queued` until a test runs the queue
//! (`drain_jobs`, or `until_finished`, which drains and then reads the items' outcomes on the
//! user's event stream, opened before the heatmap is created); the tests about workers
//! themselves start them. Nothing waits by sleeping. The scenarios are split by subject; this
//! module holds what they share.

mod create;
mod deletion;
mod events;
mod results;

use std::collections::HashMap;

use bytes::Bytes;
use regard::db::jobs::JobState;
use regard::db::media::MediaRow;
use regard::storage::StorageKey;
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{jpeg, png};
use crate::helpers::{
    TestApp, User, assert_api_error, assert_fields, names, spawn_app, spawn_app_with,
    spawn_app_with_workers,
};

async fn create(app: &TestApp, user: &User, body: Value) -> reqwest::Response {
    app.api_json(Method::POST, "/heatmaps", user, &body).await
}

/// Creates a heatmap of these media and returns its JSON (panics unless 202).
async fn create_ok(app: &TestApp, user: &User, name: &str, media: &[&Value]) -> Value {
    app.heatmap(user, name, media).await
}

async fn get_json(app: &TestApp, user: &User, path: &str) -> Value {
    let response = app.api_send(Method::GET, path, user).await;
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.unwrap()
}

async fn get_heatmap(app: &TestApp, user: &User, id: &str) -> Value {
    get_json(app, user, &format!("/heatmaps/{id}")).await
}

async fn list(app: &TestApp, user: &User, query: &str) -> Value {
    get_json(app, user, &format!("/heatmaps{query}")).await
}

fn id(value: &Value) -> &str {
    value["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {value}"))
}

fn item_ids(heatmap: &Value) -> Vec<String> {
    heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| id(item).to_owned())
        .collect()
}

fn retry_path(heatmap_id: &str, item_id: &str) -> String {
    format!("/heatmaps/{heatmap_id}/items/{item_id}/retry")
}

/// The media id in a signed URL `/api/v1/files/<id>/<variant>?...`.
fn media_id_of(url: &str) -> String {
    let rest = url
        .strip_prefix("/api/v1/files/")
        .unwrap_or_else(|| panic!("not a signed file URL: {url}"));
    rest.split('/').next().unwrap().to_owned()
}

async fn media_row(app: &TestApp, id: &str) -> Option<MediaRow> {
    regard::db::media::find(&app.state.db, id).await.unwrap()
}

async fn jobs_of(app: &TestApp, item_id: &str) -> Vec<JobState> {
    regard::db::jobs::for_subject(&app.state.db, item_id)
        .await
        .unwrap()
}

/// The storage key of a media's preview (the job's input).
async fn preview_key(app: &TestApp, media: &Value) -> StorageKey {
    let row = media_row(app, id(media)).await.expect("media row");
    StorageKey::new(row.preview_key).unwrap()
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

fn assert_close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * a.abs().max(1.0),
        "{what}: {a} != {b}"
    );
}

/// `(width, height)` scaled so that the long side is `long` (the server's working size).
fn fit(width: u32, height: u32, long: u32) -> (u32, u32) {
    let scale = |side: u32, other: u32| {
        ((f64::from(side) * f64::from(long) / f64::from(other)).round() as u32).max(1)
    };
    if width >= height {
        (long, scale(height, width))
    } else {
        (scale(width, height), long)
    }
}

/// `value` without its signed URLs (they may be re-signed between two answers).
fn without_urls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| !matches!(key.as_str(), "urls" | "urls_expire_at" | "thumbnail"))
                .map(|(key, value)| (key.clone(), without_urls(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_urls).collect()),
        other => other.clone(),
    }
}

/// Fetches a signed URL without a token; asserts 200 and the content type; returns the body.
async fn fetch(app: &TestApp, url: &Value, content_type: &str) -> Bytes {
    let url = url.as_str().unwrap_or_else(|| panic!("not a URL: {url}"));
    let response = app.get_url(url).await;
    assert_eq!(response.status(), 200, "GET {url}");
    assert_eq!(response.headers()["content-type"], content_type, "{url}");
    response.bytes().await.unwrap()
}

/// The statuses each item went through, in order.
fn statuses_by_item(events: &[Value]) -> HashMap<String, Vec<String>> {
    let mut by_item: HashMap<String, Vec<String>> = HashMap::new();
    for event in events {
        by_item
            .entry(event["item_id"].as_str().unwrap().to_owned())
            .or_default()
            .push(event["status"].as_str().unwrap().to_owned());
    }
    by_item
}

/// The last event of each item.
fn last_by_item(events: &[Value]) -> HashMap<String, Value> {
    events
        .iter()
        .map(|event| (event["item_id"].as_str().unwrap().to_owned(), event.clone()))
        .collect()
}

fn assert_rect(rect: &Value) {
    for key in ["x", "y", "width", "height"] {
        let v = number(&rect[key]);
        assert!((0.0..=1.0).contains(&v), "rect {key} = {v} in {rect}");
    }
    assert!(
        number(&rect["x"]) + number(&rect["width"]) <= 1.0 + 1e-9,
        "{rect}"
    );
    assert!(
        number(&rect["y"]) + number(&rect["height"]) <= 1.0 + 1e-9,
        "{rect}"
    );
}

/// Checks a done item against the contract: its result, metrics, grid and the four signed
/// output URLs (fetched without a token and decoded).
async fn assert_done_item(app: &TestApp, user: &User, item: &Value, source: &Value, score: f64) {
    assert_eq!(item["status"], "done", "{item}");
    assert_eq!(item["error"], Value::Null);
    assert_eq!(item["attempts"], 1);
    assert_eq!(item["source"]["id"], source["id"]);
    let (started, finished) = (
        item["started_at"].as_str().expect("started_at"),
        item["finished_at"].as_str().expect("finished_at"),
    );
    assert!(started <= finished, "{started} > {finished}");

    let result = &item["result"];
    assert_close(number(&result["score"]), score, "item score vs event score");
    assert!((0.0..=100.0).contains(&score), "score {score}");
    let (focus, clarity) = (number(&result["focus"]), number(&result["clarity"]));
    assert!((0.0..=100.0).contains(&focus), "focus {focus}");
    assert!((0.0..=100.0).contains(&clarity), "clarity {clarity}");
    assert!(
        (score - (0.6 * focus + 0.4 * clarity)).abs() < 1e-6,
        "score = 0.6 focus + 0.4 clarity"
    );
    assert!((0.0..=1.0).contains(&number(&result["top10_share"])));
    assert!((0.0..=1.0).contains(&number(&result["entropy"])));

    let hotspots = result["hotspots"].as_array().expect("hotspots");
    assert!(!hotspots.is_empty() && hotspots.len() <= 5, "{hotspots:?}");
    for (n, hotspot) in hotspots.iter().enumerate() {
        assert_eq!(hotspot["rank"], n + 1);
        for key in ["x", "y", "share", "area"] {
            let v = number(&hotspot[key]);
            assert!((0.0..=1.0).contains(&v), "hotspot {key} = {v}");
        }
        assert_rect(&hotspot["rect"]);
    }
    for key in ["faces", "texts"] {
        for region in result[key].as_array().unwrap_or_else(|| panic!("{key}")) {
            assert_rect(&region["rect"]);
            for field in ["confidence", "share", "area", "relative"] {
                assert!(region[field].is_number(), "{key}.{field} in {region}");
            }
        }
    }

    let (sw, sh) = (
        source["width"].as_u64().unwrap() as u32,
        source["height"].as_u64().unwrap() as u32,
    );
    // The model that made the map is recorded (scores of different models do not compare).
    assert_eq!(result["model"], "v3");
    // The first glance: its own analysis and grid, of the same size.
    let glance = &result["glance"];
    assert!(glance["score"].is_number(), "{glance}");
    assert!(!glance["hotspots"].as_array().unwrap().is_empty());
    assert_eq!(glance["grid"]["width"], result["grid"]["width"]);
    assert_eq!(glance["grid"]["height"], result["grid"]["height"]);
    assert_ne!(glance["grid"]["values"], result["grid"]["values"]);
    let grid = &result["grid"];
    let (gw, gh) = (
        grid["width"].as_u64().unwrap() as u32,
        grid["height"].as_u64().unwrap() as u32,
    );
    assert_eq!((gw, gh), fit(sw, sh, 64), "grid size of a {sw}x{sh} source");
    let values: Vec<u64> = grid["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().expect("grid values are whole numbers"))
        .collect();
    assert_eq!(values.len(), (gw * gh) as usize);
    assert_eq!(
        values.iter().max(),
        Some(&65535),
        "relative to the grid's maximum"
    );

    let urls = &result["urls"];
    let output_ids: Vec<String> = ["map", "overlay", "fog", "overlay_thumbnail"]
        .iter()
        .map(|key| media_id_of(urls[key].as_str().unwrap()))
        .collect();
    assert_eq!(
        output_ids[1], output_ids[3],
        "the thumbnail is the overlay's"
    );
    assert!(
        output_ids[0] != output_ids[1]
            && output_ids[1] != output_ids[2]
            && output_ids[0] != output_ids[2]
            && !output_ids.contains(&id(source).to_owned()),
        "{output_ids:?}"
    );

    // The map: a 16-bit grey PNG at the working resolution (long side 256).
    let map = fetch(app, &urls["map"], "image/png").await;
    let map = image::load_from_memory_with_format(&map, image::ImageFormat::Png).unwrap();
    assert_eq!(map.color(), image::ColorType::L16);
    assert_eq!((map.width(), map.height()), fit(sw, sh, 256));
    let brightest = map.to_luma16().pixels().map(|p| p.0[0]).max();
    assert_eq!(brightest, Some(65535));
    // Overlay and fog: JPEGs at the preview's size (the sources here are under 2048 px).
    for key in ["overlay", "fog"] {
        let bytes = fetch(app, &urls[key], "image/jpeg").await;
        let decoded = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
            .unwrap_or_else(|err| panic!("{key}: {err}"));
        assert_eq!((decoded.width(), decoded.height()), (sw, sh), "{key}");
    }
    // The first glance's own map, overlay and fog, beside the full map's and not the same.
    let glance_urls = &urls["glance"];
    for (key, mime) in [
        ("map", "image/png"),
        ("overlay", "image/jpeg"),
        ("fog", "image/jpeg"),
    ] {
        let glance_id = media_id_of(glance_urls[key].as_str().unwrap());
        assert!(
            !output_ids.contains(&glance_id),
            "glance {key} is its own image"
        );
        let glance_bytes = fetch(app, &glance_urls[key], mime).await;
        let full_bytes = fetch(app, &urls[key], mime).await;
        assert_ne!(
            glance_bytes, full_bytes,
            "glance {key} differs from the full map's"
        );
        let decoded = image::load_from_memory(&glance_bytes).unwrap();
        let size = if key == "map" {
            fit(sw, sh, 256)
        } else {
            (sw, sh)
        };
        assert_eq!((decoded.width(), decoded.height()), size, "glance {key}");
    }
    let bytes = fetch(app, &urls["overlay_thumbnail"], "image/jpeg").await;
    let thumbnail = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg).unwrap();
    assert!(thumbnail.width().max(thumbnail.height()) <= 400);

    // The outputs are the user's media rows of kind `heatmap`.
    for (output, mime) in [
        (&output_ids[0], "image/png"),
        (&output_ids[1], "image/jpeg"),
    ] {
        let media = get_json(app, user, &format!("/media/{output}")).await;
        assert_eq!(media["kind"], "heatmap");
        assert_eq!(media["mime"], mime);
    }
}
