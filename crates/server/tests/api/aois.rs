//! Areas of interest on heatmap items: `POST /heatmaps/{id}/items/{item_id}/aois`,
//! `PATCH`/`DELETE …/aois/{aoi_id}`, `POST /heatmaps/{id}/aois/copy`
//! (docs/architecture/heatmaps.md).

use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::png;
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, spawn_app};

async fn heatmap_of(app: &TestApp, user: &User, count: u32) -> Value {
    let mut media = Vec::new();
    for n in 0..count {
        media.push(
            app.upload_ok(user, &format!("{n}.png"), png(200 + n, 150))
                .await,
        );
    }
    app.heatmap(user, "Affiches", &media.iter().collect::<Vec<_>>())
        .await
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {value}"))
}

fn item_id(heatmap: &Value, n: usize) -> String {
    str_of(&heatmap["items"][n], "id").to_owned()
}

fn aois_path(heatmap: &Value, item: &str) -> String {
    format!("/heatmaps/{}/items/{item}/aois", str_of(heatmap, "id"))
}

async fn create_aoi(
    app: &TestApp,
    user: &User,
    heatmap: &Value,
    item: &str,
    body: Value,
) -> reqwest::Response {
    app.api_json(Method::POST, &aois_path(heatmap, item), user, &body)
        .await
}

async fn create_aoi_ok(
    app: &TestApp,
    user: &User,
    heatmap: &Value,
    item: &str,
    body: Value,
) -> Value {
    let response = create_aoi(app, user, heatmap, item, body.clone()).await;
    assert_eq!(response.status(), 201, "creating {body}");
    response.json().await.unwrap()
}

async fn get_heatmap(app: &TestApp, user: &User, heatmap: &Value) -> Value {
    let response = app
        .api_send(
            Method::GET,
            &format!("/heatmaps/{}", str_of(heatmap, "id")),
            user,
        )
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

fn names_of(item: &Value) -> Vec<&str> {
    item["aois"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| str_of(a, "name"))
        .collect()
}

fn num(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

const WHOLE: &str = r#"{"x": 0, "y": 0, "width": 1, "height": 1}"#;

#[tokio::test]
async fn areas_are_saved_named_and_measured_once_the_image_is_done() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut events = app.events(&user).await;
    let heatmap = heatmap_of(&app, &user, 1).await;
    let item = item_id(&heatmap, 0);
    app.until_finished(&mut events, &[&item]).await;

    let whole: Value = serde_json::from_str(WHOLE).unwrap();
    let all = create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &item,
        json!({"name": " Affiche ", "rect": whole}),
    )
    .await;
    assert_eq!(all["name"], "Affiche", "names are trimmed");
    assert_eq!(all["item_id"], item.as_str());
    assert_eq!(all["shape"], "rect");
    assert_eq!(all["points"].as_array().unwrap().len(), 4);
    assert_eq!(
        all["rect"],
        json!({"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0})
    );
    // The whole image holds all the attention, in proportion to its size, and the first hotspot.
    let attention = &all["attention"];
    assert!((num(&attention["share"]) - 1.0).abs() < 1e-9, "{attention}");
    assert!((num(&attention["area"]) - 1.0).abs() < 1e-9);
    assert!((num(&attention["relative"]) - 1.0).abs() < 1e-9);
    assert_eq!(attention["seen_rank"], 1);
    assert_eq!(attention["seen_early"], true);
    // The whole image also holds all the first second's attention: nearly every viewer looks
    // somewhere in it, and no probability reaches 1.
    assert!(
        (num(&attention["glance_share"]) - 1.0).abs() < 1e-6,
        "{attention}"
    );
    let whole_p = num(&attention["first_second_probability"]);
    assert!(whole_p > 0.95 && whole_p < 1.0, "{attention}");

    // Two halves share the attention between them; a triangle is a polygon.
    let left = create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &item,
        json!({"name": "Gauche", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 1}}),
    )
    .await;
    let right = create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &item,
        json!({"name": "Droite", "points": [{"x": 0.5, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1}, {"x": 0.5, "y": 1}]}),
    )
    .await;
    assert_eq!(right["shape"], "polygon");
    let sum = num(&left["attention"]["share"]) + num(&right["attention"]["share"]);
    assert!((sum - 1.0).abs() < 1e-6, "halves sum to {sum}");
    let glance_sum =
        num(&left["attention"]["glance_share"]) + num(&right["attention"]["glance_share"]);
    assert!(
        (glance_sum - 1.0).abs() < 1e-6,
        "first-second halves sum to {glance_sum}"
    );
    for half in [&left, &right] {
        let p = num(&half["attention"]["first_second_probability"]);
        assert!(
            p > 0.0 && p < whole_p,
            "a half is less likely looked at than the whole: {p}"
        );
    }
    assert!((num(&left["attention"]["area"]) - 0.5).abs() < 1e-9);
    // The first hotspot's peak is in exactly one half.
    let firsts = [&left, &right]
        .iter()
        .filter(|a| a["attention"]["seen_rank"] == 1)
        .count();
    assert_eq!(firsts, 1);

    // The heatmap shows them on their item, in the order they were made.
    let got = get_heatmap(&app, &user, &heatmap).await;
    assert_eq!(names_of(&got["items"][0]), ["Affiche", "Gauche", "Droite"]);
    assert_eq!(got["items"][0]["aois"][1]["attention"], left["attention"]);

    // Rename and reshape; a name taken on the same image (case and accents aside) is refused.
    let path = format!("{}/{}", aois_path(&heatmap, &item), str_of(&left, "id"));
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"name": "Logo", "rect": {"x": 0, "y": 0, "width": 0.25, "height": 0.5}}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let logo: Value = response.json().await.unwrap();
    assert_eq!(logo["name"], "Logo");
    assert!((num(&logo["attention"]["area"]) - 0.125).abs() < 1e-9);
    let response = app
        .api_json(Method::PATCH, &path, &user, &json!({"name": "AFFICHE"}))
        .await;
    assert_fields(response, json!({"name": "taken"})).await;
    let response = create_aoi(
        &app,
        &user,
        &heatmap,
        &item,
        json!({"name": "dröite", "rect": whole}),
    )
    .await;
    assert_fields(response, json!({"name": "taken"})).await;

    // Delete: gone from the heatmap, then 404.
    let response = app.api_send(Method::DELETE, &path, &user).await;
    assert_eq!(response.status(), 204);
    let response = app.api_send(Method::DELETE, &path, &user).await;
    assert_api_error(response, 404, "not_found").await;
    let got = get_heatmap(&app, &user, &heatmap).await;
    assert_eq!(names_of(&got["items"][0]), ["Affiche", "Droite"]);
}

