//! `/api/v1/plans`: campaign plans in contacts and noticed contacts, their sites' simulations
//! (made or reused, rendered, analysed), and their XLSX and PDF exports
//! (docs/architecture/plans.md). Servers run without workers: each test drains the job queue
//! itself, so nothing waits on time.

use std::process::Command;

use calamine::{Data, Reader, Xlsx};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::jpeg;
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app};

fn quad() -> Value {
    json!([{"x": 0.2, "y": 0.2}, {"x": 0.8, "y": 0.2}, {"x": 0.8, "y": 0.8}, {"x": 0.2, "y": 0.8}])
}

async fn json_of(response: reqwest::Response, status: u16) -> Value {
    let got = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    assert_eq!(got, status, "{body}");
    body
}

async fn creative(app: &TestApp, user: &User) -> Value {
    let media = app.upload_ok(user, "poster.jpg", jpeg(300, 400)).await;
    app.creative_of(user, &media, json!({"name": "Soldes"}))
        .await
}

/// A 4 × 3 m panel by a road, with `daily` contacts a day.
async fn site(app: &TestApp, user: &User, name: &str, daily: Option<i64>) -> Value {
    let photo = app.upload_ok(user, "site.jpg", jpeg(640, 480)).await;
    let body = json!({"name": name, "city": "Paris", "address": "1 rue de Rivoli",
                      "photo_media_id": photo["id"], "panel_quad": quad(),
                      "format": "billboard_4x3", "audience": "road",
                      "viewing_distance_min_m": 10, "viewing_distance_max_m": 60,
                      "daily_contacts": daily, "audience_source": "Affimétrie 2026"});
    json_of(
        app.api_json(Method::POST, "/locations", user, &body).await,
        201,
    )
    .await
}

async fn post_plan(app: &TestApp, user: &User, body: Value) -> reqwest::Response {
    app.api_json(Method::POST, "/plans", user, &body).await
}

async fn get(app: &TestApp, user: &User, path: &str) -> Value {
    json_of(app.api_send(Method::GET, path, user).await, 200).await
}

/// Runs jobs until none is ready: the renders, then the attention analyses they queue.
async fn drain(app: &TestApp) {
    while app.drain_jobs().await > 0 {}
}

