//! `/api/v1/locations`, and the ownership rule across every endpoint.

use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{jpeg_with_gps, png};
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app};

async fn create(app: &TestApp, user: &User, body: Value) -> reqwest::Response {
    app.api_json(Method::POST, "/locations", user, &body).await
}

async fn create_ok(app: &TestApp, user: &User, body: Value) -> Value {
    let response = create(app, user, body).await;
    assert_eq!(response.status(), 201);
    response.json().await.unwrap()
}

fn square() -> Value {
    json!([{"x": 0.1, "y": 0.2}, {"x": 0.9, "y": 0.1}, {"x": 0.85, "y": 0.9}, {"x": 0.15, "y": 0.8}])
}

#[tokio::test]
async fn a_location_is_created_with_its_photo_and_quad() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let photo = app
        .upload_ok(&user, "site.jpg", jpeg_with_gps(400, 300))
        .await;
    // The client pre-fills the coordinates from the photo's GPS position.
    let location = create_ok(
        &app,
        &user,
        json!({
            "name": "Évry Centre", "address": "1 place de l'Agora", "city": "Évry-Courcouronnes",
            "postal_code": "91000", "country": "France",
            "latitude": photo["gps"]["latitude"], "longitude": photo["gps"]["longitude"],
            "format": "billboard_4x3", "panel_width_cm": 400, "panel_height_cm": 300,
            "illumination": "back", "orientation_deg": 270.5, "photo_media_id": photo["id"],
            "panel_quad": square(), "notes": "Near the station",
        }),
    )
    .await;
    assert_eq!(location["name"], "Évry Centre");
    assert_eq!(location["city"], "Évry-Courcouronnes");
    assert!((location["latitude"].as_f64().unwrap() - 48.625).abs() < 1e-9);
    assert!((location["longitude"].as_f64().unwrap() - 2.44).abs() < 1e-9);
    assert_eq!(location["format"], "billboard_4x3");
    assert_eq!(location["panel_width_cm"], 400);
    assert_eq!(location["illumination"], "back");
    assert_eq!(location["orientation_deg"], 270.5);
    assert_eq!(location["panel_quad"], square());
    assert_eq!(location["photo"]["id"], photo["id"]);
    let url = location["photo"]["urls"]["preview"].as_str().unwrap();
    assert_eq!(app.get_url(url).await.status(), 200);

    let path = format!("/locations/{}", location["id"].as_str().unwrap());
    let got: Value = app
        .api_send(Method::GET, &path, &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(got["panel_quad"], square());
    assert_eq!(got["postal_code"], "91000");
}

#[tokio::test]
async fn only_the_name_is_required() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let location = create_ok(&app, &user, json!({"name": "Somewhere"})).await;
    assert_eq!(location["format"], "other");
    assert_eq!(location["illumination"], "none");
    for field in [
        "address",
        "latitude",
        "panel_width_cm",
        "photo",
        "panel_quad",
        "notes",
    ] {
        assert_eq!(location[field], Value::Null, "{field}");
    }
}

#[tokio::test]
async fn every_field_is_validated() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let response = create(
        &app,
        &user,
        json!({
            "latitude": 90.5, "longitude": -180.01, "format": "poster", "illumination": "neon",
            "panel_width_cm": 0, "panel_height_cm": -3, "orientation_deg": 360,
            "postal_code": "1".repeat(21), "city": 75, "photo_media_id": uuid::Uuid::new_v4().to_string(),
            "panel_quad": [[0.1, 0.1]], "extra": true,
        }),
    )
    .await;
    assert_fields(
        response,
        json!({
            "name": "required", "latitude": "out_of_range", "longitude": "out_of_range",
            "format": "invalid_value", "illumination": "invalid_value",
            "panel_width_cm": "out_of_range", "panel_height_cm": "out_of_range",
            "orientation_deg": "out_of_range", "postal_code": "too_long", "city": "invalid_type",
            "photo_media_id": "not_found", "panel_quad": "invalid_shape", "extra": "unknown_field",
        }),
    )
    .await;

    let response = create(&app, &user, json!({"name": "A", "latitude": 45.0})).await;
    assert_fields(response, json!({"longitude": "required"})).await;
    let response = create(&app, &user, json!({"name": "A", "panel_width_cm": 12.5})).await;
    assert_fields(response, json!({"panel_width_cm": "invalid_type"})).await;
    let response = create(&app, &user, json!({"name": "A", "panel_quad": square()})).await;
    assert_fields(response, json!({"panel_quad": "requires_photo"})).await;

    let photo = app.upload_ok(&user, "p.png", png(64, 64)).await;
    for (quad, code) in [
        (
            json!([[0.1, 0.1], [0.1, 0.9], [0.9, 0.9], [0.9, 0.1]]),
            "not_clockwise",
        ),
        (
            json!([[0.1, 0.1], [0.9, 0.9], [0.9, 0.1], [0.1, 0.9]]),
            "self_intersecting",
        ),
        (
            json!([[0.1, 0.1], [0.9, 0.1], [0.3, 0.3], [0.1, 0.9]]),
            "not_convex",
        ),
        (
            json!([[0.1, 0.1], [1.5, 0.1], [0.9, 0.9], [0.1, 0.9]]),
            "out_of_range",
        ),
        (
            json!([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], ["a", 0.9]]),
            "invalid_shape",
        ),
    ] {
        let response = create(
            &app,
            &user,
            json!({"name": "A", "photo_media_id": photo["id"], "panel_quad": quad}),
        )
        .await;
        assert_fields(response, json!({"panel_quad": code})).await;
    }
    // Boundaries are accepted.
    create_ok(
        &app,
        &user,
        json!({"name": "Edge", "latitude": -90, "longitude": 180, "orientation_deg": 0,
               "photo_media_id": photo["id"],
               "panel_quad": [[0, 0], [1, 0], [1, 1], [0, 1]]}),
    )
    .await;
}

