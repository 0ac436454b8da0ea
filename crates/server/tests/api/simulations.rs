//! `/api/v1/simulations`, the `render_simulation` job, cascades from creatives and locations,
//! downloads and attention in context (docs/architecture/simulations.md).
//!
//! Servers run without workers; each test drains the job queue itself with
//! `regard::jobs::run_ready` (synchronously, as a worker would), so nothing waits on time.

use bytes::Bytes;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use regard::db::jobs::JobState;
use regard::storage::StorageKey;
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::jpeg;
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app, spawn_app_with};
use crate::sse::EVENT_TIMEOUT;

const PHOTO: (u32, u32) = (320, 240);
const RED: [u8; 3] = [220, 20, 30];

fn quad() -> Value {
    json!([{"x": 0.25, "y": 0.25}, {"x": 0.75, "y": 0.25}, {"x": 0.75, "y": 0.75}, {"x": 0.25, "y": 0.75}])
}

async fn spawn() -> TestApp {
    spawn_app().await
}

fn solid_png(width: u32, height: u32, colour: [u8; 3]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(RgbImage::from_pixel(width, height, Rgb(colour)))
        .write_to(&mut out, ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn id(value: &Value) -> String {
    value["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {value}"))
        .to_owned()
}

async fn json_of(response: reqwest::Response, status: u16) -> Value {
    let got = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    assert_eq!(got, status, "{body}");
    body
}

/// A red creative.
async fn creative(app: &TestApp, user: &User, name: &str) -> Value {
    let media = app
        .upload_ok(user, "red.png", solid_png(160, 120, RED))
        .await;
    app.creative_of(user, &media, json!({"name": name})).await
}

/// A location with a photo and, when `with_quad`, a panel quad.
async fn location(app: &TestApp, user: &User, name: &str, with_quad: bool) -> Value {
    let photo = app
        .upload_ok(user, "site.jpg", jpeg(PHOTO.0, PHOTO.1))
        .await;
    let mut body = json!({"name": name, "photo_media_id": photo["id"],
                          "panel_width_cm": 400, "panel_height_cm": 300});
    if with_quad {
        body["panel_quad"] = quad();
    }
    let response = app.api_json(Method::POST, "/locations", user, &body).await;
    json_of(response, 201).await
}

async fn post(app: &TestApp, user: &User, path: &str, body: Value) -> reqwest::Response {
    app.api_json(Method::POST, path, user, &body).await
}

async fn get(app: &TestApp, user: &User, path: &str) -> Value {
    json_of(app.api_send(Method::GET, path, user).await, 200).await
}

/// Creates a simulation of `creative` in `location` (201).
async fn simulate(app: &TestApp, user: &User, creative: &Value, location: &Value) -> Value {
    let response = post(
        app,
        user,
        "/simulations",
        json!({"creative_id": creative["id"], "location_id": location["id"],
               "adjustments": {"auto_match": false}}),
    )
    .await;
    json_of(response, 201).await
}

async fn jobs_of(app: &TestApp, subject: &str) -> Vec<JobState> {
    regard::db::jobs::for_subject(&app.state.db, subject)
        .await
        .unwrap()
}

async fn media_exists(app: &TestApp, id: &str) -> bool {
    regard::db::media::find(&app.state.db, id)
        .await
        .unwrap()
        .is_some()
}

fn media_id_of(url: &str) -> String {
    url.strip_prefix("/api/v1/files/")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("not a file URL: {url}"))
        .to_owned()
}

async fn bytes_of(app: &TestApp, url: &str) -> (reqwest::header::HeaderMap, Bytes) {
    let response = app.get_url(url).await;
    assert_eq!(response.status(), 200, "GET {url}");
    let headers = response.headers().clone();
    (headers, response.bytes().await.unwrap())
}

