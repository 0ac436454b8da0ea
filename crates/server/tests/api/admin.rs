//! The admin API (`/auth/v1/admin/...`, `/auth/v1/invite`): authorisation by a `service_role`
//! token, users' life cycle, bans, generated links, invitations and factors.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, spawn_app, spawn_app_with, unique_email};
use crate::mail_links::{fragment_params, link_and_code, outbox_mails, path_of, wait_for_mails};

/// A `service_role` token signed with the server's key, as an operator's back end holds it
/// (no subject; an expiry, as `regard admin token` writes).
fn admin_token(app: &TestApp) -> String {
    let now = chrono::Utc::now().timestamp();
    app.state
        .jwt
        .sign(&json!({"role": "service_role", "iat": now - 60, "exp": now + 600}))
        .unwrap()
}

pub(crate) fn admin(app: &TestApp, method: Method, path: &str) -> reqwest::RequestBuilder {
    app.with_token(method, &format!("/auth/v1{path}"), &admin_token(app))
}

async fn admin_json(app: &TestApp, method: Method, path: &str, body: Value) -> Value {
    let response = admin(app, method, path)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{path}: {body}");
    body
}

async fn create(app: &TestApp, body: Value) -> Value {
    admin_json(app, Method::POST, "/admin/users", body).await
}

