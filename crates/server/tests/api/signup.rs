//! `POST /auth/v1/signup`, `GET /auth/v1/settings`, error formats and the JWT's claims.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{assert_error, spawn_app, spawn_app_with, unique_email};

#[tokio::test]
async fn signup_returns_a_session_and_a_confirmed_user() {
    let app = spawn_app().await;
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": "  Ada@Example.COM ", "password": "secret1", "data": {"lang": "fr"}}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-supabase-api-version"], "2024-01-01");
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["token_type"], "bearer");
    assert_eq!(session["expires_in"], 3600);
    assert!(session["expires_at"].as_i64().unwrap() > chrono::Utc::now().timestamp());
    assert!(session["access_token"].as_str().unwrap().split('.').count() == 3);
    assert!(session["refresh_token"].as_str().unwrap().len() >= 12);
    let user = &session["user"];
    assert_eq!(user["email"], "ada@example.com");
    assert_eq!(user["aud"], "authenticated");
    assert_eq!(user["role"], "authenticated");
    assert_eq!(user["phone"], "");
    assert_eq!(user["is_anonymous"], false);
    assert_eq!(user["user_metadata"], json!({"lang": "fr"}));
    assert_eq!(
        user["app_metadata"],
        json!({"provider": "email", "providers": ["email"]})
    );
    assert!(user["email_confirmed_at"].is_string());
    assert!(user["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(user["identities"][0]["provider"], "email");
    assert!(uuid::Uuid::parse_str(user["id"].as_str().unwrap()).is_ok());
}

#[tokio::test]
async fn the_access_token_carries_gotrue_claims() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap();
    let claims = decode_payload(token);
    assert_eq!(claims["sub"], session["user"]["id"]);
    assert_eq!(claims["aud"], "authenticated");
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["email"], email.as_str());
    assert_eq!(claims["phone"], "");
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(claims["is_anonymous"], false);
    assert_eq!(claims["iss"], "http://localhost:8080/auth/v1");
    assert_eq!(claims["amr"][0]["method"], "password");
    assert!(claims["amr"][0]["timestamp"].is_i64());
    assert!(uuid::Uuid::parse_str(claims["session_id"].as_str().unwrap()).is_ok());
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );
    assert_eq!(claims["exp"], session["expires_at"]);
    assert!(claims["app_metadata"].is_object());
    assert!(claims["user_metadata"].is_object());
    let header = decode_part(token, 0);
    assert_eq!(header["alg"], "HS256");
}

/// The JSON of a JWT part (no signature check: the server's verification is tested elsewhere).
fn decode_part(token: &str, index: usize) -> Value {
    let part = token.split('.').nth(index).unwrap();
    let bytes = base64_url_decode(part);
    serde_json::from_slice(&bytes).unwrap()
}

fn decode_payload(token: &str) -> Value {
    decode_part(token, 1)
}

fn base64_url_decode(input: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for byte in input.bytes() {
        let value = ALPHABET.iter().position(|&c| c == byte).unwrap() as u32;
        bits = (bits << 6) | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    out
}

#[tokio::test]
async fn a_second_signup_with_the_same_email_is_refused() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let again = app
        .post(
            "/auth/v1/signup",
            &json!({"email": email.to_uppercase(), "password": "another1"}),
        )
        .await;
    let body = assert_error(again, 422, "user_already_exists").await;
    assert_eq!(body["message"], "User already registered");
}

#[tokio::test]
async fn a_short_password_is_weak() {
    let app = spawn_app().await;
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": unique_email(), "password": "12345"}),
        )
        .await;
    let body = assert_error(response, 422, "weak_password").await;
    assert_eq!(body["weak_password"]["reasons"], json!(["length"]));
}