#[tokio::test]
async fn a_simulation_is_created_rendered_listed_updated_and_deleted() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "Été 2026").await;
    let l = location(&app, &user, "Gare de Lyon", true).await;
    let sim = simulate(&app, &user, &c, &l).await;
    let sim_id = id(&sim);
    assert_eq!(sim["status"], "queued");
    assert_eq!(sim["name"], "Été 2026 — Gare de Lyon");
    assert_eq!(sim["quad"], quad());
    assert_eq!(sim["quad_override"], false);
    assert_eq!(sim["fit"], "cover");
    assert_eq!(sim["background"], "#ffffff");
    assert_eq!(sim["adjustments"]["auto_match"], false);
    assert_eq!(sim["adjustments"]["brightness"], 0.0);
    assert_eq!(sim["creative"]["id"], c["id"]);
    assert_eq!(sim["location"]["panel_width_cm"], 400);
    assert!(sim["location"]["photo"]["urls"]["original"].is_string());
    assert_eq!(sim["output"], Value::Null);
    assert_eq!(sim["downloads"], Value::Null);
    assert_eq!(sim["attention"], Value::Null);
    assert_eq!(jobs_of(&app, &sim_id).await.len(), 1);

    assert_eq!(app.drain_jobs().await, 1);
    let done = get(&app, &user, &format!("/simulations/{sim_id}")).await;
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["error"], Value::Null);
    assert!(done["rendered_at"].is_string());
    let output = &done["output"];
    assert_eq!(output["kind"], "render");
    assert_eq!(output["mime"], "image/jpeg");
    assert_eq!(
        (output["width"].as_u64(), output["height"].as_u64()),
        (Some(320), Some(240))
    );
    assert_eq!(output["original_name"], "Été 2026 — Gare de Lyon.jpg");
    let (_, jpeg_bytes) = bytes_of(&app, output["urls"]["original"].as_str().unwrap()).await;
    let decoded = image::load_from_memory(&jpeg_bytes).unwrap().into_rgb8();
    assert_eq!(decoded.dimensions(), PHOTO);
    let (_, thumb) = bytes_of(&app, output["urls"]["thumbnail"].as_str().unwrap()).await;
    assert!(image::load_from_memory(&thumb).is_ok());

    // Downloads: attachment with the simulation's name, ASCII fallback and UTF-8.
    let (headers, png_bytes) = bytes_of(&app, done["downloads"]["png"].as_str().unwrap()).await;
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(
        headers["content-disposition"],
        "attachment; filename=\"_t_ 2026 _ Gare de Lyon.png\"; \
         filename*=UTF-8''%C3%89t%C3%A9%202026%20%E2%80%94%20Gare%20de%20Lyon.png"
    );
    let png = image::load_from_memory(&png_bytes).unwrap().into_rgb8();
    assert_eq!(png.dimensions(), PHOTO);
    let (headers, _) = bytes_of(&app, done["downloads"]["jpeg"].as_str().unwrap()).await;
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .ends_with(".jpg"),
        "{headers:?}"
    );
    // Without `download` the same signed URL is shown inline.
    let (headers, _) = bytes_of(&app, output["urls"]["original"].as_str().unwrap()).await;
    assert_eq!(headers["content-disposition"], "inline");

    // The panel's centre shows the creative (no adjustments, auto match off).
    let centre = decoded.get_pixel(PHOTO.0 / 2, PHOTO.1 / 2).0;
    for (got, want) in centre.iter().zip(RED) {
        assert!(
            got.abs_diff(want) <= 12,
            "centre {centre:?}, creative {RED:?}"
        );
    }

    // Lists: newest first, filtered by creative, location and name.
    let other_c = creative(&app, &user, "Hiver").await;
    let second = simulate(&app, &user, &other_c, &l).await;
    let page = get(&app, &user, "/simulations").await;
    let ids: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second["id"].as_str().unwrap(), sim_id.as_str()]);
    let page = get(
        &app,
        &user,
        &format!("/simulations?creative_id={}", c["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["items"][0]["id"], sim["id"]);
    let page = get(
        &app,
        &user,
        &format!("/simulations?location_id={}", l["id"].as_str().unwrap()),
    )
    .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    let page = get(&app, &user, "/simulations?q=ete%202026").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    let page = get(&app, &user, "/simulations?limit=1").await;
    assert_eq!(page["items"][0]["id"], second["id"]);
    let cursor = page["next_cursor"].as_str().unwrap();
    let page = get(
        &app,
        &user,
        &format!("/simulations?limit=1&cursor={cursor}"),
    )
    .await;
    assert_eq!(page["items"][0]["id"], sim["id"]);
    assert_eq!(page["next_cursor"], Value::Null);

    // PATCH with a quad override and a background re-renders; the old output is released.
    let old_output = id(output);
    let old_png = media_id_of(done["downloads"]["png"].as_str().unwrap());
    let override_quad = json!([[0.1, 0.1], [0.5, 0.12], [0.5, 0.6], [0.1, 0.62]]);
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/simulations/{sim_id}"),
            &user,
            &json!({"quad": override_quad, "fit": "contain", "background": "#FF8000",
                    "name": "Renamed"}),
        )
        .await;
    let patched = json_of(response, 200).await;
    assert_eq!(patched["status"], "queued");
    assert_eq!(patched["quad_override"], true);
    assert_eq!(patched["quad"][1], json!({"x": 0.5, "y": 0.12}));
    assert_eq!(patched["background"], "#ff8000");
    assert_eq!(
        patched["output"]["id"],
        old_output.as_str(),
        "the previous output stays visible"
    );
    assert_eq!(app.drain_jobs().await, 2);
    let redone = get(&app, &user, &format!("/simulations/{sim_id}")).await;
    assert_eq!(redone["status"], "done");
    assert_ne!(redone["output"]["id"], old_output.as_str());
    assert_eq!(redone["output"]["original_name"], "Renamed.jpg");
    assert!(!media_exists(&app, &old_output).await);
    assert!(!media_exists(&app, &old_png).await);

    // render: false with a change leaves a draft and queues nothing.
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/simulations/{sim_id}"),
            &user,
            &json!({"adjustments": {"brightness": 0.5}, "render": false}),
        )
        .await;
    let draft = json_of(response, 200).await;
    assert_eq!(draft["status"], "draft");
    assert_eq!(draft["adjustments"]["brightness"], 0.5);
    assert_eq!(
        draft["adjustments"]["auto_match"], false,
        "other keys are kept"
    );
    assert_eq!(app.drain_jobs().await, 0);

    // DELETE releases the output and the PNG.
    let output_id = id(&redone["output"]);
    let png_id = media_id_of(redone["downloads"]["png"].as_str().unwrap());
    let response = app
        .api_send(Method::DELETE, &format!("/simulations/{sim_id}"), &user)
        .await;
    assert_eq!(response.status(), 204);
    assert!(!media_exists(&app, &output_id).await);
    assert!(!media_exists(&app, &png_id).await);
    assert!(jobs_of(&app, &sim_id).await.is_empty());
    let response = app
        .api_send(Method::GET, &format!("/simulations/{sim_id}"), &user)
        .await;
    assert_api_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn every_validation_code_is_reported_and_nothing_is_created() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "C").await;
    let l = location(&app, &user, "L", true).await;
    let bare = location(&app, &user, "No quad", false).await;
    let no_photo = json_of(
        post(&app, &user, "/locations", json!({"name": "No photo"})).await,
        201,
    )
    .await;
    let (cid, lid) = (c["id"].clone(), l["id"].clone());
    let missing = uuid::Uuid::new_v4().to_string();
    let cases: Vec<(Value, Value)> = vec![
        (
            json!({}),
            json!({"creative_id": "required", "location_id": "required"}),
        ),
        (
            json!({"creative_id": missing, "location_id": "nope"}),
            json!({"creative_id": "not_found", "location_id": "not_found"}),
        ),
        (
            json!({"creative_id": cid, "location_id": no_photo["id"]}),
            json!({"location_id": "requires_photo"}),
        ),
        (
            json!({"creative_id": cid, "location_id": bare["id"]}),
            json!({"quad": "required"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid, "name": "x".repeat(201)}),
            json!({"name": "too_long"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid, "fit": "fill", "background": "red"}),
            json!({"fit": "invalid_value", "background": "invalid_value"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid, "quad": [[0.1, 0.1]]}),
            json!({"quad": "invalid_shape"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid,
                   "quad": [[0.1, 0.1], [1.5, 0.1], [0.9, 0.9], [0.1, 0.9]]}),
            json!({"quad": "out_of_range"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid,
                   "quad": [[0.1, 0.1], [0.9, 0.9], [0.9, 0.1], [0.1, 0.9]]}),
            json!({"quad": "self_intersecting"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid,
                   "quad": [[0.1, 0.1], [0.9, 0.1], [0.3, 0.3], [0.1, 0.9]]}),
            json!({"quad": "not_convex"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid,
                   "quad": [[0.1, 0.1], [0.1, 0.9], [0.9, 0.9], [0.9, 0.1]]}),
            json!({"quad": "not_clockwise"}),
        ),
        (
            // 0.004 × 320 by 0.004 × 240: about 1.2 px².
            json!({"creative_id": cid, "location_id": lid,
                   "quad": [[0.5, 0.5], [0.504, 0.5], [0.504, 0.504], [0.5, 0.504]]}),
            json!({"quad": "too_small"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid, "adjustments": [1]}),
            json!({"adjustments": "invalid_type"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid,
                   "adjustments": {"brightness": 1.5, "grain": -0.1, "contrast": "x",
                                   "auto_match": 1, "night": "day", "blur": 1}}),
            json!({"adjustments.brightness": "out_of_range", "adjustments.grain": "out_of_range",
                   "adjustments.contrast": "invalid_type", "adjustments.auto_match": "invalid_type",
                   "adjustments.night": "invalid_value", "adjustments.blur": "unknown_field"}),
        ),
        (
            json!({"creative_id": cid, "location_id": lid, "mask_media_id": missing,
                   "render": "yes", "colour": 1}),
            json!({"mask_media_id": "not_found", "render": "invalid_type",
                   "colour": "unknown_field"}),
        ),
    ];
    for (body, fields) in cases {
        let response = post(&app, &user, "/simulations", body.clone()).await;
        assert_fields(response, fields).await;
    }
    // Batch codes.
    let many: Vec<String> = (0..51).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    let batch_cases = vec![
        (
            json!({"creative_id": cid}),
            json!({"location_ids": "required"}),
        ),
        (
            json!({"creative_id": cid, "location_ids": []}),
            json!({"location_ids": "required"}),
        ),
        (
            json!({"creative_id": cid, "location_ids": many}),
            json!({"location_ids": "too_many"}),
        ),
        (
            json!({"creative_id": cid, "location_ids": [lid, missing]}),
            json!({"location_ids": "not_found"}),
        ),
        (
            json!({"creative_id": cid, "location_ids": [no_photo["id"]]}),
            json!({"location_ids": "requires_photo"}),
        ),
        (
            json!({"creative_id": cid, "location_ids": [bare["id"]]}),
            json!({"location_ids": "requires_quad"}),
        ),
        (
            json!({"location_ids": [lid], "fit": 3, "quad": quad()}),
            json!({"creative_id": "required", "fit": "invalid_type", "quad": "unknown_field"}),
        ),
    ];
    for (body, fields) in batch_cases {
        let response = post(&app, &user, "/simulations/batch", body).await;
        assert_fields(response, fields).await;
    }
    let page = get(&app, &user, "/simulations").await;
    assert_eq!(page["items"], json!([]), "nothing was created");
    assert_eq!(app.drain_jobs().await, 0, "no job was queued");

    // PATCH codes, on an existing simulation; nothing changes.
    let sim = simulate(&app, &user, &c, &l).await;
    let path = format!("/simulations/{}", id(&sim));
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"name": null, "creative_id": null, "location_id": bare["id"], "quad": null}),
        )
        .await;
    assert_fields(
        response,
        json!({"name": "required", "creative_id": "required", "quad": "required"}),
    )
    .await;
    let after = get(&app, &user, &path).await;
    assert_eq!(after["name"], sim["name"]);
    assert_eq!(after["location_id"], sim["location_id"]);
    assert_eq!(jobs_of(&app, &id(&sim)).await.len(), 1);
}

