//! `/api/v1/creatives`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::png;
use crate::helpers::{TestApp, User, assert_api_error, assert_fields, names, spawn_app};

async fn create(app: &TestApp, user: &User, body: Value) -> reqwest::Response {
    app.api_json(Method::POST, "/creatives", user, &body).await
}

async fn list(app: &TestApp, user: &User, query: &str) -> Value {
    let response = app
        .api_send(Method::GET, &format!("/creatives{query}"), user)
        .await;
    assert_eq!(response.status(), 200, "GET /creatives{query}");
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_creative_is_created_with_its_media() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "poster.png", png(300, 200)).await;
    let response = create(
        &app,
        &user,
        json!({"media_id": media["id"], "name": "  Summer sale ", "brand": "Café Noir",
               "campaign": "Été 2026", "notes": "Line one\nline two"}),
    )
    .await;
    assert_eq!(response.status(), 201);
    let creative: Value = response.json().await.unwrap();
    assert_eq!(creative["name"], "Summer sale");
    assert_eq!(creative["brand"], "Café Noir");
    assert_eq!(creative["campaign"], "Été 2026");
    assert_eq!(creative["notes"], "Line one\nline two");
    assert_eq!(creative["simulation_count"], 0);
    assert_eq!(creative["media"]["id"], media["id"]);
    assert_eq!(creative["media"]["width"], 300);
    for variant in ["original", "preview", "thumbnail"] {
        let url = creative["media"]["urls"][variant].as_str().unwrap();
        assert_eq!(app.get_url(url).await.status(), 200);
    }
    let id = creative["id"].as_str().unwrap();
    let response = app
        .api_send(Method::GET, &format!("/creatives/{id}"), &user)
        .await;
    assert_eq!(response.status(), 200);
    let got: Value = response.json().await.unwrap();
    assert_eq!(got["name"], "Summer sale");
    assert_eq!(got["simulation_count"], 0);
}

#[tokio::test]
async fn the_name_defaults_to_the_file_name_without_extension() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app
        .upload_ok(&user, "Soldes d'été.final.png", png(40, 40))
        .await;
    let response = create(&app, &user, json!({"media_id": media["id"], "name": "  "})).await;
    assert_eq!(response.status(), 201);
    let creative: Value = response.json().await.unwrap();
    assert_eq!(creative["name"], "Soldes d'été.final");
    assert_eq!(creative["brand"], Value::Null);
}

#[tokio::test]
async fn invalid_creatives_get_field_errors() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(40, 40)).await;
    let response = create(&app, &user, json!({"name": "x"})).await;
    assert_fields(response, json!({"media_id": "required"})).await;
    let response = create(
        &app,
        &user,
        json!({"media_id": uuid::Uuid::new_v4().to_string()}),
    )
    .await;
    assert_fields(response, json!({"media_id": "not_found"})).await;
    let response = create(&app, &user, json!({"media_id": "nope"})).await;
    assert_fields(response, json!({"media_id": "not_found"})).await;
    let response = create(
        &app,
        &user,
        json!({"media_id": media["id"], "name": 5, "brand": "b".repeat(201),
               "campaign": "tab\there", "notes": "n".repeat(5001), "colour": "red"}),
    )
    .await;
    assert_fields(
        response,
        json!({"name": "invalid_type", "brand": "too_long", "campaign": "invalid_characters",
               "notes": "too_long", "colour": "unknown_field"}),
    )
    .await;
    // 200 characters (not bytes) is fine.
    let response = create(
        &app,
        &user,
        json!({"media_id": media["id"], "name": "é".repeat(200)}),
    )
    .await;
    assert_eq!(response.status(), 201);

    let response = app
        .api(Method::POST, "/creatives", &user)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_api_error(response, 400, "invalid_json").await;
    let response = create(&app, &user, json!(["a"])).await;
    assert_api_error(response, 400, "invalid_json").await;
}

#[tokio::test]
async fn a_creative_is_edited_and_deleted_with_its_media() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let creative = app
        .creative(&user, json!({"name": "Old", "brand": "B", "notes": "N"}))
        .await;
    let path = format!("/creatives/{}", creative["id"].as_str().unwrap());
    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"name": "New", "brand": null}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let edited: Value = response.json().await.unwrap();
    assert_eq!(edited["name"], "New");
    assert_eq!(edited["brand"], Value::Null);
    assert_eq!(edited["notes"], "N", "absent fields stay");
    assert_eq!(edited["created_at"], creative["created_at"]);

    let response = app
        .api_json(
            Method::PATCH,
            &path,
            &user,
            &json!({"name": null, "media_id": "x"}),
        )
        .await;
    assert_fields(
        response,
        json!({"name": "required", "media_id": "unknown_field"}),
    )
    .await;

    assert_eq!(app.media_rows().await, 1);
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
    assert_eq!(app.media_rows().await, 0);
    assert_eq!(app.objects().await, Vec::<String>::new());
}

