//! Mailed links and codes: password recovery (`/recover`, `/verify` GET and POST), sign-up
//! confirmation (`REGARD_MAILER_AUTOCONFIRM=false`) and email change (`PUT /user`), through the
//! development mailer's outbox.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app, spawn_app_with, unique_email};

/// The mails in the outbox, oldest first, as their raw text.
pub(crate) fn outbox_mails(app: &TestApp) -> Vec<String> {
    let dir: PathBuf = app.state.config.data_dir.join("outbox");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    names.retain(|name| name.starts_with("mail-") && name.ends_with(".eml"));
    names.sort();
    names
        .iter()
        .map(|name| decode_quoted_printable(&std::fs::read_to_string(dir.join(name)).unwrap()))
        .collect()
}

/// Undoes quoted-printable (the encoding lettre picks for long lines): soft line breaks and
/// `=XX` escapes. Applied to the whole message, which is enough to read links and codes.
fn decode_quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(byte) = hex.and_then(|hex| u8::from_str_radix(hex, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Waits (polling, 10 s at most) until the outbox holds `count` mails: `/recover` and sign-up
/// send after answering.
pub(crate) async fn wait_for_mails(app: &TestApp, count: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mails = outbox_mails(app);
        if mails.len() >= count {
            return mails;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{count} mails expected, {} came",
            mails.len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `/auth/v1/verify?...` link and the 6-digit code of a mail.
pub(crate) fn link_and_code(mail: &str) -> (String, String) {
    let start = mail.find("http").expect("a link");
    let link: String = mail[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '<')
        .collect();
    assert!(link.contains("/auth/v1/verify?"), "{link}");
    let marker = mail.find("code").expect("a code");
    (link, crate::helpers::six_digits(&mail[marker..]))
}

/// The path and query of an absolute link (the test server's address replaces the site's).
pub(crate) fn path_of(link: &str) -> String {
    let url = url::Url::parse(link).unwrap();
    format!("{}?{}", url.path(), url.query().unwrap_or(""))
}

pub(crate) fn fragment_params(location: &str) -> Value {
    let url = url::Url::parse(location).unwrap();
    let pairs: serde_json::Map<String, Value> =
        url::form_urlencoded::parse(url.fragment().unwrap_or("").as_bytes())
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect();
    Value::Object(pairs)
}

async fn recover(app: &TestApp, email: &str, redirect_to: &str) -> reqwest::Response {
    app.auth_request(
        Method::POST,
        &format!("/auth/v1/recover?redirect_to={}", urlencode(redirect_to)),
    )
    .header("Accept-Language", "en")
    .body(json!({"email": email}).to_string())
    .send()
    .await
    .unwrap()
}

pub(crate) fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

pub(crate) fn site(app: &TestApp) -> String {
    app.state.config.site_url.trim_end_matches('/').to_owned()
}

#[tokio::test]
async fn recovery_answers_alike_for_unknown_addresses_and_mails_a_working_link() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let redirect_to = format!("{}/reset-password", site(&app));

    let unknown = recover(&app, &unique_email(), &redirect_to).await;
    assert_eq!(unknown.status(), 200);
    assert_eq!(unknown.json::<Value>().await.unwrap(), json!({}));
    let known = recover(&app, &email, &redirect_to).await;
    assert_eq!(known.status(), 200);
    assert_eq!(known.json::<Value>().await.unwrap(), json!({}));

    let mails = wait_for_mails(&app, 1).await;
    assert_eq!(mails.len(), 1, "only the known address gets mail");
    let mail = &mails[0];
    assert!(mail.contains(&format!("To: {email}")), "{mail}");
    assert!(
        mail.contains("Subject: Reset your Regard password"),
        "{mail}"
    );
    assert!(mail.contains("multipart/alternative"));
    let (link, _) = link_and_code(mail);
    assert!(link.starts_with(&site(&app)));

    // The link signs the user in (recovery) and lands on redirect_to with the tokens.
    let response = app
        .client
        .get(app.url(&path_of(&link)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&redirect_to), "{location}");
    let params = fragment_params(&location);
    assert_eq!(params["type"], "recovery");
    let access_token = params["access_token"].as_str().unwrap();

    // The user chooses a new password with that session.
    let changed = app
        .with_token(Method::PUT, "/auth/v1/user", access_token)
        .body(json!({"password": "brand-new-1"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 200);
    assert_eq!(app.sign_in(&email, "brand-new-1").await.status(), 200);
    assert_error(
        app.sign_in(&email, "secret1").await,
        400,
        "invalid_credentials",
    )
    .await;

    // The link works once.
    let again = app
        .client
        .get(app.url(&path_of(&link)))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 303);
    let location = again.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("error_code=otp_expired"), "{location}");
    assert!(
        location.contains("#error=access_denied"),
        "the error is in the fragment too: {location}"
    );
}

#[tokio::test]
async fn the_code_in_the_mail_works_with_verify_otp_and_dies_after_wrong_attempts() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    recover(&app, &email, "").await;
    let (_, code) = link_and_code(&wait_for_mails(&app, 1).await[0]);
    let session: Value = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "recovery", "email": email, "token": code}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(session["access_token"].is_string(), "{session}");
    assert_eq!(session["user"]["email"], email.as_str());

    // A new mail (after the resend interval, here 0) and five wrong codes: the right one no
    // longer works either.
    let app = spawn_app_with(|config| config.mail_max_frequency = 0).await;
    app.sign_up(&email, "secret1").await;
    recover(&app, &email, "").await;
    let (_, code) = link_and_code(&wait_for_mails(&app, 1).await[0]);
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        let response = app
            .post(
                "/auth/v1/verify",
                &json!({"type": "recovery", "email": email, "token": wrong}),
            )
            .await;
        assert_error(response, 403, "otp_expired").await;
    }
    let response = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "recovery", "email": email, "token": code}),
        )
        .await;
    assert_error(response, 403, "otp_expired").await;
    let response = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "magiclink", "token_hash": "x"}),
        )
        .await;
    assert_error(response, 403, "otp_expired").await;
    let response = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "bogus", "token_hash": "x"}),
        )
        .await;
    assert_error(response, 400, "validation_failed").await;
}