#[tokio::test]
async fn admin_routes_need_a_service_role_token() {
    let app = spawn_app().await;
    let response = app
        .base_request(Method::GET, "/auth/v1/admin/users")
        .send()
        .await
        .unwrap();
    assert_error(response, 401, "no_authorization").await;

    // A signed-in user's own token is not an admin's.
    let session = app.sign_up(&unique_email(), "secret1").await;
    let user_token = session["access_token"].as_str().unwrap();
    for (method, path) in [
        (Method::GET, "/auth/v1/admin/users"),
        (Method::POST, "/auth/v1/admin/users"),
        (Method::POST, "/auth/v1/admin/generate_link"),
        (Method::POST, "/auth/v1/invite"),
    ] {
        let response = app
            .with_token(method, path, user_token)
            .body("{}")
            .send()
            .await
            .unwrap();
        let body = assert_error(response, 403, "not_admin").await;
        assert_eq!(body["message"], "User not allowed");
    }

    // A service_role token signed with another key is refused.
    let forged = regard::auth::tokens::JwtKeys::from_secret(b"not the server's secret")
        .sign(&json!({"role": "service_role"}))
        .unwrap();
    let response = app
        .with_token(Method::GET, "/auth/v1/admin/users", &forged)
        .send()
        .await
        .unwrap();
    assert_error(response, 403, "bad_jwt").await;

    let response = admin(&app, Method::GET, "/admin/users")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// Admin tokens naming another issuer, not yet valid, or without an expiry (unless
/// `REGARD_ADMIN_TOKENS_WITHOUT_EXP`) are refused as GoTrue refuses a bad JWT.
#[tokio::test]
async fn admin_tokens_of_another_issuer_without_expiry_or_not_yet_valid_are_refused() {
    let now = chrono::Utc::now().timestamp();
    for allow_without_exp in [false, true] {
        let app = spawn_app_with(|config| {
            config.admin_tokens_without_exp = allow_without_exp;
        })
        .await;
        let status = |claims: Value| {
            let token = app.state.jwt.sign(&claims).unwrap();
            let request = app.with_token(Method::GET, "/auth/v1/admin/users", &token);
            async move { request.send().await.unwrap() }
        };
        let issuer = app.state.config.issuer();
        let ok = status(json!({"role": "service_role", "exp": now + 60, "iss": issuer})).await;
        assert_eq!(ok.status(), 200);
        let foreign =
            json!({"role": "service_role", "exp": now + 60, "iss": "https://evil.example"});
        assert_error(status(foreign).await, 403, "bad_jwt").await;
        let early = json!({"role": "service_role", "exp": now + 600, "nbf": now + 300});
        assert_error(status(early).await, 403, "bad_jwt").await;
        let expired = json!({"role": "supabase_admin", "exp": now - 10});
        assert_error(status(expired).await, 403, "bad_jwt").await;
        // Without `exp`, as auth-js's suite signs them.
        let forever = status(json!({"role": "supabase_admin", "sub": "1234567890"})).await;
        if allow_without_exp {
            assert_eq!(forever.status(), 200);
        } else {
            let body = assert_error(forever, 403, "bad_jwt").await;
            assert!(body["message"].as_str().unwrap().contains("exp"), "{body}");
        }
        // A token without exp and without an admin role is still just not an admin's.
        assert_error(status(json!({"role": "anon_key"})).await, 403, "not_admin").await;
    }
}

#[tokio::test]
async fn an_admin_creates_reads_updates_and_deletes_users() {
    let app = spawn_app().await;
    let email = unique_email();
    let user = create(
        &app,
        json!({
            "email": email,
            "password": "secret1",
            "email_confirm": true,
            "user_metadata": {"name": "Ada"},
            "app_metadata": {"roles": ["planner"]},
        }),
    )
    .await;
    let id = user["id"].as_str().unwrap().to_owned();
    assert_eq!(user["email"], email);
    assert_eq!(user["user_metadata"], json!({"name": "Ada"}));
    assert_eq!(user["app_metadata"]["provider"], "email");
    assert_eq!(user["app_metadata"]["providers"], json!(["email"]));
    assert_eq!(user["app_metadata"]["roles"], json!(["planner"]));
    assert!(user["email_confirmed_at"].is_string());
    // The user signs in with the password the administrator set.
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);

    // Unconfirmed without email_confirm: signing in waits for the address to be confirmed.
    let pending = unique_email();
    let unconfirmed = create(&app, json!({"email": pending, "password": "secret1"})).await;
    assert!(unconfirmed.get("email_confirmed_at").is_none());
    assert_error(
        app.sign_in(&pending, "secret1").await,
        400,
        "email_not_confirmed",
    )
    .await;

    let read = admin_json(&app, Method::GET, &format!("/admin/users/{id}"), json!({})).await;
    assert_eq!(read["email"], email);

    // Metadata merges; a null removes its key; the address changes at once.
    let new_email = unique_email();
    let updated = admin_json(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        json!({
            "email": new_email,
            "user_metadata": {"name": null, "team": "OOH"},
            "app_metadata": {"plan": "pro"},
            "password": "secret2",
        }),
    )
    .await;
    assert_eq!(updated["email"], new_email);
    assert_eq!(updated["user_metadata"], json!({"team": "OOH"}));
    assert_eq!(updated["app_metadata"]["plan"], "pro");
    assert_eq!(updated["app_metadata"]["roles"], json!(["planner"]));
    assert_eq!(app.sign_in(&new_email, "secret2").await.status(), 200);
    assert_error(
        app.sign_in(&email, "secret1").await,
        400,
        "invalid_credentials",
    )
    .await;

    // An address another user has is refused.
    let taken = admin(&app, Method::PUT, &format!("/admin/users/{id}"))
        .body(json!({"email": pending}).to_string())
        .send()
        .await
        .unwrap();
    assert_error(taken, 422, "email_exists").await;

    let deleted = admin_json(
        &app,
        Method::DELETE,
        &format!("/admin/users/{id}"),
        json!({}),
    )
    .await;
    assert_eq!(deleted["id"], id);
    let gone = admin(&app, Method::GET, &format!("/admin/users/{id}"))
        .send()
        .await
        .unwrap();
    assert_error(gone, 404, "user_not_found").await;
    assert_error(
        app.sign_in(&new_email, "secret2").await,
        400,
        "invalid_credentials",
    )
    .await;
}

