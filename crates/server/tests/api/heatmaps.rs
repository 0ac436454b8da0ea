//! `/api/v1/heatmaps`, `/api/v1/media/{id}/heatmap` and the live events of their jobs
//! (docs/architecture/heatmaps.md).
//!
//! Tests that need items to stay `queued` start the server without job workers
//! (`no_worker`); the others wait for the items' outcomes on the user's event stream, opened
//! before the heatmap is created, never by sleeping.

use std::collections::HashMap;

use bytes::Bytes;
use regard::db::jobs::JobState;
use regard::db::media::MediaRow;
use regard::storage::StorageKey;
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{jpeg, png};
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app, spawn_app_with};

/// A server whose jobs are never run: items stay `queued`.
async fn spawn_without_workers() -> TestApp {
    spawn_app_with(|config| config.no_worker = true).await
}

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

fn names(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
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
    assert_eq!(result["model"], "v2");
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

#[tokio::test]
async fn creating_a_heatmap_queues_one_item_and_one_job_per_image() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let a = app.upload_ok(&user, "a.png", png(320, 240)).await;
    let b = app.upload_ok(&user, "b.jpg", jpeg(240, 320)).await;
    // Order kept, duplicates dropped (first kept), name trimmed.
    let response = create(
        &app,
        &user,
        json!({"name": "  Campagne été ", "media_ids": [b["id"], a["id"], b["id"], a["id"]]}),
    )
    .await;
    assert_eq!(response.status(), 202);
    let heatmap: Value = response.json().await.unwrap();
    uuid::Uuid::parse_str(id(&heatmap)).expect("uuid id");
    assert_eq!(heatmap["name"], "Campagne été");
    assert_eq!(heatmap["status"], "queued");
    assert_eq!(heatmap["item_count"], 2);
    assert_eq!(heatmap["done_count"], 0);
    assert_eq!(heatmap["failed_count"], 0);
    assert_eq!(heatmap["score"], Value::Null);
    let created_at = heatmap["created_at"].as_str().unwrap();
    assert!(
        created_at.ends_with('Z') && created_at.len() == 24,
        "{created_at}"
    );
    assert_eq!(heatmap["updated_at"], heatmap["created_at"]);
    let thumbnail = heatmap["thumbnail"].as_str().unwrap();
    assert!(
        thumbnail.starts_with(&format!("/api/v1/files/{}/thumbnail?", id(&b))),
        "the first image's thumbnail: {thumbnail}"
    );
    fetch(&app, &heatmap["thumbnail"], "image/jpeg").await;

    let items = heatmap["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    for (position, (item, source)) in items.iter().zip([&b, &a]).enumerate() {
        uuid::Uuid::parse_str(id(item)).expect("uuid item id");
        assert_eq!(item["position"], position);
        assert_eq!(item["status"], "queued");
        assert_eq!(item["error"], Value::Null);
        assert_eq!(item["result"], Value::Null);
        assert_eq!(item["attempts"], 0);
        assert_eq!(item["started_at"], Value::Null);
        assert_eq!(item["finished_at"], Value::Null);
        // The source is the media JSON, with working signed URLs.
        assert_eq!(without_urls(&item["source"]), without_urls(source));
        fetch(&app, &item["source"]["urls"]["preview"], "image/jpeg").await;
        // One queued job per item, in the same transaction.
        let jobs = jobs_of(&app, id(item)).await;
        assert_eq!(
            jobs,
            vec![JobState {
                status: "queued".into(),
                attempts: 0,
                lease_owner: None,
                last_error: None,
            }]
        );
    }

    let got = get_heatmap(&app, &user, id(&heatmap)).await;
    assert_eq!(without_urls(&got), without_urls(&heatmap));

    let page = list(&app, &user, "").await;
    assert_eq!(page["next_cursor"], Value::Null);
    let summaries = page["items"].as_array().unwrap();
    assert_eq!(summaries.len(), 1);
    let mut expected = without_urls(&heatmap);
    expected.as_object_mut().unwrap().remove("items");
    assert_eq!(
        without_urls(&summaries[0]),
        expected,
        "a summary has no items"
    );
    assert!(summaries[0]["thumbnail"].is_string());
}

