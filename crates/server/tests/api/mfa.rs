//! `/auth/v1/factors`: TOTP and phone factors, challenges, verification to aal2, removal, and
//! GoTrue's rules (assurance levels, names, limits), plus ours (one use per code, rate limit,
//! secrets sealed at rest).

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, assert_error, outbox_sms_json, six_digits, spawn_app, spawn_app_with, unique_email,
};

/// A signed-in user's session, as the token endpoint answers it.
struct Session(Value);

impl Session {
    fn token(&self) -> &str {
        self.0["access_token"].as_str().unwrap()
    }
    fn refresh_token(&self) -> &str {
        self.0["refresh_token"].as_str().unwrap()
    }
    fn claims(&self) -> Value {
        claims(self.token())
    }
}

fn claims(jwt: &str) -> Value {
    crate::helpers::jwt_claims(jwt)
}

fn totp_code(secret: &str, step_offset: i64) -> String {
    crate::helpers::totp_code(secret, step_offset)
}

async fn call(
    app: &TestApp,
    session: &Session,
    method: Method,
    path: &str,
    body: Value,
) -> reqwest::Response {
    app.with_token(method, path, session.token())
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

async fn json_ok(response: reqwest::Response) -> Value {
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "unexpected answer {body}");
    body
}

async fn new_session(app: &TestApp) -> (String, Session) {
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    (email, Session(session))
}

async fn sign_in(app: &TestApp, email: &str) -> Session {
    Session(json_ok(app.sign_in(email, "secret1").await).await)
}

/// Enrols a TOTP factor; returns (factor id, secret).
async fn enroll_totp(app: &TestApp, session: &Session, name: &str) -> (String, String) {
    let body = json_ok(
        call(
            app,
            session,
            Method::POST,
            "/auth/v1/factors",
            json!({"factor_type": "totp", "friendly_name": name}),
        )
        .await,
    )
    .await;
    (
        body["id"].as_str().unwrap().to_owned(),
        body["totp"]["secret"].as_str().unwrap().to_owned(),
    )
}

async fn challenge(app: &TestApp, session: &Session, factor_id: &str) -> String {
    let body = json_ok(
        call(
            app,
            session,
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/challenge"),
            json!({"factorId": factor_id}),
        )
        .await,
    )
    .await;
    body["id"].as_str().unwrap().to_owned()
}

async fn verify(
    app: &TestApp,
    session: &Session,
    factor_id: &str,
    challenge_id: &str,
    code: &str,
) -> reqwest::Response {
    call(
        app,
        session,
        Method::POST,
        &format!("/auth/v1/factors/{factor_id}/verify"),
        json!({"challenge_id": challenge_id, "code": code}),
    )
    .await
}

/// A user with a verified TOTP factor: (email, aal2 session, factor id, secret).
async fn user_with_totp(app: &TestApp) -> (String, Session, String, String) {
    let (email, session) = new_session(app).await;
    let (factor_id, secret) = enroll_totp(app, &session, "Phone app").await;
    let challenge_id = challenge(app, &session, &factor_id).await;
    let session = Session(
        json_ok(
            verify(
                app,
                &session,
                &factor_id,
                &challenge_id,
                &totp_code(&secret, 0),
            )
            .await,
        )
        .await,
    );
    (email, session, factor_id, secret)
}