#[tokio::test]
async fn another_users_ids_answer_like_missing_ones() {
    let app = spawn().await;
    let (alice, bob) = (app.new_user().await, app.new_user().await);
    let c = creative(&app, &alice, "C").await;
    let l = location(&app, &alice, "L", true).await;
    let sim = simulate(&app, &alice, &c, &l).await;
    app.drain_jobs().await;
    let path = format!("/simulations/{}", id(&sim));
    for (method, suffix) in [
        (Method::GET, ""),
        (Method::PATCH, ""),
        (Method::DELETE, ""),
        (Method::POST, "/render"),
        (Method::POST, "/attention"),
    ] {
        let response = app
            .api_json(method.clone(), &format!("{path}{suffix}"), &bob, &json!({}))
            .await;
        assert_api_error(response, 404, "not_found").await;
        let missing = format!("/simulations/{}{suffix}", uuid::Uuid::new_v4());
        let response = app.api_json(method, &missing, &alice, &json!({})).await;
        assert_api_error(response, 404, "not_found").await;
    }
    let mask = app
        .upload_ok(&alice, "mask.png", solid_png(8, 8, [0, 0, 0]))
        .await;
    let bob_c = creative(&app, &bob, "Bob's").await;
    let response = post(
        &app,
        &bob,
        "/simulations",
        json!({"creative_id": c["id"], "location_id": l["id"], "mask_media_id": mask["id"]}),
    )
    .await;
    assert_fields(
        response,
        json!({"creative_id": "not_found", "location_id": "not_found",
               "mask_media_id": "not_found"}),
    )
    .await;
    let response = post(
        &app,
        &bob,
        "/simulations/batch",
        json!({"creative_id": bob_c["id"], "location_ids": [l["id"]]}),
    )
    .await;
    assert_fields(response, json!({"location_ids": "not_found"})).await;
    let page = get(&app, &bob, "/simulations").await;
    assert_eq!(page["items"], json!([]));
    // Alice's simulation is untouched.
    assert_eq!(get(&app, &alice, &path).await["status"], "done");
}