#[tokio::test]
async fn media_shared_by_two_creatives_stays_until_the_last_goes() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(40, 40)).await;
    let mut ids = Vec::new();
    for name in ["One", "Two"] {
        let response = create(&app, &user, json!({"media_id": media["id"], "name": name})).await;
        let creative: Value = response.json().await.unwrap();
        ids.push(creative["id"].as_str().unwrap().to_owned());
    }
    let delete = |id: &str| format!("/creatives/{id}");
    assert_eq!(
        app.api_send(Method::DELETE, &delete(&ids[0]), &user)
            .await
            .status(),
        204
    );
    assert_eq!(app.media_rows().await, 1);
    assert_eq!(app.objects().await.len(), 3);
    assert_eq!(
        app.api_send(Method::DELETE, &delete(&ids[1]), &user)
            .await
            .status(),
        204
    );
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty());
}

#[tokio::test]
async fn lists_are_paginated_newest_first() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    app.creative(&other, json!({"name": "Not mine"})).await;
    let media = app.upload_ok(&user, "a.png", png(40, 40)).await;
    for i in 0..5 {
        let response = create(
            &app,
            &user,
            json!({"media_id": media["id"], "name": format!("C{i}")}),
        )
        .await;
        assert_eq!(response.status(), 201);
    }
    let all = list(&app, &user, "").await;
    assert_eq!(all["items"].as_array().unwrap().len(), 5);
    assert_eq!(all["next_cursor"], Value::Null);
    let times: Vec<&str> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["created_at"].as_str().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {times:?}"
    );
    assert!(all["items"][0]["media"]["urls"]["thumbnail"].is_string());

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

    for (query, fields) in [
        ("?limit=0", json!({"limit": "out_of_range"})),
        ("?limit=101", json!({"limit": "out_of_range"})),
        ("?limit=ten", json!({"limit": "invalid_type"})),
        ("?cursor=zz", json!({"cursor": "invalid_value"})),
        ("?cursor=3132", json!({"cursor": "invalid_value"})),
    ] {
        let response = app
            .api_send(Method::GET, &format!("/creatives{query}"), &user)
            .await;
        assert_fields(response, fields).await;
    }
}

#[tokio::test]
async fn search_ignores_case_and_accents() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(40, 40)).await;
    for (name, brand, campaign) in [
        ("Soldes d'Été", "Café Noir", "Rentrée 2026"),
        ("Winter", "Évian", "Noël"),
        ("100% coton", "Œuvre", "x_y"),
    ] {
        let body =
            json!({"media_id": media["id"], "name": name, "brand": brand, "campaign": campaign});
        assert_eq!(create(&app, &user, body).await.status(), 201);
    }
    for (q, expected) in [
        ("ete", vec!["Soldes d'Été"]),
        ("CAFE", vec!["Soldes d'Été"]),
        ("evian", vec!["Winter"]),
        ("NOEL", vec!["Winter"]),
        ("rentree%202026", vec!["Soldes d'Été"]),
        ("2026%20soldes", vec!["Soldes d'Été"]),
        ("oeuvre", vec!["100% coton"]),
        ("100%25", vec!["100% coton"]),
        ("%25", vec!["100% coton"]),
        ("x_y", vec!["100% coton"]),
        ("_", vec!["100% coton"]),
        ("nothing", vec![]),
    ] {
        let page = list(&app, &user, &format!("?q={q}")).await;
        assert_eq!(names(&page), expected, "q={q}");
    }
    assert_eq!(names(&list(&app, &user, "?q=").await).len(), 3);
}

#[tokio::test]
async fn json_bodies_are_limited_and_methods_checked() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let notes = "n".repeat(2 * 1024 * 1024);
    let response = create(&app, &user, json!({"name": "x", "notes": notes})).await;
    assert_api_error(response, 413, "payload_too_large").await;
    let response = app.api_send(Method::PUT, "/creatives", &user).await;
    assert_api_error(response, 405, "method_not_allowed").await;
}

/// Pages through `GET /creatives?{query}` two at a time; the names in order.
async fn all_pages(app: &TestApp, user: &User, query: &str) -> Vec<String> {
    let mut names_seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let path = match &cursor {
            Some(c) => format!("{query}&limit=2&cursor={c}"),
            None => format!("{query}&limit=2"),
        };
        let page = list(app, user, &path).await;
        names_seen.extend(names(&page));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return names_seen,
        }
    }
    panic!("more pages than creatives for {query}");
}

