//! Read-only share links: `POST`/`GET /heatmaps/{id}/shares`, `DELETE …/shares/{id}`, and the
//! public `GET /shared/{token}` (docs/architecture/heatmaps.md).

use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{jpeg_with_gps, png};
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app};

async fn heatmap(app: &TestApp, user: &User, name: &str) -> Value {
    let media = app.upload_ok(user, "a.png", png(200, 150)).await;
    app.heatmap(user, name, &[&media]).await
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {value}"))
}

async fn share(app: &TestApp, user: &User, heatmap: &Value, body: Value) -> reqwest::Response {
    let path = format!("/heatmaps/{}/shares", str_of(heatmap, "id"));
    app.api_json(Method::POST, &path, user, &body).await
}

/// `GET /api/v1/shared/{token}` without any account.
async fn open(app: &TestApp, token: &str) -> reqwest::Response {
    get_file(app, &format!("/api/v1/shared/{token}")).await
}

#[tokio::test]
async fn a_share_link_opens_one_heatmap_without_an_account_until_revoked() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let shared = heatmap(&app, &user, "Campagne été").await;
    let private = heatmap(&app, &user, "Brouillon").await;

    let response = share(&app, &user, &shared, json!({"expires_in_days": 7})).await;
    assert_eq!(response.status(), 201);
    let link: Value = response.json().await.unwrap();
    let token = str_of(&link, "token").to_owned();
    assert_eq!(str_of(&link, "path"), format!("/shared/{token}"));
    assert_eq!(link["expired"], false);
    let expires = chrono::DateTime::parse_from_rfc3339(str_of(&link, "expires_at")).unwrap();
    let days = (expires.timestamp() - chrono::Utc::now().timestamp()) as f64 / 86_400.0;
    assert!((days - 7.0).abs() < 0.01, "expires in {days} days");

    let response = open(&app, &token).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["heatmap"]["id"], shared["id"]);
    assert_eq!(body["heatmap"]["name"], "Campagne été");
    assert_eq!(body["heatmap"]["items"].as_array().unwrap().len(), 1);
    assert_eq!(body["expires_at"], link["expires_at"]);
    // Its images come through signed URLs, which need no account either.
    let thumbnail = str_of(&body["heatmap"]["items"][0]["source"]["urls"], "thumbnail");
    let response = app
        .client
        .get(format!("{}{thumbnail}", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    // The token is no key to anything else: not a bearer token, not another heatmap.
    let response = app
        .client
        .get(format!(
            "{}/api/v1/heatmaps/{}",
            app.address,
            str_of(&private, "id")
        ))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    for bad in [
        "nope".to_owned(),
        token.to_uppercase(),
        // The last character changed (to one it is not: a fixed "x" equals it one time in 36).
        format!(
            "{}{}",
            &token[..31],
            if token.ends_with('x') { 'y' } else { 'x' }
        ),
    ] {
        assert_api_error(open(&app, &bad).await, 404, "not_found").await;
    }

    // Listed without its token; revoked, it stops at once.
    let path = format!("/heatmaps/{}/shares", str_of(&shared, "id"));
    let listed: Value = app
        .api_send(Method::GET, &path, &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["items"].as_array().unwrap().len(), 1);
    assert_eq!(listed["items"][0]["id"], link["id"]);
    assert!(listed["items"][0].get("token").is_none());
    assert!(!listed.to_string().contains(&token));
    let revoke = format!("{path}/{}", str_of(&link, "id"));
    assert_eq!(
        app.api_send(Method::DELETE, &revoke, &user).await.status(),
        204
    );
    assert_api_error(open(&app, &token).await, 404, "not_found").await;
    assert_api_error(
        app.api_send(Method::DELETE, &revoke, &user).await,
        404,
        "not_found",
    )
    .await;

    // The token is not stored, only its hash.
    let link2: Value = share(&app, &user, &shared, json!({}))
        .await
        .json()
        .await
        .unwrap();
    let token2 = str_of(&link2, "token");
    let db = &app.state.db;
    assert!(
        regard::db::shares::find_by_hash(db, token2)
            .await
            .unwrap()
            .is_none()
    );
    let hash = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(token2.as_bytes()));
    let found = regard::db::shares::find_by_hash(db, &hash).await.unwrap();
    assert_eq!(found.map(|s| s.id), Some(str_of(&link2, "id").to_owned()));
}