#[tokio::test]
async fn every_endpoint_needs_a_signed_in_user() {
    let app = spawn().await;
    let some = uuid::Uuid::new_v4();
    for (method, path) in [
        (Method::GET, "/simulations".to_owned()),
        (Method::POST, "/simulations".to_owned()),
        (Method::POST, "/simulations/batch".to_owned()),
        (Method::GET, format!("/simulations/{some}")),
        (Method::PATCH, format!("/simulations/{some}")),
        (Method::DELETE, format!("/simulations/{some}")),
        (Method::POST, format!("/simulations/{some}/render")),
        (Method::POST, format!("/simulations/{some}/attention")),
    ] {
        let response = app
            .client
            .request(method.clone(), app.url(&format!("/api/v1{path}")))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_api_error(response, 401, "unauthorized").await;
    }
}

#[tokio::test]
async fn a_batch_places_one_creative_on_many_locations_at_once() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "Promo").await;
    let mut locations = Vec::new();
    for name in ["A", "B", "C"] {
        locations.push(location(&app, &user, name, true).await);
    }
    let ids: Vec<&Value> = locations.iter().map(|l| &l["id"]).collect();
    let response = post(
        &app,
        &user,
        "/simulations/batch",
        json!({"creative_id": c["id"], "location_ids": [ids[0], ids[1], ids[2], ids[0]],
               "fit": "stretch", "adjustments": {"warmth": 0.25}}),
    )
    .await;
    let batch = json_of(response, 201).await;
    let items = batch["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "duplicates are dropped");
    for (item, name) in items.iter().zip(["A", "B", "C"]) {
        assert_eq!(item["name"], format!("Promo — {name}"));
        assert_eq!(item["status"], "queued");
        assert_eq!(item["fit"], "stretch");
        assert_eq!(item["adjustments"]["warmth"], 0.25);
    }
    assert_eq!(app.drain_jobs().await, 3);
    let page = get(&app, &user, "/simulations").await;
    assert!(
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["status"] == "done" && s["output"]["kind"] == "render")
    );
    let detail = get(&app, &user, &format!("/creatives/{}", id(&c))).await;
    assert_eq!(detail["simulation_count"], 3);
}

