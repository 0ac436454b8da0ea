//! Viewing conditions of locations, the formats table, and the legibility of a simulation's
//! texts (docs/viewing.md), on both databases.

use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{jpeg, poster_with_lines};
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app};

async fn send(app: &TestApp, user: &User, method: Method, path: &str, body: Value) -> Value {
    let response = app.api_json(method, path, user, &body).await;
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    body
}

fn close(value: &Value, expected: f64, tolerance: f64) -> bool {
    value
        .as_f64()
        .is_some_and(|v| (v - expected).abs() <= tolerance)
}

#[tokio::test]
async fn the_formats_table_lists_every_format_with_its_size() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let response = app.api_send(Method::GET, "/locations/formats", &user).await;
    assert_eq!(response.status(), 200);
    let formats: Vec<Value> = response.json().await.unwrap();
    let find = |name: &str| {
        formats
            .iter()
            .find(|f| f["format"] == name)
            .unwrap_or_else(|| panic!("{name} is listed"))
            .clone()
    };
    assert_eq!(formats.len(), 18);
    // One value per size: the former second names are not listed.
    assert!(
        formats
            .iter()
            .all(|f| f["format"] != "billboard_12m2" && f["format"] != "billboard_8m2")
    );
    let uk = find("uk_48_sheet");
    assert_eq!(
        (
            &uk["region"],
            &uk["width_mm"],
            &uk["height_mm"],
            &uk["width_cm"]
        ),
        (&json!("uk"), &json!(6096), &json!(3048), &json!(610))
    );
    let bulletin = find("us_bulletin");
    assert_eq!(
        (&bulletin["width_mm"], &bulletin["height_mm"]),
        (&json!(14630), &json!(4267))
    );
    let de = find("de_18_1");
    assert_eq!(
        (&de["width_cm"], &de["height_cm"]),
        (&json!(356), &json!(252))
    );
    let screen = find("digital_75in_portrait");
    assert_eq!(
        (&screen["width_px"], &screen["height_px"]),
        (&json!(1080), &json!(1920))
    );
    assert_eq!(find("other")["width_cm"], Value::Null);
    // Regions come in the form's order.
    let regions: Vec<&str> = formats
        .iter()
        .map(|f| f["region"].as_str().unwrap())
        .collect();
    let mut order = regions.clone();
    order.dedup();
    assert_eq!(order, ["fr", "uk", "us", "de", "digital", "custom"]);
    let anonymous = app.get_url("/api/v1/locations/formats").await;
    assert_eq!(anonymous.status(), 401);
}

#[tokio::test]
async fn a_format_named_any_way_is_stored_as_its_one_value() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut ids = Vec::new();
    for (name, expected, size) in [
        ("12m2", "billboard_4x3", (400, 300)),
        ("12 m²", "billboard_4x3", (400, 300)),
        ("billboard_12m2", "billboard_4x3", (400, 300)),
        ("4x3", "billboard_4x3", (400, 300)),
        ("8m2", "billboard_320x240", (320, 240)),
        ("billboard_8m2", "billboard_320x240", (320, 240)),
        ("48 sheet", "uk_48_sheet", (610, 305)),
        ("75 pouces", "digital_75in_portrait", (93, 166)),
    ] {
        let location = send(
            &app,
            &user,
            Method::POST,
            "/locations",
            json!({"name": name, "format": name}),
        )
        .await;
        assert_eq!(location["format"], expected, "{name}");
        assert_eq!(
            (&location["panel_width_cm"], &location["panel_height_cm"]),
            (&json!(size.0), &json!(size.1)),
            "{name}"
        );
        ids.push(location["id"].as_str().unwrap().to_owned());
    }
    // A change names it any way too.
    let path = format!("/locations/{}", ids[6]);
    let changed = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"format": "Panneau 12 m²"}),
    )
    .await;
    assert_eq!(changed["format"], "billboard_4x3");
    // A filter on 4 × 3 finds every 12 m², however it was written.
    let listed: Value = app
        .api_send(
            Method::GET,
            "/locations?format=billboard_4x3&limit=50",
            &user,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["items"].as_array().unwrap().len(), 5);
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            &user,
            &json!({"name": "X", "format": "poster"}),
        )
        .await;
    assert_fields(response, json!({"format": "invalid_value"})).await;
}