#[tokio::test]
async fn users_are_listed_newest_first_with_pagination_headers() {
    let app = spawn_app().await;
    let mut emails = Vec::new();
    for _ in 0..3 {
        let email = unique_email();
        create(&app, json!({"email": email, "password": "secret1"})).await;
        emails.push(email);
    }
    let response = admin(&app, Method::GET, "/admin/users?page=1&per_page=2")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-total-count"], "3");
    let link = response.headers()["link"].to_str().unwrap().to_owned();
    assert!(link.contains("page=2&per_page=2>; rel=\"next\""), "{link}");
    assert!(link.contains("page=2&per_page=2>; rel=\"last\""), "{link}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["aud"], "authenticated");
    let listed: Vec<&str> = body["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["email"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [emails[2].as_str(), emails[1].as_str()]);

    let last = admin_json(
        &app,
        Method::GET,
        "/admin/users?page=2&per_page=2",
        json!({}),
    )
    .await;
    assert_eq!(last["users"][0]["email"], emails[0]);

    for bad in ["page=-1", "page=0", "per_page=x"] {
        let response = admin(&app, Method::GET, &format!("/admin/users?{bad}"))
            .send()
            .await
            .unwrap();
        assert_error(response, 400, "validation_failed").await;
    }
}

#[tokio::test]
async fn bad_input_gets_gotrue_errors() {
    let app = spawn_app().await;
    let response = admin(&app, Method::POST, "/admin/users")
        .body(json!({"email": "xx:;x@x.x", "password": "secret1"}).to_string())
        .send()
        .await
        .unwrap();
    let body = assert_error(response, 400, "validation_failed").await;
    assert_eq!(
        body["message"],
        "Unable to validate email address: invalid format"
    );

    let response = admin(&app, Method::POST, "/admin/users")
        .body(json!({"password": "secret1"}).to_string())
        .send()
        .await
        .unwrap();
    assert_error(response, 400, "validation_failed").await;

    let unknown = uuid::Uuid::new_v4();
    for (method, path) in [
        (Method::GET, format!("/admin/users/{unknown}")),
        (Method::PUT, format!("/admin/users/{unknown}")),
        (Method::DELETE, format!("/admin/users/{unknown}")),
        (Method::GET, format!("/admin/users/{unknown}/factors")),
    ] {
        let response = admin(&app, method, &path).body("{}").send().await.unwrap();
        assert_error(response, 404, "user_not_found").await;
    }
    let response = admin(&app, Method::GET, "/admin/users/not-a-uuid")
        .send()
        .await
        .unwrap();
    assert_error(response, 404, "validation_failed").await;

    let user = create(&app, json!({"email": unique_email()})).await;
    let response = admin(
        &app,
        Method::PUT,
        &format!("/admin/users/{}", user["id"].as_str().unwrap()),
    )
    .body(json!({"ban_duration": "forever"}).to_string())
    .send()
    .await
    .unwrap();
    assert_error(response, 400, "validation_failed").await;
}

#[tokio::test]
async fn a_ban_ends_sessions_and_refuses_sign_ins_until_it_is_lifted() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let id = session["user"]["id"].as_str().unwrap().to_owned();
    let refresh_token = session["refresh_token"].as_str().unwrap().to_owned();

    let banned = admin_json(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        json!({"ban_duration": "24h"}),
    )
    .await;
    assert!(banned["banned_until"].is_string());
    let body = assert_error(app.sign_in(&email, "secret1").await, 400, "user_banned").await;
    assert_eq!(body["message"], "User is banned");
    // The session the user had is over.
    assert_eq!(app.refresh(&refresh_token).await.status(), 400);
    let response = app
        .with_token(
            Method::GET,
            "/auth/v1/user",
            session["access_token"].as_str().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);

    let lifted = admin_json(
        &app,
        Method::PUT,
        &format!("/admin/users/{id}"),
        json!({"ban_duration": "none"}),
    )
    .await;
    assert!(lifted.get("banned_until").is_none());
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);
}

