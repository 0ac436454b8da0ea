//! One-time codes under concurrent guessing (mailed codes, SMS codes, reauthentication
//! nonces), the SMS sending limits (`REGARD_RATE_LIMIT_SMS_*`), and the answers that must not
//! tell whether an address has an account. Bursts are sent at once, not one after the other.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, assert_error, burst, outbox_sms, six_digits, spawn_app, spawn_app_with, unique_email,
    unique_phone,
};
use crate::mail_links::{link_and_code, outbox_mails, path_of, wait_for_mails};

/// `count` six-digit codes, none equal to `right`.
fn wrong_codes(right: &str, count: usize) -> Vec<String> {
    (0u32..)
        .map(|i| format!("{:06}", (i * 7919) % 1_000_000))
        .filter(|code| code != right)
        .take(count)
        .collect()
}

/// Where the right code sits in a burst: after enough wrong ones that the limit is passed
/// before it arrives, early enough that it arrives while most wrong ones are still in flight
/// (without the atomic count, codes that early were all compared: issue 26).
pub(crate) const RIGHT_CODE_AT: usize = 50;

/// 199 wrong codes with the right one at [`RIGHT_CODE_AT`]: 200 codes, sent at once.
pub(crate) fn burst_with_right_code(right: &str) -> Vec<String> {
    let mut codes = wrong_codes(right, 199);
    codes.insert(RIGHT_CODE_AT, right.to_owned());
    codes
}

fn verify_request(app: &TestApp, body: Value) -> reqwest::RequestBuilder {
    app.auth_request(Method::POST, "/auth/v1/verify")
        .body(body.to_string())
}

#[tokio::test]
async fn the_right_mailed_code_inside_a_burst_of_wrong_ones_is_refused_and_the_token_dies() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let recovered = app.post("/auth/v1/recover", &json!({"email": email})).await;
    assert_eq!(recovered.status(), 200);
    let (_, code) = link_and_code(&wait_for_mails(&app, 1).await[0]);
    // 199 wrong codes and the right one, at once.
    let codes = burst_with_right_code(&code);
    let requests = codes
        .iter()
        .map(|c| {
            verify_request(
                &app,
                json!({"type": "recovery", "email": email, "token": c}),
            )
        })
        .collect();
    let answers = burst(requests).await;
    for answer in &answers {
        assert_eq!(
            (answer.status, answer.code.as_str()),
            (403, "otp_expired"),
            "{answer:?}"
        );
    }
    // The token died at the limit: the right code no longer works.
    let after = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "recovery", "email": email, "token": code}),
        )
        .await;
    assert_error(after, 403, "otp_expired").await;
}

#[tokio::test]
async fn the_right_sms_code_inside_a_burst_of_wrong_ones_is_refused() {
    let app = spawn_app_with(|config| config.phone_sign_in = true).await;
    let phone = unique_phone();
    let sent = app.post("/auth/v1/otp", &json!({"phone": phone})).await;
    assert_eq!(sent.status(), 200);
    let code = six_digits(&outbox_sms(&app)[0].1);
    let codes = burst_with_right_code(&code);
    let requests = codes
        .iter()
        .map(|c| verify_request(&app, json!({"type": "sms", "phone": phone, "token": c})))
        .collect();
    let answers = burst(requests).await;
    assert!(
        answers
            .iter()
            .all(|a| a.status == 403 && a.code == "otp_expired"),
        "{:?}",
        answers.iter().find(|a| a.status != 403)
    );
    let after = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "sms", "phone": phone, "token": code}),
        )
        .await;
    assert_error(after, 403, "otp_expired").await;
}

#[tokio::test]
async fn reauthentication_nonces_are_limited_per_user_and_die_at_the_limit() {
    let app = spawn_app_with(|config| {
        config.secure_password_change = true;
        config.reauthentication_window = 0;
        // These tests are about the nonce alone.
        config.password_change_needs_current = false;
    })
    .await;
    let limit = usize::try_from(app.state.config.rate_limit_reauthentication).unwrap();
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap().to_owned();
    let asked = app
        .with_token(Method::GET, "/auth/v1/reauthenticate", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 200);
    let mails = wait_for_mails(&app, 1).await;
    let marker = mails[0].find("code").unwrap();
    let nonce = six_digits(&mails[0][marker..]);
    let mut nonces = wrong_codes(&nonce, 99);
    nonces.insert(RIGHT_CODE_AT, nonce.clone());
    let requests = nonces
        .iter()
        .map(|n| {
            app.with_token(Method::PUT, "/auth/v1/user", &token)
                .body(json!({"password": "secret-new-2", "nonce": n}).to_string())
        })
        .collect();
    let answers = burst(requests).await;
    assert!(answers.iter().all(|a| a.status != 200), "a nonce was taken");
    let limited = answers
        .iter()
        .filter(|a| a.status == 429 && a.code == "over_request_rate_limit")
        .count();
    assert!(limited >= 100 - limit, "only {limited} of 100 limited");
    assert!(
        answers.iter().all(|a| a.status == 429
            || (a.status == 422 && a.code == "reauthentication_not_valid")),
        "{answers:?}"
    );
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);
}