#[tokio::test]
async fn a_heatmap_is_computed_and_its_outputs_are_served() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.upload_ok(&user, "a.png", png(320, 240)).await;
    let b = app.upload_ok(&user, "b.jpg", jpeg(240, 320)).await;
    let mut events = app.events(&user).await;
    let heatmap = create_ok(&app, &user, "Soldes d'été", &[&a, &b]).await;
    let hid = id(&heatmap).to_owned();
    assert_eq!(heatmap["item_count"], 2);
    let ids = item_ids(&heatmap);

    let seen = events.until_finished(&[&ids[0], &ids[1]]).await;
    for event in &seen {
        assert_eq!(event["heatmap_id"], hid.as_str(), "{event}");
    }
    let statuses = statuses_by_item(&seen);
    for item in &ids {
        assert_eq!(statuses[item], ["processing", "done"], "events of {item}");
    }
    for event in &seen {
        assert_eq!(event["error"], Value::Null, "{event}");
        if event["status"] == "processing" {
            assert_eq!(event["score"], Value::Null);
        }
    }
    let last = last_by_item(&seen);
    let scores: Vec<f64> = ids
        .iter()
        .map(|item| number(&last[item]["score"]))
        .collect();

    let got = get_heatmap(&app, &user, &hid).await;
    assert_eq!(got["status"], "done");
    assert_eq!(got["done_count"], 2);
    assert_eq!(got["failed_count"], 0);
    let mean = (scores[0] + scores[1]) / 2.0;
    assert_close(number(&got["score"]), mean, "heatmap score");
    assert_close(
        number(&got["best_score"]),
        scores[0].max(scores[1]),
        "best score",
    );
    let items = got["items"].as_array().unwrap();
    for ((item, source), score) in items.iter().zip([&a, &b]).zip(&scores) {
        assert_done_item(&app, &user, item, source, *score).await;
    }

    let page = list(&app, &user, "").await;
    let summary = &page["items"][0];
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(summary["id"], hid.as_str());
    assert_eq!(summary["status"], "done");
    assert_eq!(summary["done_count"], 2);
    assert_close(number(&summary["score"]), mean, "listed score");
    assert_close(
        number(&summary["best_score"]),
        scores[0].max(scores[1]),
        "listed best score",
    );
    assert!(summary.get("items").is_none());
    let thumbnail = summary["thumbnail"].as_str().unwrap();
    assert!(thumbnail.starts_with(&format!("/api/v1/files/{}/thumbnail?", id(&a))));
    fetch(&app, &summary["thumbnail"], "image/jpeg").await;

    // The latest result of an image.
    let latest = get_json(&app, &user, &format!("/media/{}/heatmap", id(&a))).await;
    assert_eq!(latest["heatmap"]["id"], hid.as_str());
    assert_eq!(latest["item"]["id"], ids[0].as_str());
    assert_eq!(latest["item"]["status"], "done");
    assert_close(
        number(&latest["item"]["result"]["score"]),
        scores[0],
        "latest",
    );

    // Generated images are not offered as sources.
    let map_id = media_id_of(items[0]["result"]["urls"]["map"].as_str().unwrap());
    let response = create(&app, &user, json!({"name": "Maps", "media_ids": [map_id]})).await;
    assert_fields(response, json!({"media_ids": "not_found"})).await;
}