#[tokio::test]
async fn soft_deletion_frees_the_address_and_keeps_what_the_user_owns() {
    let app = spawn_app().await;
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let id = session["user"]["id"].as_str().unwrap().to_owned();
    let user = crate::helpers::User {
        token: session["access_token"].as_str().unwrap().to_owned(),
    };
    app.upload_ok(&user, "poster.png", crate::fixtures::png(64, 48))
        .await;
    let response = admin(&app, Method::DELETE, &format!("/admin/users/{id}"))
        .body(json!({"should_soft_delete": true}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_error(
        app.sign_in(&email, "secret1").await,
        400,
        "invalid_credentials",
    )
    .await;
    let gone = admin(&app, Method::GET, &format!("/admin/users/{id}"))
        .send()
        .await
        .unwrap();
    assert_error(gone, 404, "user_not_found").await;
    // The row stays, and with it what the user owns (a hard delete would cascade).
    assert_eq!(app.media_rows().await, 1);
    assert!(!app.objects().await.is_empty());
    // The address can make a new account.
    let again = app.sign_up(&email, "secret1").await;
    assert_ne!(again["user"]["id"], id);
}

#[tokio::test]
async fn deleting_a_user_deletes_their_files() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let id = session["user"]["id"].as_str().unwrap().to_owned();
    let user = crate::helpers::User {
        token: session["access_token"].as_str().unwrap().to_owned(),
    };
    let png = crate::fixtures::png(64, 48);
    app.upload_ok(&user, "poster.png", png).await;
    assert!(!app.objects().await.is_empty());
    assert_eq!(app.media_rows().await, 1);

    admin_json(
        &app,
        Method::DELETE,
        &format!("/admin/users/{id}"),
        json!({}),
    )
    .await;
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty(), "{:?}", app.objects().await);
}

#[tokio::test]
async fn generated_links_work_without_any_mail() {
    let app = spawn_app_with(|config| config.mailer_autoconfirm = false).await;
    let email = unique_email();
    let redirect_to = format!(
        "{}/welcome",
        app.state.config.site_url.trim_end_matches('/')
    );
    let link = admin_json(
        &app,
        Method::POST,
        "/admin/generate_link",
        json!({
            "type": "signup",
            "email": email,
            "password": "secret1",
            "data": {"status": "alpha"},
            "redirect_to": redirect_to,
        }),
    )
    .await;
    assert_eq!(link["email"], email);
    assert_eq!(link["user_metadata"], json!({"status": "alpha"}));
    assert!(link.get("email_confirmed_at").is_none());
    assert_eq!(link["verification_type"], "signup");
    assert_eq!(link["redirect_to"], redirect_to);
    assert!(link["email_otp"].as_str().unwrap().len() == 6);
    let action = link["action_link"].as_str().unwrap();
    assert!(action.contains("?token="), "{action}");
    assert!(action.contains("type=signup"), "{action}");
    // The redirect reads as written, as GoTrue's links do.
    assert!(
        action.contains(&format!("redirect_to={redirect_to}")),
        "{action}"
    );
    assert!(outbox_mails(&app).is_empty(), "generate_link sends nothing");

    // Following the link confirms the address and signs in.
    let response = app.get_url(&path_of(action)).await;
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&redirect_to), "{location}");
    assert!(fragment_params(&location)["access_token"].is_string());
    assert_eq!(app.sign_in(&email, "secret1").await.status(), 200);

    // A magic link's hashed token works with verifyOtp({token_hash}).
    let magic = admin_json(
        &app,
        Method::POST,
        "/admin/generate_link",
        json!({"type": "magiclink", "email": email}),
    )
    .await;
    assert_eq!(magic["verification_type"], "magiclink");
    let session = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "magiclink", "token_hash": magic["hashed_token"]}),
        )
        .await;
    assert_eq!(session.status(), 200);

    // An email change: the user shows the pending address; its code moves the account.
    let new_email = unique_email();
    let change = admin_json(
        &app,
        Method::POST,
        "/admin/generate_link",
        json!({"type": "email_change_new", "email": email, "new_email": new_email}),
    )
    .await;
    assert_eq!(change["new_email"], new_email);
    assert!(
        change["action_link"]
            .as_str()
            .unwrap()
            .contains("type=email_change")
    );
    let verified = app
        .post(
            "/auth/v1/verify",
            &json!({"type": "email_change", "email": new_email, "token": change["email_otp"]}),
        )
        .await;
    assert_eq!(verified.status(), 200);
    let body: Value = verified.json().await.unwrap();
    assert_eq!(body["user"]["email"], new_email);
    assert!(body["user"].get("new_email").is_none());

    // Recovery and magic links need an existing user; unknown types are refused.
    let response = admin(&app, Method::POST, "/admin/generate_link")
        .body(json!({"type": "recovery", "email": unique_email()}).to_string())
        .send()
        .await
        .unwrap();
    assert_error(response, 404, "user_not_found").await;
    let response = admin(&app, Method::POST, "/admin/generate_link")
        .body(json!({"type": "sms", "email": email}).to_string())
        .send()
        .await
        .unwrap();
    assert_error(response, 400, "validation_failed").await;
    let response = admin(&app, Method::POST, "/admin/generate_link")
        .body(json!({"type": "signup", "email": "xx:;x@x.x", "password": "secret1"}).to_string())
        .send()
        .await
        .unwrap();
    let body = assert_error(response, 400, "validation_failed").await;
    assert_eq!(
        body["message"],
        "Unable to validate email address: invalid format"
    );
}