#[tokio::test]
async fn totp_enrolment_challenge_and_verification_raise_the_same_session_to_aal2() {
    let app = spawn_app().await;
    let (_, session) = new_session(&app).await;
    let body = json_ok(
        call(
            &app,
            &session,
            Method::POST,
            "/auth/v1/factors",
            json!({"factor_type": "totp", "friendly_name": "Phone app"}),
        )
        .await,
    )
    .await;
    assert_eq!(body["type"], "totp");
    assert_eq!(body["friendly_name"], "Phone app");
    let qr = body["totp"]["qr_code"].as_str().unwrap();
    assert!(
        qr.contains("<svg") && !qr.contains('#'),
        "raw SVG without '#': {qr:.80}"
    );
    let secret = body["totp"]["secret"].as_str().unwrap().to_owned();
    let uri = body["totp"]["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("otpauth://totp/") && uri.contains(&secret),
        "{uri}"
    );
    let factor_id = body["id"].as_str().unwrap().to_owned();

    // Listed, unverified, and the next level stays aal1 until verified.
    let user = json_ok(call(&app, &session, Method::GET, "/auth/v1/user", json!({})).await).await;
    assert_eq!(user["factors"][0]["id"], factor_id.as_str());
    assert_eq!(user["factors"][0]["status"], "unverified");
    assert_eq!(user["factors"][0]["factor_type"], "totp");

    let challenge_body = json_ok(
        call(
            &app,
            &session,
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/challenge"),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(challenge_body["type"], "totp");
    let expires_at = challenge_body["expires_at"].as_i64().unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(
        (now + 290..=now + 301).contains(&expires_at),
        "{expires_at} vs {now}"
    );
    let challenge_id = challenge_body["id"].as_str().unwrap();

    let upgraded = Session(
        json_ok(
            verify(
                &app,
                &session,
                &factor_id,
                challenge_id,
                &totp_code(&secret, 0),
            )
            .await,
        )
        .await,
    );
    let before = session.claims();
    let after = upgraded.claims();
    assert_eq!(before["aal"], "aal1");
    assert_eq!(after["aal"], "aal2");
    assert_eq!(
        after["session_id"], before["session_id"],
        "the same session"
    );
    assert_eq!(
        after["amr"][0]["method"], "totp",
        "newest claim first: {after}"
    );
    assert_eq!(after["amr"][1]["method"], "password");
    assert_ne!(upgraded.refresh_token(), session.refresh_token());
    assert_eq!(upgraded.0["user"]["factors"][0]["status"], "verified");

    // aal2 survives refresh; the pre-verification (aal1) refresh token mints nothing.
    let refreshed = Session(json_ok(app.refresh(upgraded.refresh_token()).await).await);
    assert_eq!(refreshed.claims()["aal"], "aal2");
    assert_error(
        app.refresh(session.refresh_token()).await,
        400,
        "refresh_token_not_found",
    )
    .await;

    // The secret is sealed at rest.
    let stored =
        regard::db::factors::find(&app.state.db, after["sub"].as_str().unwrap(), &factor_id)
            .await
            .unwrap()
            .unwrap();
    let sealed = stored.secret.unwrap();
    assert!(sealed.starts_with("v1:") && !sealed.contains(&secret));
}

#[tokio::test]
async fn a_code_is_accepted_once_and_neighbouring_steps_are_accepted() {
    let app = spawn_app().await;
    let (_, session, factor_id, secret) = user_with_totp(&app).await;
    // The same code again, on a new challenge: refused.
    let challenge_id = challenge(&app, &session, &factor_id).await;
    let replay = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 0),
    )
    .await;
    // Said to be used, so the user waits for the next code instead of retyping this one.
    assert_error(replay, 422, "mfa_code_already_used").await;
    // The next step's code (clock skew) is accepted.
    let ok = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 1),
    )
    .await;
    assert_eq!(ok.status(), 200);
    // A challenge is used once.
    let again = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 1),
    )
    .await;
    assert_error(again, 422, "mfa_ip_address_mismatch").await;
}

#[tokio::test]
async fn wrong_codes_fail_then_are_rate_limited() {
    let app = spawn_app_with(|config| config.rate_limit_mfa_verify = 3).await;
    let (_, session) = new_session(&app).await;
    let (factor_id, secret) = enroll_totp(&app, &session, "app").await;
    let challenge_id = challenge(&app, &session, &factor_id).await;
    // Bad input (not counted as wrong codes).
    let empty = verify(&app, &session, &factor_id, &challenge_id, " ").await;
    assert_error(empty, 400, "validation_failed").await;
    let bad_id = verify(&app, &session, &factor_id, "not-a-uuid", "123456").await;
    assert_error(bad_id, 400, "bad_json").await;
    let unknown = verify(
        &app,
        &session,
        &factor_id,
        &uuid::Uuid::new_v4().to_string(),
        "123456",
    )
    .await;
    assert_error(unknown, 422, "mfa_factor_not_found").await;

    let wrong = if totp_code(&secret, 0) == "000000" {
        "111111"
    } else {
        "000000"
    };
    for _ in 0..3 {
        let response = verify(&app, &session, &factor_id, &challenge_id, wrong).await;
        let body = assert_error(response, 422, "mfa_verification_failed").await;
        assert_eq!(body["message"], "Invalid TOTP code entered");
    }
    // Even the right code waits for the window to pass.
    let limited = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 0),
    )
    .await;
    assert!(crate::helpers::retry_after(&limited) <= app.state.config.rate_limit_window);
    assert_error(limited, 429, "over_request_rate_limit").await;
}

