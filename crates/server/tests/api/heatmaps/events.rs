//! The live event stream: only the user's events, and its end with the token or session.

use super::*;

/// Streams carry their own user's events only. The bus is one ordered channel, so an event of
/// the other user published before an event of ours would reach our stream first if it
/// leaked: each user's heatmap runs after the other's finished, and each stream must see
/// nothing but its own heatmap's items.
#[tokio::test]
async fn event_streams_carry_only_their_users_events() {
    // Workers, not a drain: the events are those a worker publishes on its own.
    let app = spawn_app_with_workers().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let alice_media = app.upload_ok(&alice, "a.png", png(200, 150)).await;
    let bob_media = app.upload_ok(&bob, "b.png", png(150, 200)).await;
    let mut alice_events = app.events(&alice).await;
    let mut bob_events = app.events(&bob).await;

    let check = |events: &[Value], heatmap: &Value| {
        let items = item_ids(heatmap);
        for event in events {
            assert_eq!(event["heatmap_id"], heatmap["id"], "foreign event {event}");
            assert!(
                items.iter().any(|i| event["item_id"] == i.as_str()),
                "{event}"
            );
        }
        let last = last_by_item(events);
        assert_eq!(last[&items[0]]["status"], "done");
    };

    let first = create_ok(&app, &bob, "Bob 1", &[&bob_media]).await;
    let seen = app
        .until_finished(&mut bob_events, &[&item_ids(&first)[0]])
        .await;
    check(&seen, &first);
    let second = create_ok(&app, &alice, "Alice", &[&alice_media]).await;
    let seen = app
        .until_finished(&mut alice_events, &[&item_ids(&second)[0]])
        .await;
    check(&seen, &second);
    let third = create_ok(&app, &bob, "Bob 2", &[&bob_media]).await;
    let seen = app
        .until_finished(&mut bob_events, &[&item_ids(&third)[0]])
        .await;
    check(&seen, &third);
}

/// The stream ends when the access token expires (the client reconnects with a fresh one).
#[tokio::test]
async fn an_event_stream_ends_with_its_token() {
    let app = spawn_app_with(|config| config.jwt_exp = 4).await;
    let user = app.new_user().await;
    let mut events = app.events(&user).await;
    events
        .end_before(tokio::time::Instant::now() + crate::sse::EVENT_TIMEOUT)
        .await;
}

/// The stream ends when its session ends: signed out elsewhere, or by a password change that
/// signs out the other devices (checked every REGARD_EVENTS_SESSION_CHECK seconds, 1 here).
#[tokio::test]
async fn an_event_stream_ends_with_its_session() {
    let app = spawn_app_with(|config| config.events_session_check = 1).await;
    let email = crate::helpers::unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let user = crate::helpers::User {
        token: session["access_token"].as_str().unwrap().to_owned(),
    };
    let mut events = app.events(&user).await;
    let response = app
        .with_token(
            reqwest::Method::POST,
            "/auth/v1/logout?scope=local",
            &user.token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    events
        .end_before(tokio::time::Instant::now() + std::time::Duration::from_secs(10))
        .await;

    // A password changed on another device ends this device's stream too.
    let here = app.sign_in(&email, "secret1").await;
    let here: serde_json::Value = here.json().await.unwrap();
    let there = app.sign_in(&email, "secret1").await;
    let there: serde_json::Value = there.json().await.unwrap();
    let mut events = app
        .events(&crate::helpers::User {
            token: here["access_token"].as_str().unwrap().to_owned(),
        })
        .await;
    let response = app
        .with_token(
            reqwest::Method::PUT,
            "/auth/v1/user",
            there["access_token"].as_str().unwrap(),
        )
        .body(serde_json::json!({"password": "secret2", "current_password": "secret1"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    events
        .end_before(tokio::time::Instant::now() + std::time::Duration::from_secs(10))
        .await;
}

/// A user holds at most REGARD_EVENT_STREAMS_PER_USER streams: of a burst, the ones past the
/// cap are refused with 429 `rate_limited` and `Retry-After`; other users are not affected.
#[tokio::test]
async fn event_streams_past_the_per_user_cap_are_refused() {
    let app = spawn_app_with(|config| config.event_streams_per_user = 3).await;
    let user = app.new_user().await;
    let answers = futures::future::join_all(
        (0..8).map(|_| app.api(reqwest::Method::GET, "/events", &user).send()),
    )
    .await;
    let mut open = Vec::new();
    let mut refused = 0;
    for response in answers {
        let response = response.unwrap();
        match response.status().as_u16() {
            200 => open.push(response),
            429 => {
                assert!(crate::helpers::retry_after(&response) >= 1);
                crate::helpers::assert_api_error(response, 429, "rate_limited").await;
                refused += 1;
            }
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!((open.len(), refused), (3, 5));
    let other = app.new_user().await;
    let _theirs = app.events(&other).await;
}