#[tokio::test]
async fn areas_of_a_queued_image_wait_for_its_attention_and_go_with_the_heatmap() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let heatmap = heatmap_of(&app, &user, 1).await;
    let item = item_id(&heatmap, 0);
    let whole: Value = serde_json::from_str(WHOLE).unwrap();
    let aoi = create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &item,
        json!({"name": "Tout", "rect": whole}),
    )
    .await;
    assert_eq!(aoi["attention"], Value::Null);

    let media = heatmap["items"][0]["source"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let latest = app
        .api_send(Method::GET, &format!("/media/{media}/heatmap"), &user)
        .await;
    let latest: Value = latest.json().await.unwrap();
    assert_eq!(names_of(&latest["item"]), ["Tout"]);

    let response = app
        .api_send(
            Method::DELETE,
            &format!("/heatmaps/{}", str_of(&heatmap, "id")),
            &user,
        )
        .await;
    assert_eq!(response.status(), 204);
    let left = regard::db::aois::for_item(&app.state.db, &item)
        .await
        .unwrap();
    assert!(left.is_empty(), "areas outlive their heatmap: {left:?}");
}

#[tokio::test]
async fn areas_are_copied_to_the_other_images_by_name() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let heatmap = heatmap_of(&app, &user, 3).await;
    let hid = str_of(&heatmap, "id").to_owned();
    let [a, b, c] = [0, 1, 2].map(|n| item_id(&heatmap, n));
    let logo = create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &a,
        json!({"name": "Logo", "rect": {"x": 0.1, "y": 0.1, "width": 0.2, "height": 0.1}}),
    )
    .await;
    let cta = create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &a,
        json!({"name": "Appel à l'action", "points": [{"x": 0.5, "y": 0.8}, {"x": 0.9, "y": 0.8}, {"x": 0.7, "y": 0.95}]}),
    )
    .await;
    // b already has a logo elsewhere: the copy moves it and keeps b's own name.
    create_aoi_ok(
        &app,
        &user,
        &heatmap,
        &b,
        json!({"name": "LOGO", "rect": {"x": 0.6, "y": 0.6, "width": 0.3, "height": 0.3}}),
    )
    .await;

    // Only the logo, only to b.
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/aois/copy"),
            &user,
            &json!({"from_item_id": a, "aoi_ids": [logo["id"]], "to_item_ids": [b]}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let got: Value = response.json().await.unwrap();
    assert_eq!(names_of(&got["items"][1]), ["LOGO"]);
    assert_eq!(got["items"][1]["aois"][0]["points"], logo["points"]);
    assert_eq!(names_of(&got["items"][2]), Vec::<&str>::new());

    // Everything to every other image.
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/aois/copy"),
            &user,
            &json!({"from_item_id": a}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let got = get_heatmap(&app, &user, &heatmap).await;
    assert_eq!(names_of(&got["items"][0]), ["Logo", "Appel à l'action"]);
    assert_eq!(names_of(&got["items"][1]), ["LOGO", "Appel à l'action"]);
    assert_eq!(names_of(&got["items"][2]), ["Logo", "Appel à l'action"]);
    assert_eq!(got["items"][2]["aois"][1]["points"], cta["points"]);
    assert_eq!(got["items"][2]["aois"][1]["shape"], "polygon");
    assert_ne!(
        got["items"][2]["aois"][0]["id"], logo["id"],
        "copies are new areas"
    );

    // Bad references name their field; nothing is copied.
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/aois/copy"),
            &user,
            &json!({"from_item_id": c, "aoi_ids": [logo["id"]], "to_item_ids": [uuid::Uuid::new_v4().to_string()]}),
        )
        .await;
    assert_fields(
        response,
        json!({"aoi_ids": "not_found", "to_item_ids": "not_found"}),
    )
    .await;
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/aois/copy"),
            &user,
            &json!({"to": 1}),
        )
        .await;
    assert_fields(
        response,
        json!({"from_item_id": "required", "to": "unknown_field"}),
    )
    .await;
}