#[tokio::test]
async fn an_update_during_a_render_discards_the_older_result() {
    // Each job pauses after marking the simulation `rendering`: the update lands in that
    // pause, which the test knows from the `rendering` event (not from a delay).
    let app = spawn_app_with(|config| {
        config.fault_hold_job_ms = 1500;
    })
    .await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "C").await;
    let l = location(&app, &user, "L", true).await;
    let mut events = app.events(&user).await;
    let sim = simulate(&app, &user, &c, &l).await;
    let sim_id = id(&sim);
    let ctx = app.state.job_context();
    let worker = tokio::spawn(async move { regard::jobs::run_ready(&ctx).await });
    let deadline = tokio::time::Instant::now() + EVENT_TIMEOUT;
    let mut statuses = Vec::new();
    loop {
        let event = events.next_before(deadline).await;
        assert_eq!(event.event, "simulation");
        let data = event.json();
        assert_eq!(data["simulation_id"], sim_id.as_str());
        statuses.push(data["status"].as_str().unwrap().to_owned());
        if data["status"] == "rendering" {
            break;
        }
    }
    assert_eq!(statuses, ["queued", "rendering"]);
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/simulations/{sim_id}"),
            &user,
            &json!({"name": "Newer"}),
        )
        .await;
    assert_eq!(json_of(response, 200).await["status"], "queued");
    // The first job finishes its render but must not save it; the second one renders "Newer".
    assert_eq!(worker.await.unwrap(), 2);
    let mut rest = Vec::new();
    loop {
        let data = events.next_before(deadline).await.json();
        rest.push(data["status"].as_str().unwrap().to_owned());
        if data["status"] == "done" {
            break;
        }
    }
    assert_eq!(
        rest,
        ["queued", "rendering", "done"],
        "one done, from the newer job"
    );
    let done = get(&app, &user, &format!("/simulations/{sim_id}")).await;
    assert_eq!(done["output"]["original_name"], "Newer.jpg");
    // Exactly one JPEG and one PNG of kind render exist: the discarded render left nothing.
    let renders = regard::db::media::count_all(&app.state.db).await.unwrap();
    assert_eq!(renders, 2 + 2, "two uploads and one render (JPEG + PNG)");
    let jobs = jobs_of(&app, &sim_id).await;
    assert_eq!(jobs.len(), 1, "the first job was deleted by the update");
    assert_eq!(jobs[0].status, "done");
}