/// Runs a poppler tool on PDF bytes; its standard output.
fn poppler(tool: &str, pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.pdf");
    std::fs::write(&path, pdf).unwrap();
    let mut command = Command::new(tool);
    command.arg(&path);
    if tool == "pdftotext" {
        command.arg("-");
    }
    let out = command
        .output()
        .unwrap_or_else(|err| panic!("{tool} is needed to read the plan back: {err}"));
    assert!(out.status.success(), "{tool}");
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn a_fortnight_on_two_sites_counts_contacts_then_noticed_contacts_once_rendered() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let creative = creative(&app, &user).await;
    let rivoli = site(&app, &user, "Rivoli", Some(10_000)).await;
    let nation = site(&app, &user, "Nation", Some(4_000)).await;
    let body = json!({"name": "Soldes d'hiver", "creative_id": creative["id"],
                      "location_ids": [rivoli["id"], nation["id"]],
                      "start_date": "2027-01-07", "end_date": "2027-01-20"});
    let plan = json_of(post_plan(&app, &user, body).await, 201).await;
    assert_eq!(plan["status"], "rendering");
    assert_eq!(plan["start_date"], "2027-01-07");
    assert_eq!(
        plan["totals"],
        json!({"locations": 2, "days": 14, "contacts": 196_000, "noticed": null})
    );
    let sites = plan["sites"].as_array().unwrap();
    assert_eq!(sites[0]["location_id"], rivoli["id"]);
    assert_eq!(sites[1]["location_id"], nation["id"]);
    assert_eq!(sites[0]["contacts"], 140_000);
    assert_eq!(sites[1]["contacts"], 56_000);
    assert!(sites.iter().all(|s| s["noticed"].is_null()));
    for key in [
        "simulation_id",
        "daily_contacts",
        "time_in_view_s",
        "legible",
    ] {
        assert!(sites[0].get(key).is_some(), "{key} in {}", sites[0]);
    }

    drain(&app).await;
    let id = plan["id"].as_str().unwrap();
    let plan = get(&app, &user, &format!("/plans/{id}")).await;
    assert_eq!(plan["status"], "ready", "{plan}");
    let totals = &plan["totals"];
    assert_eq!(totals["contacts"], 196_000);
    let noticed = totals["noticed"].as_i64().expect("noticed once rendered");
    assert!(noticed > 0 && noticed <= 196_000, "{noticed}");
    // Each site's noticed contacts are its simulation's noticed contacts a day × 14.
    let mut sum = 0;
    for s in plan["sites"].as_array().unwrap() {
        let sim_id = s["simulation_id"].as_str().unwrap();
        let sim = get(&app, &user, &format!("/simulations/{sim_id}")).await;
        assert_eq!(sim["status"], "done");
        assert_eq!(sim["audience"]["daily_contacts"], s["daily_contacts"]);
        let per_day = sim["audience"]["noticed_per_day"].as_i64().unwrap();
        let p = sim["attention"]["first_second_probability"]
            .as_f64()
            .unwrap();
        let daily = s["daily_contacts"].as_i64().unwrap();
        assert_eq!(per_day, (daily as f64 * p).round() as i64);
        assert_eq!(s["noticed"].as_i64().unwrap(), per_day * 14);
        sum += per_day * 14;
    }
    assert_eq!(noticed, sum);

    // The workbook lists both sites and the totals, numbers as numbers.
    let response = app
        .api_send(Method::GET, &format!("/plans/{id}/export.xlsx"), &user)
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    let bytes = response.bytes().await.unwrap().to_vec();
    let mut book = Xlsx::new(std::io::Cursor::new(bytes)).unwrap();
    let range = book.worksheet_range_at(0).unwrap().unwrap();
    let cell = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
    assert_eq!(cell(1, 0), Data::String("Rivoli".into()));
    assert_eq!(cell(2, 0), Data::String("Nation".into()));
    assert_eq!(cell(1, 2), Data::String("Paris".into()));
    assert_eq!(cell(1, 4), Data::Float(10_000.0));
    assert_eq!(cell(2, 5), Data::Float(56_000.0));
    assert_eq!(cell(3, 5), Data::Float(196_000.0));
    assert_eq!(cell(3, 6), Data::Float(noticed as f64));

    // The PDF: a cover with the totals, then a page per site.
    for (lang, words) in [("fr", "Plan de campagne"), ("en", "Campaign plan")] {
        let response = app
            .api_send(
                Method::GET,
                &format!("/plans/{id}/export.pdf?lang={lang}"),
                &user,
            )
            .await;
        assert_eq!(response.status(), 200);
        let pdf = response.bytes().await.unwrap().to_vec();
        let info = poppler("pdfinfo", &pdf);
        assert!(
            info.lines()
                .any(|l| l.starts_with("Pages:") && l.ends_with(" 3")),
            "{info}"
        );
        // Thousands are grouped by a narrow no-break space in French, which text extraction
        // may give as a plain space.
        let text = poppler("pdftotext", &pdf).replace(['\u{202f}', '\u{a0}'], " ");
        assert!(text.contains(words), "{text}");
        assert!(text.contains("Rivoli") && text.contains("Nation"), "{text}");
        let grouped = if lang == "fr" { "196 000" } else { "196,000" };
        assert!(text.contains(grouped), "{text}");
    }
}

