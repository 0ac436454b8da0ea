//! Results: outputs served, the latest result of an image, statuses, failures and retries.

use super::*;

#[tokio::test]
async fn a_heatmap_is_computed_and_its_outputs_are_served() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.upload_ok(&user, "a.png", png(320, 240)).await;
    let b = app.upload_ok(&user, "b.jpg", jpeg(240, 320)).await;
    let mut events = app.events(&user).await;
    let heatmap = create_ok(&app, &user, "Soldes d'été", &[&a, &b]).await;
    let hid = id(&heatmap).to_owned();
    assert_eq!(heatmap["item_count"], 2);
    let ids = item_ids(&heatmap);

    let seen = app.until_finished(&mut events, &[&ids[0], &ids[1]]).await;
    for event in &seen {
        assert_eq!(event["heatmap_id"], hid.as_str(), "{event}");
    }
    let statuses = statuses_by_item(&seen);
    for item in &ids {
        assert_eq!(statuses[item], ["processing", "done"], "events of {item}");
    }
    for event in &seen {
        assert_eq!(event["error"], Value::Null, "{event}");
        if event["status"] == "processing" {
            assert_eq!(event["score"], Value::Null);
        }
    }
    let last = last_by_item(&seen);
    let scores: Vec<f64> = ids
        .iter()
        .map(|item| number(&last[item]["score"]))
        .collect();

    let got = get_heatmap(&app, &user, &hid).await;
    assert_eq!(got["status"], "done");
    assert_eq!(got["done_count"], 2);
    assert_eq!(got["failed_count"], 0);
    let mean = (scores[0] + scores[1]) / 2.0;
    assert_close(number(&got["score"]), mean, "heatmap score");
    assert_close(
        number(&got["best_score"]),
        scores[0].max(scores[1]),
        "best score",
    );
    let items = got["items"].as_array().unwrap();
    for ((item, source), score) in items.iter().zip([&a, &b]).zip(&scores) {
        assert_done_item(&app, &user, item, source, *score).await;
    }

    let page = list(&app, &user, "").await;
    let summary = &page["items"][0];
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(summary["id"], hid.as_str());
    assert_eq!(summary["status"], "done");
    assert_eq!(summary["done_count"], 2);
    assert_close(number(&summary["score"]), mean, "listed score");
    assert_close(
        number(&summary["best_score"]),
        scores[0].max(scores[1]),
        "listed best score",
    );
    assert!(summary.get("items").is_none());
    let thumbnail = summary["thumbnail"].as_str().unwrap();
    assert!(thumbnail.starts_with(&format!("/api/v1/files/{}/thumbnail?", id(&a))));
    fetch(&app, &summary["thumbnail"], "image/jpeg").await;

    // The latest result of an image.
    let latest = get_json(&app, &user, &format!("/media/{}/heatmap", id(&a))).await;
    assert_eq!(latest["heatmap"]["id"], hid.as_str());
    assert_eq!(latest["item"]["id"], ids[0].as_str());
    assert_eq!(latest["item"]["status"], "done");
    assert_close(
        number(&latest["item"]["result"]["score"]),
        scores[0],
        "latest",
    );

    // Generated images are not offered as sources.
    let map_id = media_id_of(items[0]["result"]["urls"]["map"].as_str().unwrap());
    let response = create(&app, &user, json!({"name": "Maps", "media_ids": [map_id]})).await;
    assert_fields(response, json!({"media_ids": "not_found"})).await;
}

