//! Passwordless and verification flows: magic links and codes (`/otp`, `/verify`), `/resend`,
//! `/reauthenticate` with `REGARD_SECURE_PASSWORD_CHANGE`, phone sign-in by SMS code and with
//! a password, anonymous sign-in, asymmetric signing keys and their JWKS, and manual identity
//! linking (refused).

use jsonwebtoken::Algorithm;
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, assert_error, outbox_sms, six_digits, spawn_app, spawn_app_with, unique_email,
    unique_phone,
};
use crate::mail_links::{fragment_params, link_and_code, outbox_mails, path_of, wait_for_mails};

async fn post_en(app: &TestApp, path: &str, body: Value) -> reqwest::Response {
    app.auth_request(Method::POST, path)
        .header("Accept-Language", "en")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_magic_link_creates_the_account_and_signs_in() {
    let app = spawn_app().await;
    let email = unique_email();
    let response = post_en(
        &app,
        "/auth/v1/otp",
        json!({"email": email, "data": {"team": "OOH"}, "create_user": true}),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    let mails = wait_for_mails(&app, 1).await;
    assert!(
        mails[0].contains("Your Regard sign-in link"),
        "{}",
        mails[0]
    );
    let (_link, code) = link_and_code(&mails[0]);

    // The code of the mail, typed in: `verifyOtp({email, token, type: 'email'})`.
    let session = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "email", "email": email, "token": code}),
    )
    .await;
    assert_eq!(session.status(), 200);
    let session: Value = session.json().await.unwrap();
    assert_eq!(session["user"]["email"], email);
    assert_eq!(session["user"]["user_metadata"], json!({"team": "OOH"}));
    assert!(session["user"]["email_confirmed_at"].is_string());
    // A code works once.
    let again = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "email", "email": email, "token": code}),
    )
    .await;
    assert_error(again, 403, "otp_expired").await;

    // The link of a second mail, followed: the session arrives in the fragment.
    let response = post_en(&app, "/auth/v1/otp", json!({"email": email})).await;
    assert_eq!(response.status(), 200);
    let mails = wait_for_mails(&app, 2).await;
    let (link, _) = link_and_code(&mails[1]);
    assert!(link.contains("type=magiclink"), "{link}");
    let response = app.get_url(&path_of(&link)).await;
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let params = fragment_params(&location);
    assert_eq!(params["type"], "magiclink");
    assert!(params["access_token"].is_string());
}

#[tokio::test]
async fn otp_refuses_unknown_addresses_when_asked_not_to_create_users() {
    let app = spawn_app().await;
    let response = post_en(
        &app,
        "/auth/v1/otp",
        json!({"email": unique_email(), "create_user": false}),
    )
    .await;
    assert_error(response, 422, "otp_disabled").await;
    let response = post_en(&app, "/auth/v1/otp", json!({"email": "not-an-address"})).await;
    assert_error(response, 400, "validation_failed").await;
    let response = post_en(&app, "/auth/v1/otp", json!({})).await;
    assert_error(response, 400, "validation_failed").await;
    // Phone sign-in is off by default.
    let response = post_en(&app, "/auth/v1/otp", json!({"phone": "+33612345678"})).await;
    assert_error(response, 422, "phone_provider_disabled").await;
    assert!(outbox_mails(&app).is_empty());
}

#[tokio::test]
async fn resend_mails_the_confirmation_again_and_tells_nothing_about_others() {
    // Asked again within REGARD_MAIL_MAX_FREQUENCY (60 s by default): no second mail, and the
    // 200 an unknown address gets (GoTrue's 429 would tell that the account exists).
    let strict = spawn_app_with(|config| config.mailer_autoconfirm = false).await;
    let email = unique_email();
    let signup = json!({"email": email, "password": "secret1"});
    assert_eq!(
        post_en(&strict, "/auth/v1/signup", signup).await.status(),
        200
    );
    wait_for_mails(&strict, 1).await;
    let response = post_en(
        &strict,
        "/auth/v1/resend",
        json!({"type": "signup", "email": email}),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    assert_eq!(outbox_mails(&strict).len(), 1);

    let app = spawn_app_with(|config| {
        config.mailer_autoconfirm = false;
        config.mail_max_frequency = 0;
    })
    .await;
    let email = unique_email();
    let response = post_en(
        &app,
        "/auth/v1/signup",
        json!({"email": email, "password": "secret1"}),
    )
    .await;
    assert_eq!(response.status(), 200);
    wait_for_mails(&app, 1).await;

    let response = post_en(
        &app,
        "/auth/v1/resend",
        json!({"type": "signup", "email": email}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let mails = wait_for_mails(&app, 2).await;
    let (_, code) = link_and_code(&mails[1]);
    // Only the newest code works.
    let (_, first_code) = link_and_code(&mails[0]);
    if first_code != code {
        let stale = post_en(
            &app,
            "/auth/v1/verify",
            json!({"type": "signup", "email": email, "token": first_code}),
        )
        .await;
        assert_error(stale, 403, "otp_expired").await;
    }
    let confirmed = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "signup", "email": email, "token": code}),
    )
    .await;
    assert_eq!(confirmed.status(), 200);

    // Confirmed now, or unknown: 200 and no mail.
    for address in [email.clone(), unique_email()] {
        let response = post_en(
            &app,
            "/auth/v1/resend",
            json!({"type": "signup", "email": address}),
        )
        .await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    }
    assert_eq!(outbox_mails(&app).len(), 2);

    let response = post_en(
        &app,
        "/auth/v1/resend",
        json!({"type": "bogus", "email": email}),
    )
    .await;
    assert_error(response, 400, "validation_failed").await;
}