#[tokio::test]
async fn a_location_is_edited_and_deleted_with_its_photo() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let photo = app.upload_ok(&user, "p.png", png(64, 64)).await;
    let location = create_ok(
        &app,
        &user,
        json!({"name": "Gare", "address": "Rue", "photo_media_id": photo["id"], "panel_quad": square()}),
    )
    .await;
    let path = format!("/locations/{}", location["id"].as_str().unwrap());
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"city": "Lyon", "address": null}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let edited: Value = response.json().await.unwrap();
    assert_eq!(edited["city"], "Lyon");
    assert_eq!(edited["address"], Value::Null);
    assert_eq!(edited["panel_quad"], square(), "absent fields stay");

    // The quad needs the photo: the result is checked as a whole.
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"photo_media_id": null}),
        )
        .await;
    assert_fields(response, json!({"panel_quad": "requires_photo"})).await;
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"name": "", "format": null}),
        )
        .await;
    assert_fields(response, json!({"name": "required", "format": "required"})).await;

    // Replacing the photo releases the old one.
    let new_photo = app.upload_ok(&user, "q.png", png(32, 32)).await;
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"photo_media_id": new_photo["id"]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(app.media_rows().await, 1);
    assert_eq!(app.objects().await.len(), 3);

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
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty());
}

#[tokio::test]
async fn search_finds_locations_without_case_or_accents() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    create_ok(
        &app,
        &user,
        json!({"name": "Centre commercial", "address": "Place de l'Agora",
               "city": "Évry-Courcouronnes", "postal_code": "91000"}),
    )
    .await;
    create_ok(
        &app,
        &user,
        json!({"name": "Gare de Lyon", "address": "Place Louis-Armand", "city": "Paris",
               "postal_code": "75012"}),
    )
    .await;
    for (q, expected) in [
        ("evry", vec!["Centre commercial"]),
        ("ÉVRY", vec!["Centre commercial"]),
        ("91000", vec!["Centre commercial"]),
        ("agora", vec!["Centre commercial"]),
        ("lyon", vec!["Gare de Lyon"]),
        ("paris%20gare", vec!["Gare de Lyon"]),
        ("place", vec!["Gare de Lyon", "Centre commercial"]),
        ("courcouronnes%20evry", vec!["Centre commercial"]),
        ("marseille", vec![]),
    ] {
        let page: Value = app
            .api_send(Method::GET, &format!("/locations?q={q}"), &user)
            .await
            .json()
            .await
            .unwrap();
        let names: Vec<&str> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, expected, "q={q}");
    }
}

#[tokio::test]
async fn location_lists_are_paginated() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for i in 0..3 {
        create_ok(&app, &user, json!({"name": format!("L{i}")})).await;
    }
    let first: Value = app
        .api_send(Method::GET, "/locations?limit=2", &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first["items"].as_array().unwrap().len(), 2);
    let cursor = first["next_cursor"].as_str().unwrap();
    let second: Value = app
        .api_send(
            Method::GET,
            &format!("/locations?limit=2&cursor={cursor}"),
            &user,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(second["items"].as_array().unwrap().len(), 1);
    assert_eq!(second["next_cursor"], Value::Null);
}

