//! The HTTP calls every suite that talks to a running server makes (the API suite's in-process
//! server, the process suite's `regard serve` children): sign-up as supabase-js sends it, and
//! an upload as the web app sends it.

// Each suite uses part of this module.
#![allow(dead_code)]

use reqwest::{Client, Response};
use serde_json::{Value, json};

/// `POST {base}/auth/v1/signup` with the headers supabase-js sends; the session JSON (panics
/// unless 200).
pub async fn sign_up(client: &Client, base: &str, email: &str, password: &str) -> Value {
    let response = client
        .post(format!("{base}/auth/v1/signup"))
        .header("apikey", "anon-key")
        .header("X-Supabase-Api-Version", "2024-01-01")
        .bearer_auth("anon-key")
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .expect("sign-up sent");
    assert_eq!(response.status(), 200, "sign-up of {email} failed");
    response.json().await.unwrap()
}

/// `POST {base}/api/v1/media` with `data` as the multipart field `file`; the raw answer.
pub async fn upload(
    client: &Client,
    base: &str,
    token: &str,
    file_name: &str,
    data: Vec<u8>,
) -> Response {
    let part = reqwest::multipart::Part::bytes(data)
        .file_name(file_name.to_owned())
        .mime_str("application/octet-stream")
        .unwrap();
    client
        .post(format!("{base}/api/v1/media"))
        .bearer_auth(token)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .expect("upload sent")
}