#[tokio::test]
async fn recovery_with_pkce_redirects_with_a_code_for_the_requesting_client() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let verifier = "v".repeat(50);
    let challenge = regard::auth::flow::s256(&verifier);
    let redirect_to = format!("{}/reset-password?sb_flow_id=abc", site(&app));
    let response = app
        .auth_request(
            Method::POST,
            &format!("/auth/v1/recover?redirect_to={}", urlencode(&redirect_to)),
        )
        .body(
            json!({"email": email, "code_challenge": challenge, "code_challenge_method": "s256"})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (link, _) = link_and_code(&wait_for_mails(&app, 1).await[0]);
    let response = app
        .client
        .get(app.url(&path_of(&link)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let location = url::Url::parse(response.headers()["location"].to_str().unwrap()).unwrap();
    assert_eq!(location.path(), "/reset-password");
    let query: std::collections::HashMap<_, _> = location.query_pairs().into_owned().collect();
    assert_eq!(query["sb_flow_id"], "abc", "the client's flow id is kept");
    let code = &query["code"];
    let wrong = app
        .post(
            "/auth/v1/token?grant_type=pkce",
            &json!({"auth_code": code, "code_verifier": "w".repeat(50)}),
        )
        .await;
    assert_error(wrong, 400, "bad_code_verifier").await;
    let session: Value = app
        .post(
            "/auth/v1/token?grant_type=pkce",
            &json!({"auth_code": code, "code_verifier": verifier}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert!(session["access_token"].is_string(), "{session}");
}

#[tokio::test]
async fn links_expire_and_redirects_stay_on_the_site() {
    let app = spawn_app_with(|config| config.mail_link_ttl = 0).await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    recover(&app, &email, "https://evil.example/steal").await;
    let (link, _) = link_and_code(&wait_for_mails(&app, 1).await[0]);
    assert!(
        !link.contains("evil.example"),
        "redirect_to fell back to the site: {link}"
    );
    let response = app
        .client
        .get(app.url(&path_of(&link)))
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&site(&app)), "{location}");
    assert!(location.contains("error_code=otp_expired"), "{location}");

    // Bad input.
    let response = app.post("/auth/v1/recover", &json!({})).await;
    assert_error(response, 400, "validation_failed").await;
    let response = app
        .post("/auth/v1/recover", &json!({"email": "not an email"}))
        .await;
    assert_error(response, 400, "validation_failed").await;
}

#[tokio::test]
async fn sign_up_with_confirmation_mails_a_link_and_does_not_reveal_accounts() {
    let app = spawn_app_with(|config| config.mailer_autoconfirm = false).await;
    let email = unique_email();
    let response = app
        .post(
            "/auth/v1/signup",
            &json!({"email": email, "password": "secret1"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let user: Value = response.json().await.unwrap();
    assert!(
        user.get("access_token").is_none(),
        "no session before confirmation: {user}"
    );
    assert_eq!(user["email"], email.as_str());
    assert!(user["confirmation_sent_at"].is_string());
    assert!(user.get("email_confirmed_at").is_none());
    assert_error(
        app.sign_in(&email, "secret1").await,
        400,
        "email_not_confirmed",
    )
    .await;

    // The same address again: the same kind of answer, not user_already_exists.
    let again = app
        .post(
            "/auth/v1/signup",
            &json!({"email": email, "password": "other-pass1"}),
        )
        .await;
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&again), keys(&user));

    let mails = wait_for_mails(&app, 1).await;
    assert!(
        mails[0].contains("Subject: Confirmez votre adresse pour Regard"),
        "French by default"
    );
    let (link, _) = link_and_code(&mails[0]);
    assert!(link.contains("type=signup"));
    let response = app
        .client
        .get(app.url(&path_of(&link)))
        .send()
        .await
        .unwrap();
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        fragment_params(&location)["access_token"].is_string(),
        "{location}"
    );
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);
    let settings: Value = app
        .client
        .get(app.url("/auth/v1/settings"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(settings["mailer_autoconfirm"], false);
}

#[tokio::test]
async fn an_email_change_takes_effect_when_the_new_address_confirms() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap();

    let new_email = unique_email();
    let response = app
        .with_token(Method::PUT, "/auth/v1/user", token)
        .body(json!({"email": new_email.to_uppercase()}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let user: Value = response.json().await.unwrap();
    assert_eq!(user["email"], email.as_str(), "unchanged until confirmed");
    assert_eq!(user["new_email"], new_email.as_str());

    // The current address is told (no link), the new one gets the link.
    let mails = wait_for_mails(&app, 2).await;
    let notice = mails
        .iter()
        .find(|m| m.contains(&format!("To: {email}")))
        .expect("a notice to the current address");
    assert!(notice.contains(&new_email), "{notice}");
    assert!(!notice.contains("/auth/v1/verify"));
    let link_mail = mails
        .iter()
        .find(|m| m.contains(&format!("To: {new_email}")))
        .expect("the link to the new address");
    let (_, code) = link_and_code(link_mail);
    let response = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "email_change", "email": new_email, "token": code}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    assert_eq!(session["user"]["email"], new_email.as_str());
    assert_eq!(app.sign_in(&new_email, "secret1").await.status(), 200);
    assert_error(
        app.sign_in(&email, "secret1").await,
        400,
        "invalid_credentials",
    )
    .await;
}

/// The review's bypass, end to end: with the documented `https://*.example.com/**`, crafted
/// `redirect_to` values reach the mail, and the link's redirect, only as the site URL or as a
/// normalised URL on an allowed host, read as a browser reads it.
#[tokio::test]
async fn crafted_redirects_in_mailed_links_never_leave_the_allow_list() {
    let app = spawn_app_with(|config| {
        config.redirect_allow_list = vec!["https://*.example.com/**".to_owned()];
        config.rate_limit_email = 0;
    })
    .await;
    let cases = [
        ("https://evil%2Ecom?.example.com/", None),
        ("https://2130706433?.example.com/", None),
        ("https://app.example.com@evil.com/", None),
        ("https://evil.com\\.example.com/", None),
        ("https://app.example.com./", None),
        (
            "HTTPS://App.Example.com/ok/../done",
            Some("https://app.example.com/done"),
        ),
    ];
    for (number, (crafted, accepted)) in cases.into_iter().enumerate() {
        let email = unique_email();
        app.sign_up(&email, "secret1").await;
        assert_eq!(recover(&app, &email, crafted).await.status(), 200);
        let mails = wait_for_mails(&app, number + 1).await;
        let mail = mails
            .iter()
            .find(|mail| mail.contains(&format!("To: {email}")))
            .expect("the mail to this user");
        let (link, _) = link_and_code(mail);
        let expected = accepted.map_or_else(|| site(&app), str::to_owned);
        let in_link = url::Url::parse(&link)
            .unwrap()
            .query_pairs()
            .find(|(name, _)| name == "redirect_to")
            .map(|(_, value)| value.into_owned());
        assert_eq!(
            in_link.as_deref().map(|r| r.trim_end_matches('/')),
            Some(expected.trim_end_matches('/')),
            "{crafted}: {link}"
        );

        // Following the link, the browser goes where the allow-list says, whatever
        // `redirect_to` the request to `/verify` itself carries.
        let response = app
            .client
            .get(app.url(&path_of(&link)))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 303, "{crafted}");
        let location = response.headers()["location"].to_str().unwrap().to_owned();
        let landed = url::Url::parse(&location).unwrap();
        let host = landed.host_str().unwrap();
        assert!(
            host == "app.example.com" || location.starts_with(&site(&app)),
            "{crafted} → {location}"
        );
        assert!(
            location.starts_with(&format!("{}#", expected)) || location.starts_with(&expected),
            "{crafted} → {location}"
        );
        assert!(fragment_params(&location)["access_token"].is_string());

        let tampered = app
            .client
            .get(app.url(&format!(
                "/auth/v1/verify?token=unknown&type=recovery&redirect_to={}",
                urlencode(crafted)
            )))
            .send()
            .await
            .unwrap();
        let location = tampered.headers()["location"].to_str().unwrap().to_owned();
        let host = url::Url::parse(&location)
            .unwrap()
            .host_str()
            .unwrap()
            .to_owned();
        assert!(
            host == "app.example.com" || location.starts_with(&site(&app)),
            "{crafted} → {location}"
        );
    }
}