#[tokio::test]
async fn an_expired_challenge_is_refused_and_removed() {
    let app = spawn_app_with(|config| config.mfa_challenge_expiry = 0).await;
    let (_, session) = new_session(&app).await;
    let (factor_id, secret) = enroll_totp(&app, &session, "app").await;
    let challenge_id = challenge(&app, &session, &factor_id).await;
    let expired = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 0),
    )
    .await;
    assert_error(expired, 422, "mfa_challenge_expired").await;
    let gone = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 0),
    )
    .await;
    assert_error(gone, 422, "mfa_factor_not_found").await;
}

#[tokio::test]
async fn an_aal1_session_of_a_user_with_a_verified_factor_is_held_at_the_door() {
    let app = spawn_app().await;
    let (email, aal2, factor_id, secret) = user_with_totp(&app).await;
    let fresh = sign_in(&app, &email).await;
    assert_eq!(fresh.claims()["aal"], "aal1");
    assert_eq!(
        fresh.0["user"]["factors"][0]["status"], "verified",
        "auth-js reads nextLevel from this"
    );

    // Enrolling another factor or removing the verified one needs aal2.
    let enroll = call(
        &app,
        &fresh,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "totp"}),
    )
    .await;
    assert_error(enroll, 403, "insufficient_aal").await;
    let remove = call(
        &app,
        &fresh,
        Method::DELETE,
        &format!("/auth/v1/factors/{factor_id}"),
        json!({}),
    )
    .await;
    assert_error(remove, 422, "insufficient_aal").await;
    // Nor the product API, nor changing the password.
    let api = app
        .client
        .get(app.url("/api/v1/creatives"))
        .bearer_auth(fresh.token())
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 403);
    let body: Value = api.json().await.unwrap();
    assert_eq!(body["code"], "insufficient_aal");
    let password = call(
        &app,
        &fresh,
        Method::PUT,
        "/auth/v1/user",
        json!({"password": "another1"}),
    )
    .await;
    assert_error(password, 401, "insufficient_aal").await;
    let api = app
        .client
        .get(app.url("/api/v1/creatives"))
        .bearer_auth(aal2.token())
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), 200);

    // The second step on the fresh session: it reaches aal2, and may then remove the factor.
    let challenge_id = challenge(&app, &fresh, &factor_id).await;
    let stepped = Session(
        json_ok(
            verify(
                &app,
                &fresh,
                &factor_id,
                &challenge_id,
                &totp_code(&secret, 1),
            )
            .await,
        )
        .await,
    );
    assert_eq!(stepped.claims()["aal"], "aal2");
    let removed = json_ok(
        call(
            &app,
            &stepped,
            Method::DELETE,
            &format!("/auth/v1/factors/{factor_id}"),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(removed["id"], factor_id.as_str());
    // Sessions raised by that factor fall back to aal1 at their next refresh.
    let refreshed = Session(json_ok(app.refresh(stepped.refresh_token()).await).await);
    assert_eq!(refreshed.claims()["aal"], "aal1");
    assert!(refreshed.0["user"].get("factors").is_none());
}

#[tokio::test]
async fn enrolment_rules_names_limits_and_types() {
    let app = spawn_app_with(|config| config.mfa_max_factors = 2).await;
    let (_, session) = new_session(&app).await;
    enroll_totp(&app, &session, "Work phone").await;
    let duplicate = call(
        &app,
        &session,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "totp", "friendly_name": "Work phone"}),
    )
    .await;
    assert_error(duplicate, 422, "mfa_factor_name_conflict").await;
    enroll_totp(&app, &session, "Tablet").await;
    let third = call(
        &app,
        &session,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "totp", "friendly_name": "Third"}),
    )
    .await;
    assert_error(third, 422, "too_many_enrolled_mfa_factors").await;
    let unknown = call(
        &app,
        &session,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "sms"}),
    )
    .await;
    assert_error(unknown, 400, "validation_failed").await;
    let webauthn = call(
        &app,
        &session,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "webauthn"}),
    )
    .await;
    assert_error(webauthn, 422, "mfa_webauthn_enroll_not_enabled").await;

    // Another user's factor answers as a missing one.
    let (_, other) = new_session(&app).await;
    let (foreign, _) = enroll_totp(&app, &other, "Theirs").await;
    let response = call(
        &app,
        &session,
        Method::POST,
        &format!("/auth/v1/factors/{foreign}/challenge"),
        json!({}),
    )
    .await;
    assert_error(response, 404, "mfa_factor_not_found").await;
    let response = call(
        &app,
        &session,
        Method::DELETE,
        "/auth/v1/factors/not-a-uuid",
        json!({}),
    )
    .await;
    assert_error(response, 404, "validation_failed").await;
    // Without a session: GoTrue's no_authorization.
    let anonymous = app
        .post("/auth/v1/factors", &json!({"factor_type": "totp"}))
        .await;
    assert_eq!(anonymous.status(), 403);
}