#[tokio::test]
async fn an_expired_link_says_so_and_a_deleted_heatmap_takes_its_links() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let shared = heatmap(&app, &user, "Hiver").await;
    let link: Value = share(&app, &user, &shared, json!({}))
        .await
        .json()
        .await
        .unwrap();
    let token = str_of(&link, "token").to_owned();
    let expires = chrono::DateTime::parse_from_rfc3339(str_of(&link, "expires_at")).unwrap();
    let days = (expires.timestamp() - chrono::Utc::now().timestamp()) as f64 / 86_400.0;
    assert!((days - 30.0).abs() < 0.01, "30 days by default, not {days}");

    // Its time is up (set in the database: tests do not wait 30 days).
    regard::db::shares::set_expires_at(
        &app.state.db,
        str_of(&link, "id"),
        regard::db::now_ms() - 1,
    )
    .await
    .unwrap();
    assert_api_error(open(&app, &token).await, 410, "share_expired").await;
    let path = format!("/heatmaps/{}/shares", str_of(&shared, "id"));
    let listed: Value = app
        .api_send(Method::GET, &path, &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed["items"][0]["expired"], true);

    let other: Value = share(&app, &user, &shared, json!({}))
        .await
        .json()
        .await
        .unwrap();
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/heatmaps/{}", str_of(&shared, "id")),
            &user,
        )
        .await;
    assert_eq!(response.status(), 204);
    assert_api_error(open(&app, str_of(&other, "token")).await, 404, "not_found").await;
}

#[tokio::test]
async fn only_the_owner_shares_and_the_life_of_a_link_is_bounded() {
    let app = spawn_app().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let shared = heatmap(&app, &alice, "Printemps").await;
    for days in [0, 91, -3] {
        let response = share(&app, &alice, &shared, json!({"expires_in_days": days})).await;
        assert_fields(response, json!({"expires_in_days": "out_of_range"})).await;
    }
    let response = share(
        &app,
        &alice,
        &shared,
        json!({"expires_in_days": "7", "x": 1}),
    )
    .await;
    assert_fields(
        response,
        json!({"expires_in_days": "invalid_type", "x": "unknown_field"}),
    )
    .await;

    assert_api_error(
        share(&app, &bob, &shared, json!({})).await,
        404,
        "not_found",
    )
    .await;
    let link: Value = share(&app, &alice, &shared, json!({"expires_in_days": 90}))
        .await
        .json()
        .await
        .unwrap();
    let path = format!("/heatmaps/{}/shares", str_of(&shared, "id"));
    assert_api_error(
        app.api_send(Method::GET, &path, &bob).await,
        404,
        "not_found",
    )
    .await;
    let revoke = format!("{path}/{}", str_of(&link, "id"));
    assert_api_error(
        app.api_send(Method::DELETE, &revoke, &bob).await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(open(&app, str_of(&link, "token")).await.status(), 200);
}

/// Every signed file URL in an answer.
fn file_urls(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) if text.starts_with("/api/v1/files/") => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|v| file_urls(v, out)),
        Value::Object(map) => map.values().for_each(|v| file_urls(v, out)),
        _ => {}
    }
}

/// `GET` of a path on the test server, without any account.
async fn get_file(app: &TestApp, url: &str) -> reqwest::Response {
    app.client
        .get(format!("{}{url}", app.address))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_share_gives_no_file_name_gps_or_original_and_its_image_urls_end_with_it() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let photo = app
        .upload_ok(&user, "IMG_home_address.jpg", jpeg_with_gps(2400, 1800))
        .await;
    assert!(photo["gps"].is_object(), "the owner sees the position");
    let shared = app.heatmap(&user, "Campagne", &[&photo]).await;
    app.drain_jobs().await;
    let link: Value = share(&app, &user, &shared, json!({}))
        .await
        .json()
        .await
        .unwrap();
    let body: Value = open(&app, str_of(&link, "token"))
        .await
        .json()
        .await
        .unwrap();
    let item = &body["heatmap"]["items"][0];
    assert_eq!(item["status"], "done", "{item}");
    let text = body.to_string();
    assert!(!text.contains("IMG_home_address"), "a file name: {text}");
    assert_eq!(item["source"]["original_name"], Value::Null);
    assert_eq!(item["source"]["gps"], Value::Null);

    // Every image is share-scoped, lives a few minutes, and none is the original.
    let mut urls = Vec::new();
    file_urls(&body, &mut urls);
    assert!(
        urls.len() >= 7,
        "source, thumbnail and result URLs: {urls:?}"
    );
    let now = regard::db::now_ms() / 1000;
    for url in &urls {
        assert!(
            url.contains(&format!("&share={}&", str_of(&link, "id"))),
            "{url}"
        );
        let exp: i64 = url
            .split("exp=")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(exp <= now + 300, "{url} lives {} s", exp - now);
        assert!(
            !url.starts_with(&format!("/api/v1/files/{}/original", str_of(&photo, "id"))),
            "the original: {url}"
        );
    }
    let shown = get_file(&app, str_of(&item["source"]["urls"], "original")).await;
    assert_eq!(shown.status(), 200);
    let shown = image::load_from_memory(&shown.bytes().await.unwrap()).unwrap();
    assert!(
        shown.width() <= 2048,
        "display size, not 2400: {}",
        shown.width()
    );
    // The download switch gives no file name through a share.
    let download = get_file(&app, &format!("{}&download=1", urls[0])).await;
    assert_eq!(download.headers()["content-disposition"], "inline");

    // A URL of one share is no URL of another, nor an owner's URL.
    let forged = urls[0].replace(str_of(&link, "id"), &uuid::Uuid::new_v4().to_string());
    assert_api_error(get_file(&app, &forged).await, 403, "invalid_signature").await;

    // Revoked: every image URL it gave stops at once.
    let revoke = format!(
        "/heatmaps/{}/shares/{}",
        str_of(&shared, "id"),
        str_of(&link, "id")
    );
    assert_eq!(
        app.api_send(Method::DELETE, &revoke, &user).await.status(),
        204
    );
    for url in &urls {
        assert_api_error(get_file(&app, url).await, 404, "not_found").await;
    }

    // Expired: the same.
    let link: Value = share(&app, &user, &shared, json!({}))
        .await
        .json()
        .await
        .unwrap();
    let body: Value = open(&app, str_of(&link, "token"))
        .await
        .json()
        .await
        .unwrap();
    let thumbnail = str_of(&body["heatmap"]["items"][0]["source"]["urls"], "thumbnail").to_owned();
    assert_eq!(get_file(&app, &thumbnail).await.status(), 200);
    regard::db::shares::set_expires_at(
        &app.state.db,
        str_of(&link, "id"),
        regard::db::now_ms() - 1,
    )
    .await
    .unwrap();
    assert_api_error(get_file(&app, &thumbnail).await, 410, "share_expired").await;
}