/// The code of the newest mail (reauthentication mails carry no link).
fn code_of(mail: &str) -> String {
    let marker = mail.find("code").expect("a code");
    six_digits(&mail[marker..])
}

#[tokio::test]
async fn a_password_change_on_an_old_session_needs_the_reauthentication_code() {
    // Within the window (24 hours by default) a session changes its password without a code.
    let fresh = spawn_app_with(|config| {
        config.secure_password_change = true;
        // These tests are about the nonce alone.
        config.password_change_needs_current = false;
    })
    .await;
    let session = fresh.sign_up(&unique_email(), "secret1").await;
    let response = fresh
        .with_token(
            Method::PUT,
            "/auth/v1/user",
            session["access_token"].as_str().unwrap(),
        )
        .body(json!({"password": "secret2"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    // A window of 0 s: every session is past it.
    let app = spawn_app_with(|config| {
        config.secure_password_change = true;
        config.reauthentication_window = 0;
        // These tests are about the nonce alone.
        config.password_change_needs_current = false;
    })
    .await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap().to_owned();
    let update = |password: &str, nonce: Option<&str>| {
        let mut body = json!({"password": password});
        if let Some(nonce) = nonce {
            body["nonce"] = json!(nonce);
        }
        app.with_token(Method::PUT, "/auth/v1/user", &token)
            .body(body.to_string())
            .send()
    };
    assert_error(
        update("secret3", None).await.unwrap(),
        400,
        "reauthentication_needed",
    )
    .await;

    let response = app
        .with_token(Method::GET, "/auth/v1/reauthenticate", &token)
        .header("Accept-Language", "en")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mails = wait_for_mails(&app, 1).await;
    assert!(mails[0].contains("Confirm it is you"), "{}", mails[0]);
    let code = code_of(&mails[0]);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    assert_error(
        update("secret3", Some(wrong)).await.unwrap(),
        422,
        "reauthentication_not_valid",
    )
    .await;
    assert_eq!(update("secret3", Some(&code)).await.unwrap().status(), 200);
    assert_eq!(app.sign_in(&email, "secret3").await.status(), 200);
    // The code worked once.
    assert_error(
        update("secret4", Some(&code)).await.unwrap(),
        422,
        "reauthentication_not_valid",
    )
    .await;
}

#[tokio::test]
async fn phone_users_sign_up_confirm_by_sms_and_sign_in_with_a_password() {
    let app = spawn_app_with(|config| config.phone_sign_in = true).await;
    let phone = unique_phone();
    let digits = phone.trim_start_matches('+').to_owned();
    let response = post_en(
        &app,
        "/auth/v1/signup",
        json!({"phone": phone, "password": "secret1"}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let user: Value = response.json().await.unwrap();
    assert_eq!(user["phone"], digits);
    assert!(
        user.get("access_token").is_none(),
        "no session before the code"
    );
    assert_error(
        app.post(
            "/auth/v1/token?grant_type=password",
            &json!({"phone": phone, "password": "secret1"}),
        )
        .await,
        400,
        "phone_not_confirmed",
    )
    .await;

    let messages = outbox_sms(&app);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].0, phone);
    let code = six_digits(&messages[0].1);
    // Malformed and unknown numbers.
    let response = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "sms", "phone": format!("{phone}-invalid"), "token": code}),
    )
    .await;
    let body = assert_error(response, 400, "validation_failed").await;
    assert_eq!(
        body["message"],
        "Invalid phone number format (E.164 required)"
    );
    let response = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "sms", "phone": unique_phone(), "token": code}),
    )
    .await;
    assert_error(response, 403, "otp_expired").await;

    let response = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "sms", "phone": phone, "token": code}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert!(session["user"]["phone_confirmed_at"].is_string());
    assert_eq!(session["user"]["email"], "");

    let response = app
        .post(
            "/auth/v1/token?grant_type=password",
            &json!({"phone": phone, "password": "secret1"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["user"]["app_metadata"]["provider"], "phone");

    // A code by SMS signs in too (`signInWithOtp({phone})`).
    let response = post_en(&app, "/auth/v1/otp", json!({"phone": phone})).await;
    assert_eq!(response.status(), 200);
    assert!(response.json::<Value>().await.unwrap()["message_id"].is_string());
    let messages = outbox_sms(&app);
    let code = six_digits(&messages.last().unwrap().1);
    let response = post_en(
        &app,
        "/auth/v1/verify",
        json!({"type": "sms", "phone": phone, "token": code}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let response = post_en(
        &app,
        "/auth/v1/otp",
        json!({"phone": phone, "channel": "whatsapp"}),
    )
    .await;
    assert_error(response, 400, "validation_failed").await;
}

#[tokio::test]
async fn anonymous_users_become_permanent_with_an_address_and_a_password() {
    let off = spawn_app().await;
    let response = off.post("/auth/v1/signup", &json!({})).await;
    let body = assert_error(response, 422, "anonymous_provider_disabled").await;
    assert_eq!(body["message"], "Anonymous sign-ins are disabled");

    let app = spawn_app_with(|config| config.anonymous_sign_in = true).await;
    let response = app
        .post("/auth/v1/signup", &json!({"data": {"name": "Visitor"}}))
        .await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["user"]["is_anonymous"], true);
    assert_eq!(session["user"]["email"], "");
    assert_eq!(session["user"]["user_metadata"], json!({"name": "Visitor"}));
    let token = session["access_token"].as_str().unwrap();
    let claims: Value = app.state.jwt.verify_any(token).unwrap();
    assert_eq!(claims["is_anonymous"], true);
    assert_eq!(claims["amr"][0]["method"], "anonymous");

    // Reauthentication needs an address or a number.
    let response = app
        .with_token(Method::GET, "/auth/v1/reauthenticate", token)
        .send()
        .await
        .unwrap();
    let body = assert_error(response, 422, "validation_failed").await;
    assert_eq!(
        body["message"],
        "Reauthentication requires the user to have an email or a phone number"
    );

    let email = unique_email();
    let response = app
        .with_token(Method::PUT, "/auth/v1/user", token)
        .body(json!({"email": email, "password": "secret1"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let user: Value = response.json().await.unwrap();
    assert_eq!(user["is_anonymous"], false);
    assert_eq!(user["email"], email);
    let signed_in = app.sign_in(&email, "secret1").await;
    assert_eq!(signed_in.status(), 200);
    let signed_in: Value = signed_in.json().await.unwrap();
    assert_eq!(signed_in["user"]["id"], session["user"]["id"]);
}

/// `token`'s header names `kid` and `algorithm`; it verifies with the published `jwk` alone, as
/// auth-js's `getClaims` does; and the server takes it.
async fn assert_signed_with_published_key(
    app: &TestApp,
    token: &str,
    jwk: &Value,
    kid: &str,
    algorithm: Algorithm,
) {
    let header = jsonwebtoken::decode_header(token).unwrap();
    assert_eq!(header.alg, algorithm);
    assert_eq!(header.kid.as_deref(), Some(kid));
    let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk.clone()).unwrap();
    let mut validation = jsonwebtoken::Validation::new(algorithm);
    validation.validate_aud = false;
    jsonwebtoken::decode::<Value>(
        token,
        &jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap(),
        &validation,
    )
    .unwrap();
    let response = app
        .with_token(Method::GET, "/auth/v1/user", token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn asymmetric_keys_sign_tokens_and_the_jwks_publishes_them() {
    let plain = spawn_app().await;
    let jwks: Value = plain
        .get_url("/auth/v1/.well-known/jwks.json")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(jwks, json!({"keys": []}));

    let key = regard::auth::keys::generate_es256();
    let kid = key["kid"].as_str().unwrap().to_owned();
    let app = spawn_app_with(|config| {
        config.jwt_keys = Some(regard::config::Secret::new(json!([key]).to_string()));
    })
    .await;
    let response = app.get_url("/auth/v1/.well-known/jwks.json").await;
    assert_eq!(response.headers()["cache-control"], "public, max-age=600");
    let jwks: Value = response.json().await.unwrap();
    assert_eq!(jwks["keys"].as_array().unwrap().len(), 1);
    assert_eq!(jwks["keys"][0]["kid"], kid);
    assert_eq!(jwks["keys"][0]["alg"], "ES256");
    assert!(jwks["keys"][0].get("d").is_none(), "never the private half");

    let session = app.sign_up(&unique_email(), "secret1").await;
    let token = session["access_token"].as_str().unwrap();
    assert_signed_with_published_key(&app, token, &jwks["keys"][0], &kid, Algorithm::ES256).await;
    let response = app
        .client
        .get(app.url("/api/v1/creatives"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// A private RS256 JWK (with `kid` and `key_ops`) made from the fake OpenID provider's test key.
fn rs256_jwk(kid: &str) -> Value {
    use base64::Engine;
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};
    let key = rsa::RsaPrivateKey::from_pkcs1_pem(include_str!(
        "oidc_test_keys/TEST-ONLY-rsa-signing-key.pem"
    ))
    .unwrap();
    let b64 =
        |n: &rsa::BigUint| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(n.to_bytes_be());
    json!({
        "kty": "RSA", "alg": "RS256", "kid": kid, "key_ops": ["sign", "verify"],
        "n": b64(key.n()), "e": b64(key.e()), "d": b64(key.d()),
        "p": b64(&key.primes()[0]), "q": b64(&key.primes()[1]),
    })
}

#[tokio::test]
async fn an_rs256_key_set_with_a_verify_only_secret_signs_and_publishes_the_rsa_key_only() {
    // As the suite's asymmetric service: an HS256 `oct` key that only verifies, and an RS256
    // key that signs.
    let oct = json!({
        "kty": "oct", "alg": "HS256", "kid": "old-hs256", "key_ops": ["verify"],
        "k": "c2VjcmV0LW9mLXRoZS1wcmV2aW91cy1rZXk",
    });
    let app = spawn_app_with(|config| {
        config.jwt_keys = Some(regard::config::Secret::new(
            json!([oct, rs256_jwk("rsa-1")]).to_string(),
        ));
    })
    .await;
    let jwks: Value = app
        .get_url("/auth/v1/.well-known/jwks.json")
        .await
        .json()
        .await
        .unwrap();
    let keys = jwks["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1, "secrets are never published: {jwks}");
    assert_eq!(keys[0]["kty"], "RSA");
    assert_eq!(keys[0]["kid"], "rsa-1");
    assert!(keys[0].get("d").is_none() && keys[0].get("p").is_none());

    let session = app.sign_up(&unique_email(), "secret1").await;
    let token = session["access_token"].as_str().unwrap();
    assert_signed_with_published_key(&app, token, &keys[0], "rsa-1", Algorithm::RS256).await;
}

#[tokio::test]
async fn manual_linking_sso_and_wallets_are_refused_as_gotrue_does_when_off() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let token = session["access_token"].as_str().unwrap();
    let identity = session["user"]["identities"][0]["identity_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for (method, path) in [
        (
            Method::GET,
            "/auth/v1/user/identities/authorize?provider=google&skip_http_redirect=true".to_owned(),
        ),
        (
            Method::DELETE,
            format!("/auth/v1/user/identities/{identity}"),
        ),
    ] {
        let response = app.with_token(method, &path, token).send().await.unwrap();
        let body = assert_error(response, 404, "manual_linking_disabled").await;
        assert_eq!(body["message"], "Manual linking is disabled");
    }
    // Signed-out callers are told to sign in first.
    let response = app
        .base_request(Method::GET, "/auth/v1/user/identities/authorize")
        .send()
        .await
        .unwrap();
    assert_error(response, 401, "no_authorization").await;

    // Nor SAML single sign-on, nor wallets: GoTrue's words for features that are off.
    let response = app
        .post(
            "/auth/v1/sso",
            &json!({"provider_id": "x", "redirect_to": "http://x"}),
        )
        .await;
    let body = assert_error(response, 404, "saml_provider_disabled").await;
    assert_eq!(body["message"], "SAML 2.0 is disabled");
    let response = app
        .post(
            "/auth/v1/token?grant_type=web3",
            &json!({"chain": "ethereum", "message": "m", "signature": "0x00"}),
        )
        .await;
    let body = assert_error(response, 400, "web3_provider_disabled").await;
    assert_eq!(body["message"], "Web3 provider is disabled");
}