#[tokio::test]
async fn invalid_or_missing_emails_and_passwords_fail_validation() {
    let app = spawn_app().await;
    for body in [
        json!({"email": "not-an-email", "password": "secret1"}),
        json!({"email": "a@b", "password": "secret1"}),
        json!({"email": unique_email()}),
        json!({"email": unique_email(), "password": ""}),
        json!({"email": unique_email(), "phone": "+33600000000", "password": "secret1"}),
    ] {
        let response = app.post("/auth/v1/signup", &body).await;
        assert_error(response, 400, "validation_failed").await;
    }
    // Neither email nor phone is an anonymous sign-up, which is off.
    let response = app
        .post("/auth/v1/signup", &json!({"password": "secret1"}))
        .await;
    assert_error(response, 422, "anonymous_provider_disabled").await;
}

#[tokio::test]
async fn malformed_json_is_bad_json_and_unknown_fields_are_ignored() {
    let app = spawn_app().await;
    let response = app
        .auth_request(Method::POST, "/auth/v1/signup")
        .body("{\"email\": ")
        .send()
        .await
        .unwrap();
    assert_error(response, 400, "bad_json").await;

    let response = app
        .post(
            "/auth/v1/signup",
            &json!({
                "email": unique_email(),
                "password": "secret1",
                "gotrue_meta_security": {"captcha_token": null},
                "code_challenge": null,
                "something_new": 1,
            }),
        )
        .await;
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn oversized_bodies_are_413() {
    let app = spawn_app().await;
    let big = "x".repeat(1024 * 1024 + 1);
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": unique_email(), "password": big}),
        )
        .await;
    assert_error(response, 413, "request_entity_too_large").await;
}

#[tokio::test]
async fn errors_use_the_legacy_shape_without_the_version_header() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/auth/v1/token?grant_type=password"))
        .json(&json!({"email": unique_email(), "password": "secret1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert!(!response.headers().contains_key("x-supabase-api-version"));
    assert_eq!(response.headers()["x-sb-error-code"], "invalid_credentials");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
    );
}

#[tokio::test]
async fn signups_are_rate_limited_per_ip() {
    let app = spawn_app_with(|config| config.rate_limit_sign_up = 2).await;
    for _ in 0..2 {
        app.sign_up(&unique_email(), "secret1").await;
    }
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": unique_email(), "password": "secret1"}),
        )
        .await;
    assert_error(response, 429, "over_request_rate_limit").await;
}

#[tokio::test]
async fn disabled_signups_are_refused() {
    let app = spawn_app_with(|config| config.disable_signup = true).await;
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": unique_email(), "password": "secret1"}),
        )
        .await;
    assert_error(response, 422, "signup_disabled").await;
}

#[tokio::test]
async fn settings_describe_the_email_provider() {
    let app = spawn_app().await;
    let response = app
        .auth_request(Method::GET, "/auth/v1/settings")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let settings: Value = response.json().await.unwrap();
    assert_eq!(settings["external"]["email"], true);
    assert_eq!(settings["external"]["phone"], false);
    assert_eq!(settings["external"]["google"], false);
    assert_eq!(settings["disable_signup"], false);
    assert_eq!(settings["mailer_autoconfirm"], true);
}

#[tokio::test]
async fn one_address_in_two_unicode_spellings_is_one_account() {
    let app = spawn_app().await;
    let id = uuid::Uuid::new_v4().simple().to_string();
    // "josé" composed (U+00E9) and decomposed (e + U+0301).
    let composed = format!("jos\u{00E9}-{id}@example.com");
    let decomposed = format!("Jose\u{0301}-{id}@Example.com");
    let session = app.sign_up(&composed, "secret1").await;
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": decomposed, "password": "secret1"}),
        )
        .await;
    assert_error(response, 422, "user_already_exists").await;
    let signed_in = app.sign_in(&decomposed, "secret1").await;
    assert_eq!(signed_in.status(), 200);
    let signed_in: Value = signed_in.json().await.unwrap();
    assert_eq!(signed_in["user"]["id"], session["user"]["id"]);

    // An address that would display as another is refused.
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": format!("ada\u{202E}moc.elpmaxe-{id}@example.com"), "password": "secret1"}),
        )
        .await;
    let body = assert_error(response, 400, "validation_failed").await;
    assert_eq!(
        body["message"],
        "Unable to validate email address: invalid format"
    );
}
