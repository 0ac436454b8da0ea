//! Deleting heatmaps and their images: jobs, outputs and media released, in-use images kept.

use super::*;

#[tokio::test]
async fn deleting_a_queued_heatmap_removes_its_jobs_and_releases_its_images() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let objects_before = app.objects().await;
    assert!(objects_before.is_empty());
    // Uploaded only for the heatmap; used by a creative too; used by a second heatmap.
    let solo = app.upload_ok(&user, "solo.png", png(200, 150)).await;
    let creative = app.creative(&user, json!({"name": "Poster"})).await;
    let kept = &creative["media"];
    let shared = app.upload_ok(&user, "shared.png", png(210, 150)).await;
    let heatmap = create_ok(&app, &user, "To delete", &[&solo, kept, &shared]).await;
    let other = create_ok(&app, &user, "Keeps shared", &[&shared]).await;
    let (hid, items) = (id(&heatmap).to_owned(), item_ids(&heatmap));
    for item in &items {
        assert_eq!(jobs_of(&app, item).await.len(), 1);
    }
    assert_eq!(app.media_rows().await, 3);
    let objects = app.objects().await;
    assert_eq!(objects.len(), 9);

    let path = format!("/heatmaps/{hid}");
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
    for item in &items {
        assert_eq!(jobs_of(&app, item).await, vec![], "jobs of {item}");
    }
    assert_eq!(jobs_of(&app, &item_ids(&other)[0]).await.len(), 1);
    assert_eq!(names(&list(&app, &user, "").await), ["Keeps shared"]);

    // The image used by nothing else went, with its objects; the others stay.
    assert_eq!(media_row(&app, id(&solo)).await, None);
    assert_api_error(
        app.api_send(Method::GET, &format!("/media/{}", id(&solo)), &user)
            .await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(
        app.get_url(solo["urls"]["original"].as_str().unwrap())
            .await
            .status(),
        404
    );
    assert!(media_row(&app, id(kept)).await.is_some());
    assert!(media_row(&app, id(&shared)).await.is_some());
    assert_eq!(app.media_rows().await, 2);
    assert_eq!(app.objects().await.len(), 6);
    fetch(&app, &shared["urls"]["original"], "image/png").await;

    // The last heatmap using it releases the shared image.
    let path = format!("/heatmaps/{}", id(&other));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    assert_eq!(media_row(&app, id(&shared)).await, None);
    assert_eq!(app.media_rows().await, 1, "the creative's image stays");
    assert_eq!(app.objects().await.len(), 3);
}

/// An item's outputs: the full map, overlay and fog, and the first glance's.
const OUTPUTS: i64 = 6;

/// The signed links of an item's outputs (the full map's, then the first glance's).
fn output_urls(urls: &Value) -> Vec<&str> {
    ["map", "overlay", "fog"]
        .iter()
        .map(|key| urls[key].as_str().unwrap())
        .chain(
            ["map", "overlay", "fog"]
                .iter()
                .map(|key| urls["glance"][key].as_str().unwrap()),
        )
        .collect()
}

/// The signed output URLs of a heatmap's first item, and the media ids of its outputs.
fn outputs_of(heatmap: &Value) -> (Value, Vec<String>) {
    let urls = heatmap["items"][0]["result"]["urls"].clone();
    let ids = output_urls(&urls).into_iter().map(media_id_of).collect();
    (urls, ids)
}

/// Two heatmaps of one image: the outputs are computed twice (identical content shares its
/// objects). Deleting one removes its output rows and leaves the other's outputs served;
/// deleting the other removes every output object.
#[tokio::test]
async fn deleting_a_done_heatmap_removes_its_outputs() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let source = app.upload_ok(&user, "a.png", png(320, 240)).await;
    // A creative keeps the source alive.
    app.creative_of(&user, &source, json!({})).await;
    let before = app.objects().await;
    assert_eq!(app.media_rows().await, 1);

    let mut events = app.events(&user).await;
    let first = create_ok(&app, &user, "First", &[&source]).await;
    let second = create_ok(&app, &user, "Second", &[&source]).await;
    let items = [item_ids(&first)[0].clone(), item_ids(&second)[0].clone()];
    let seen = app
        .until_finished(&mut events, &[&items[0], &items[1]])
        .await;
    let last = last_by_item(&seen);
    assert_eq!(last[&items[0]]["status"], "done");
    assert_eq!(last[&items[1]]["status"], "done");
    let (first_urls, first_outputs) = outputs_of(&get_heatmap(&app, &user, id(&first)).await);
    let (second_urls, second_outputs) = outputs_of(&get_heatmap(&app, &user, id(&second)).await);
    for output in first_outputs.iter().chain(&second_outputs) {
        assert!(media_row(&app, output).await.is_some());
    }
    assert_eq!(app.media_rows().await, 1 + 2 * OUTPUTS);
    assert!(app.objects().await.len() > before.len());
    // An output is in use while its heatmap exists.
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/media/{}", first_outputs[0]),
            &user,
        )
        .await;
    assert_api_error(response, 409, "media_in_use").await;

    let path = format!("/heatmaps/{}", id(&first));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    for output in &first_outputs {
        assert_eq!(media_row(&app, output).await, None, "output {output}");
    }
    let links = output_urls(&first_urls)
        .into_iter()
        .chain([first_urls["overlay_thumbnail"].as_str().unwrap()]);
    for link in links {
        let response = app.get_url(link).await;
        assert_eq!(response.status(), 404, "{link} after the deletion");
    }
    assert_eq!(app.media_rows().await, 1 + OUTPUTS);
    // The other heatmap's outputs are still served, whatever objects they shared.
    for (key, mime) in [
        ("map", "image/png"),
        ("overlay", "image/jpeg"),
        ("fog", "image/jpeg"),
        ("overlay_thumbnail", "image/jpeg"),
    ] {
        fetch(&app, &second_urls[key], mime).await;
    }

    let path = format!("/heatmaps/{}", id(&second));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );
    assert_eq!(app.media_rows().await, 1);
    assert_eq!(
        app.objects().await,
        before,
        "only the source's objects remain"
    );
    for item in &items {
        assert_eq!(jobs_of(&app, item).await, vec![]);
    }
}