#[tokio::test]
async fn lists_are_paginated_newest_first_and_searchable() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    let theirs = app.upload_ok(&other, "t.png", png(40, 30)).await;
    create_ok(&app, &other, "Soldes d'été (not mine)", &[&theirs]).await;
    let media = app.upload_ok(&user, "a.png", png(40, 30)).await;
    let made = ["Soldes d'Été", "Winter", "Noël", "Campagne A", "Campagne B"];
    for name in made {
        create_ok(&app, &user, name, &[&media]).await;
    }

    let all = list(&app, &user, "").await;
    assert_eq!(all["next_cursor"], Value::Null);
    let items = all["items"].as_array().unwrap();
    let mut listed = names(&all);
    let mut expected: Vec<String> = made.iter().map(|n| (*n).to_owned()).collect();
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected, "only the user's heatmaps");
    // Newest first on (created_at, id), as the keyset is.
    let keys: Vec<(String, String)> = items
        .iter()
        .map(|i| {
            (
                i["created_at"].as_str().unwrap().to_owned(),
                id(i).to_owned(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_by(|x, y| y.cmp(x));
    assert_eq!(keys, sorted, "newest first");
    for item in items {
        assert!(item.get("items").is_none());
        assert_eq!(item["status"], "queued");
        assert_eq!(item["item_count"], 1);
        assert_eq!(item["score"], Value::Null);
        assert!(item["thumbnail"].is_string());
    }

    let mut paged = Vec::new();
    let mut query = "?limit=2".to_owned();
    let mut pages = 0;
    loop {
        let page = list(&app, &user, &query).await;
        pages += 1;
        assert!(page["items"].as_array().unwrap().len() <= 2);
        paged.extend(names(&page));
        match page["next_cursor"].as_str() {
            Some(cursor) => query = format!("?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(paged, names(&all));

    for (q, expected) in [
        ("ete", vec!["Soldes d'Été"]),
        ("SOLDES%20%C3%A9t%C3%A9", vec!["Soldes d'Été"]),
        ("noel", vec!["Noël"]),
        ("campagne", vec!["Campagne B", "Campagne A"]),
        ("nothing", vec![]),
    ] {
        let mut got = names(&list(&app, &user, &format!("?q={q}")).await);
        let mut expected: Vec<String> = expected.into_iter().map(str::to_owned).collect();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "q={q}");
    }
    for (query, fields) in [
        ("?limit=0", json!({"limit": "out_of_range"})),
        ("?cursor=zz", json!({"cursor": "invalid_value"})),
    ] {
        let response = app
            .api_send(Method::GET, &format!("/heatmaps{query}"), &user)
            .await;
        assert_fields(response, fields).await;
    }
}

#[tokio::test]
async fn invalid_heatmaps_get_field_errors_and_create_nothing() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    let mine = app.upload_ok(&user, "mine.png", png(40, 30)).await;
    let theirs = app.upload_ok(&other, "theirs.png", png(41, 30)).await;
    let m = mine["id"].clone();
    let random = || uuid::Uuid::new_v4().to_string();
    let many: Vec<String> = (0..21).map(|_| random()).collect();

    for (body, fields) in [
        (
            json!({}),
            json!({"name": "required", "media_ids": "required"}),
        ),
        (
            json!({"name": "   ", "media_ids": []}),
            json!({"name": "required", "media_ids": "required"}),
        ),
        (json!({"media_ids": [m]}), json!({"name": "required"})),
        (
            json!({"name": null, "media_ids": [m]}),
            json!({"name": "required"}),
        ),
        (json!({"name": "x"}), json!({"media_ids": "required"})),
        (
            json!({"name": "x", "media_ids": null}),
            json!({"media_ids": "required"}),
        ),
        (
            json!({"name": "x", "media_ids": []}),
            json!({"media_ids": "required"}),
        ),
        (
            json!({"name": "x", "media_ids": m}),
            json!({"media_ids": "invalid_type"}),
        ),
        (
            json!({"name": "x", "media_ids": {"0": m}}),
            json!({"media_ids": "invalid_type"}),
        ),
        (
            json!({"name": "x", "media_ids": [5]}),
            json!({"media_ids": "invalid_type"}),
        ),
        (
            json!({"name": "x", "media_ids": [m, null]}),
            json!({"media_ids": "invalid_type"}),
        ),
        (
            json!({"name": "x", "media_ids": many}),
            json!({"media_ids": "too_many"}),
        ),
        (
            json!({"name": "x", "media_ids": [theirs["id"]]}),
            json!({"media_ids": "not_found"}),
        ),
        (
            json!({"name": "x", "media_ids": [random()]}),
            json!({"media_ids": "not_found"}),
        ),
        (
            json!({"name": "x", "media_ids": [m, random()]}),
            json!({"media_ids": "not_found"}),
        ),
        (
            json!({"name": "x", "media_ids": ["nope"]}),
            json!({"media_ids": "not_found"}),
        ),
        (
            json!({"name": "x", "media_ids": [m], "colour": "red"}),
            json!({"colour": "unknown_field"}),
        ),
        (
            json!({"name": "", "media_ids": [random()]}),
            json!({"name": "required", "media_ids": "not_found"}),
        ),
        (
            json!({"name": 5, "media_ids": [m], "extra": 1}),
            json!({"name": "invalid_type", "extra": "unknown_field"}),
        ),
        (
            json!({"name": "é".repeat(201), "media_ids": [m]}),
            json!({"name": "too_long"}),
        ),
        (
            json!({"name": "tab\there", "media_ids": [m]}),
            json!({"name": "invalid_characters"}),
        ),
    ] {
        let response = create(&app, &user, body.clone()).await;
        let got = assert_api_error(response, 422, "validation_failed").await;
        assert_eq!(got["details"]["fields"], fields, "body {body}");
    }
    let response = app
        .api(Method::POST, "/heatmaps", &user)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_api_error(response, 400, "invalid_json").await;
    assert_api_error(create(&app, &user, json!([m])).await, 400, "invalid_json").await;

    // Nothing was created: no heatmap, no item, no job.
    assert_eq!(list(&app, &user, "").await["items"], json!([]));
    let latest = get_json(&app, &user, &format!("/media/{}/heatmap", id(&mine))).await;
    assert_eq!(latest["item"], Value::Null);
    let claimed = regard::db::jobs::claim(&app.state.db, "probe", regard::db::now_ms(), 1000)
        .await
        .unwrap();
    assert_eq!(claimed, None, "no job was queued");

    // The limits themselves are accepted: 200 characters (not bytes), 20 images.
    let mut twenty = vec![mine.clone()];
    for n in 1..20 {
        twenty.push(app.upload_ok(&user, "n.png", png(40 + n, 30)).await);
    }
    let refs: Vec<&Value> = twenty.iter().collect();
    let heatmap = create_ok(&app, &user, &"é".repeat(200), &refs).await;
    assert_eq!(heatmap["item_count"], 20);
}

#[tokio::test]
async fn other_users_heatmaps_are_not_found() {
    let app = spawn_without_workers().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let media = app.upload_ok(&alice, "a.png", png(40, 30)).await;
    let heatmap = create_ok(&app, &alice, "Alice's", &[&media]).await;
    let other = create_ok(&app, &alice, "Alice's other", &[&media]).await;
    let (hid, item) = (id(&heatmap).to_owned(), item_ids(&heatmap)[0].clone());

    let random = uuid::Uuid::new_v4().to_string();
    for (method, path) in [
        (Method::GET, format!("/heatmaps/{hid}")),
        (Method::DELETE, format!("/heatmaps/{hid}")),
        (Method::POST, retry_path(&hid, &item)),
        (Method::GET, format!("/media/{}/heatmap", id(&media))),
    ] {
        let response = app.api_send(method.clone(), &path, &bob).await;
        assert_api_error(response, 404, "not_found").await;
    }
    assert_eq!(list(&app, &bob, "").await["items"], json!([]));
    // Bob's attempts changed nothing.
    let got = get_heatmap(&app, &alice, &hid).await;
    assert_eq!(got["items"][0]["status"], "queued");
    assert_eq!(jobs_of(&app, &item).await.len(), 1);

    // Malformed and unknown ids, and an item of another heatmap, are 404 for the owner too.
    for (method, path) in [
        (Method::GET, "/heatmaps/not-a-uuid".to_owned()),
        (Method::DELETE, "/heatmaps/not-a-uuid".to_owned()),
        (Method::GET, format!("/heatmaps/{random}")),
        (Method::DELETE, format!("/heatmaps/{random}")),
        (Method::POST, retry_path("nope", &item)),
        (Method::POST, retry_path(&hid, "nope")),
        (Method::POST, retry_path(&hid, &random)),
        (Method::POST, retry_path(id(&other), &item)),
        (Method::GET, "/media/not-a-uuid/heatmap".to_owned()),
        (Method::GET, format!("/media/{random}/heatmap")),
    ] {
        let response = app.api_send(method.clone(), &path, &alice).await;
        assert_api_error(response, 404, "not_found").await;
    }
    // Only a failed item can be retried.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &item), &alice)
        .await;
    assert_api_error(response, 409, "not_failed").await;
    assert_eq!(jobs_of(&app, &item).await.len(), 1);
}

#[tokio::test]
async fn every_heatmap_endpoint_needs_a_token() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4();
    for (method, path) in [
        (Method::GET, "/heatmaps".to_owned()),
        (Method::POST, "/heatmaps".to_owned()),
        (Method::GET, format!("/heatmaps/{id}")),
        (Method::DELETE, format!("/heatmaps/{id}")),
        (Method::POST, format!("/heatmaps/{id}/items/{id}/retry")),
        (Method::GET, format!("/media/{id}/heatmap")),
        (Method::GET, "/events".to_owned()),
    ] {
        let url = app.url(&format!("/api/v1{path}"));
        let response = app
            .client
            .request(method.clone(), &url)
            .json(&json!({"name": "x", "media_ids": [id.to_string()]}))
            .send()
            .await
            .unwrap();
        let body = assert_api_error(response, 401, "unauthorized").await;
        assert_eq!(
            body["details"]["reason"], "no_authorization",
            "{method} {path}"
        );
        let response = app
            .client
            .request(method.clone(), &url)
            .bearer_auth("not-a-jwt")
            .send()
            .await
            .unwrap();
        let body = assert_api_error(response, 401, "unauthorized").await;
        assert_eq!(body["details"]["reason"], "bad_jwt", "{method} {path}");
    }
}

/// Streams carry their own user's events only. The bus is one ordered channel, so an event of
/// the other user published before an event of ours would reach our stream first if it
/// leaked: each user's heatmap runs after the other's finished, and each stream must see
/// nothing but its own heatmap's items.
#[tokio::test]
async fn event_streams_carry_only_their_users_events() {
    let app = spawn_app().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let alice_media = app.upload_ok(&alice, "a.png", png(200, 150)).await;
    let bob_media = app.upload_ok(&bob, "b.png", png(150, 200)).await;
    let mut alice_events = app.events(&alice).await;
    let mut bob_events = app.events(&bob).await;

    let check = |events: &[Value], heatmap: &Value| {
        let items = item_ids(heatmap);
        for event in events {
            assert_eq!(event["heatmap_id"], heatmap["id"], "foreign event {event}");
            assert!(
                items.iter().any(|i| event["item_id"] == i.as_str()),
                "{event}"
            );
        }
        let last = last_by_item(events);
        assert_eq!(last[&items[0]]["status"], "done");
    };

    let first = create_ok(&app, &bob, "Bob 1", &[&bob_media]).await;
    let seen = bob_events.until_finished(&[&item_ids(&first)[0]]).await;
    check(&seen, &first);
    let second = create_ok(&app, &alice, "Alice", &[&alice_media]).await;
    let seen = alice_events.until_finished(&[&item_ids(&second)[0]]).await;
    check(&seen, &second);
    let third = create_ok(&app, &bob, "Bob 2", &[&bob_media]).await;
    let seen = bob_events.until_finished(&[&item_ids(&third)[0]]).await;
    check(&seen, &third);
}

/// Bytes that start like a JPEG but are not one.
fn garbage_jpeg() -> Bytes {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bytes.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    Bytes::from(bytes)
}

#[tokio::test]
async fn a_broken_source_fails_alone_and_can_be_retried() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // Distinct images: objects are shared by identical content.
    let good = app.upload_ok(&user, "good.png", png(320, 240)).await;
    let corrupt = app.upload_ok(&user, "corrupt.png", png(300, 240)).await;
    let missing = app.upload_ok(&user, "missing.jpg", jpeg(280, 240)).await;
    let storage = &app.state.storage;
    let corrupt_key = preview_key(&app, &corrupt).await;
    let preview = storage.get_bytes(&corrupt_key).await.unwrap();
    storage
        .put_bytes(&corrupt_key, garbage_jpeg())
        .await
        .unwrap();
    let missing_key = preview_key(&app, &missing).await;
    storage.delete(&missing_key).await.unwrap();

    let mut events = app.events(&user).await;
    let heatmap = create_ok(&app, &user, "Mixed", &[&good, &corrupt, &missing]).await;
    let hid = id(&heatmap).to_owned();
    let ids = item_ids(&heatmap);
    let seen = events.until_finished(&[&ids[0], &ids[1], &ids[2]]).await;
    let last = last_by_item(&seen);
    assert_eq!(last[&ids[0]]["status"], "done");
    let good_score = number(&last[&ids[0]]["score"]);
    for (item, code) in [(&ids[1], "invalid_image"), (&ids[2], "source_missing")] {
        assert_eq!(last[item]["status"], "failed", "{}", last[item]);
        assert_eq!(last[item]["score"], Value::Null);
        assert_eq!(last[item]["error"]["code"], code);
        assert!(
            last[item]["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }

    let got = get_heatmap(&app, &user, &hid).await;
    assert_eq!(got["status"], "partial");
    assert_eq!(got["done_count"], 1);
    assert_eq!(got["failed_count"], 2);
    assert_close(
        number(&got["score"]),
        good_score,
        "mean of the done items only",
    );
    assert_done_item(&app, &user, &got["items"][0], &good, good_score).await;
    for (n, code) in [(1, "invalid_image"), (2, "source_missing")] {
        let item = &got["items"][n];
        assert_eq!(item["status"], "failed");
        assert_eq!(item["error"]["code"], code);
        assert!(
            item["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert_eq!(item["result"], Value::Null);
        assert!(item["finished_at"].is_string());
    }
    let summary = &list(&app, &user, "").await["items"][0];
    assert_eq!(summary["status"], "partial");
    assert_eq!(summary["failed_count"], 2);

    // A heatmap whose only image fails is `failed`.
    let failing = create_ok(&app, &user, "Missing only", &[&missing]).await;
    let failing_item = item_ids(&failing)[0].clone();
    let seen = events.until_finished(&[&failing_item]).await;
    assert_eq!(
        last_by_item(&seen)[&failing_item]["error"]["code"],
        "source_missing"
    );
    let got = get_heatmap(&app, &user, id(&failing)).await;
    assert_eq!(got["status"], "failed");
    assert_eq!(got["score"], Value::Null);

    // A done item cannot be retried.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &ids[0]), &user)
        .await;
    assert_api_error(response, 409, "not_failed").await;

    // Repaired, the corrupt one succeeds on retry.
    storage.put_bytes(&corrupt_key, preview).await.unwrap();
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &ids[1]), &user)
        .await;
    assert_eq!(response.status(), 202);
    let retried: Value = response.json().await.unwrap();
    assert_eq!(retried["id"], ids[1].as_str());
    assert_eq!(retried["error"], Value::Null);
    assert_eq!(retried["result"], Value::Null);
    assert!(
        matches!(retried["status"].as_str(), Some("queued" | "processing")),
        "{retried}"
    );
    let seen = events.until_finished(&[&ids[1]]).await;
    let statuses = &statuses_by_item(&seen)[&ids[1]];
    // The retry's own event carries the item's status as the handler reads it after waking
    // the workers: usually `queued`, `processing` when a worker was quicker.
    assert!(
        statuses.len() >= 2
            && statuses[..statuses.len() - 1]
                .iter()
                .all(|s| s == "queued" || s == "processing"),
        "{statuses:?}"
    );
    assert_eq!(statuses.last().unwrap(), "done", "{statuses:?}");
    // (The score is read from the item: the retry's own event, published after waking the
    // workers, could in a tight race repeat `done` without a score.)
    let repaired = get_heatmap(&app, &user, &hid).await;
    let repaired_score = number(&repaired["items"][1]["result"]["score"]);
    assert_eq!(
        jobs_of(&app, &ids[1]).await.len(),
        1,
        "the old job was replaced"
    );

    // Still missing, the other one fails again.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &ids[2]), &user)
        .await;
    assert_eq!(response.status(), 202);
    let seen = events.until_finished(&[&ids[2]]).await;
    assert_eq!(last_by_item(&seen)[&ids[2]]["status"], "failed");

    let got = get_heatmap(&app, &user, &hid).await;
    assert_eq!(got["status"], "partial");
    assert_eq!(got["done_count"], 2);
    assert_eq!(got["failed_count"], 1);
    assert_done_item(&app, &user, &got["items"][1], &corrupt, repaired_score).await;
    assert_close(
        number(&got["score"]),
        (good_score + repaired_score) / 2.0,
        "mean after the retry",
    );
    assert_eq!(got["items"][2]["error"]["code"], "source_missing");
}

#[tokio::test]
async fn deleting_a_queued_heatmap_removes_its_jobs_and_releases_its_images() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let objects_before = app.objects().await;
    assert!(objects_before.is_empty());
    // Uploaded only for the heatmap; used by a creative too; used by a second heatmap.
    let solo = app.upload_ok(&user, "solo.png", png(200, 150)).await;
    let creative = app.creative(&user, json!({"name": "Poster"})).await;
    let kept = &creative["media"];
    let shared = app.upload_ok(&user, "shared.png", png(210, 150)).await;
    let heatmap = create_ok(&app, &user, "To delete", &[&solo, kept, &shared]).await;
    let other = create_ok(&app, &user, "Keeps shared", &[&shared]).await;
    let (hid, items) = (id(&heatmap).to_owned(), item_ids(&heatmap));
    for item in &items {
        assert_eq!(jobs_of(&app, item).await.len(), 1);
    }
    assert_eq!(app.media_rows().await, 3);
    let objects = app.objects().await;
    assert_eq!(objects.len(), 9);

    let path = format!("/heatmaps/{hid}");
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    assert_api_error(
        app.api_send(Method::GET, &path, &user).await,
        404,
        "not_found",
    )
    .await;
    assert_api_error(
        app.api_send(Method::DELETE, &path, &user).await,
        404,
        "not_found",
    )
    .await;
    for item in &items {
        assert_eq!(jobs_of(&app, item).await, vec![], "jobs of {item}");
    }
    assert_eq!(jobs_of(&app, &item_ids(&other)[0]).await.len(), 1);
    assert_eq!(names(&list(&app, &user, "").await), ["Keeps shared"]);

    // The image used by nothing else went, with its objects; the others stay.
    assert_eq!(media_row(&app, id(&solo)).await, None);
    assert_api_error(
        app.api_send(Method::GET, &format!("/media/{}", id(&solo)), &user)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(
        app.get_url(solo["urls"]["original"].as_str().unwrap())
            .await
            .status(),
        404
    );
    assert!(media_row(&app, id(kept)).await.is_some());
    assert!(media_row(&app, id(&shared)).await.is_some());
    assert_eq!(app.media_rows().await, 2);
    assert_eq!(app.objects().await.len(), 6);
    fetch(&app, &shared["urls"]["original"], "image/png").await;

    // The last heatmap using it releases the shared image.
    let path = format!("/heatmaps/{}", id(&other));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    assert_eq!(media_row(&app, id(&shared)).await, None);
    assert_eq!(app.media_rows().await, 1, "the creative's image stays");
    assert_eq!(app.objects().await.len(), 3);
}

/// The signed output URLs of a heatmap's first item, and their media ids (map, overlay, fog).
fn outputs_of(heatmap: &Value) -> (Value, Vec<String>) {
    let urls = heatmap["items"][0]["result"]["urls"].clone();
    let ids = ["map", "overlay", "fog"]
        .iter()
        .map(|key| media_id_of(urls[key].as_str().unwrap()))
        .collect();
    (urls, ids)
}

/// Two heatmaps of one image: the outputs are computed twice (identical content shares its
/// objects). Deleting one removes its output rows and leaves the other's outputs served;
/// deleting the other removes every output object.
#[tokio::test]
async fn deleting_a_done_heatmap_removes_its_outputs() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let source = app.upload_ok(&user, "a.png", png(320, 240)).await;
    // A creative keeps the source alive.
    let response = app
        .api_json(
            Method::POST,
            "/creatives",
            &user,
            &json!({"media_id": source["id"]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let before = app.objects().await;
    assert_eq!(app.media_rows().await, 1);

    let mut events = app.events(&user).await;
    let first = create_ok(&app, &user, "First", &[&source]).await;
    let second = create_ok(&app, &user, "Second", &[&source]).await;
    let items = [item_ids(&first)[0].clone(), item_ids(&second)[0].clone()];
    let seen = events.until_finished(&[&items[0], &items[1]]).await;
    let last = last_by_item(&seen);
    assert_eq!(last[&items[0]]["status"], "done");
    assert_eq!(last[&items[1]]["status"], "done");
    let (first_urls, first_outputs) = outputs_of(&get_heatmap(&app, &user, id(&first)).await);
    let (second_urls, second_outputs) = outputs_of(&get_heatmap(&app, &user, id(&second)).await);
    for output in first_outputs.iter().chain(&second_outputs) {
        assert!(media_row(&app, output).await.is_some());
    }
    assert_eq!(app.media_rows().await, 1 + 2 * 3);
    assert!(app.objects().await.len() > before.len());
    // An output is in use while its heatmap exists.
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/media/{}", first_outputs[0]),
            &user,
        )
        .await;
    assert_api_error(response, 409, "media_in_use").await;

    let path = format!("/heatmaps/{}", id(&first));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    for output in &first_outputs {
        assert_eq!(media_row(&app, output).await, None, "output {output}");
    }
    for key in ["map", "overlay", "fog", "overlay_thumbnail"] {
        let response = app.get_url(first_urls[key].as_str().unwrap()).await;
        assert_eq!(response.status(), 404, "{key} after the deletion");
    }
    assert_eq!(app.media_rows().await, 1 + 3);
    // The other heatmap's outputs are still served, whatever objects they shared.
    for (key, mime) in [
        ("map", "image/png"),
        ("overlay", "image/jpeg"),
        ("fog", "image/jpeg"),
        ("overlay_thumbnail", "image/jpeg"),
    ] {
        fetch(&app, &second_urls[key], mime).await;
    }

    let path = format!("/heatmaps/{}", id(&second));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    assert_eq!(app.media_rows().await, 1);
    assert_eq!(
        app.objects().await,
        before,
        "only the source's objects remain"
    );
    for item in &items {
        assert_eq!(jobs_of(&app, item).await, vec![]);
    }
}

#[tokio::test]
async fn the_latest_heatmap_of_an_image_is_returned() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(120, 90)).await;
    let extra = app.upload_ok(&user, "b.png", png(90, 120)).await;
    let path = format!("/media/{}/heatmap", id(&media));
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(latest["media"]["id"], media["id"]);
    assert_eq!(without_urls(&latest["media"]), without_urls(&media));
    assert_eq!(latest["heatmap"], Value::Null);
    assert_eq!(latest["item"], Value::Null);

    let first = create_ok(&app, &user, "First", &[&media]).await;
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(
        latest["heatmap"],
        json!({"id": first["id"], "name": "First", "created_at": first["created_at"]})
    );
    assert_eq!(latest["item"]["id"], first["items"][0]["id"]);
    assert_eq!(latest["item"]["status"], "queued");
    assert_eq!(latest["item"]["source"]["id"], media["id"]);

    let second = create_ok(&app, &user, "Second", &[&extra, &media]).await;
    // Newest on (created_at, item id): the second, unless both were made in the same
    // millisecond, when the item id decides.
    let key = |heatmap: &Value, n: usize| {
        (
            heatmap["created_at"].as_str().unwrap().to_owned(),
            id(&heatmap["items"][n]).to_owned(),
        )
    };
    let (newest, n) = if key(&second, 1) > key(&first, 0) {
        (&second, 1)
    } else {
        (&first, 0)
    };
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(latest["heatmap"]["id"], newest["id"]);
    assert_eq!(latest["item"]["id"], newest["items"][n]["id"]);
    assert_eq!(latest["item"]["position"], n);

    // Without the second heatmap, the first one's item is the latest again.
    let response = app
        .api_send(Method::DELETE, &format!("/heatmaps/{}", id(&second)), &user)
        .await;
    assert_eq!(response.status(), 204);
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(latest["heatmap"]["id"], first["id"]);
    assert_eq!(latest["item"]["id"], first["items"][0]["id"]);
}

#[tokio::test]
async fn an_image_used_by_a_heatmap_cannot_be_deleted() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(120, 90)).await;
    let heatmap = create_ok(&app, &user, "Uses it", &[&media]).await;
    let path = format!("/media/{}", id(&media));
    let response = app.api_send(Method::DELETE, &path, &user).await;
    assert_api_error(response, 409, "media_in_use").await;
    assert_eq!(app.media_rows().await, 1);
    assert_eq!(app.objects().await.len(), 3);
    let got = get_heatmap(&app, &user, id(&heatmap)).await;
    assert_eq!(got["items"][0]["source"]["id"], media["id"]);

    // Deleting the heatmap releases it.
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/heatmaps/{}", id(&heatmap)),
            &user,
        )
        .await;
    assert_eq!(response.status(), 204);
    assert_api_error(
        app.api_send(Method::DELETE, &path, &user).await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty());
}

/// A worker busy with an item when its heatmap is deleted saves nothing and removes what it
/// stored. The fault-injection pause (after the item is marked processing) keeps the job busy
/// while the test deletes; with one worker, the next heatmap's `done` event means the first
/// job is over. Whatever the timing, the end state asserted is the same.
#[tokio::test]
async fn a_heatmap_deleted_while_processing_leaves_no_outputs() {
    let app = spawn_app_with(|config| {
        config.workers = Some(1);
        config.fault_hold_job_ms = 1500;
    })
    .await;
    let user = app.new_user().await;
    // Both sources stay: one is a creative's, the other is used by the heatmap that remains.
    let source = app.upload_ok(&user, "a.png", png(320, 240)).await;
    let response = app
        .api_json(
            Method::POST,
            "/creatives",
            &user,
            &json!({"media_id": source["id"]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let other = app.upload_ok(&user, "b.png", png(300, 240)).await;
    let before = app.objects().await;

    let mut events = app.events(&user).await;
    let doomed = create_ok(&app, &user, "Deleted mid-way", &[&source]).await;
    let doomed_item = item_ids(&doomed)[0].clone();
    let deadline = tokio::time::Instant::now() + crate::helpers::EVENT_TIMEOUT;
    let started = events.next_before(deadline).await.json();
    assert_eq!(started["item_id"], doomed_item.as_str());
    assert_eq!(started["status"], "processing");
    let path = format!("/heatmaps/{}", id(&doomed));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );

    let kept = create_ok(&app, &user, "Kept", &[&other]).await;
    let kept_item = item_ids(&kept)[0].clone();
    let seen = events.until_finished(&[&kept_item]).await;
    for event in &seen {
        assert_eq!(event["item_id"], kept_item.as_str(), "{event}");
    }
    assert_eq!(last_by_item(&seen)[&kept_item]["status"], "done");

    // Only the remaining heatmap's outputs were added.
    let got = get_heatmap(&app, &user, id(&kept)).await;
    let mut expected = before;
    for key in ["map", "overlay", "fog"] {
        let output = media_id_of(got["items"][0]["result"]["urls"][key].as_str().unwrap());
        let row = media_row(&app, &output).await.unwrap();
        expected.push(row.original_key);
        expected.push(row.thumbnail_key);
    }
    expected.sort();
    expected.dedup();
    assert_eq!(app.objects().await, expected);
    assert_eq!(app.media_rows().await, 2 + 3);
    assert_eq!(jobs_of(&app, &doomed_item).await, vec![]);
}

/// The stream ends when the access token expires (the client reconnects with a fresh one).
#[tokio::test]
async fn an_event_stream_ends_with_its_token() {
    let app = spawn_app_with(|config| config.jwt_exp = 4).await;
    let user = app.new_user().await;
    let mut events = app.events(&user).await;
    events
        .end_before(tokio::time::Instant::now() + crate::helpers::EVENT_TIMEOUT)
        .await;
}

/// The stream ends when its session ends: signed out elsewhere, or by a password change that
/// signs out the other devices (checked every REGARD_EVENTS_SESSION_CHECK seconds, 1 here).
#[tokio::test]
async fn an_event_stream_ends_with_its_session() {
    let app = spawn_app_with(|config| config.events_session_check = 1).await;
    let email = crate::helpers::unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let user = crate::helpers::User {
        token: session["access_token"].as_str().unwrap().to_owned(),
    };
    let mut events = app.events(&user).await;
    let response = app
        .with_token(
            reqwest::Method::POST,
            "/auth/v1/logout?scope=local",
            &user.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    events
        .end_before(tokio::time::Instant::now() + std::time::Duration::from_secs(10))
        .await;

    // A password changed on another device ends this device's stream too.
    let here = app.sign_in(&email, "secret1").await;
    let here: serde_json::Value = here.json().await.unwrap();
    let there = app.sign_in(&email, "secret1").await;
    let there: serde_json::Value = there.json().await.unwrap();
    let mut events = app
        .events(&crate::helpers::User {
            token: here["access_token"].as_str().unwrap().to_owned(),
        })
        .await;
    let response = app
        .with_token(
            reqwest::Method::PUT,
            "/auth/v1/user",
            there["access_token"].as_str().unwrap(),
        )
        .body(serde_json::json!({"password": "secret2"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    events
        .end_before(tokio::time::Instant::now() + std::time::Duration::from_secs(10))
        .await;
}

/// The statuses derived from the items, driven step by step on a server without workers
/// (items moved through the same queries the job uses), and the event a retry publishes.
#[tokio::test]
async fn a_heatmaps_status_follows_its_items() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let a = app.upload_ok(&user, "a.png", png(60, 40)).await;
    let b = app.upload_ok(&user, "b.png", png(61, 40)).await;
    let heatmap = create_ok(&app, &user, "Steps", &[&a, &b]).await;
    let (hid, items) = (id(&heatmap).to_owned(), item_ids(&heatmap));
    let db = &app.state.db;
    let status = || async {
        let got = get_heatmap(&app, &user, &hid).await;
        let summary = list(&app, &user, "").await["items"][0].clone();
        assert_eq!(summary["status"], got["status"], "list and GET agree");
        assert_eq!(summary["failed_count"], got["failed_count"]);
        got
    };
    assert_eq!(status().await["status"], "queued");

    let now = regard::db::now_ms();
    let started = regard::db::heatmaps::start_item(db, &items[0], 1, now)
        .await
        .unwrap();
    assert!(started.is_some());
    let got = status().await;
    assert_eq!(got["status"], "processing");
    assert_eq!(got["items"][0]["status"], "processing");
    assert_eq!(got["items"][0]["attempts"], 1);
    assert!(got["items"][0]["started_at"].is_string());
    assert_eq!(got["items"][0]["result"], Value::Null);
    assert_eq!(got["items"][1]["status"], "queued");

    assert!(
        regard::db::heatmaps::fail_item(db, &items[0], "internal", "boom", now)
            .await
            .unwrap()
    );
    let got = status().await;
    assert_eq!(got["status"], "processing", "one failed, one still queued");
    assert_eq!(got["failed_count"], 1);
    assert_eq!(
        got["items"][0]["error"],
        json!({"code": "internal", "message": "boom"})
    );

    // A retry queues the item again with a new job, and tells the user's tabs.
    let mut events = app.events(&user).await;
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &items[0]), &user)
        .await;
    assert_eq!(response.status(), 202);
    let retried: Value = response.json().await.unwrap();
    assert_eq!(retried["status"], "queued");
    assert_eq!(retried["error"], Value::Null);
    assert_eq!(retried["started_at"], Value::Null);
    assert_eq!(retried["finished_at"], Value::Null);
    let deadline = tokio::time::Instant::now() + crate::helpers::EVENT_TIMEOUT;
    let event = events.next_before(deadline).await;
    assert_eq!(event.event, "heatmap_item");
    assert_eq!(
        event.json(),
        json!({"heatmap_id": hid, "item_id": items[0], "status": "queued", "score": null,
               "error": null})
    );
    let jobs = jobs_of(&app, &items[0]).await;
    assert_eq!(jobs.len(), 1, "the old job was replaced: {jobs:?}");
    assert_eq!(jobs[0].status, "queued");
    assert_eq!(jobs[0].attempts, 0);
    let got = status().await;
    assert_eq!(got["status"], "queued");
    assert_eq!(got["failed_count"], 0);
    // Retrying it again is refused: it is queued, not failed.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &items[0]), &user)
        .await;
    assert_api_error(response, 409, "not_failed").await;
}

#[tokio::test]
async fn items_are_named_after_their_creative_or_location() {
    let app = spawn_without_workers().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    let poster = app.upload_ok(&user, "IMG_0042.png", png(120, 90)).await;
    let site = app.upload_ok(&user, "DSC_1001.jpg", jpeg(160, 90)).await;
    let loose = app.upload_ok(&user, "loose.png", png(90, 120)).await;
    let creative = app
        .creative_of(&user, &poster, json!({"name": "Affiche été"}))
        .await;
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            &user,
            &json!({"name": "Gare de Lyon, quai 3", "photo_media_id": site["id"]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let location: Value = response.json().await.unwrap();

    let heatmap = create_ok(&app, &user, "Noms", &[&poster, &site, &loose]).await;
    let got = get_heatmap(&app, &user, id(&heatmap)).await;
    assert_eq!(
        got["items"][0]["label"],
        json!({"kind": "creative", "id": creative["id"], "name": "Affiche été"})
    );
    assert_eq!(
        got["items"][1]["label"],
        json!({"kind": "location", "id": location["id"], "name": "Gare de Lyon, quai 3"})
    );
    assert_eq!(got["items"][2]["label"], Value::Null);
    let latest = get_json(&app, &user, &format!("/media/{}/heatmap", id(&poster))).await;
    assert_eq!(latest["item"]["label"]["name"], "Affiche été");

    // Another user's creative of the same file name is not a label of these images.
    let theirs = app.upload_ok(&other, "IMG_0042.png", png(120, 90)).await;
    app.creative_of(&other, &theirs, json!({"name": "Pas à moi"}))
        .await;
    let got = get_heatmap(&app, &user, id(&heatmap)).await;
    assert_eq!(got["items"][0]["label"]["name"], "Affiche été");
}
