//! `GET /api/v1/openapi.json`: served without an account, the document the web app's types
//! are generated from; and the answers it describes keep to it.

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::fixtures::png;
use crate::helpers::spawn_app;

async fn json_of(response: Response, status: u16) -> Value {
    assert_eq!(response.status(), status);
    response.json().await.unwrap()
}

#[tokio::test]
async fn the_document_is_served_without_an_account() {
    let app = spawn_app().await;
    let response = app
        .client
        .get(app.url("/api/v1/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let served: Value = response.json().await.unwrap();
    assert_eq!(served, regard::http::api::openapi());
    assert_eq!(served["info"]["title"], "Regard API");
}

/// Every property the document requires of an answer is in the answer, and nothing else is.
fn assert_keys(doc: &Value, schema: &str, body: &Value) {
    let properties = doc["components"]["schemas"][schema]["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{schema} has properties"));
    let mut expected: Vec<&String> = properties.keys().collect();
    let mut got: Vec<&String> = body.as_object().expect("an object").keys().collect();
    expected.sort();
    got.sort();
    assert_eq!(got, expected, "{schema}");
}

#[tokio::test]
async fn answers_have_exactly_the_documented_fields() {
    let app = spawn_app().await;
    let doc = regard::http::api::openapi();
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(40, 30)).await;
    assert_keys(&doc, "Media", &media);
    assert_keys(&doc, "MediaUrls", &media["urls"]);

    let creative = json_of(
        app.api_json(
            Method::POST,
            "/creatives",
            &user,
            &json!({"media_id": media["id"]}),
        )
        .await,
        201,
    )
    .await;
    assert_keys(&doc, "Creative", &creative);
    let page = json_of(app.api_send(Method::GET, "/creatives", &user).await, 200).await;
    assert_keys(&doc, "Paged_Creative", &page);
    assert_keys(&doc, "Creative", &page["items"][0]);

    let location = json_of(
        app.api_json(
            Method::POST,
            "/locations",
            &user,
            &json!({
                "name": "Gare",
                "photo_media_id": media["id"],
                "panel_quad": [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]],
            }),
        )
        .await,
        201,
    )
    .await;
    assert_keys(&doc, "Location", &location);
    assert_keys(&doc, "QuadPoint", &location["panel_quad"][0]);

    let missing = app
        .api_send(
            Method::GET,
            &format!("/creatives/{}", uuid::Uuid::new_v4()),
            &user,
        )
        .await;
    assert_eq!(missing.status(), 404);
    let error = json_of(missing, 404).await;
    assert_keys(&doc, "ErrorBody", &error);
}