#[tokio::test]
async fn sms_are_limited_per_number_per_client_and_in_all() {
    // The defaults: 5 per number, 10 per client IP, 30 in all, per hour.
    let app = spawn_app_with(|config| config.phone_sign_in = true).await;
    let per_number = usize::try_from(app.state.config.rate_limit_sms_per_number).unwrap();
    let per_ip = usize::try_from(app.state.config.rate_limit_sms_per_ip).unwrap();
    let phone = unique_phone();
    let requests = (0..40)
        .map(|_| {
            app.auth_request(Method::POST, "/auth/v1/otp")
                .body(json!({"phone": phone}).to_string())
        })
        .collect();
    let answers = burst(requests).await;
    let sent = answers.iter().filter(|a| a.status == 200).count();
    assert_eq!(sent, per_number, "{answers:?}");
    assert_eq!(outbox_sms(&app).len(), per_number);
    for answer in answers.iter().filter(|a| a.status != 200) {
        assert_eq!(answer.status, 429);
        assert_eq!(answer.code, "over_sms_send_rate_limit");
        assert!(answer.retry_after.is_some_and(|s| s >= 1));
    }

    // New numbers from one client: its allowance caps the accounts (it is taken before an
    // account is created, so a refused number gets none).
    let app = spawn_app_with(|config| config.phone_sign_in = true).await;
    let requests = (0..40)
        .map(|_| {
            app.auth_request(Method::POST, "/auth/v1/otp")
                .body(json!({"phone": unique_phone()}).to_string())
        })
        .collect();
    let answers = burst(requests).await;
    let created = answers.iter().filter(|a| a.status == 200).count();
    assert_eq!(created, per_ip, "{answers:?}");
    assert!(
        answers
            .iter()
            .filter(|a| a.status != 200)
            .all(|a| a.status == 429 && a.code == "over_sms_send_rate_limit")
    );
    // The global budget holds whatever the spread of numbers and clients.
    let app = spawn_app_with(|config| {
        config.phone_sign_in = true;
        config.rate_limit_sms_per_ip = 0;
        config.rate_limit_sms_per_number = 0;
        config.rate_limit_sms_sent = 3;
    })
    .await;
    let requests = (0..8)
        .map(|_| {
            app.auth_request(Method::POST, "/auth/v1/resend")
                .body(json!({"type": "sms", "phone": unique_phone()}).to_string())
        })
        .collect();
    let answers = burst(requests).await;
    assert_eq!(answers.iter().filter(|a| a.status == 200).count(), 3);
    assert_eq!(answers.iter().filter(|a| a.status == 429).count(), 5);
}

#[tokio::test]
async fn resend_answers_alike_for_an_unconfirmed_account_and_an_unknown_address() {
    // A mail sent less than REGARD_MAIL_MAX_FREQUENCY ago: nothing is sent, and the answer is
    // the one an unknown address gets.
    let app = spawn_app_with(|config| config.mailer_autoconfirm = false).await;
    let email = unique_email();
    let signup = app
        .post(
            "/auth/v1/signup",
            &json!({"email": email, "password": "secret1"}),
        )
        .await;
    assert_eq!(signup.status(), 200);
    wait_for_mails(&app, 1).await;
    for address in [email.clone(), unique_email()] {
        let response = app
            .post(
                "/auth/v1/resend",
                &json!({"type": "signup", "email": address}),
            )
            .await;
        assert_eq!(response.status(), 200, "{address}");
        assert!(response.headers().get("retry-after").is_none());
        assert_eq!(response.json::<Value>().await.unwrap(), json!({}));
    }
    assert_eq!(outbox_mails(&app).len(), 1);
}

#[tokio::test]
async fn an_email_change_to_a_taken_address_answers_like_any_other_and_mails_it_nothing() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap();
    let taken = unique_email();
    app.sign_up(&taken, "secret1").await;
    let free = unique_email();
    let mut bodies = Vec::new();
    for address in [&taken, &free] {
        let response = app
            .with_token(Method::PUT, "/auth/v1/user", token)
            .header("Accept-Language", "en")
            .body(json!({"email": address}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{address}");
        let user: Value = response.json().await.unwrap();
        assert_eq!(user["email"], email.as_str());
        assert_eq!(user["new_email"], address.as_str());
        assert!(user["email_change_sent_at"].is_string());
        bodies.push(user);
    }
    // Two notices to the current address and one link, to the free address only.
    let mails = wait_for_mails(&app, 3).await;
    assert_eq!(mails.len(), 3);
    assert!(!mails.iter().any(|m| m.contains(&format!("To: {taken}"))));
    let notices: Vec<_> = mails
        .iter()
        .filter(|m| m.contains(&format!("To: {email}")))
        .collect();
    assert_eq!(notices.len(), 2);
    assert!(
        notices[0].contains("Address change requested"),
        "{}",
        notices[0]
    );
    assert!(notices[0].contains(&taken));
    assert!(!notices[0].contains("/auth/v1/verify"));
    // A resend of the change towards the taken address mails nothing either.
    let again = app
        .with_token(Method::PUT, "/auth/v1/user", token)
        .body(json!({"email": taken}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    let count = outbox_mails(&app).len();
    let resend = app
        .post(
            "/auth/v1/resend",
            &json!({"type": "email_change", "email": email}),
        )
        .await;
    assert_eq!(resend.status(), 200);
    assert_eq!(outbox_mails(&app).len(), count);
}

#[tokio::test]
async fn a_link_opened_with_the_wrong_type_keeps_working() {
    let app = spawn_app().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    app.post("/auth/v1/recover", &json!({"email": email})).await;
    let (link, _) = link_and_code(&wait_for_mails(&app, 1).await[0]);
    let wrong = path_of(&link).replace("type=recovery", "type=signup");
    assert_ne!(wrong, path_of(&link));
    let response = app.client.get(app.url(&wrong)).send().await.unwrap();
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("error_code=otp_expired"), "{location}");
    // The same with POST /verify and the link's token as token_hash.
    let token = link
        .split("token=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_owned();
    let response = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "magiclink", "token_hash": token}),
        )
        .await;
    assert_error(response, 403, "otp_expired").await;
    // The right type still signs in.
    let response = app
        .client
        .get(app.url(&path_of(&link)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("access_token="), "{location}");
}