#[tokio::test]
async fn a_plan_reuses_a_rendered_simulation_and_follows_its_sites() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let creative = creative(&app, &user).await;
    let a = site(&app, &user, "A", Some(1_000)).await;
    let b = site(&app, &user, "B", None).await;
    let sim = json_of(
        app.api_json(
            Method::POST,
            "/simulations",
            &user,
            &json!({"creative_id": creative["id"], "location_id": a["id"]}),
        )
        .await,
        201,
    )
    .await;
    drain(&app).await;
    let body = json!({"name": "Test", "creative_id": creative["id"],
                      "location_ids": [a["id"]],
                      "start_date": "2027-03-01", "end_date": "2027-03-01"});
    let plan = json_of(post_plan(&app, &user, body).await, 201).await;
    assert_eq!(plan["sites"][0]["simulation_id"], sim["id"]);
    assert_eq!(plan["totals"]["days"], 1);
    drain(&app).await;
    let id = plan["id"].as_str().unwrap().to_owned();
    let plan = get(&app, &user, &format!("/plans/{id}")).await;
    assert_eq!(plan["status"], "ready", "{plan}");
    assert!(plan["totals"]["noticed"].is_i64());

    // A site without contacts counts none and holds nothing back; the period changes the
    // contacts.
    let changes = json!({"location_ids": [a["id"], b["id"]], "end_date": "2027-03-10"});
    let changed = json_of(
        app.api_json(Method::PATCH, &format!("/plans/{id}"), &user, &changes)
            .await,
        200,
    )
    .await;
    assert_eq!(changed["sites"][0]["simulation_id"], sim["id"], "kept");
    assert_eq!(changed["totals"]["contacts"], 10_000);
    assert_eq!(changed["sites"][1]["contacts"], Value::Null);
    drain(&app).await;
    let plan = get(&app, &user, &format!("/plans/{id}")).await;
    let per_day = plan["sites"][0]["noticed"].as_i64().unwrap() / 10;
    assert_eq!(plan["totals"]["noticed"].as_i64(), Some(per_day * 10));

    // Listed, then deleted: its simulations stay.
    let page = get(&app, &user, "/plans?q=test").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    let response = app
        .api_send(Method::DELETE, &format!("/plans/{id}"), &user)
        .await;
    assert_eq!(response.status(), 204);
    let response = app
        .api_send(Method::GET, &format!("/plans/{id}"), &user)
        .await;
    assert_api_error(response, 404, "not_found").await;
    get(
        &app,
        &user,
        &format!("/simulations/{}", sim["id"].as_str().unwrap()),
    )
    .await;
}

#[tokio::test]
async fn a_plan_that_cannot_be_made_says_why_per_field() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let creative = creative(&app, &user).await;
    let good = site(&app, &user, "Good", Some(10)).await;
    let bare = json_of(
        app.api_json(Method::POST, "/locations", &user, &json!({"name": "Bare"}))
            .await,
        201,
    )
    .await;
    let body = json!({"name": "X", "creative_id": creative["id"], "location_ids": [good["id"]],
                      "start_date": "2027-03-10", "end_date": "2027-03-01"});
    assert_fields(
        post_plan(&app, &user, body).await,
        json!({"end_date": "out_of_range"}),
    )
    .await;
    let body = json!({"name": "X", "creative_id": creative["id"], "location_ids": [good["id"]],
                      "start_date": "10/03/2027", "end_date": "2027-02-30"});
    assert_fields(
        post_plan(&app, &user, body).await,
        json!({"start_date": "invalid_value", "end_date": "invalid_value"}),
    )
    .await;
    let body = json!({"name": "X", "creative_id": creative["id"], "location_ids": [bare["id"]],
                      "start_date": "2027-03-01", "end_date": "2027-03-01"});
    assert_fields(
        post_plan(&app, &user, body).await,
        json!({"location_ids": "requires_photo"}),
    )
    .await;
    assert_fields(
        post_plan(&app, &user, json!({})).await,
        json!({"name": "required", "creative_id": "required", "location_ids": "required",
               "start_date": "required", "end_date": "required"}),
    )
    .await;
    // Contacts are a count.
    let path = format!("/locations/{}", good["id"].as_str().unwrap());
    assert_fields(
        app.api_json(Method::PATCH, &path, &user, &json!({"daily_contacts": -1}))
            .await,
        json!({"daily_contacts": "out_of_range"}),
    )
    .await;
    assert_fields(
        app.api_json(Method::PATCH, &path, &user, &json!({"daily_contacts": 1.5}))
            .await,
        json!({"daily_contacts": "invalid_type"}),
    )
    .await;
    // Another user's plan is no plan at all.
    let other = app.new_user().await;
    let body = json!({"name": "X", "creative_id": creative["id"], "location_ids": [good["id"]],
                      "start_date": "2027-03-01", "end_date": "2027-03-01"});
    let plan = json_of(post_plan(&app, &user, body).await, 201).await;
    let response = app
        .api_send(
            Method::GET,
            &format!("/plans/{}", plan["id"].as_str().unwrap()),
            &other,
        )
        .await;
    assert_api_error(response, 404, "not_found").await;
}