#[tokio::test]
async fn the_library_sorts_by_date_name_or_size_and_filters_by_brand_and_campaign() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // Name, brand, campaign, size; two with the same pixel count, two with the same name.
    let specs = [
        ("banane", Some("Fruity"), Some("Été"), (40, 30)),
        ("Ananas", Some("Fruity"), Some("Hiver"), (80, 60)),
        ("cerise", None, Some("Été"), (30, 40)),
        ("Datte", Some("Dunes"), None, (120, 90)),
        ("ananas", Some("Dunes"), Some("Été"), (20, 10)),
        ("Figue", Some("Fruity"), None, (60, 50)),
    ];
    for (name, brand, campaign, (w, h)) in specs {
        let media = app
            .upload_ok(&user, &format!("{name}.png"), png(w, h))
            .await;
        app.creative_of(
            &user,
            &media,
            json!({"name": name, "brand": brand, "campaign": campaign}),
        )
        .await;
    }
    let other = app.new_user().await;
    let media = app.upload_ok(&other, "x.png", png(10, 10)).await;
    app.creative_of(&other, &media, json!({"name": "aaa", "brand": "Fruity"}))
        .await;

    let created: Vec<String> = specs.iter().map(|s| s.0.to_owned()).collect();
    let mut newest = created.clone();
    newest.reverse();
    assert_eq!(all_pages(&app, &user, "?sort=newest").await, newest);
    assert_eq!(
        all_pages(&app, &user, "?").await,
        newest,
        "newest is the default"
    );
    assert_eq!(all_pages(&app, &user, "?sort=oldest").await, created);

    // By name whatever the case; the two "ananas" in either order, each once.
    let by_name = all_pages(&app, &user, "?sort=name").await;
    assert_eq!(by_name.len(), 6);
    let lower: Vec<String> = by_name.iter().map(|n| n.to_lowercase()).collect();
    assert_eq!(
        lower,
        ["ananas", "ananas", "banane", "cerise", "datte", "figue"]
    );
    assert!(by_name.contains(&"Ananas".to_owned()) && by_name.contains(&"ananas".to_owned()));
    let mut backwards = all_pages(&app, &user, "?sort=name_desc").await;
    backwards.reverse();
    assert_eq!(backwards, by_name, "Z → A is A → Z reversed, ties included");

    // By pixels: 120 × 90, 80 × 60, 60 × 50, then 40 × 30 and 30 × 40 (equal), then 20 × 10.
    let largest = all_pages(&app, &user, "?sort=largest").await;
    assert_eq!(&largest[..3], ["Datte", "Ananas", "Figue"]);
    let mut tie = largest[3..5].to_vec();
    tie.sort();
    assert_eq!(tie, ["banane", "cerise"]);
    assert_eq!(largest[5], "ananas");
    let mut smallest = all_pages(&app, &user, "?sort=smallest").await;
    smallest.reverse();
    assert_eq!(smallest, largest);

    // Filters, alone, together, with the search and another order; never another user's.
    assert_eq!(
        all_pages(&app, &user, "?brand=Fruity&sort=name").await,
        ["Ananas", "banane", "Figue"]
    );
    assert_eq!(
        all_pages(&app, &user, "?campaign=%C3%89t%C3%A9&sort=oldest").await,
        ["banane", "cerise", "ananas"]
    );
    assert_eq!(
        all_pages(&app, &user, "?brand=Dunes&campaign=%C3%89t%C3%A9").await,
        ["ananas"]
    );
    assert_eq!(
        all_pages(&app, &user, "?q=ANA&brand=Fruity").await,
        ["Ananas", "banane"]
    );

    let facets = app
        .api_send(Method::GET, "/creatives/facets", &user)
        .await
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(
        facets,
        json!({
            "brands": [{"name": "Dunes", "count": 2}, {"name": "Fruity", "count": 3}],
            "campaigns": [{"name": "Été", "count": 3}, {"name": "Hiver", "count": 1}],
        })
    );

    // An unknown order, or a cursor made for another order, is refused.
    let response = app
        .api_send(Method::GET, "/creatives?sort=colour", &user)
        .await;
    assert_fields(response, json!({"sort": "invalid"})).await;
    let first = list(&app, &user, "?limit=2").await;
    let cursor = first["next_cursor"].as_str().unwrap();
    let response = app
        .api_send(
            Method::GET,
            &format!("/creatives?sort=name&cursor={cursor}"),
            &user,
        )
        .await;
    assert_fields(response, json!({"cursor": "invalid_value"})).await;
}

