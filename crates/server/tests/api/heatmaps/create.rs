//! Creating heatmaps: queued items and jobs, lists, field errors, ownership, tokens, labels.

use super::*;

#[tokio::test]
async fn creating_a_heatmap_queues_one_item_and_one_job_per_image() {
    let app = spawn_app().await;
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
async fn lists_are_paginated_newest_first_or_by_name_and_searchable() {
    let app = spawn_app().await;
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
    // By name, accents and case folded, paged by keyset in either direction; with the search.
    let by_name = ["Campagne A", "Campagne B", "Noël", "Soldes d'Été", "Winter"];
    let mut paged = Vec::new();
    let mut query = "?sort=name&limit=2".to_owned();
    loop {
        let page = list(&app, &user, &query).await;
        paged.extend(names(&page));
        match page["next_cursor"].as_str() {
            Some(cursor) => query = format!("?sort=name&limit=2&cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(paged, by_name);
    let mut backwards = names(&list(&app, &user, "?sort=name_desc").await);
    backwards.reverse();
    assert_eq!(backwards, by_name);
    assert_eq!(
        names(&list(&app, &user, "?sort=name&q=campagne").await),
        ["Campagne A", "Campagne B"]
    );
    let mut oldest = names(&list(&app, &user, "?sort=oldest").await);
    oldest.reverse();
    assert_eq!(oldest, names(&all));
    let newest_cursor = list(&app, &user, "?limit=1").await["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    for (query, fields) in [
        ("?limit=0".to_owned(), json!({"limit": "out_of_range"})),
        ("?cursor=zz".to_owned(), json!({"cursor": "invalid_value"})),
        ("?sort=score".to_owned(), json!({"sort": "invalid"})),
        (
            format!("?sort=name&cursor={newest_cursor}"),
            json!({"cursor": "invalid_value"}),
        ),
    ] {
        let response = app
            .api_send(Method::GET, &format!("/heatmaps{query}"), &user)
            .await;
        assert_fields(response, fields).await;
    }
}

#[tokio::test]
async fn invalid_heatmaps_get_field_errors_and_create_nothing() {
    let app = spawn_app().await;
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
    let app = spawn_app().await;
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

#[tokio::test]
async fn items_are_named_after_their_creative_or_location() {
    let app = spawn_app().await;
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