#[tokio::test]
async fn failed_renders_say_why_and_can_be_retried() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "C").await;
    let l = location(&app, &user, "L", true).await;
    let photo = regard::db::media::find(&app.state.db, &id(&l["photo"]))
        .await
        .unwrap()
        .unwrap();
    let photo_key = StorageKey::new(photo.original_key.clone()).unwrap();
    let original = app.state.storage.get_bytes(&photo_key).await.unwrap();

    // The photo's file vanished: source_missing.
    app.state.storage.delete(&photo_key).await.unwrap();
    let sim = simulate(&app, &user, &c, &l).await;
    let path = format!("/simulations/{}", id(&sim));
    assert_eq!(app.drain_jobs().await, 1);
    let failed = get(&app, &user, &path).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], "source_missing");
    assert!(failed["error"]["message"].is_string());
    assert_eq!(failed["output"], Value::Null);

    // A corrupt file: invalid_image.
    app.state
        .storage
        .put_bytes(&photo_key, Bytes::from_static(b"\xFF\xD8\xFF\xE0 corrupt"))
        .await
        .unwrap();
    let response = post(&app, &user, &format!("{path}/render"), json!({})).await;
    assert_eq!(json_of(response, 202).await["status"], "queued");
    let response = post(&app, &user, &format!("{path}/render"), json!({})).await;
    assert_api_error(response, 409, "already_rendering").await;
    assert_eq!(app.drain_jobs().await, 1);
    let failed = get(&app, &user, &path).await;
    assert_eq!(failed["error"]["code"], "invalid_image");

    // Repaired: the retry renders.
    app.state
        .storage
        .put_bytes(&photo_key, original)
        .await
        .unwrap();
    let response = post(&app, &user, &format!("{path}/render"), json!({})).await;
    let queued = json_of(response, 202).await;
    assert_eq!(queued["error"], Value::Null);
    assert_eq!(app.drain_jobs().await, 1);
    let done = get(&app, &user, &path).await;
    assert_eq!(done["status"], "done");
    assert_eq!(done["error"], Value::Null);
}

#[tokio::test]
async fn deleting_a_creative_or_a_location_deletes_its_simulations() {
    let app = spawn().await;
    let user = app.new_user().await;
    let (c1, c2) = (
        creative(&app, &user, "One").await,
        creative(&app, &user, "Two").await,
    );
    let (l1, l2) = (
        location(&app, &user, "L1", true).await,
        location(&app, &user, "L2", true).await,
    );
    let s11 = simulate(&app, &user, &c1, &l1).await;
    let s12 = simulate(&app, &user, &c1, &l2).await;
    let s21 = simulate(&app, &user, &c2, &l1).await;
    let s22 = simulate(&app, &user, &c2, &l2).await;
    assert_eq!(app.drain_jobs().await, 4);
    let out11 = id(&get(&app, &user, &format!("/simulations/{}", id(&s11))).await["output"]);
    let out12 = id(&get(&app, &user, &format!("/simulations/{}", id(&s12))).await["output"]);
    assert_eq!(
        get(&app, &user, &format!("/creatives/{}", id(&c1))).await["simulation_count"],
        2
    );
    assert_eq!(
        get(&app, &user, &format!("/locations/{}", id(&l1))).await["simulation_count"],
        2
    );

    // A heatmap of s12's render keeps that render alive after the cascade.
    let response = post(
        &app,
        &user,
        &format!("/simulations/{}/attention", id(&s12)),
        json!({}),
    )
    .await;
    json_of(response, 202).await;

    let response = app
        .api_send(Method::DELETE, &format!("/creatives/{}", id(&c1)), &user)
        .await;
    assert_eq!(response.status(), 204);
    for gone in [&s11, &s12] {
        let response = app
            .api_send(Method::GET, &format!("/simulations/{}", id(gone)), &user)
            .await;
        assert_api_error(response, 404, "not_found").await;
        assert!(jobs_of(&app, &id(gone)).await.is_empty());
    }
    assert!(
        !media_exists(&app, &out11).await,
        "s11's render was released"
    );
    assert!(
        media_exists(&app, &out12).await,
        "s12's render is used by a heatmap"
    );
    assert_eq!(
        get(&app, &user, &format!("/locations/{}", id(&l1))).await["simulation_count"],
        1
    );

    let out21 = id(&get(&app, &user, &format!("/simulations/{}", id(&s21))).await["output"]);
    let response = app
        .api_send(Method::DELETE, &format!("/locations/{}", id(&l1)), &user)
        .await;
    assert_eq!(response.status(), 204);
    let response = app
        .api_send(Method::GET, &format!("/simulations/{}", id(&s21)), &user)
        .await;
    assert_api_error(response, 404, "not_found").await;
    assert!(!media_exists(&app, &out21).await);
    assert_eq!(
        get(&app, &user, &format!("/creatives/{}", id(&c2))).await["simulation_count"],
        1
    );
    assert_eq!(
        get(&app, &user, &format!("/simulations/{}", id(&s22))).await["status"],
        "done"
    );
    // A render in use by a simulation cannot be deleted through the media API.
    let out22 = id(&get(&app, &user, &format!("/simulations/{}", id(&s22))).await["output"]);
    let response = app
        .api_send(Method::DELETE, &format!("/media/{out22}"), &user)
        .await;
    assert_api_error(response, 409, "media_in_use").await;
}

