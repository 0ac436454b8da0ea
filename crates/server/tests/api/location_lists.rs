//! The locations list's orders and filters, its facets, the map's positions and settings.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, User, assert_fields, spawn_app, spawn_app_with};

async fn get(app: &TestApp, user: &User, path: &str) -> Value {
    let response = app.api_send(Method::GET, path, user).await;
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

async fn seed(app: &TestApp, user: &User) {
    for body in [
        json!({"name": "Bellecour", "city": "Lyon", "format": "mupi_2m2", "audience": "pedestrian",
               "latitude": 45.757, "longitude": 4.832}),
        json!({"name": "A7 sortie", "city": "Lyon", "format": "billboard_4x3", "audience": "road",
               "latitude": 45.72, "longitude": 4.85}),
        json!({"name": "Écully", "city": "Écully", "format": "billboard_4x3", "audience": "road"}),
        json!({"name": "zone sans ville", "format": "uk_48_sheet",
               "latitude": 51.5, "longitude": -0.12}),
        json!({"name": "Arles", "city": "arles", "format": "bus_shelter"}),
    ] {
        let response = app.api_json(Method::POST, "/locations", user, &body).await;
        assert_eq!(response.status(), 201);
    }
}

fn names(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn locations_are_sorted_and_filtered_and_paged_in_any_order() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    seed(&app, &user).await;
    // Names and cities accents and case folded (db::search::normalize); ties by id; without a
    // city first.
    let by_name = get(&app, &user, "/locations?sort=name").await;
    assert_eq!(
        names(&by_name),
        [
            "A7 sortie",
            "Arles",
            "Bellecour",
            "Écully",
            "zone sans ville"
        ]
    );
    let by_city = names(&get(&app, &user, "/locations?sort=city").await);
    assert_eq!(&by_city[..3], ["zone sans ville", "Arles", "Écully"]);
    let by_format = names(&get(&app, &user, "/locations?sort=format").await);
    assert_eq!(by_format.len(), 5);
    assert!(
        by_format[..2]
            .iter()
            .all(|n| n == "A7 sortie" || n == "Écully")
    );
    // Paging two at a time in name order gives every location once, in order.
    let mut seen = Vec::new();
    let mut path = "/locations?sort=name_desc&limit=2".to_owned();
    loop {
        let page = get(&app, &user, &path).await;
        seen.extend(names(&page));
        match page["next_cursor"].as_str() {
            Some(cursor) => path = format!("/locations?sort=name_desc&limit=2&cursor={cursor}"),
            None => break,
        }
    }
    let mut expected = names(&get(&app, &user, "/locations?sort=name_desc").await);
    assert_eq!(seen, expected);
    expected.reverse();
    assert_eq!(expected, names(&by_name));
    // Filters combine with each other and with the search.
    let lyon_road = names(&get(&app, &user, "/locations?city=Lyon&audience=road").await);
    assert_eq!(lyon_road, ["A7 sortie"]);
    let billboards = names(&get(&app, &user, "/locations?format=billboard_4x3&sort=name").await);
    assert_eq!(billboards, ["A7 sortie", "Écully"]);
    let searched = names(&get(&app, &user, "/locations?format=billboard_4x3&q=ecully").await);
    assert_eq!(searched, ["Écully"]);
    // A cursor of another order, and bad values, are refused.
    let first = get(&app, &user, "/locations?limit=1").await;
    let cursor = first["next_cursor"].as_str().unwrap();
    let response = app
        .api_send(
            Method::GET,
            &format!("/locations?sort=name&cursor={cursor}"),
            &user,
        )
        .await;
    assert_fields(response, json!({"cursor": "invalid_value"})).await;
    let response = app
        .api_send(Method::GET, "/locations?sort=size", &user)
        .await;
    assert_fields(response, json!({"sort": "invalid"})).await;
    let response = app
        .api_send(Method::GET, "/locations?format=poster", &user)
        .await;
    assert_fields(response, json!({"format": "invalid_value"})).await;
    // The document's enums have no blank value.
    let response = app
        .api_send(Method::GET, "/locations/positions?audience=", &user)
        .await;
    assert_fields(response, json!({"audience": "invalid_value"})).await;
}

#[tokio::test]
async fn facets_and_positions_follow_the_owners_locations() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    seed(&app, &user).await;
    let facets = get(&app, &user, "/locations/facets").await;
    assert_eq!(
        facets["cities"],
        json!([{"name": "arles", "count": 1}, {"name": "Écully", "count": 1},
               {"name": "Lyon", "count": 2}])
    );
    let formats = facets["formats"].as_array().unwrap();
    assert!(formats.contains(&json!({"name": "billboard_4x3", "count": 2})));
    // Only positioned locations, by name, filtered like the list.
    let positions = get(&app, &user, "/locations/positions").await;
    let located: Vec<&str> = positions["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(located, ["A7 sortie", "Bellecour", "zone sans ville"]);
    assert_eq!(positions["truncated"], false);
    assert_eq!(positions["items"][1]["latitude"], 45.757);
    assert_eq!(positions["items"][1]["audience"], "pedestrian");
    let road = get(&app, &user, "/locations/positions?audience=road&city=Lyon").await;
    assert_eq!(road["items"].as_array().unwrap().len(), 1);
    // Another user sees none of it.
    let other = app.new_user().await;
    assert_eq!(
        get(&app, &other, "/locations/positions").await["items"],
        json!([])
    );
    assert_eq!(
        get(&app, &other, "/locations/facets").await,
        json!({"cities": [], "formats": []})
    );
}

#[tokio::test]
async fn the_map_settings_come_from_the_configuration_and_the_policy_allows_the_tiles() {
    let app = spawn_app_with(|config| {
        config.map_tiles_url = "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png".to_owned();
        config.map_attribution = "Test tiles".to_owned();
    })
    .await;
    let user = app.new_user().await;
    let response = app.api_send(Method::GET, "/map", &user).await;
    let policy = response
        .headers()
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        policy.contains("img-src 'self' data: blob: http://127.0.0.1:9;"),
        "{policy}"
    );
    let settings: Value = response.json().await.unwrap();
    assert_eq!(
        settings,
        json!({"tiles_url": "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png",
               "attribution": "Test tiles", "max_zoom": 19})
    );
    // The defaults: OpenStreetMap's standard tiles, credited.
    let app = spawn_app().await;
    let user = app.new_user().await;
    let settings = get(&app, &user, "/map").await;
    assert_eq!(
        settings["tiles_url"],
        "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    );
    assert_eq!(settings["attribution"], "© OpenStreetMap contributors");
    assert_eq!(app.get_url("/api/v1/map").await.status(), 401);
}