/// A user whose analysed heatmap is shared: the link's token.
async fn shared_heatmap(app: &TestApp) -> (User, String) {
    let user = app.new_user().await;
    let shared = heatmap(app, &user, "Campagne").await;
    app.drain_jobs().await;
    let link: Value = share(app, &user, &shared, json!({}))
        .await
        .json()
        .await
        .unwrap();
    (user, str_of(&link, "token").to_owned())
}

#[tokio::test]
async fn the_public_report_is_drawn_once_and_limited_per_address() {
    let app = spawn_app().await;
    let (_, token) = shared_heatmap(&app).await;
    let report = format!("/api/v1/shared/{token}/report.pdf");
    // The review's load: many anonymous readers at once. One drawing serves them all.
    let concurrent: Vec<_> = (0..24)
        .map(|_| {
            let (client, url) = (app.client.clone(), format!("{}{report}", app.address));
            tokio::spawn(async move { client.get(url).send().await.unwrap() })
        })
        .collect();
    let mut sizes = Vec::new();
    for request in concurrent {
        let response = request.await.unwrap();
        assert_eq!(response.status(), 200);
        sizes.push(response.bytes().await.unwrap().len());
    }
    assert!(
        sizes.iter().all(|s| *s == sizes[0] && *s > 1000),
        "{sizes:?}"
    );
    assert_eq!(
        app.state.shared_reports.bytes(),
        sizes[0],
        "one report kept"
    );
    // The other language is another report.
    let english = get_file(&app, &format!("{report}?lang=en")).await;
    assert_eq!(english.status(), 200);
    let english_len = english.bytes().await.unwrap().len();
    assert_eq!(app.state.shared_reports.bytes(), sizes[0] + english_len);
    // 30 public requests per address per window (`REGARD_RATE_LIMIT_SHARED`): 25 made, 5
    // left, then 429 with Retry-After, for the page as for the report.
    let mut statuses = Vec::new();
    for _ in 0..15 {
        statuses.push(get_file(&app, &report).await.status().as_u16());
    }
    assert_eq!(
        statuses,
        [[200; 5].as_slice(), [429; 10].as_slice()].concat()
    );
    let limited = open(&app, &token).await;
    assert!(limited.headers().contains_key("retry-after"));
    assert_api_error(limited, 429, "rate_limited").await;
}

#[tokio::test]
async fn a_changed_branding_draws_the_report_again() {
    let app = spawn_app().await;
    let (user, token) = shared_heatmap(&app).await;
    let report = format!("/api/v1/shared/{token}/report.pdf");
    let first = get_file(&app, &report).await.bytes().await.unwrap();
    assert_eq!(app.state.shared_reports.bytes(), first.len());
    let again = get_file(&app, &report).await.bytes().await.unwrap();
    assert_eq!(again, first, "served again, not drawn again");
    assert_eq!(app.state.shared_reports.bytes(), first.len());
    // A new agency name: the report carries it, so it is drawn anew.
    let branded = app
        .api_json(
            Method::PUT,
            "/account/branding",
            &user,
            &json!({"agency_name": "Agence Lumière"}),
        )
        .await;
    assert_eq!(branded.status(), 200);
    let second = get_file(&app, &report).await.bytes().await.unwrap();
    assert_ne!(second, first);
    assert_eq!(app.state.shared_reports.bytes(), first.len() + second.len());
}