#[tokio::test]
async fn a_standard_format_fills_in_its_size_unless_one_is_given() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let uk = send(
        &app,
        &user,
        Method::POST,
        "/locations",
        json!({"name": "A40", "format": "uk_48_sheet"}),
    )
    .await;
    assert_eq!(
        (&uk["panel_width_cm"], &uk["panel_height_cm"]),
        (&json!(610), &json!(305))
    );
    let typed = send(
        &app,
        &user,
        Method::POST,
        "/locations",
        json!({"name": "Own", "format": "billboard_4x3", "panel_width_cm": 398, "panel_height_cm": 298}),
    )
    .await;
    assert_eq!(
        (&typed["panel_width_cm"], &typed["panel_height_cm"]),
        (&json!(398), &json!(298))
    );
    let path = format!("/locations/{}", uk["id"].as_str().unwrap());
    let mupi = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"format": "mupi_2m2"}),
    )
    .await;
    assert_eq!(
        (&mupi["panel_width_cm"], &mupi["panel_height_cm"]),
        (&json!(120), &json!(176))
    );
    // A custom format keeps the size.
    let other = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"format": "other"}),
    )
    .await;
    assert_eq!(
        (&other["panel_width_cm"], &other["panel_height_cm"]),
        (&json!(120), &json!(176))
    );
    // A screen gets its pixels too.
    let screen = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"format": "digital_bulletin"}),
    )
    .await;
    assert_eq!(
        (&screen["screen_width_px"], &screen["screen_height_px"]),
        (&json!(1400), &json!(400))
    );
    assert_eq!(
        (&screen["panel_width_cm"], &screen["panel_height_cm"]),
        (&json!(1463), &json!(427))
    );
}

#[tokio::test]
async fn viewing_conditions_give_the_time_in_view() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let road = send(
        &app,
        &user,
        Method::POST,
        "/locations",
        json!({"name": "Périphérique", "format": "billboard_4x3", "audience": "road",
               "viewing_distance_min_m": 10, "viewing_distance_max_m": 150}),
    )
    .await;
    assert_eq!(road["audience"], "road");
    assert_eq!(road["speed_kmh"], Value::Null);
    // A 300 mm headline reads from 103.1 m (comfortably from 51.6 m). Passed 10 m away, it is
    // read from 102.6 m before the nearest point until the panel leaves the 60° cone 5.8 m
    // before it: 96.9 m at 50 km/h, 7.0 s.
    let viewing = &road["viewing"];
    assert_eq!(viewing["speed_kmh"], 50.0);
    assert_eq!(viewing["letter_height_mm"], 300.0);
    assert_eq!(viewing["legible_distance_m"], 103.1);
    assert_eq!(viewing["comfortable_distance_m"], 51.6);
    assert_eq!(viewing["time_in_view_s"], 7.0);
    let path = format!("/locations/{}", road["id"].as_str().unwrap());
    let faster = send(&app, &user, Method::PATCH, &path, json!({"speed_kmh": 90})).await;
    assert_eq!(faster["viewing"]["time_in_view_s"], 3.9);
    // In the list too, and read back.
    let list = send(&app, &user, Method::GET, "/locations", Value::Null).await;
    assert_eq!(list["items"][0]["viewing"]["time_in_view_s"], 3.9);
    let got = send(&app, &user, Method::GET, &path, Value::Null).await;
    assert_eq!(got["viewing_distance_max_m"], 150.0);
    // Without an audience, the given speed is enough; without one either, nothing is said.
    let no_audience = send(&app, &user, Method::PATCH, &path, json!({"audience": null})).await;
    assert_eq!(no_audience["viewing"]["speed_kmh"], 90.0);
    let nothing = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"speed_kmh": null}),
    )
    .await;
    assert_eq!(nothing["viewing"], Value::Null);
}

#[tokio::test]
async fn viewing_conditions_are_validated_field_by_field() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            &user,
            &json!({"name": "Bad", "audience": "bike", "viewing_distance_min_m": 0,
                    "viewing_distance_max_m": 6000, "speed_kmh": 0, "screen_width_px": 1920}),
        )
        .await;
    assert_fields(
        response,
        json!({"audience": "invalid_value", "viewing_distance_min_m": "out_of_range",
               "viewing_distance_max_m": "out_of_range", "speed_kmh": "out_of_range",
               "screen_height_px": "required"}),
    )
    .await;
    // The nearest distance cannot be beyond the farthest; the field that was sent is named.
    let response = app
        .api_json(
            Method::POST,
            "/locations",
            &user,
            &json!({"name": "Inverted", "viewing_distance_min_m": 80, "viewing_distance_max_m": 20}),
        )
        .await;
    assert_fields(response, json!({"viewing_distance_max_m": "out_of_range"})).await;
    let ok = send(
        &app,
        &user,
        Method::POST,
        "/locations",
        json!({"name": "Ok", "viewing_distance_min_m": 5, "viewing_distance_max_m": 20}),
    )
    .await;
    let path = format!("/locations/{}", ok["id"].as_str().unwrap());
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"viewing_distance_min_m": 25}),
        )
        .await;
    assert_fields(response, json!({"viewing_distance_min_m": "out_of_range"})).await;
    let response = app
        .api_json(Method::PATCH, &path, &user, &json!({"speed_kmh": "fast"}))
        .await;
    assert_api_error(response, 422, "validation_failed").await;
}