/// Bytes that start like a JPEG but are not one.
fn garbage_jpeg() -> Bytes {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bytes.extend((0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    Bytes::from(bytes)
}

#[tokio::test]
async fn a_broken_source_fails_alone_and_can_be_retried() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // Distinct images: objects are shared by identical content.
    let good = app.upload_ok(&user, "good.png", png(320, 240)).await;
    let corrupt = app.upload_ok(&user, "corrupt.png", png(300, 240)).await;
    let missing = app.upload_ok(&user, "missing.jpg", jpeg(280, 240)).await;
    let storage = &app.state.storage;
    let corrupt_key = preview_key(&app, &corrupt).await;
    let preview = storage.get_bytes(&corrupt_key).await.unwrap();
    storage
        .put_bytes(&corrupt_key, garbage_jpeg())
        .await
        .unwrap();
    let missing_key = preview_key(&app, &missing).await;
    storage.delete(&missing_key).await.unwrap();

    let mut events = app.events(&user).await;
    let heatmap = create_ok(&app, &user, "Mixed", &[&good, &corrupt, &missing]).await;
    let hid = id(&heatmap).to_owned();
    let ids = item_ids(&heatmap);
    let seen = app
        .until_finished(&mut events, &[&ids[0], &ids[1], &ids[2]])
        .await;
    let last = last_by_item(&seen);
    assert_eq!(last[&ids[0]]["status"], "done");
    let good_score = number(&last[&ids[0]]["score"]);
    for (item, code) in [(&ids[1], "invalid_image"), (&ids[2], "source_missing")] {
        assert_eq!(last[item]["status"], "failed", "{}", last[item]);
        assert_eq!(last[item]["score"], Value::Null);
        assert_eq!(last[item]["error"]["code"], code);
        assert!(
            last[item]["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }

    let got = get_heatmap(&app, &user, &hid).await;
    assert_eq!(got["status"], "partial");
    assert_eq!(got["done_count"], 1);
    assert_eq!(got["failed_count"], 2);
    assert_close(
        number(&got["score"]),
        good_score,
        "mean of the done items only",
    );
    assert_done_item(&app, &user, &got["items"][0], &good, good_score).await;
    for (n, code) in [(1, "invalid_image"), (2, "source_missing")] {
        let item = &got["items"][n];
        assert_eq!(item["status"], "failed");
        assert_eq!(item["error"]["code"], code);
        assert!(
            item["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert_eq!(item["result"], Value::Null);
        assert!(item["finished_at"].is_string());
    }
    let summary = &list(&app, &user, "").await["items"][0];
    assert_eq!(summary["status"], "partial");
    assert_eq!(summary["failed_count"], 2);

    // A heatmap whose only image fails is `failed`.
    let failing = create_ok(&app, &user, "Missing only", &[&missing]).await;
    let failing_item = item_ids(&failing)[0].clone();
    let seen = app.until_finished(&mut events, &[&failing_item]).await;
    assert_eq!(
        last_by_item(&seen)[&failing_item]["error"]["code"],
        "source_missing"
    );
    let got = get_heatmap(&app, &user, id(&failing)).await;
    assert_eq!(got["status"], "failed");
    assert_eq!(got["score"], Value::Null);

    // A done item cannot be retried.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &ids[0]), &user)
        .await;
    assert_api_error(response, 409, "not_failed").await;

    // Repaired, the corrupt one succeeds on retry.
    storage.put_bytes(&corrupt_key, preview).await.unwrap();
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &ids[1]), &user)
        .await;
    assert_eq!(response.status(), 202);
    let retried: Value = response.json().await.unwrap();
    assert_eq!(retried["id"], ids[1].as_str());
    assert_eq!(retried["error"], Value::Null);
    assert_eq!(retried["result"], Value::Null);
    assert!(
        matches!(retried["status"].as_str(), Some("queued" | "processing")),
        "{retried}"
    );
    let seen = app.until_finished(&mut events, &[&ids[1]]).await;
    let statuses = &statuses_by_item(&seen)[&ids[1]];
    // The retry's own event carries the item's status as the handler reads it after waking
    // the workers: usually `queued`, `processing` when a worker was quicker.
    assert!(
        statuses.len() >= 2
            && statuses[..statuses.len() - 1]
                .iter()
                .all(|s| s == "queued" || s == "processing"),
        "{statuses:?}"
    );
    assert_eq!(statuses.last().unwrap(), "done", "{statuses:?}");
    // (The score is read from the item: the retry's own event, published after waking the
    // workers, could in a tight race repeat `done` without a score.)
    let repaired = get_heatmap(&app, &user, &hid).await;
    let repaired_score = number(&repaired["items"][1]["result"]["score"]);
    assert_eq!(
        jobs_of(&app, &ids[1]).await.len(),
        1,
        "the old job was replaced"
    );

    // Still missing, the other one fails again.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &ids[2]), &user)
        .await;
    assert_eq!(response.status(), 202);
    let seen = app.until_finished(&mut events, &[&ids[2]]).await;
    assert_eq!(last_by_item(&seen)[&ids[2]]["status"], "failed");

    let got = get_heatmap(&app, &user, &hid).await;
    assert_eq!(got["status"], "partial");
    assert_eq!(got["done_count"], 2);
    assert_eq!(got["failed_count"], 1);
    assert_done_item(&app, &user, &got["items"][1], &corrupt, repaired_score).await;
    assert_close(
        number(&got["score"]),
        (good_score + repaired_score) / 2.0,
        "mean after the retry",
    );
    assert_eq!(got["items"][2]["error"]["code"], "source_missing");
}

#[tokio::test]
async fn the_latest_heatmap_of_an_image_is_returned() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(120, 90)).await;
    let extra = app.upload_ok(&user, "b.png", png(90, 120)).await;
    let path = format!("/media/{}/heatmap", id(&media));
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(latest["media"]["id"], media["id"]);
    assert_eq!(without_urls(&latest["media"]), without_urls(&media));
    assert_eq!(latest["heatmap"], Value::Null);
    assert_eq!(latest["item"], Value::Null);

    let first = create_ok(&app, &user, "First", &[&media]).await;
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(
        latest["heatmap"],
        json!({"id": first["id"], "name": "First", "created_at": first["created_at"]})
    );
    assert_eq!(latest["item"]["id"], first["items"][0]["id"]);
    assert_eq!(latest["item"]["status"], "queued");
    assert_eq!(latest["item"]["source"]["id"], media["id"]);

    let second = create_ok(&app, &user, "Second", &[&extra, &media]).await;
    // Newest on (created_at, item id): the second, unless both were made in the same
    // millisecond, when the item id decides.
    let key = |heatmap: &Value, n: usize| {
        (
            heatmap["created_at"].as_str().unwrap().to_owned(),
            id(&heatmap["items"][n]).to_owned(),
        )
    };
    let (newest, n) = if key(&second, 1) > key(&first, 0) {
        (&second, 1)
    } else {
        (&first, 0)
    };
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(latest["heatmap"]["id"], newest["id"]);
    assert_eq!(latest["item"]["id"], newest["items"][n]["id"]);
    assert_eq!(latest["item"]["position"], n);

    // Without the second heatmap, the first one's item is the latest again.
    let response = app
        .api_send(Method::DELETE, &format!("/heatmaps/{}", id(&second)), &user)
        .await;
    assert_eq!(response.status(), 204);
    let latest = get_json(&app, &user, &path).await;
    assert_eq!(latest["heatmap"]["id"], first["id"]);
    assert_eq!(latest["item"]["id"], first["items"][0]["id"]);
}

/// The statuses derived from the items, driven step by step on a server without workers
/// (items moved through the same queries the job uses), and the event a retry publishes.
#[tokio::test]
async fn a_heatmaps_status_follows_its_items() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.upload_ok(&user, "a.png", png(60, 40)).await;
    let b = app.upload_ok(&user, "b.png", png(61, 40)).await;
    let heatmap = create_ok(&app, &user, "Steps", &[&a, &b]).await;
    let (hid, items) = (id(&heatmap).to_owned(), item_ids(&heatmap));
    let db = &app.state.db;
    let status = || async {
        let got = get_heatmap(&app, &user, &hid).await;
        let summary = list(&app, &user, "").await["items"][0].clone();
        assert_eq!(summary["status"], got["status"], "list and GET agree");
        assert_eq!(summary["failed_count"], got["failed_count"]);
        got
    };
    assert_eq!(status().await["status"], "queued");

    let now = regard::db::now_ms();
    let started = regard::db::heatmaps::start_item(db, &items[0], 1, now)
        .await
        .unwrap();
    assert!(started.is_some());
    let got = status().await;
    assert_eq!(got["status"], "processing");
    assert_eq!(got["items"][0]["status"], "processing");
    assert_eq!(got["items"][0]["attempts"], 1);
    assert!(got["items"][0]["started_at"].is_string());
    assert_eq!(got["items"][0]["result"], Value::Null);
    assert_eq!(got["items"][1]["status"], "queued");

    assert!(
        regard::db::heatmaps::fail_item(db, &items[0], "internal", "boom", now)
            .await
            .unwrap()
    );
    let got = status().await;
    assert_eq!(got["status"], "processing", "one failed, one still queued");
    assert_eq!(got["failed_count"], 1);
    assert_eq!(
        got["items"][0]["error"],
        json!({"code": "internal", "message": "boom"})
    );

    // A retry queues the item again with a new job, and tells the user's tabs.
    let mut events = app.events(&user).await;
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &items[0]), &user)
        .await;
    assert_eq!(response.status(), 202);
    let retried: Value = response.json().await.unwrap();
    assert_eq!(retried["status"], "queued");
    assert_eq!(retried["error"], Value::Null);
    assert_eq!(retried["started_at"], Value::Null);
    assert_eq!(retried["finished_at"], Value::Null);
    let deadline = tokio::time::Instant::now() + crate::sse::EVENT_TIMEOUT;
    let event = events.next_before(deadline).await;
    assert_eq!(event.event, "heatmap_item");
    assert_eq!(
        event.json(),
        json!({"heatmap_id": hid, "item_id": items[0], "status": "queued", "score": null,
               "error": null})
    );
    let jobs = jobs_of(&app, &items[0]).await;
    assert_eq!(jobs.len(), 1, "the old job was replaced: {jobs:?}");
    assert_eq!(jobs[0].status, "queued");
    assert_eq!(jobs[0].attempts, 0);
    let got = status().await;
    assert_eq!(got["status"], "queued");
    assert_eq!(got["failed_count"], 0);
    // Retrying it again is refused: it is queued, not failed.
    let response = app
        .api_send(Method::POST, &retry_path(&hid, &items[0]), &user)
        .await;
    assert_api_error(response, 409, "not_failed").await;
}