#[tokio::test]
async fn an_invitation_mails_a_link_that_signs_the_new_user_in() {
    let app = spawn_app().await;
    let email = unique_email();
    let invited = admin(&app, Method::POST, "/invite")
        .header("Accept-Language", "en")
        .body(json!({"email": email, "data": {"team": "OOH"}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(invited.status(), 200);
    let user: Value = invited.json().await.unwrap();
    assert!(user["invited_at"].is_string());
    assert_eq!(user["user_metadata"], json!({"team": "OOH"}));

    let mails = wait_for_mails(&app, 1).await;
    assert!(
        mails[0].contains("You are invited to Regard"),
        "{}",
        mails[0]
    );
    let (link, _code) = link_and_code(&mails[0]);
    assert!(link.contains("type=invite"), "{link}");
    let response = app.get_url(&path_of(&link)).await;
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let params = fragment_params(&location);
    assert_eq!(params["type"], "invite");
    let token = params["access_token"].as_str().unwrap();
    let me: Value = app
        .with_token(Method::GET, "/auth/v1/user", token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["email"], email);
    assert!(me["email_confirmed_at"].is_string());

    // Inviting an address that already has a confirmed account is refused.
    let again = admin(&app, Method::POST, "/invite")
        .body(json!({"email": email}).to_string())
        .send()
        .await
        .unwrap();
    assert_error(again, 422, "email_exists").await;
}

#[tokio::test]
async fn an_admin_lists_and_removes_a_users_factors() {
    let app = spawn_app().await;
    let session = app.sign_up(&unique_email(), "secret1").await;
    let id = session["user"]["id"].as_str().unwrap().to_owned();
    let token = session["access_token"].as_str().unwrap();
    let enrolled = app
        .with_token(Method::POST, "/auth/v1/factors", token)
        .body(json!({"factor_type": "totp"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(enrolled.status(), 200);
    let factor: Value = enrolled.json().await.unwrap();

    let list = admin_json(
        &app,
        Method::GET,
        &format!("/admin/users/{id}/factors"),
        json!({}),
    )
    .await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], factor["id"]);

    let path = format!(
        "/admin/users/{id}/factors/{}",
        factor["id"].as_str().unwrap()
    );
    let deleted = admin_json(&app, Method::DELETE, &path, json!({})).await;
    assert_eq!(deleted["id"], factor["id"]);
    let list = admin_json(
        &app,
        Method::GET,
        &format!("/admin/users/{id}/factors"),
        json!({}),
    )
    .await;
    assert_eq!(list, json!([]));
    let again = admin(&app, Method::DELETE, &path).send().await.unwrap();
    assert_error(again, 404, "mfa_factor_not_found").await;
}