/// A location with a photo and a quad, a MUPI seen on foot from 13 m down to 3 m.
async fn mupi(app: &TestApp, user: &User, extra: Value) -> Value {
    let photo = app.upload_ok(user, "site.jpg", jpeg(320, 240)).await;
    let mut body = json!({"name": "Bellecour", "format": "mupi_2m2", "photo_media_id": photo["id"],
        "panel_quad": [{"x": 0.3, "y": 0.1}, {"x": 0.7, "y": 0.1}, {"x": 0.7, "y": 0.9}, {"x": 0.3, "y": 0.9}],
        "audience": "pedestrian", "viewing_distance_min_m": 3, "viewing_distance_max_m": 13});
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    send(app, user, Method::POST, "/locations", body).await
}

#[tokio::test]
async fn a_simulation_says_which_texts_can_be_read_and_for_how_long() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // A 1080 × 1920 poster: a 96 px headline (88 mm on the MUPI) and a 16 px legal line
    // (14.7 mm).
    let poster = poster_with_lines(1080, 1920, &[(200, 96), (1800, 16)]);
    let media = app.upload_ok(&user, "poster.png", poster).await;
    let creative = app
        .creative_of(&user, &media, json!({"name": "Poster"}))
        .await;
    let location = mupi(&app, &user, json!({})).await;
    let simulation = send(
        &app,
        &user,
        Method::POST,
        "/simulations",
        json!({"creative_id": creative["id"], "location_id": location["id"], "fit": "stretch",
               "render": false}),
    )
    .await;
    let texts = simulation["legibility"]["texts"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(texts.len(), 2, "{simulation}");
    let (headline, legal) = (&texts[0], &texts[1]);
    assert!(
        close(&headline["letter_height_mm"], 88.0, 88.0 * 0.15),
        "{headline}"
    );
    assert!(
        close(&legal["letter_height_mm"], 14.7, 14.7 * 0.3),
        "{legal}"
    );
    // The headline reads from about 30 m: the whole approach. The legal line from about 5 m:
    // part of it; from 13 m it would need 37.8 mm.
    assert_eq!(headline["reading"], "whole");
    assert_eq!(legal["reading"], "part");
    assert_eq!(legal["needed_mm"], 37.8);
    assert_eq!(headline["shown"], 1.0);
    // The main text reads over the whole 13 m range, passed 3 m away: from 12.6 m before the
    // nearest point to 1.7 m before it, at 5 km/h: 7.9 s.
    assert_eq!(simulation["legibility"]["viewing"]["time_in_view_s"], 7.9);
    // Every text says how far it reads comfortably too (20′: half the threshold's distance).
    for text in texts {
        let (legible, comfortable) = (
            text["legible_distance_m"].as_f64().unwrap(),
            text["comfortable_distance_m"].as_f64().unwrap(),
        );
        assert!((legible / comfortable - 2.0).abs() < 0.05, "{text}");
    }
    assert_eq!(simulation["location"]["audience"], "pedestrian");
    // Read back: the same, from the stored lines.
    let path = format!("/simulations/{}", simulation["id"].as_str().unwrap());
    let got = send(&app, &user, Method::GET, &path, Value::Null).await;
    assert_eq!(got["legibility"], simulation["legibility"]);
    let stored = regard::db::media::text_lines(&app.state.db, media["id"].as_str().unwrap())
        .await
        .unwrap();
    assert!(stored.is_some_and(|(_, version)| version == 1));
    // Lists leave it out.
    let list = send(&app, &user, Method::GET, "/simulations", Value::Null).await;
    assert_eq!(list["items"][0]["legibility"], Value::Null);
}