/// Another user's ids answer exactly like missing ids, on every endpoint.
#[tokio::test]
async fn other_users_rows_are_invisible_on_every_endpoint() {
    let app = spawn_app().await;
    let (alice, bob) = (app.new_user().await, app.new_user().await);
    let photo = app.upload_ok(&alice, "p.png", png(64, 64)).await;
    let creative = app.creative(&alice, json!({"name": "Secret"})).await;
    let location = create_ok(
        &app,
        &alice,
        json!({"name": "Secret site", "photo_media_id": photo["id"]}),
    )
    .await;
    let missing = uuid::Uuid::new_v4().to_string();

    let mut checked = 0;
    for (method, template, body) in [
        (Method::GET, "/media/{}", None),
        (Method::DELETE, "/media/{}", None),
        (Method::GET, "/creatives/{}", None),
        (
            Method::PATCH,
            "/creatives/{}",
            Some(json!({"name": "Mine now"})),
        ),
        (Method::DELETE, "/creatives/{}", None),
        (Method::GET, "/locations/{}", None),
        (
            Method::PATCH,
            "/locations/{}",
            Some(json!({"name": "Mine now"})),
        ),
        (Method::DELETE, "/locations/{}", None),
    ] {
        let id = if template.starts_with("/media") {
            photo["id"].as_str().unwrap()
        } else if template.starts_with("/creatives") {
            creative["id"].as_str().unwrap()
        } else {
            location["id"].as_str().unwrap()
        };
        let send = |id: &str| {
            let request = app.api(method.clone(), &template.replace("{}", id), &bob);
            let request = match &body {
                Some(body) => request.json(body),
                None => request,
            };
            request.send()
        };
        let theirs = send(id).await.unwrap();
        let absent = send(&missing).await.unwrap();
        assert_eq!(theirs.status(), 404, "{method} {template}");
        assert_eq!(absent.status(), 404, "{method} {template}");
        let (theirs, absent): (Value, Value) =
            (theirs.json().await.unwrap(), absent.json().await.unwrap());
        assert_eq!(theirs, absent, "{method} {template}");
        checked += 1;
    }
    assert_eq!(checked, 8);

    // Referencing Alice's media from Bob's creative or location: the same as a missing id.
    for (path, field) in [("/creatives", "media_id"), ("/locations", "photo_media_id")] {
        for id in [photo["id"].as_str().unwrap(), missing.as_str()] {
            let response = app
                .api_json(Method::POST, path, &bob, &json!({"name": "x", field: id}))
                .await;
            assert_fields(response, json!({field: "not_found"})).await;
        }
    }
    let bob_location = create_ok(&app, &bob, json!({"name": "Bob's"})).await;
    let path = format!("/locations/{}", bob_location["id"].as_str().unwrap());
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &bob,
            &json!({"photo_media_id": photo["id"]}),
        )
        .await;
    assert_fields(response, json!({"photo_media_id": "not_found"})).await;

    // Bob's lists are empty; Alice still has everything.
    for path in [
        "/creatives",
        "/locations",
        "/creatives?q=secret",
        "/locations?q=secret",
    ] {
        let page: Value = app
            .api_send(Method::GET, path, &bob)
            .await
            .json()
            .await
            .unwrap();
        let names: Vec<&str> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["name"].as_str().unwrap())
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with("Secret")),
            "{path}: {names:?}"
        );
    }
    let path = format!("/creatives/{}", creative["id"].as_str().unwrap());
    let still: Value = app
        .api_send(Method::GET, &path, &alice)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(still["name"], "Secret");
    assert_eq!(app.media_rows().await, 2);
}

/// A statement a connection first ran with a NULL `f64` still takes a number afterwards (on
/// PostgreSQL the NULL once fixed the cached statement's parameter as `float4`, and every
/// later number was refused, at random: `db::Float`); then through the API, on every pooled
/// connection: locations with and without a position, in turns.
#[tokio::test]
async fn numbers_follow_nulls_in_the_same_statement() {
    let app = spawn_app().await;
    let mut conn = app.state.db.pool().acquire().await.unwrap();
    sqlx::query("CREATE TEMPORARY TABLE floats (v DOUBLE PRECISION)")
        .execute(&mut *conn)
        .await
        .unwrap();
    for value in [None, Some(45.757), None, Some(-0.12)] {
        sqlx::query("INSERT INTO floats (v) VALUES ($1)")
            .bind(regard::db::Float(value))
            .execute(&mut *conn)
            .await
            .unwrap();
    }
    let stored: Vec<Option<f64>> = sqlx::query_scalar("SELECT v FROM floats")
        .fetch_all(&mut *conn)
        .await
        .unwrap();
    assert_eq!(stored, [None, Some(45.757), None, Some(-0.12)]);
    drop(conn);
    let user = app.new_user().await;
    for i in 0..12 {
        let mut body = json!({"name": format!("Site {i}")});
        if i % 2 == 1 {
            body["latitude"] = json!(45.0 + f64::from(i));
            body["longitude"] = json!(4.8);
        }
        let response = app.api_json(Method::POST, "/locations", &user, &body).await;
        assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
    }
}