#[tokio::test]
async fn attention_in_context_measures_the_panel() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "C").await;
    let l = location(&app, &user, "L", true).await;
    let sim = simulate(&app, &user, &c, &l).await;
    let path = format!("/simulations/{}", id(&sim));
    let response = post(&app, &user, &format!("{path}/attention"), json!({})).await;
    assert_api_error(response, 409, "not_rendered").await;
    app.drain_jobs().await;
    let done = get(&app, &user, &path).await;
    let response = post(&app, &user, &format!("{path}/attention"), json!({})).await;
    let heatmap_id = json_of(response, 202).await["heatmap_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let pending = get(&app, &user, &path).await;
    assert_eq!(pending["attention"]["status"], "queued");
    assert_eq!(pending["attention"]["visibility"], Value::Null);
    assert_eq!(
        pending["attention"]["first_second_probability"],
        Value::Null
    );
    assert_eq!(app.drain_jobs().await, 1);

    let heatmap = get(&app, &user, &format!("/heatmaps/{heatmap_id}")).await;
    assert_eq!(heatmap["name"], done["name"]);
    let item = &heatmap["items"][0];
    assert_eq!(item["status"], "done", "{item}");
    assert_eq!(item["source"]["id"], done["output"]["id"]);
    assert_eq!(item["aoi"], quad());
    let panel = &item["result"]["panel"];
    let (share, area, visibility) = (
        panel["share"].as_f64().unwrap(),
        panel["area_share"].as_f64().unwrap(),
        panel["visibility"].as_f64().unwrap(),
    );
    assert!(share > 0.0 && share <= 1.0, "share {share}");
    assert!(
        (area - 0.25).abs() < 0.01,
        "the quad covers a quarter: {area}"
    );
    assert!((visibility - share / area).abs() < 1e-9);
    let (glance_share, first_second) = (
        panel["glance_share"].as_f64().unwrap(),
        panel["first_second_probability"].as_f64().unwrap(),
    );
    assert!(glance_share > 0.0 && glance_share <= 1.0, "{panel}");
    assert!(first_second > 0.0 && first_second < 1.0, "{panel}");

    let analysed = get(&app, &user, &path).await;
    let attention = &analysed["attention"];
    assert_eq!(attention["heatmap_id"], heatmap_id.as_str());
    assert_eq!(attention["item_id"], item["id"]);
    assert_eq!(attention["status"], "done");
    assert_eq!(attention["score"], item["result"]["score"]);
    assert_eq!(attention["panel_share"].as_f64(), Some(share));
    assert_eq!(attention["area_share"].as_f64(), Some(area));
    assert_eq!(attention["visibility"].as_f64(), Some(visibility));
    assert_eq!(
        attention["first_second_probability"].as_f64(),
        Some(first_second)
    );
    assert_eq!(attention["glance_share"].as_f64(), Some(glance_share));
    // A plain heatmap's items have no area of interest.
    let plain = app.upload_ok(&user, "p.jpg", jpeg(64, 48)).await;
    let response = post(
        &app,
        &user,
        "/heatmaps",
        json!({"name": "Plain", "media_ids": [plain["id"]]}),
    )
    .await;
    let plain = json_of(response, 202).await;
    assert_eq!(plain["items"][0]["aoi"], Value::Null);

    // After a re-render the attention belongs to the old output: none for the new one.
    let response = post(&app, &user, &format!("{path}/render"), json!({})).await;
    json_of(response, 202).await;
    app.drain_jobs().await;
    let rerendered = get(&app, &user, &path).await;
    assert_eq!(rerendered["attention"], Value::Null);
    assert!(
        media_exists(&app, &id(&done["output"])).await,
        "the heatmap keeps the old render"
    );
}

