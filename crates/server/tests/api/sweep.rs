//! The orphan sweep (`media::sweep_orphans`): uploads nothing used for a day, and objects no
//! media row has, are removed; everything in use, young or not ours stays.

use bytes::Bytes;
use regard::media::{ORPHAN_GRACE_MS, REUSE_WINDOW_MS, Swept, reusable, sweep_orphans};
use regard::storage::StorageKey;
use serde_json::json;

use crate::fixtures::png;
use crate::helpers::spawn_app;

#[tokio::test]
async fn orphans_go_after_the_grace_and_nothing_in_use_does() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (db, storage) = (&app.state.db, app.state.storage.as_ref());
    let used = app.upload_ok(&user, "used.png", png(64, 48)).await;
    app.creative_of(&user, &used, json!({})).await;
    // Added on the heatmap page and left there.
    let abandoned = app.upload_ok(&user, "left.png", png(48, 64)).await;
    // Objects of a process killed before its row was inserted, and a file that is not ours.
    let hash = format!("3f{}", "0".repeat(62));
    let orphan = StorageKey::new(format!("3f/{hash}/original.png")).unwrap();
    storage
        .put_bytes(&orphan, Bytes::from_static(b"x"))
        .await
        .unwrap();
    let foreign = StorageKey::new("notes/readme.txt").unwrap();
    storage
        .put_bytes(&foreign, Bytes::from_static(b"y"))
        .await
        .unwrap();
    let objects_before = app.objects().await;
    let rows_before = app.media_rows().await;

    // Young: nothing goes.
    let now = regard::db::now_ms();
    assert_eq!(
        sweep_orphans(db, storage, now).await.unwrap(),
        Swept::default()
    );
    assert_eq!(app.objects().await, objects_before);
    assert_eq!(app.media_rows().await, rows_before);

    // A day later: the abandoned upload (row and objects) and the orphan object go.
    let later = now + ORPHAN_GRACE_MS + 60_000;
    let swept = sweep_orphans(db, storage, later).await.unwrap();
    assert_eq!(
        swept,
        Swept {
            media: 1,
            objects: 1
        }
    );
    assert_eq!(app.media_rows().await, rows_before - 1);
    let response = app
        .api_send(
            reqwest::Method::GET,
            &format!("/media/{}", abandoned["id"].as_str().unwrap()),
            &user,
        )
        .await;
    assert_eq!(response.status(), 404);
    let objects = app.objects().await;
    let used_hash = used["sha256"].as_str().unwrap();
    let abandoned_hash = abandoned["sha256"].as_str().unwrap();
    assert_eq!(objects.iter().filter(|k| k.contains(used_hash)).count(), 3);
    assert!(
        !objects.iter().any(|k| k.contains(abandoned_hash)),
        "{objects:?}"
    );
    assert!(!objects.iter().any(|k| k.contains(&hash)));
    assert!(objects.contains(&"notes/readme.txt".to_owned()));
    // The creative's image is still served.
    let url = used["urls"]["preview"].as_str().unwrap();
    assert_eq!(app.get_url(url).await.status(), 200);

    // Idempotent: a second sweep (another node) finds nothing.
    assert_eq!(
        sweep_orphans(db, storage, later).await.unwrap(),
        Swept::default()
    );
}

#[tokio::test]
async fn writers_do_not_lean_on_objects_the_sweep_could_take() {
    let app = spawn_app().await;
    let storage = app.state.storage.as_ref();
    let key = StorageKey::new(format!("ab/ab{}/original.png", "1".repeat(62))).unwrap();
    let now = regard::db::now_ms();
    assert!(!reusable(storage, &key, now).await.unwrap());
    storage
        .put_bytes(&key, Bytes::from_static(b"z"))
        .await
        .unwrap();
    assert!(reusable(storage, &key, now).await.unwrap());
    // Once older than the reuse window, content is written again rather than reused.
    assert!(
        !reusable(storage, &key, now + REUSE_WINDOW_MS + 60_000)
            .await
            .unwrap()
    );
}