#[tokio::test]
async fn cover_crops_texts_and_an_unknown_size_measures_nothing() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // A portrait poster covering a 96-sheet (12.19 × 3.05 m): the panel shows the middle 14 %
    // of its height, so the headline at the top is cut off and the middle line is the main
    // text (48 px at 11.3 mm a pixel: 542 mm).
    let poster = poster_with_lines(1080, 1920, &[(200, 96), (930, 48)]);
    let media = app.upload_ok(&user, "tall.png", poster).await;
    let creative = app
        .creative_of(&user, &media, json!({"name": "Tall"}))
        .await;
    let location = mupi(&app, &user, json!({"format": "uk_96_sheet"})).await;
    let simulation = send(
        &app,
        &user,
        Method::POST,
        "/simulations",
        json!({"creative_id": creative["id"], "location_id": location["id"], "fit": "cover",
               "render": false}),
    )
    .await;
    let texts = simulation["legibility"]["texts"].as_array().unwrap();
    assert_eq!(texts.len(), 2, "{simulation}");
    assert_eq!(texts[0]["shown"], 0.0, "{}", texts[0]);
    assert_eq!(texts[1]["shown"], 1.0, "{}", texts[1]);
    let main = &simulation["legibility"]["viewing"];
    assert!(
        close(&main["letter_height_mm"], 542.0, 542.0 * 0.15),
        "{main}"
    );
    assert_eq!(main["time_in_view_s"], 7.9);
    // The same creative on a panel of unknown size: no legibility.
    let unknown = mupi(&app, &user, json!({"format": "other"})).await;
    let simulation = send(
        &app,
        &user,
        Method::POST,
        "/simulations",
        json!({"creative_id": creative["id"], "location_id": unknown["id"], "render": false}),
    )
    .await;
    assert_eq!(simulation["legibility"], Value::Null);
}

#[tokio::test]
async fn a_view_from_there_is_an_adjustment_that_needs_the_panels_size() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let poster = poster_with_lines(540, 960, &[(100, 48), (900, 8)]);
    let media = app.upload_ok(&user, "poster.png", poster).await;
    let creative = app
        .creative_of(&user, &media, json!({"name": "Poster"}))
        .await;
    let location = mupi(&app, &user, json!({})).await;
    let simulation = send(
        &app,
        &user,
        Method::POST,
        "/simulations",
        json!({"creative_id": creative["id"], "location_id": location["id"], "fit": "stretch",
               "adjustments": {"view": {"distance_m": 30, "speed_kmh": 50}}}),
    )
    .await;
    assert_eq!(
        simulation["adjustments"]["view"],
        json!({"distance_m": 30.0, "speed_kmh": 50.0})
    );
    assert_eq!(app.drain_jobs().await, 1);
    let path = format!("/simulations/{}", simulation["id"].as_str().unwrap());
    let done = send(&app, &user, Method::GET, &path, Value::Null).await;
    assert_eq!(done["status"], "done", "{done}");
    // Other adjustments leave it; `null` turns it off.
    let changed = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"adjustments": {"brightness": 0.1}}),
    )
    .await;
    assert_eq!(changed["adjustments"]["view"]["distance_m"], 30.0);
    let off = send(
        &app,
        &user,
        Method::PATCH,
        &path,
        json!({"adjustments": {"view": null}}),
    )
    .await;
    assert_eq!(off["adjustments"]["view"], Value::Null);
    // Bad views, field by field.
    for (view, code) in [
        (json!({"distance_m": 0.5, "speed_kmh": 50}), "out_of_range"),
        (json!({"distance_m": 30, "speed_kmh": 250}), "out_of_range"),
        (json!({"distance_m": 30}), "invalid_type"),
        (json!({"distance_m": "far", "speed_kmh": 5}), "invalid_type"),
        (
            json!({"distance_m": 30, "speed_kmh": 5, "lane": 2}),
            "invalid_type",
        ),
        (json!(30), "invalid_type"),
    ] {
        let response = app
            .api_json(
                Method::PATCH,
                &path,
                &user,
                &json!({"adjustments": {"view": view}}),
            )
            .await;
        assert_fields(response, json!({"adjustments.view": code})).await;
    }
    // A panel of unknown size cannot be seen from a distance.
    let unknown = mupi(&app, &user, json!({"format": "other"})).await;
    let response = app
        .api_json(
            Method::POST,
            "/simulations",
            &user,
            &json!({"creative_id": creative["id"], "location_id": unknown["id"],
                    "adjustments": {"view": {"distance_m": 30, "speed_kmh": 5}}}),
        )
        .await;
    assert_fields(response, json!({"adjustments.view": "requires_size"})).await;
    let response = app
        .api_json(
            Method::POST,
            "/simulations/batch",
            &user,
            &json!({"creative_id": creative["id"], "location_ids": [location["id"], unknown["id"]],
                    "adjustments": {"view": {"distance_m": 30, "speed_kmh": 5}}}),
        )
        .await;
    assert_fields(response, json!({"adjustments.view": "requires_size"})).await;
}
