//! Benchmark of the code-guessing targets of issue 26: how many codes a burst of concurrent
//! wrong guesses gets checked, and how many SMS a burst of sign-in requests sends.
//!
//! ```text
//! cargo run -p regard --example bench_auth_bursts [-- BURST]
//! ```
//!
//! Starts the real server in-process on 127.0.0.1 (SQLite, the default limits), then:
//!
//! - a user enrols a TOTP factor, asks for a challenge and sends BURST (default 300) wrong
//!   codes at once: answers 422 `mfa_verification_failed` (the code was compared) or 429
//!   `over_request_rate_limit` (refused before any comparison) are counted;
//! - with `REGARD_PHONE_SIGN_IN`, 40 `POST /otp` for one number at once, then 40 for 40 new
//!   numbers: how many SMS went out and how many accounts were made.
//!
//! Prints the counts and the burst's duration. `REGARD_RATE_LIMIT_MFA_VERIFY=0` (the limit
//! off) shows every code being compared.

use std::time::Instant;

use serde_json::{Value, json};

mod support;

/// Sends all requests at once; returns each answer's status and error code.
async fn burst(requests: Vec<reqwest::RequestBuilder>) -> Vec<(u16, String)> {
    futures::future::join_all(requests.into_iter().map(|request| async move {
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let code = body["code"].as_str().unwrap_or_default().to_owned();
        (status, code)
    }))
    .await
}

fn count(answers: &[(u16, String)], status: u16, code: &str) -> usize {
    answers
        .iter()
        .filter(|(s, c)| *s == status && (code.is_empty() || c == code))
        .count()
}

#[tokio::main]
async fn main() {
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let server = support::Server::start_with(|config| config.phone_sign_in = true).await;
    let client = reqwest::Client::new();
    let token = server.sign_up(&client).await;
    let auth = |method: reqwest::Method, path: &str| {
        client
            .request(method, format!("{}/auth/v1{path}", server.base))
            .header("apikey", "anon-key")
            .header("X-Supabase-Api-Version", "2024-01-01")
            .bearer_auth(&token)
    };

    let factor: Value = auth(reqwest::Method::POST, "/factors")
        .json(&json!({"factor_type": "totp", "friendly_name": "bench"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let factor_id = factor["id"].as_str().expect("enrolled").to_owned();
    let secret = factor["totp"]["secret"].as_str().unwrap().to_owned();
    let challenge: Value = auth(
        reqwest::Method::POST,
        &format!("/factors/{factor_id}/challenge"),
    )
    .json(&json!({}))
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let challenge_id = challenge["id"].as_str().expect("challenged").to_owned();
    // Wrong codes: none valid at the steps around now.
    let totp = totp_rs::Builder::new()
        .with_algorithm(totp_rs::Algorithm::SHA1)
        .with_digits(6)
        .with_skew(1)
        .with_step_duration(30)
        .with_secret(totp_rs::Secret::try_from_base32(&secret).unwrap())
        .with_account_name("bench")
        .build()
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let valid: Vec<String> = [now - 30, now, now + 30]
        .iter()
        .map(|t| totp.generate(*t).to_string())
        .collect();
    let codes: Vec<String> = (0u32..)
        .map(|i| format!("{:06}", (i * 7919) % 1_000_000))
        .filter(|c| !valid.contains(c))
        .take(size)
        .collect();
    let requests = codes
        .iter()
        .map(|code| {
            auth(
                reqwest::Method::POST,
                &format!("/factors/{factor_id}/verify"),
            )
            .json(&json!({"challenge_id": challenge_id, "code": code}))
        })
        .collect();
    let started = Instant::now();
    let answers = burst(requests).await;
    let elapsed = started.elapsed();
    println!(
        "TOTP: burst of {size} wrong codes -> {} checked (422), {} refused (429), {} other, in {:.2} s",
        count(&answers, 422, "mfa_verification_failed"),
        count(&answers, 429, "over_request_rate_limit"),
        size - count(&answers, 422, "mfa_verification_failed")
            - count(&answers, 429, "over_request_rate_limit"),
        elapsed.as_secs_f64()
    );

    let otp = |phone: String| {
        client
            .post(format!("{}/auth/v1/otp", server.base))
            .header("apikey", "anon-key")
            .header("X-Supabase-Api-Version", "2024-01-01")
            .json(&json!({ "phone": phone }))
    };
    let started = Instant::now();
    let answers = burst((0..40).map(|_| otp("+33612340000".to_owned())).collect()).await;
    println!(
        "SMS: 40 /otp for one number at once -> {} sent, {} refused (429 over_sms_send_rate_limit), in {:.2} s",
        count(&answers, 200, ""),
        count(&answers, 429, "over_sms_send_rate_limit"),
        started.elapsed().as_secs_f64()
    );
    let server_b = support::Server::start_with(|config| config.phone_sign_in = true).await;
    let answers = burst(
        (0..40)
            .map(|i| {
                client
                    .post(format!("{}/auth/v1/otp", server_b.base))
                    .header("apikey", "anon-key")
                    .header("X-Supabase-Api-Version", "2024-01-01")
                    .json(&json!({ "phone": format!("+3361300{i:04}") }))
            })
            .collect(),
    )
    .await;
    println!(
        "SMS: 40 /otp for 40 new numbers from one address -> {} accounts and SMS, {} refused",
        count(&answers, 200, ""),
        count(&answers, 429, "over_sms_send_rate_limit"),
    );
    server_b.stop().await;
    server.stop().await;
}