#[tokio::test]
async fn a_mask_is_kept_while_used_and_released_with_its_simulation() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "C").await;
    let l = location(&app, &user, "L", true).await;
    let mask = app
        .upload_ok(&user, "mask.png", solid_png(32, 24, [255, 255, 255]))
        .await;
    let response = post(
        &app,
        &user,
        "/simulations",
        json!({"creative_id": c["id"], "location_id": l["id"], "mask_media_id": mask["id"]}),
    )
    .await;
    let sim = json_of(response, 201).await;
    assert_eq!(sim["mask"]["id"], mask["id"]);
    assert_eq!(app.drain_jobs().await, 1);
    let path = format!("/simulations/{}", id(&sim));
    let done = get(&app, &user, &path).await;
    assert_eq!(done["status"], "done");
    // A white mask hides the whole panel: the centre keeps the photo's colour.
    let pixel = |bytes: &Bytes| {
        let image = image::load_from_memory(bytes).unwrap().into_rgb8();
        image.get_pixel(PHOTO.0 / 2, PHOTO.1 / 2).0
    };
    let (_, rendered) = bytes_of(&app, done["output"]["urls"]["original"].as_str().unwrap()).await;
    let (_, photo) = bytes_of(&app, l["photo"]["urls"]["original"].as_str().unwrap()).await;
    let (got, want) = (pixel(&rendered), pixel(&photo));
    for (g, w) in got.iter().zip(want) {
        assert!(g.abs_diff(w) <= 12, "centre {got:?}, photo {want:?}");
    }
    let response = app
        .api_send(Method::DELETE, &format!("/media/{}", id(&mask)), &user)
        .await;
    assert_api_error(response, 409, "media_in_use").await;
    let response = app.api_send(Method::DELETE, &path, &user).await;
    assert_eq!(response.status(), 204);
    assert!(
        !media_exists(&app, &id(&mask)).await,
        "the mask was released"
    );
}

/// The renders of several simulations in one ZIP, named after creative and location (repeated
/// names numbered), the unrendered left out; none rendered is 409, another user's id 422.
#[tokio::test]
async fn renders_come_as_one_zip_named_after_creative_and_location() {
    let app = spawn().await;
    let user = app.new_user().await;
    let c = creative(&app, &user, "Été 2027").await;
    let lyon = location(&app, &user, "Lyon: Part-Dieu", true).await;
    let paris = location(&app, &user, "Paris", true).await;
    let first = simulate(&app, &user, &c, &lyon).await;
    let second = simulate(&app, &user, &c, &paris).await;
    let again = simulate(&app, &user, &c, &lyon).await;

    // Nothing rendered yet.
    let early = post(
        &app,
        &user,
        "/simulations/renders.zip",
        json!({"ids": [id(&first)]}),
    )
    .await;
    assert_api_error(early, 409, "not_rendered").await;

    assert_eq!(app.drain_jobs().await, 3);
    let pending = simulate(&app, &user, &c, &paris).await;
    let response = post(
        &app,
        &user,
        "/simulations/renders.zip",
        json!({"ids": [id(&first), id(&second), id(&again), id(&pending)]}),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/zip");
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"regard-ete-2027-renders.zip\""
    );
    let bytes = response.bytes().await.unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let names: Vec<String> = (0..archive.len())
        .map(|i| archive.by_index(i).unwrap().name().unwrap().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "Été 2027 — Lyon Part-Dieu.jpg",
            "Été 2027 — Paris.jpg",
            "Été 2027 — Lyon Part-Dieu (2).jpg"
        ]
    );
    // Each entry is the render itself.
    let mut entry = Vec::new();
    std::io::Read::read_to_end(&mut archive.by_index(1).unwrap(), &mut entry).unwrap();
    let detail = get(&app, &user, &format!("/simulations/{}", id(&second))).await;
    let (_, render) = bytes_of(&app, detail["output"]["urls"]["original"].as_str().unwrap()).await;
    assert_eq!(entry, render.to_vec());

    let png = post(
        &app,
        &user,
        "/simulations/renders.zip",
        json!({"ids": [id(&second)], "format": "png"}),
    )
    .await;
    let png = png.bytes().await.unwrap();
    let archive = zip::ZipArchive::new(std::io::Cursor::new(png.to_vec())).unwrap();
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().into_owned())
        .collect();
    assert_eq!(names, ["Été 2027 — Paris.png"]);

    // Another user's simulation is not found; bad bodies say which field.
    let other = app.new_user().await;
    let refused = post(
        &app,
        &other,
        "/simulations/renders.zip",
        json!({"ids": [id(&first)]}),
    )
    .await;
    assert_fields(refused, json!({"ids": "not_found"})).await;
    let empty = post(&app, &user, "/simulations/renders.zip", json!({"ids": []})).await;
    assert_fields(empty, json!({"ids": "required"})).await;
    let format = post(
        &app,
        &user,
        "/simulations/renders.zip",
        json!({"ids": [id(&first)], "format": "gif"}),
    )
    .await;
    assert_fields(format, json!({"format": "invalid_value"})).await;
}