#[tokio::test]
async fn phone_factors_send_a_code_by_sms_and_limit_resends() {
    let app = spawn_app().await;
    let (_, session) = new_session(&app).await;
    let bad = call(
        &app,
        &session,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "phone", "phone": "06 12 34 56 78"}),
    )
    .await;
    assert_error(bad, 400, "validation_failed").await;
    let missing = call(
        &app,
        &session,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "phone"}),
    )
    .await;
    assert_error(missing, 400, "validation_failed").await;

    let body = json_ok(
        call(&app, &session, Method::POST, "/auth/v1/factors", json!({"factor_type": "phone", "phone": "+33 6 12 34 56 78", "friendly_name": "Mobile"})).await,
    )
    .await;
    assert_eq!(body["type"], "phone");
    assert_eq!(body["phone"], "+33612345678");
    let factor_id = body["id"].as_str().unwrap().to_owned();

    let response = app
        .with_token(
            Method::POST,
            &format!("/auth/v1/factors/{factor_id}/challenge"),
            session.token(),
        )
        .header("Accept-Language", "en-GB,en;q=0.9")
        .body(json!({"factorId": factor_id, "channel": "sms"}).to_string())
        .send()
        .await
        .unwrap();
    let challenge_body = json_ok(response).await;
    assert_eq!(challenge_body["type"], "phone");
    let challenge_id = challenge_body["id"].as_str().unwrap();
    let messages = outbox_sms_json(&app);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["to"], "+33612345678");
    let text = messages[0]["body"].as_str().unwrap();
    assert!(
        text.starts_with("Regard: your verification code is"),
        "{text}"
    );
    let code = six_digits(text);

    // A resend within the minute is refused and sends nothing.
    let resend = call(
        &app,
        &session,
        Method::POST,
        &format!("/auth/v1/factors/{factor_id}/challenge"),
        json!({"channel": "sms"}),
    )
    .await;
    assert!(crate::helpers::retry_after(&resend) <= app.state.config.mail_max_frequency);
    assert_error(resend, 429, "over_sms_send_rate_limit").await;
    assert_eq!(outbox_sms_json(&app).len(), 1);

    let wrong = if code == "000000" { "111111" } else { "000000" };
    let failed = verify(&app, &session, &factor_id, challenge_id, wrong).await;
    let failed = assert_error(failed, 422, "mfa_verification_failed").await;
    assert_eq!(failed["message"], "Invalid MFA Phone code entered");
    let upgraded =
        Session(json_ok(verify(&app, &session, &factor_id, challenge_id, &code).await).await);
    assert_eq!(upgraded.claims()["aal"], "aal2");
    assert_eq!(upgraded.claims()["amr"][0]["method"], "mfa/phone");
    assert_eq!(upgraded.0["user"]["factors"][0]["phone"], "+33612345678");

    // A second phone factor with the same verified number is refused.
    let same = call(
        &app,
        &upgraded,
        Method::POST,
        "/auth/v1/factors",
        json!({"factor_type": "phone", "phone": "+33612345678"}),
    )
    .await;
    assert_error(same, 422, "mfa_verified_factor_exists").await;
}

#[tokio::test]
async fn verifying_a_factor_ends_the_users_other_aal1_sessions() {
    let app = spawn_app().await;
    let (email, session) = new_session(&app).await;
    let laptop = sign_in(&app, &email).await;
    let (factor_id, secret) = enroll_totp(&app, &session, "app").await;
    let challenge_id = challenge(&app, &session, &factor_id).await;
    json_ok(
        verify(
            &app,
            &session,
            &factor_id,
            &challenge_id,
            &totp_code(&secret, 0),
        )
        .await,
    )
    .await;
    let response = call(&app, &laptop, Method::GET, "/auth/v1/user", json!({})).await;
    assert_error(response, 403, "session_not_found").await;
}

