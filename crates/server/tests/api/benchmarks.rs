//! `GET /heatmaps/{id}/benchmarks`: each result's measures and areas placed against the user's
//! own results of the same kind and against the shipped reference
//! (docs/architecture/heatmaps.md, "Benchmarks").

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, User, assert_api_error, spawn_app};

/// A dark image with one bright square of `size` pixels: the square takes more or less of the
/// attention, so the images' scores differ.
fn spot_png(size: u32) -> Vec<u8> {
    let (w, h) = (320, 240);
    let image = RgbImage::from_fn(w, h, |x, y| {
        let inside = (60..60 + size).contains(&x) && (50..50 + size).contains(&y);
        let t = ((x * 7 + y * 13) % 17) as u8;
        if inside {
            Rgb([240, 60 + t, 40])
        } else {
            Rgb([30 + t, 40 + t, 50 + t])
        }
    });
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(image)
        .write_to(&mut out, ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn num(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// The percentile the API promises: the share of `others` below `value`, ties counting half,
/// to one decimal.
fn expected_percentile(others: &[f64], value: f64) -> f64 {
    let below = others.iter().filter(|&&x| x < value - 1e-9).count() as f64;
    let equal = others
        .iter()
        .filter(|&&x| (x - value).abs() <= 1e-9)
        .count() as f64;
    ((below + equal / 2.0) / others.len() as f64 * 1000.0).round() / 10.0
}

async fn get_json(app: &TestApp, user: &User, path: &str) -> Value {
    let response = app.api_send(Method::GET, path, user).await;
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.unwrap()
}

/// Six creatives, one location photo and one plain image, in one heatmap, all done.
async fn library(app: &TestApp, user: &User) -> (Value, Vec<String>) {
    let mut media = Vec::new();
    for (n, size) in [24, 40, 56, 72, 96, 120, 150, 180].into_iter().enumerate() {
        media.push(
            app.upload_ok(user, &format!("{n}.png"), spot_png(size))
                .await,
        );
    }
    for (n, m) in media.iter().take(6).enumerate() {
        app.creative_of(user, m, json!({"name": format!("Affiche {n}")}))
            .await;
    }
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            user,
            &json!({"name": "Gare", "photo_media_id": media[6]["id"]}),
        )
        .await;
    assert_eq!(response.status(), 201, "creating the location");
    let mut events = app.events(user).await;
    let heatmap = app
        .heatmap(user, "Bibliothèque", &media.iter().collect::<Vec<_>>())
        .await;
    let items: Vec<String> = heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect();
    app.until_finished(
        &mut events,
        &items.iter().map(String::as_str).collect::<Vec<_>>(),
    )
    .await;
    let id = heatmap["id"].as_str().unwrap();
    (get_json(app, user, &format!("/heatmaps/{id}")).await, items)
}

#[tokio::test]
async fn each_measure_is_placed_among_the_users_results_of_its_kind_and_the_reference() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (heatmap, items) = library(&app, &user).await;
    let id = heatmap["id"].as_str().unwrap();
    let bench = get_json(&app, &user, &format!("/heatmaps/{id}/benchmarks")).await;

    assert_eq!(bench["reference"]["name"], "OSIE");
    assert_eq!(bench["reference"]["model"], "v3");
    let results: Vec<&Value> = heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["result"])
        .collect();
    let of = |item: &str| -> &Value {
        bench["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["item_id"] == item)
            .unwrap_or_else(|| panic!("no benchmarks for {item}: {bench}"))
    };
    assert_eq!(bench["items"].as_array().unwrap().len(), 8);

    // A creative is compared with the five other creatives, on every measure.
    for (n, item) in items.iter().take(6).enumerate() {
        let b = of(item);
        assert_eq!(b["kind"], "creative");
        for metric in ["score", "focus", "clarity"] {
            let m = &b["metrics"][metric];
            let value = num(&results[n][metric]);
            assert!((num(&m["value"]) - value).abs() < 1e-9, "{metric}: {m}");
            let others: Vec<f64> = (0..6)
                .filter(|&k| k != n)
                .map(|k| num(&results[k][metric]))
                .collect();
            assert_eq!(m["library"]["count"], 5, "{metric}: {m}");
            assert_eq!(
                num(&m["library"]["percentile"]),
                expected_percentile(&others, value),
                "{metric} of creative {n}: {m}"
            );
            let reference = num(&m["reference"]["percentile"]);
            assert!((0.0..=100.0).contains(&reference), "{m}");
            assert!(num(&m["reference"]["count"]) >= 100.0, "{m}");
        }
        assert!(
            b["metrics"].get("panel").is_none() && b["metrics"].get("first_second").is_none(),
            "only renders have a panel"
        );
    }
    // The location photo has no other location to be compared with; the plain image is
    // compared with everything else.
    let location = of(&items[6]);
    assert_eq!(location["kind"], "location");
    assert_eq!(
        location["metrics"]["score"]["library"],
        json!({"percentile": null, "count": 0})
    );
    let image = of(&items[7]);
    assert_eq!(image["kind"], "image");
    assert_eq!(image["metrics"]["score"]["library"]["count"], 7);

    // The reference orders scores as the scores themselves are ordered.
    let mut by_score: Vec<(f64, f64)> = items
        .iter()
        .take(6)
        .enumerate()
        .map(|(n, item)| {
            (
                num(&results[n]["score"]),
                num(&of(item)["metrics"]["score"]["reference"]["percentile"]),
            )
        })
        .collect();
    by_score.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(
        by_score.windows(2).all(|w| w[0].1 <= w[1].1),
        "reference percentiles follow the scores: {by_score:?}"
    );
}

#[tokio::test]
async fn an_area_is_placed_among_the_users_areas_of_its_name() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (heatmap, items) = library(&app, &user).await;
    let id = heatmap["id"].as_str().unwrap();
    // A "Logo" on six images, a bit lower each time, and one "Prix".
    let mut logos = Vec::new();
    for (n, item) in items.iter().take(6).enumerate() {
        let y = 0.1 * n as f64;
        let response = app
            .api_json(
                Method::POST,
                &format!("/heatmaps/{id}/items/{item}/aois"),
                &user,
                &json!({"name": if n % 2 == 0 { "Logo" } else { "logo " },
                        "rect": {"x": 0.1, "y": y, "width": 0.3, "height": 0.3}}),
            )
            .await;
        assert_eq!(response.status(), 201);
        logos.push(response.json::<Value>().await.unwrap());
    }
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{id}/items/{}/aois", items[7]),
            &user,
            &json!({"name": "Prix", "rect": {"x": 0.6, "y": 0.6, "width": 0.2, "height": 0.2}}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let price: Value = response.json().await.unwrap();

    let bench = get_json(&app, &user, &format!("/heatmaps/{id}/benchmarks")).await;
    let area_of = |item: &str, aoi: &Value| -> Value {
        let b = bench["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["item_id"] == item)
            .unwrap();
        b["aois"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["aoi_id"] == aoi["id"])
            .cloned()
            .unwrap_or_else(|| panic!("no benchmark for area {aoi}: {b}"))
    };
    let shares: Vec<f64> = logos
        .iter()
        .map(|l| num(&l["attention"]["share"]))
        .collect();
    for (n, logo) in logos.iter().enumerate() {
        let b = area_of(&items[n], logo);
        assert!((num(&b["share"]) - shares[n]).abs() < 1e-9, "{b}");
        let others: Vec<f64> = (0..6).filter(|&k| k != n).map(|k| shares[k]).collect();
        // Names match whatever their case and spaces.
        assert_eq!(b["library"]["count"], 5, "{b}");
        assert_eq!(
            num(&b["library"]["percentile"]),
            expected_percentile(&others, shares[n]),
            "logo {n}: {b}"
        );
        let reference = num(&b["reference"]["percentile"]);
        assert!((0.0..=100.0).contains(&reference), "{b}");
    }
    let b = area_of(&items[7], &price);
    assert_eq!(b["library"], json!({"percentile": null, "count": 0}));
    assert!(b["reference"]["percentile"].is_number());
}

#[tokio::test]
async fn benchmarks_are_the_owners_only() {
    let app = spawn_app().await;
    let (owner, other) = (app.new_user().await, app.new_user().await);
    let media = app.upload_ok(&owner, "a.png", spot_png(60)).await;
    let heatmap = app.heatmap(&owner, "Une", &[&media]).await;
    let id = heatmap["id"].as_str().unwrap();
    let path = format!("/heatmaps/{id}/benchmarks");

    let response = app.api_send(Method::GET, &path, &other).await;
    assert_api_error(response, 404, "not_found").await;
    let response = app
        .base_request(Method::GET, &format!("/api/v1{path}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let response = app
        .api_send(Method::GET, "/heatmaps/not-an-id/benchmarks", &owner)
        .await;
    assert_eq!(response.status(), 404);
}

/// Renders are compared with renders, on their panel's visibility too.
#[tokio::test]
async fn a_render_is_placed_among_renders_on_its_panel_as_well() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let photo = app
        .upload_ok(&user, "site.jpg", crate::fixtures::jpeg(480, 320))
        .await;
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            &user,
            &json!({"name": "Gare", "photo_media_id": photo["id"],
                    "panel_width_cm": 400, "panel_height_cm": 300,
                    "panel_quad": [{"x": 0.3, "y": 0.2}, {"x": 0.7, "y": 0.2},
                                   {"x": 0.7, "y": 0.6}, {"x": 0.3, "y": 0.6}]}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let location: Value = response.json().await.unwrap();
    // Six renders of creatives with a bigger and bigger bright square.
    let mut heatmaps = Vec::new();
    for (n, size) in [20, 40, 60, 80, 100, 140].into_iter().enumerate() {
        let media = app
            .upload_ok(&user, &format!("{n}.png"), spot_png(size))
            .await;
        let creative = app
            .creative_of(&user, &media, json!({"name": format!("Affiche {n}")}))
            .await;
        let response = app
            .api_json(
                Method::POST,
                "/simulations",
                &user,
                &json!({"creative_id": creative["id"], "location_id": location["id"]}),
            )
            .await;
        assert_eq!(response.status(), 201);
        let simulation: Value = response.json().await.unwrap();
        app.drain_jobs().await;
        let response = app
            .api_json(
                Method::POST,
                &format!(
                    "/simulations/{}/attention",
                    simulation["id"].as_str().unwrap()
                ),
                &user,
                &json!({}),
            )
            .await;
        assert_eq!(response.status(), 202);
        let body: Value = response.json().await.unwrap();
        heatmaps.push(body["heatmap_id"].as_str().unwrap().to_owned());
    }
    app.drain_jobs().await;

    let mut visibilities = Vec::new();
    let mut first_seconds = Vec::new();
    for id in &heatmaps {
        let heatmap = get_json(&app, &user, &format!("/heatmaps/{id}")).await;
        assert_eq!(heatmap["items"][0]["status"], "done");
        let panel = &heatmap["items"][0]["result"]["panel"];
        visibilities.push(num(&panel["visibility"]));
        first_seconds.push(num(&panel["first_second_probability"]));
    }
    for (n, id) in heatmaps.iter().enumerate() {
        let bench = get_json(&app, &user, &format!("/heatmaps/{id}/benchmarks")).await;
        let b = &bench["items"][0];
        assert_eq!(b["kind"], "render", "{b}");
        let panel = &b["metrics"]["panel"];
        assert!(
            (num(&panel["value"]) - visibilities[n]).abs() < 1e-9,
            "{panel}"
        );
        let others: Vec<f64> = (0..6)
            .filter(|&k| k != n)
            .map(|k| visibilities[k])
            .collect();
        assert_eq!(panel["library"]["count"], 5);
        assert_eq!(
            num(&panel["library"]["percentile"]),
            expected_percentile(&others, visibilities[n]),
            "render {n}: {panel}"
        );
        assert!(panel["reference"]["percentile"].is_number(), "{panel}");
        // And its probability of a look within the first second, against the same renders.
        let first = &b["metrics"]["first_second"];
        assert!(
            (num(&first["value"]) - first_seconds[n]).abs() < 1e-9,
            "{first}"
        );
        let others: Vec<f64> = (0..6)
            .filter(|&k| k != n)
            .map(|k| first_seconds[k])
            .collect();
        assert_eq!(
            num(&first["library"]["percentile"]),
            expected_percentile(&others, first_seconds[n]),
            "render {n}: {first}"
        );
        let reference = num(&first["reference"]["percentile"]);
        assert!((0.0..=100.0).contains(&reference), "{first}");
        // The creatives themselves are not renders: five other renders on the score too.
        assert_eq!(b["metrics"]["score"]["library"]["count"], 5);
    }
}

/// A share link's page gets the reference standings, never the owner's library.
#[tokio::test]
async fn a_share_link_carries_the_reference_standings_only() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (heatmap, _) = library(&app, &user).await;
    let id = heatmap["id"].as_str().unwrap();
    let own = get_json(&app, &user, &format!("/heatmaps/{id}/benchmarks")).await;
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{id}/shares"),
            &user,
            &json!({}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let token = response.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let shared: Value = app
        .client
        .get(format!("{}/api/v1/shared/{token}", app.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let bench = &shared["benchmarks"];
    assert_eq!(bench["reference"], own["reference"]);
    let (theirs, ours) = (
        bench["items"].as_array().unwrap(),
        own["items"].as_array().unwrap(),
    );
    assert_eq!(theirs.len(), ours.len());
    for (t, o) in theirs.iter().zip(ours) {
        assert_eq!(t["item_id"], o["item_id"]);
        for metric in ["score", "focus", "clarity"] {
            assert_eq!(t["metrics"][metric]["library"], Value::Null, "{t}");
            assert_eq!(
                t["metrics"][metric]["reference"],
                o["metrics"][metric]["reference"]
            );
        }
    }
}