/// Names sort as people read them, accents folded (Éclat with the e's), the search looks in the
/// notes too, and rows written before either get both at start-up (`db::search::backfill`).
#[tokio::test]
async fn names_sort_without_regard_to_accents_and_notes_are_searched() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for (name, notes) in [
        ("Solé", None),
        ("Éclat", Some("Brief du client : visuel de rentrée")),
        ("Nordvélo", None),
        ("Café", None),
        ("émeraude", None),
    ] {
        let media = app.upload_ok(&user, "c.png", png(10, 10)).await;
        app.creative_of(&user, &media, json!({"name": name, "notes": notes}))
            .await;
    }
    let expected = ["Café", "Éclat", "émeraude", "Nordvélo", "Solé"];
    assert_eq!(all_pages(&app, &user, "?sort=name").await, expected);
    let mut backwards = all_pages(&app, &user, "?sort=name_desc").await;
    backwards.reverse();
    assert_eq!(backwards, expected);
    assert_eq!(
        names(&list(&app, &user, "?q=rentree").await),
        ["Éclat"],
        "the notes are searched, accents folded"
    );
    // Rows as an older version wrote them: no sort key, a search text without the notes.
    sqlx::query("UPDATE creatives SET sort_name = '', search = LOWER(name)")
        .execute(app.state.db.pool())
        .await
        .unwrap();
    assert!(names(&list(&app, &user, "?q=rentree").await).is_empty());
    let written = regard::db::search::backfill(&app.state.db).await.unwrap();
    assert_eq!(written, 5);
    assert_eq!(all_pages(&app, &user, "?sort=name").await, expected);
    assert_eq!(names(&list(&app, &user, "?q=rentree").await), ["Éclat"]);
    assert_eq!(
        regard::db::search::backfill(&app.state.db).await.unwrap(),
        0
    );
}

/// The raw bytes of `GET /creatives{query}`.
async fn list_bytes(app: &TestApp, user: &User, query: &str) -> Vec<u8> {
    let response = app
        .api_send(Method::GET, &format!("/creatives{query}"), user)
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "GET /creatives{query}"
    );
    response.bytes().await.unwrap().to_vec()
}

#[tokio::test]
async fn a_kept_list_answer_is_never_older_than_the_library() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    let media = app.upload_ok(&user, "poster.png", png(40, 30)).await;
    let created: Value = create(
        &app,
        &user,
        json!({"media_id": media["id"], "name": "Avant"}),
    )
    .await
    .json()
    .await
    .unwrap();
    let id = created["id"].as_str().unwrap();
    let first = list_bytes(&app, &user, "?limit=10").await;
    assert_eq!(list_bytes(&app, &user, "?limit=10").await, first, "kept");
    assert_eq!(app.state.answers.size().0, 1);
    // Another caller, or another query, is another answer.
    assert!(names(&list(&app, &other, "?limit=10").await).is_empty());
    assert_eq!(names(&list(&app, &user, "?limit=9").await), ["Avant"]);

    // A change through the API.
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/creatives/{id}"),
            &user,
            &json!({"name": "Après"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(names(&list(&app, &user, "?limit=10").await), ["Après"]);

    // Writes that no handler of this process made (another node, an administrator's SQL):
    // the database raises the revision itself, on the creative's row and on its image's.
    sqlx::query("UPDATE creatives SET name = 'Par SQL' WHERE id = $1")
        .bind(id)
        .execute(app.state.db.pool())
        .await
        .unwrap();
    assert_eq!(names(&list(&app, &user, "?limit=10").await), ["Par SQL"]);
    sqlx::query("UPDATE media SET original_name = 'renamed.png' WHERE id = $1")
        .bind(media["id"].as_str().unwrap())
        .execute(app.state.db.pool())
        .await
        .unwrap();
    let page = list(&app, &user, "?limit=10").await;
    assert_eq!(page["items"][0]["media"]["original_name"], "renamed.png");
    sqlx::query("DELETE FROM creatives WHERE id = $1")
        .bind(id)
        .execute(app.state.db.pool())
        .await
        .unwrap();
    assert!(names(&list(&app, &user, "?limit=10").await).is_empty());
    // The answers kept are the fresh ones, byte for byte.
    let kept = list_bytes(&app, &user, "?limit=10").await;
    assert_eq!(
        serde_json::from_slice::<Value>(&kept).unwrap(),
        json!({"items": [], "next_cursor": null})
    );
}