/// `count` wrong codes for `secret` (none of them valid at the steps around now).
fn wrong_totp_codes(secret: &str, count: usize) -> Vec<String> {
    let valid = [
        totp_code(secret, -1),
        totp_code(secret, 0),
        totp_code(secret, 1),
    ];
    (0u32..)
        .map(|i| format!("{:06}", (i * 7919) % 1_000_000))
        .filter(|code| !valid.contains(code))
        .take(count)
        .collect()
}

/// A verify request, ready to be sent in a burst.
fn verify_request(
    app: &TestApp,
    session: &Session,
    factor_id: &str,
    challenge_id: &str,
    code: &str,
) -> reqwest::RequestBuilder {
    app.with_token(
        Method::POST,
        &format!("/auth/v1/factors/{factor_id}/verify"),
        session.token(),
    )
    .body(json!({"challenge_id": challenge_id, "code": code}).to_string())
}

/// The codes of a burst that were compared (422 `mfa_verification_failed`); every other answer
/// must be 429 `over_request_rate_limit` with a `Retry-After`.
fn checked(answers: &[crate::helpers::BurstAnswer]) -> usize {
    for answer in answers {
        let compared = answer.status == 422 && answer.code == "mfa_verification_failed";
        let limited = answer.status == 429
            && answer.code == "over_request_rate_limit"
            && answer.retry_after.is_some_and(|s| s >= 1);
        assert!(compared || limited, "unexpected answer {answer:?}");
    }
    answers
        .iter()
        .filter(|a| a.code == "mfa_verification_failed")
        .count()
}

#[tokio::test]
async fn a_burst_of_wrong_totp_codes_is_checked_at_most_the_limit_times() {
    // The default limit (REGARD_RATE_LIMIT_MFA_VERIFY, 5 per window).
    let app = spawn_app().await;
    let limit = usize::try_from(app.state.config.rate_limit_mfa_verify).unwrap();
    let (_, session) = new_session(&app).await;
    let (factor_id, secret) = enroll_totp(&app, &session, "app").await;
    let challenge_id = challenge(&app, &session, &factor_id).await;
    let requests = wrong_totp_codes(&secret, 300)
        .iter()
        .map(|code| verify_request(&app, &session, &factor_id, &challenge_id, code))
        .collect();
    let answers = crate::helpers::burst(requests).await;
    let compared = checked(&answers);
    assert!(
        (1..=limit).contains(&compared),
        "{compared} of 300 codes compared"
    );
    // The window is used up and the challenge ended: the right code is refused too, and the
    // factor stays unverified.
    let right = verify(
        &app,
        &session,
        &factor_id,
        &challenge_id,
        &totp_code(&secret, 0),
    )
    .await;
    assert_error(right, 429, "over_request_rate_limit").await;
    let user = json_ok(call(&app, &session, Method::GET, "/auth/v1/user", json!({})).await).await;
    assert_eq!(user["factors"][0]["status"], "unverified");
}

#[tokio::test]
async fn the_right_phone_code_inside_a_burst_of_wrong_ones_does_not_reach_aal2() {
    let app = spawn_app().await;
    let limit = usize::try_from(app.state.config.rate_limit_mfa_verify).unwrap();
    let (_, session) = new_session(&app).await;
    let body = json_ok(
        call(
            &app,
            &session,
            Method::POST,
            "/auth/v1/factors",
            json!({"factor_type": "phone", "phone": "+33612345679"}),
        )
        .await,
    )
    .await;
    let factor_id = body["id"].as_str().unwrap().to_owned();
    let challenge_id = challenge(&app, &session, &factor_id).await;
    let code = six_digits(outbox_sms_json(&app)[0]["body"].as_str().unwrap());
    // 199 wrong codes and the right one, sent at once.
    let codes = crate::code_bursts::burst_with_right_code(&code);
    let requests = codes
        .iter()
        .map(|c| verify_request(&app, &session, &factor_id, &challenge_id, c))
        .collect();
    let answers = crate::helpers::burst(requests).await;
    assert!(
        answers.iter().all(|a| a.status != 200),
        "the right code was accepted inside the burst"
    );
    assert!(checked(&answers) <= limit);
    let user = json_ok(call(&app, &session, Method::GET, "/auth/v1/user", json!({})).await).await;
    assert_eq!(user["factors"][0]["status"], "unverified");
    assert_eq!(session.claims()["aal"], "aal1");
}