#[tokio::test]
async fn an_image_used_by_a_heatmap_cannot_be_deleted() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(120, 90)).await;
    let heatmap = create_ok(&app, &user, "Uses it", &[&media]).await;
    let path = format!("/media/{}", id(&media));
    let response = app.api_send(Method::DELETE, &path, &user).await;
    assert_api_error(response, 409, "media_in_use").await;
    assert_eq!(app.media_rows().await, 1);
    assert_eq!(app.objects().await.len(), 3);
    let got = get_heatmap(&app, &user, id(&heatmap)).await;
    assert_eq!(got["items"][0]["source"]["id"], media["id"]);

    // Deleting the heatmap releases it.
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/heatmaps/{}", id(&heatmap)),
            &user,
        )
        .await;
    assert_eq!(response.status(), 204);
    assert_api_error(
        app.api_send(Method::DELETE, &path, &user).await,
        404,
        "not_found",
    )
    .await;
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty());
}

/// A worker busy with an item when its heatmap is deleted saves nothing and removes what it
/// stored. The fault-injection pause (after the item is marked processing) keeps the job busy
/// while the test deletes; with one worker, the next heatmap's `done` event means the first
/// job is over. Whatever the timing, the end state asserted is the same.
#[tokio::test]
async fn a_heatmap_deleted_while_processing_leaves_no_outputs() {
    let app = spawn_app_with(|config| {
        config.no_worker = false;
        config.workers = Some(1);
        config.fault_hold_job_ms = 1500;
    })
    .await;
    let user = app.new_user().await;
    // Both sources stay: one is a creative's, the other is used by the heatmap that remains.
    let source = app.upload_ok(&user, "a.png", png(320, 240)).await;
    app.creative_of(&user, &source, json!({})).await;
    let other = app.upload_ok(&user, "b.png", png(300, 240)).await;
    let before = app.objects().await;

    let mut events = app.events(&user).await;
    let doomed = create_ok(&app, &user, "Deleted mid-way", &[&source]).await;
    let doomed_item = item_ids(&doomed)[0].clone();
    let deadline = tokio::time::Instant::now() + crate::sse::EVENT_TIMEOUT;
    let started = events.next_before(deadline).await.json();
    assert_eq!(started["item_id"], doomed_item.as_str());
    assert_eq!(started["status"], "processing");
    let path = format!("/heatmaps/{}", id(&doomed));
    assert_eq!(
        app.api_send(Method::DELETE, &path, &user).await.status(),
        204
    );

    let kept = create_ok(&app, &user, "Kept", &[&other]).await;
    let kept_item = item_ids(&kept)[0].clone();
    let seen = app.until_finished(&mut events, &[&kept_item]).await;
    for event in &seen {
        assert_eq!(event["item_id"], kept_item.as_str(), "{event}");
    }
    assert_eq!(last_by_item(&seen)[&kept_item]["status"], "done");

    // Only the remaining heatmap's outputs were added.
    let got = get_heatmap(&app, &user, id(&kept)).await;
    let mut expected = before;
    for link in output_urls(&got["items"][0]["result"]["urls"]) {
        let output = media_id_of(link);
        let row = media_row(&app, &output).await.unwrap();
        expected.push(row.original_key);
        expected.push(row.thumbnail_key);
    }
    expected.sort();
    expected.dedup();
    assert_eq!(app.objects().await, expected);
    assert_eq!(app.media_rows().await, 2 + OUTPUTS);
    assert_eq!(jobs_of(&app, &doomed_item).await, vec![]);
}