#[tokio::test]
async fn invalid_areas_get_field_errors_and_an_image_holds_at_most_thirty() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let heatmap = heatmap_of(&app, &user, 1).await;
    let item = item_id(&heatmap, 0);
    let cases = [
        (json!({}), json!({"name": "required", "rect": "required"})),
        (
            json!({"name": "", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}, "points": []}),
            json!({"name": "required", "points": "conflict"}),
        ),
        (
            json!({"name": "x".repeat(81), "rect": {"x": 0.6, "y": 0, "width": 0.5, "height": 0.5}}),
            json!({"name": "too_long", "rect": "out_of_range"}),
        ),
        (
            json!({"name": "Petit", "rect": {"x": 0, "y": 0, "width": 0.005, "height": 0.01}}),
            json!({"rect": "too_small"}),
        ),
        (
            json!({"name": 3, "rect": [0, 0, 1, 1]}),
            json!({"name": "invalid_type", "rect": "invalid_type"}),
        ),
        (
            json!({"name": "Deux", "points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}], "colour": "red"}),
            json!({"points": "too_few", "colour": "unknown_field"}),
        ),
    ];
    for (body, fields) in cases {
        let response = create_aoi(&app, &user, &heatmap, &item, body).await;
        assert_fields(response, fields).await;
    }
    assert!(
        regard::db::aois::for_item(&app.state.db, &item)
            .await
            .unwrap()
            .is_empty()
    );

    for n in 0..30 {
        create_aoi_ok(
            &app,
            &user,
            &heatmap,
            &item,
            json!({"name": format!("Zone {n}"), "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}}),
        )
        .await;
    }
    let response = create_aoi(
        &app,
        &user,
        &heatmap,
        &item,
        json!({"name": "Zone 30", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}}),
    )
    .await;
    assert_api_error(response, 409, "too_many_aois").await;
}

#[tokio::test]
async fn other_users_areas_are_not_found() {
    let app = spawn_app().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let heatmap = heatmap_of(&app, &alice, 1).await;
    let item = item_id(&heatmap, 0);
    let aoi = create_aoi_ok(
        &app,
        &alice,
        &heatmap,
        &item,
        json!({"name": "Logo", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}}),
    )
    .await;
    let path = format!("{}/{}", aois_path(&heatmap, &item), str_of(&aoi, "id"));
    let rect = json!({"name": "Pris", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}});

    let response = create_aoi(&app, &bob, &heatmap, &item, rect.clone()).await;
    assert_api_error(response, 404, "not_found").await;
    let response = app
        .api_json(Method::PATCH, &path, &bob, &json!({"name": "Pris"}))
        .await;
    assert_api_error(response, 404, "not_found").await;
    let response = app.api_send(Method::DELETE, &path, &bob).await;
    assert_api_error(response, 404, "not_found").await;
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{}/aois/copy", str_of(&heatmap, "id")),
            &bob,
            &json!({"from_item_id": item}),
        )
        .await;
    assert_api_error(response, 404, "not_found").await;

    // An item of another of Alice's heatmaps is not an item of this one.
    let other = heatmap_of(&app, &alice, 1).await;
    let foreign = item_id(&other, 0);
    let response = create_aoi(&app, &alice, &heatmap, &foreign, rect).await;
    assert_api_error(response, 404, "not_found").await;
    let wrong_item = format!("{}/{}", aois_path(&heatmap, &foreign), str_of(&aoi, "id"));
    let response = app.api_send(Method::DELETE, &wrong_item, &alice).await;
    assert_api_error(response, 404, "not_found").await;

    let got = get_heatmap(&app, &alice, &heatmap).await;
    assert_eq!(names_of(&got["items"][0]), ["Logo"]);
}