async fn api(app: &TestApp, session: &Session, method: Method, path: &str) -> reqwest::Response {
    app.client
        .request(method, app.url(&format!("/api/v1{path}")))
        .bearer_auth(session.token())
        .send()
        .await
        .unwrap()
}

/// Recovery codes: made only with a verified factor, shown once, each accepted once at the
/// code screen in place of the authenticator's code (any case, spaces or dashes), a used one
/// refused as used, a new set voiding the old, and none left once the factor is removed.
#[tokio::test]
async fn recovery_codes_stand_in_for_the_authenticator_once_each() {
    let app = spawn_app().await;
    let (_, plain) = new_session(&app).await;
    let refused = api(&app, &plain, Method::POST, "/account/recovery-codes").await;
    assert_eq!(refused.status(), 409);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "mfa_not_enabled");

    let (email, session, factor_id, _) = user_with_totp(&app).await;
    let none: Value = api(&app, &session, Method::GET, "/account/recovery-codes")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        none,
        json!({"remaining": 0, "total": 0, "created_at": null})
    );
    let made = api(&app, &session, Method::POST, "/account/recovery-codes").await;
    assert_eq!(made.status(), 201);
    let made: Value = made.json().await.unwrap();
    let codes: Vec<String> = made["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(codes.len(), 10);
    let distinct: std::collections::HashSet<_> = codes.iter().collect();
    assert_eq!(distinct.len(), 10);
    assert!(
        codes
            .iter()
            .all(|c| c.len() == 14 && c.matches('-').count() == 2)
    );

    // A new device signs in with the password, then gives a recovery code as typed.
    let device = sign_in(&app, &email).await;
    assert_eq!(device.claims()["aal"], "aal1");
    let challenge_id = challenge(&app, &device, &factor_id).await;
    let typed = codes[0].to_uppercase().replace('-', " ");
    let raised =
        Session(json_ok(verify(&app, &device, &factor_id, &challenge_id, &typed).await).await);
    assert_eq!(raised.claims()["aal"], "aal2");
    assert_eq!(raised.claims()["amr"][0]["method"], "recovery_code");
    let summary: Value = api(&app, &raised, Method::GET, "/account/recovery-codes")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(summary["remaining"], 9);
    assert_eq!(summary["total"], 10);
    assert!(summary["created_at"].is_string());

    // The same code again: refused, and said to be used.
    let other = sign_in(&app, &email).await;
    let challenge_id = challenge(&app, &other, &factor_id).await;
    let again = verify(&app, &other, &factor_id, &challenge_id, &codes[0]).await;
    assert_error(again, 422, "mfa_code_already_used").await;
    let unknown = verify(&app, &other, &factor_id, &challenge_id, "0000-0000-0000").await;
    assert_error(unknown, 422, "mfa_verification_failed").await;

    // A new set: the old codes stop working.
    let renewed: Value = api(&app, &raised, Method::POST, "/account/recovery-codes")
        .await
        .json()
        .await
        .unwrap();
    let old = verify(&app, &other, &factor_id, &challenge_id, &codes[1]).await;
    assert_error(old, 422, "mfa_verification_failed").await;
    let fresh = renewed["codes"][0].as_str().unwrap();
    assert_eq!(
        verify(&app, &other, &factor_id, &challenge_id, fresh)
            .await
            .status(),
        200
    );

    // Removing the only factor removes the codes.
    let removed = call(
        &app,
        &raised,
        Method::DELETE,
        &format!("/auth/v1/factors/{factor_id}"),
        json!({}),
    )
    .await;
    assert_eq!(removed.status(), 200);
    let plain_again = sign_in(&app, &email).await;
    let gone: Value = api(&app, &plain_again, Method::GET, "/account/recovery-codes")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(gone["total"], 0);
}

/// A factor still being enrolled cannot be verified with a recovery code: enrolling proves the
/// authenticator works.
#[tokio::test]
async fn recovery_codes_do_not_verify_an_enrolment() {
    let app = spawn_app().await;
    let (_, session, _, _) = user_with_totp(&app).await;
    let made: Value = api(&app, &session, Method::POST, "/account/recovery-codes")
        .await
        .json()
        .await
        .unwrap();
    let (second, _) = enroll_totp(&app, &session, "Second phone").await;
    let challenge_id = challenge(&app, &session, &second).await;
    let code = made["codes"][0].as_str().unwrap();
    let refused = verify(&app, &session, &second, &challenge_id, code).await;
    assert_error(refused, 422, "mfa_verification_failed").await;
}
