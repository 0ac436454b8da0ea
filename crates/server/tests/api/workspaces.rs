//! Workspaces (issue 29): the personal workspace, shared ones with members, roles and
//! invitations, `X-Workspace-Id` on the library routes, and the authorisation matrix: every
//! operation of the OpenAPI document × {owner, editor, viewer, outsider, removed member}.

use reqwest::{Method, RequestBuilder, Response};
use serde_json::{Value, json};

use crate::fixtures::png;
use crate::helpers::{TestApp, User, assert_api_error, jwt_claims, spawn_app, unique_email};
use crate::mail_links::{outbox_mails, wait_for_mails};

/// A signed-up user with their address.
struct Person {
    user: User,
    email: String,
    id: String,
}

async fn person(app: &TestApp) -> Person {
    let email = unique_email();
    let session = app.sign_up(&email, "secret1").await;
    let token = session["access_token"].as_str().unwrap().to_owned();
    let id = jwt_claims(&token)["sub"].as_str().unwrap().to_owned();
    Person {
        user: User { token },
        email,
        id,
    }
}

/// An `/api/v1` request acting in workspace `ws`.
fn in_ws(app: &TestApp, method: Method, path: &str, who: &Person, ws: &str) -> RequestBuilder {
    app.api(method, path, &who.user)
        .header("X-Workspace-Id", ws)
}

async fn send_json(request: RequestBuilder, body: &Value) -> Response {
    request.json(body).send().await.expect("request sent")
}

/// Creates a shared workspace owned by `owner`; returns its id.
async fn shared_workspace(app: &TestApp, owner: &Person, name: &str) -> String {
    let response = app
        .api_json(
            Method::POST,
            "/workspaces",
            &owner.user,
            &json!({ "name": name }),
        )
        .await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["name"], name);
    assert_eq!(body["role"], "owner");
    assert_eq!(body["personal"], false);
    body["id"].as_str().unwrap().to_owned()
}

/// The invitation token of the newest mail to `email`.
pub(crate) fn invitation_token(app: &TestApp, email: &str) -> String {
    let mails = outbox_mails(app);
    let mail = mails
        .iter()
        .rev()
        .find(|mail| mail.contains(email))
        .expect("an invitation mail");
    let start = mail.find("/invitations/").expect("an invitation link") + "/invitations/".len();
    mail[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect()
}

/// Invites `who` into `ws` as `role` (by `owner`) and accepts; returns the mail's text.
async fn join(app: &TestApp, owner: &Person, ws: &str, who: &Person, role: &str) -> String {
    let before = outbox_mails(app).len();
    let response = app
        .api_json(
            Method::POST,
            &format!("/workspaces/{ws}/invitations"),
            &owner.user,
            &json!({ "email": who.email, "role": role }),
        )
        .await;
    assert_eq!(response.status(), 201);
    let invitation: Value = response.json().await.unwrap();
    assert_eq!(invitation["email"], who.email.as_str());
    assert_eq!(invitation["role"], role);
    let mails = wait_for_mails(app, before + 1).await;
    let token = invitation_token(app, &who.email);
    let response = app
        .api_send(
            Method::POST,
            &format!("/invitations/{token}/accept"),
            &who.user,
        )
        .await;
    assert_eq!(response.status(), 200);
    let joined: Value = response.json().await.unwrap();
    assert_eq!(joined, json!({ "workspace_id": ws, "role": role }));
    mails.last().unwrap().clone()
}

#[tokio::test]
async fn every_account_has_its_personal_workspace_whose_id_is_its_own() {
    let app = spawn_app().await;
    let me = person(&app).await;
    let response = app.api_send(Method::GET, "/workspaces", &me.user).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({ "items": [{ "id": me.id, "name": "", "role": "owner", "personal": true }] })
    );
    // Naming it in the header is the same as not naming it.
    app.creative(&me.user, json!({ "name": "Mine" })).await;
    let named: Value = in_ws(&app, Method::GET, "/creatives", &me, &me.id)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(named["items"].as_array().unwrap().len(), 1);
    // It is the account's alone: not deleted, not shared, not left.
    let response = app
        .api_send(Method::DELETE, &format!("/workspaces/{}", me.id), &me.user)
        .await;
    assert_api_error(response, 409, "personal_workspace").await;
    let response = app
        .api_json(
            Method::POST,
            &format!("/workspaces/{}/invitations", me.id),
            &me.user,
            &json!({ "email": unique_email(), "role": "editor" }),
        )
        .await;
    assert_api_error(response, 409, "personal_workspace").await;
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/workspaces/{}/members/{}", me.id, me.id),
            &me.user,
        )
        .await;
    assert_api_error(response, 409, "personal_workspace").await;
}

#[tokio::test]
async fn members_share_one_library_and_each_role_does_what_it_may() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let editor = person(&app).await;
    let viewer = person(&app).await;
    let outsider = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Agence Lumière").await;
    let mail = join(&app, &owner, &ws, &editor, "editor").await;
    assert!(
        mail.contains("Agence Lumi"),
        "the mail names the workspace: {mail}"
    );
    assert!(mail.contains(&owner.email), "the mail names who invites");
    join(&app, &owner, &ws, &viewer, "viewer").await;

    // The editor adds a creative to the workspace: every member sees it, in the workspace only.
    let media = in_ws(&app, Method::POST, "/media", &editor, &ws)
        .multipart(
            reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(png(40, 30))
                    .file_name("shared.png")
                    .mime_str("image/png")
                    .unwrap(),
            ),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(media.status(), 201);
    let media: Value = media.json().await.unwrap();
    let creative = send_json(
        in_ws(&app, Method::POST, "/creatives", &editor, &ws),
        &json!({ "media_id": media["id"], "name": "Affiche partagée" }),
    )
    .await;
    assert_eq!(creative.status(), 201);
    let creative: Value = creative.json().await.unwrap();
    let id = creative["id"].as_str().unwrap();
    for who in [&owner, &editor, &viewer] {
        let list: Value = in_ws(&app, Method::GET, "/creatives", who, &ws)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(list["items"][0]["id"], id);
        let personal: Value = app
            .api_send(Method::GET, "/creatives", &who.user)
            .await
            .json()
            .await
            .unwrap();
        assert!(personal["items"].as_array().unwrap().is_empty());
    }

    // A viewer reads but changes nothing.
    let response = in_ws(&app, Method::GET, &format!("/creatives/{id}"), &viewer, &ws)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let response = send_json(
        in_ws(
            &app,
            Method::PATCH,
            &format!("/creatives/{id}"),
            &viewer,
            &ws,
        ),
        &json!({ "name": "Renamed" }),
    )
    .await;
    assert_api_error(response, 403, "forbidden_role").await;
    let response = in_ws(
        &app,
        Method::DELETE,
        &format!("/creatives/{id}"),
        &viewer,
        &ws,
    )
    .send()
    .await
    .unwrap();
    assert_api_error(response, 403, "forbidden_role").await;

    // Someone outside gets what an unknown workspace gets, and the item's id tells nothing.
    let response = in_ws(&app, Method::GET, "/creatives", &outsider, &ws)
        .send()
        .await
        .unwrap();
    assert_api_error(response, 404, "not_found").await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let response = in_ws(&app, Method::GET, "/creatives", &outsider, &unknown)
        .send()
        .await
        .unwrap();
    assert_api_error(response, 404, "not_found").await;
    let response = app
        .api_send(Method::GET, &format!("/creatives/{id}"), &outsider.user)
        .await;
    assert_api_error(response, 404, "not_found").await;

    // Members are listed for every member; only owners manage them.
    let members: Value = app
        .api_send(
            Method::GET,
            &format!("/workspaces/{ws}/members"),
            &viewer.user,
        )
        .await
        .json()
        .await
        .unwrap();
    let roles: Vec<(&str, &str)> = members["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["email"].as_str().unwrap(), m["role"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [
            (owner.email.as_str(), "owner"),
            (editor.email.as_str(), "editor"),
            (viewer.email.as_str(), "viewer")
        ]
    );
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/workspaces/{ws}/members/{}", viewer.id),
            &editor.user,
            &json!({ "role": "owner" }),
        )
        .await;
    assert_api_error(response, 403, "forbidden_role").await;
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/workspaces/{ws}"),
            &editor.user,
            &json!({ "name": "Mine now" }),
        )
        .await;
    assert_api_error(response, 403, "forbidden_role").await;

    // The viewer made editor can change things at once.
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/workspaces/{ws}/members/{}", viewer.id),
            &owner.user,
            &json!({ "role": "editor" }),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["role"], "editor");
    let response = send_json(
        in_ws(
            &app,
            Method::PATCH,
            &format!("/creatives/{id}"),
            &viewer,
            &ws,
        ),
        &json!({ "name": "Renamed" }),
    )
    .await;
    assert_eq!(response.status(), 200);

    // A workspace keeps an owner.
    let response = app
        .api_json(
            Method::PATCH,
            &format!("/workspaces/{ws}/members/{}", owner.id),
            &owner.user,
            &json!({ "role": "editor" }),
        )
        .await;
    assert_api_error(response, 409, "last_owner").await;
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/workspaces/{ws}/members/{}", owner.id),
            &owner.user,
        )
        .await;
    assert_api_error(response, 409, "last_owner").await;

    // A removed member loses access at once; a member may leave.
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/workspaces/{ws}/members/{}", editor.id),
            &owner.user,
        )
        .await;
    assert_eq!(response.status(), 204);
    let response = in_ws(&app, Method::GET, &format!("/creatives/{id}"), &editor, &ws)
        .send()
        .await
        .unwrap();
    assert_api_error(response, 404, "not_found").await;
    let listed: Value = app
        .api_send(Method::GET, "/workspaces", &editor.user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        listed["items"].as_array().unwrap().len(),
        1,
        "only the personal one"
    );
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/workspaces/{ws}/members/{}", viewer.id),
            &viewer.user,
        )
        .await;
    assert_eq!(response.status(), 204);

    // Deleting the workspace deletes its library with it.
    let response = app
        .api_send(Method::DELETE, &format!("/workspaces/{ws}"), &owner.user)
        .await;
    assert_eq!(response.status(), 204);
    let response = in_ws(&app, Method::GET, "/creatives", &owner, &ws)
        .send()
        .await
        .unwrap();
    assert_api_error(response, 404, "not_found").await;
    assert_eq!(app.media_rows().await, 0, "its images went with it");
    assert!(app.objects().await.is_empty(), "and their files");
}

#[tokio::test]
async fn an_invitation_is_for_its_address_once_and_for_seven_days() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let invited = person(&app).await;
    let other = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Studio").await;
    let invite = |email: &str, role: &str| {
        app.api(
            Method::POST,
            &format!("/workspaces/{ws}/invitations"),
            &owner.user,
        )
        .json(&json!({ "email": email, "role": role }))
        .send()
    };
    // Bad fields are named.
    let response = invite("not an address", "admin").await.unwrap();
    let body = assert_api_error(response, 422, "validation_failed").await;
    assert_eq!(
        body["details"]["fields"],
        json!({ "email": "invalid_value", "role": "invalid_value" })
    );
    // The address is compared as the sign-in compares it (case, spaces).
    let response = invite(&format!("  {}  ", invited.email.to_uppercase()), "editor")
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let invitation: Value = response.json().await.unwrap();
    wait_for_mails(&app, 1).await;
    let token = invitation_token(&app, &invited.email);
    let pending: Value = app
        .api_send(
            Method::GET,
            &format!("/workspaces/{ws}/invitations"),
            &owner.user,
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pending["items"][0]["id"], invitation["id"]);

    // Another account cannot take it; a made-up token is unknown.
    let accept = |who: &Person, token: &str| {
        app.api(
            Method::POST,
            &format!("/invitations/{token}/accept"),
            &who.user,
        )
        .send()
    };
    assert_api_error(
        accept(&other, &token).await.unwrap(),
        403,
        "invitation_for_another_account",
    )
    .await;
    assert_api_error(accept(&invited, "made-up").await.unwrap(), 404, "not_found").await;
    // Sent again: a new link, the old one dead.
    let response = app
        .api_send(
            Method::POST,
            &format!(
                "/workspaces/{ws}/invitations/{}/resend",
                invitation["id"].as_str().unwrap()
            ),
            &owner.user,
        )
        .await;
    assert_eq!(response.status(), 200);
    wait_for_mails(&app, 2).await;
    let new_token = invitation_token(&app, &invited.email);
    assert_ne!(new_token, token);
    assert_api_error(accept(&invited, &token).await.unwrap(), 404, "not_found").await;
    assert_eq!(accept(&invited, &new_token).await.unwrap().status(), 200);
    // Single use.
    assert_api_error(
        accept(&invited, &new_token).await.unwrap(),
        404,
        "not_found",
    )
    .await;
    // A member's address cannot be invited again.
    let response = invite(&invited.email, "viewer").await.unwrap();
    assert_api_error(response, 409, "already_member").await;

    // Expired after seven days; revoked at once.
    let response = invite(&other.email, "viewer").await.unwrap();
    let late: Value = response.json().await.unwrap();
    wait_for_mails(&app, 3).await;
    let late_token = invitation_token(&app, &other.email);
    sqlx::query("UPDATE workspace_invitations SET expires_at = $1 WHERE id = $2")
        .bind(regard::db::now_ms() - 1)
        .bind(late["id"].as_str().unwrap())
        .execute(app.state.db.pool())
        .await
        .unwrap();
    assert_api_error(
        accept(&other, &late_token).await.unwrap(),
        410,
        "invitation_expired",
    )
    .await;
    let response = app
        .api_send(
            Method::DELETE,
            &format!(
                "/workspaces/{ws}/invitations/{}",
                late["id"].as_str().unwrap()
            ),
            &owner.user,
        )
        .await;
    assert_eq!(response.status(), 204);
    assert_api_error(accept(&other, &late_token).await.unwrap(), 404, "not_found").await;
}

#[tokio::test]
async fn a_removed_members_event_stream_ends_at_once() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let member = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Live").await;
    join(&app, &owner, &ws, &member, "editor").await;
    let response = in_ws(&app, Method::GET, "/events", &member, &ws)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut events = crate::sse::EventStream::open(response).await;
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/workspaces/{ws}/members/{}", member.id),
            &owner.user,
        )
        .await;
    assert_eq!(response.status(), 204);
    // Well before the periodic session check (15 s).
    events
        .end_before(tokio::time::Instant::now() + std::time::Duration::from_secs(5))
        .await;
}

/// The role each person of the matrix has in the workspace (`None`: none).
const PEOPLE: [(&str, Option<&str>); 5] = [
    ("owner", Some("owner")),
    ("editor", Some("editor")),
    ("viewer", Some("viewer")),
    ("outsider", None),
    ("removed", None),
];

/// Tags whose operations do not act in a workspace: the account, the workspaces themselves
/// (their rules are tested above) and the document.
const OUTSIDE_WORKSPACES: [&str; 3] = ["account", "workspaces", "meta"];

#[tokio::test]
async fn every_operation_answers_each_role_as_the_document_says() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let editor = person(&app).await;
    let viewer = person(&app).await;
    let outsider = person(&app).await;
    let removed = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Matrice").await;
    join(&app, &owner, &ws, &editor, "editor").await;
    join(&app, &owner, &ws, &viewer, "viewer").await;
    join(&app, &owner, &ws, &removed, "editor").await;
    let response = app
        .api_send(
            Method::DELETE,
            &format!("/workspaces/{ws}/members/{}", removed.id),
            &owner.user,
        )
        .await;
    assert_eq!(response.status(), 204);

    // One of everything in the workspace, made by its owner.
    let post = |path: &str, body: Value| {
        in_ws(&app, Method::POST, path, &owner, &ws)
            .json(&body)
            .send()
    };
    let upload = |name: &'static str, data: Vec<u8>| {
        in_ws(&app, Method::POST, "/media", &owner, &ws)
            .multipart(reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(data).file_name(name),
            ))
            .send()
    };
    let json_of = |response: Response| async move {
        assert!(
            response.status().is_success(),
            "seeding: {}",
            response.status()
        );
        response.json::<Value>().await.unwrap()
    };
    let id = |v: &Value| v["id"].as_str().unwrap().to_owned();
    let media = json_of(upload("a.png", png(200, 150)).await.unwrap()).await;
    let photo = json_of(
        upload("gare.jpg", crate::fixtures::jpeg(320, 240))
            .await
            .unwrap(),
    )
    .await;
    let creative = json_of(
        post("/creatives", json!({ "media_id": media["id"] }))
            .await
            .unwrap(),
    )
    .await;
    let location = json_of(
        post(
            "/locations",
            json!({
                "name": "Gare", "format": "billboard_4x3", "photo_media_id": photo["id"],
                "panel_quad": [[0.2, 0.2], [0.8, 0.25], [0.8, 0.75], [0.2, 0.8]],
            }),
        )
        .await
        .unwrap(),
    )
    .await;
    let simulation = json_of(
        post(
            "/simulations",
            json!({ "creative_id": creative["id"], "location_id": location["id"] }),
        )
        .await
        .unwrap(),
    )
    .await;
    let plan = json_of(
        post(
            "/plans",
            json!({ "name": "P", "creative_id": creative["id"], "location_ids": [location["id"]],
                    "start_date": "2027-01-01", "end_date": "2027-01-14" }),
        )
        .await
        .unwrap(),
    )
    .await;
    let heatmap = json_of(
        post(
            "/heatmaps",
            json!({ "name": "H", "media_ids": [media["id"]] }),
        )
        .await
        .unwrap(),
    )
    .await;
    app.drain_jobs().await;
    let heatmap = json_of(
        in_ws(
            &app,
            Method::GET,
            &format!("/heatmaps/{}", id(&heatmap)),
            &owner,
            &ws,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    let item = heatmap["items"][0]["id"].as_str().unwrap().to_owned();
    let aoi = json_of(
        post(
            &format!("/heatmaps/{}/items/{item}/aois", id(&heatmap)),
            json!({ "name": "Logo", "rect": { "x": 0.1, "y": 0.1, "width": 0.3, "height": 0.2 } }),
        )
        .await
        .unwrap(),
    )
    .await;
    let share = json_of(
        post(&format!("/heatmaps/{}/shares", id(&heatmap)), json!({}))
            .await
            .unwrap(),
    )
    .await;

    // A concrete path of each template: the workspace's own ids (a random one for a deletion,
    // which must not take the seeded item away from the roles after it).
    let concrete = |template: &str, method: &str| -> String {
        let first = template.split('/').nth(1).unwrap_or("");
        let own = match first {
            "media" => id(&media),
            "creatives" => id(&creative),
            "locations" => id(&location),
            "simulations" => id(&simulation),
            "plans" => id(&plan),
            "heatmaps" => id(&heatmap),
            _ => String::new(),
        };
        let random = uuid::Uuid::new_v4().to_string();
        let last = template.rsplit('/').next().unwrap_or("");
        let deleting = method == "delete" && last.starts_with('{');
        let mut path = template
            .replace("{item_id}", &item)
            .replace("{aoi_id}", &id(&aoi))
            .replace("{share_id}", &id(&share));
        if deleting {
            // The id the deletion names is a random one.
            let at = path.rfind('/').unwrap();
            path = format!("{}/{random}", &path[..at]);
        }
        path.replace("{id}", &own)
    };

    let doc = regard::http::api::openapi();
    let people = [&owner, &editor, &viewer, &outsider, &removed];
    let mut checked = 0;
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let name = format!("{} {template}", method.to_uppercase());
            let public = operation["security"] == json!([{}]);
            let tag = operation["tags"][0].as_str().unwrap();
            let Some(roles) = operation["x-workspace-roles"].as_array() else {
                assert!(
                    public
                        || OUTSIDE_WORKSPACES.contains(&tag)
                        || operation["operationId"].as_str().unwrap().contains("help"),
                    "{name} neither acts in a workspace nor is known to stand outside them"
                );
                continue;
            };
            let documented = operation["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == "X-Workspace-Id" && p["in"] == "header");
            assert!(documented, "{name} documents X-Workspace-Id");
            let path = concrete(template, method);
            let method: Method = method.to_uppercase().parse().unwrap();
            for ((label, role), who) in PEOPLE.iter().zip(people) {
                let request = in_ws(&app, method.clone(), &path, who, &ws);
                let request = if method == Method::GET || method == Method::DELETE {
                    request
                } else {
                    request.json(&json!({}))
                };
                let response = request.send().await.unwrap();
                let status = response.status().as_u16();
                let code = if status >= 400 {
                    response
                        .json::<Value>()
                        .await
                        .map(|b| b["code"].clone())
                        .unwrap_or_default()
                } else {
                    Value::Null
                };
                let allowed = role.is_some_and(|r| roles.iter().any(|x| x == r));
                match (role, allowed) {
                    (None, _) => assert_eq!(
                        (status, code.as_str()),
                        (404, Some("not_found")),
                        "{name} as {label}"
                    ),
                    (Some(_), false) => assert_eq!(
                        (status, code.as_str()),
                        (403, Some("forbidden_role")),
                        "{name} as {label}"
                    ),
                    (Some(_), true) if method == Method::DELETE => {
                        assert_ne!(status, 403, "{name} as {label}: {code}")
                    }
                    (Some(_), true) => assert!(
                        status != 403 && status != 404,
                        "{name} as {label}: {status} {code}"
                    ),
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} operations checked");
}

/// Seeds a heatmap (done) and a simulation in `ws`, made by `who`; returns their ids.
async fn results(app: &TestApp, who: &Person, ws: &str) -> (String, String) {
    let upload = |name: &'static str, data: Vec<u8>| {
        in_ws(app, Method::POST, "/media", who, ws)
            .multipart(reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(data).file_name(name),
            ))
            .send()
    };
    let media: Value = upload("a.png", png(120, 90))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let photo: Value = upload("gare.jpg", crate::fixtures::jpeg(160, 120))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let post = |path: &str, body: Value| in_ws(app, Method::POST, path, who, ws).json(&body).send();
    let heatmap: Value = post(
        "/heatmaps",
        json!({ "name": "Campagne été", "media_ids": [media["id"]] }),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let creative: Value = post("/creatives", json!({ "media_id": media["id"] }))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let location: Value = post(
        "/locations",
        json!({
            "name": "Gare", "format": "billboard_4x3", "photo_media_id": photo["id"],
            "panel_quad": [[0.2, 0.2], [0.8, 0.25], [0.8, 0.75], [0.2, 0.8]],
        }),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let simulation: Value = post(
        "/simulations",
        json!({ "creative_id": creative["id"], "location_id": location["id"], "render": false }),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    (
        heatmap["id"].as_str().unwrap().to_owned(),
        simulation["id"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn members_comment_mention_and_approve_results() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let client = person(&app).await;
    let outsider = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Revue").await;
    join(&app, &owner, &ws, &client, "viewer").await;
    let (heatmap, simulation) = results(&app, &owner, &ws).await;
    for base in [
        format!("/heatmaps/{heatmap}"),
        format!("/simulations/{simulation}"),
    ] {
        let mails_before = outbox_mails(&app).len();
        // The client (a viewer) comments and mentions the owner, who gets a mail.
        let response = send_json(
            in_ws(&app, Method::POST, &format!("{base}/comments"), &client, &ws),
            &json!({ "body": format!("Le logo est trop petit, @{} ?", owner.email.to_uppercase()) }),
        )
        .await;
        assert_eq!(response.status(), 201);
        let comment: Value = response.json().await.unwrap();
        assert_eq!(comment["author"]["email"], client.email.as_str());
        assert_eq!(comment["mentions"], json!([owner.id]));
        let mails = wait_for_mails(&app, mails_before + 1).await;
        let mail = mails.last().unwrap();
        assert!(
            mail.contains(&owner.email) && mail.contains("Le logo est trop petit"),
            "{mail}"
        );
        assert!(
            mail.contains(&format!("ws={ws}")),
            "the link opens the workspace: {mail}"
        );
        let response = send_json(
            in_ws(&app, Method::POST, &format!("{base}/comments"), &owner, &ws),
            &json!({ "body": "Corrigé." }),
        )
        .await;
        let reply: Value = response.json().await.unwrap();
        assert_eq!(reply["mentions"], json!([]));
        let listed: Value = in_ws(&app, Method::GET, &format!("{base}/comments"), &client, &ws)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let bodies: Vec<&str> = listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["body"].as_str().unwrap())
            .collect();
        assert_eq!(bodies.len(), 2);
        assert_eq!(bodies[1], "Corrigé.");
        // Only its author or an owner deletes a comment.
        let response = in_ws(
            &app,
            Method::DELETE,
            &format!("{base}/comments/{}", reply["id"].as_str().unwrap()),
            &client,
            &ws,
        )
        .send()
        .await
        .unwrap();
        assert_api_error(response, 403, "forbidden_role").await;
        let response = in_ws(
            &app,
            Method::DELETE,
            &format!("{base}/comments/{}", comment["id"].as_str().unwrap()),
            &owner,
            &ws,
        )
        .send()
        .await
        .unwrap();
        assert_eq!(response.status(), 204);

        // Pending until someone decides; the client approves.
        let approval: Value = in_ws(&app, Method::GET, &format!("{base}/approval"), &owner, &ws)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            approval,
            json!({ "status": "pending", "set_by": null, "set_at": null })
        );
        let response = send_json(
            in_ws(&app, Method::PUT, &format!("{base}/approval"), &client, &ws),
            &json!({ "status": "approved" }),
        )
        .await;
        assert_eq!(response.status(), 200);
        let approval: Value = response.json().await.unwrap();
        assert_eq!(approval["status"], "approved");
        assert_eq!(approval["set_by"]["user_id"], client.id.as_str());
        let response = send_json(
            in_ws(&app, Method::PUT, &format!("{base}/approval"), &owner, &ws),
            &json!({ "status": "accepted" }),
        )
        .await;
        let body = assert_api_error(response, 422, "validation_failed").await;
        assert_eq!(body["details"]["fields"]["status"], "invalid_value");

        // Nobody outside sees any of it.
        let response = in_ws(
            &app,
            Method::GET,
            &format!("{base}/comments"),
            &outsider,
            &ws,
        )
        .send()
        .await
        .unwrap();
        assert_api_error(response, 404, "not_found").await;
        let response = app
            .api_send(Method::GET, &format!("{base}/approval"), &outsider.user)
            .await;
        assert_api_error(response, 404, "not_found").await;
    }
    // Comments and approval go with their subject.
    let response = in_ws(
        &app,
        Method::DELETE,
        &format!("/heatmaps/{heatmap}"),
        &owner,
        &ws,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), 204);
    let left: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM comments WHERE heatmap_id IS NOT NULL")
            .fetch_one(app.state.db.pool())
            .await
            .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn the_activity_says_who_did_what_and_filters() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let editor = person(&app).await;
    let outsider = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Journal").await;
    join(&app, &owner, &ws, &editor, "editor").await;
    let media = in_ws(&app, Method::POST, "/media", &editor, &ws)
        .multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(png(40, 30)).file_name("affiche.png"),
        ))
        .send()
        .await
        .unwrap();
    let media: Value = media.json().await.unwrap();
    let creative: Value = send_json(
        in_ws(&app, Method::POST, "/creatives", &editor, &ws),
        &json!({ "media_id": media["id"], "name": "Soldes" }),
    )
    .await
    .json()
    .await
    .unwrap();
    let id = creative["id"].as_str().unwrap();
    send_json(
        in_ws(
            &app,
            Method::PATCH,
            &format!("/creatives/{id}"),
            &editor,
            &ws,
        ),
        &json!({ "name": "Soldes d'hiver" }),
    )
    .await;
    let response = in_ws(
        &app,
        Method::DELETE,
        &format!("/creatives/{id}"),
        &owner,
        &ws,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(response.status(), 204);

    let activity = |query: &str| {
        app.api(
            Method::GET,
            &format!("/workspaces/{ws}/activity{query}"),
            &editor.user,
        )
        .send()
    };
    let page: Value = activity("").await.unwrap().json().await.unwrap();
    let seen: Vec<(String, String, String, Option<String>)> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["actor"]["email"].as_str().unwrap_or("").to_owned(),
                a["action"].as_str().unwrap().to_owned(),
                a["subject_type"].as_str().unwrap().to_owned(),
                a["subject_name"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let row = |who: &Person, action: &str, subject: &str, name: &str| {
        (
            who.email.clone(),
            action.to_owned(),
            subject.to_owned(),
            Some(name.to_owned()),
        )
    };
    // Newest first.
    assert_eq!(
        seen,
        [
            row(&owner, "deleted", "creative", "Soldes d'hiver"),
            row(&editor, "changed", "creative", "Soldes d'hiver"),
            row(&editor, "created", "creative", "Soldes"),
            row(&editor, "created", "media", "affiche.png"),
            row(&editor, "joined", "member", &editor.email),
            row(&owner, "invited", "invitation", &editor.email),
        ]
    );
    let deleted: Value = activity("?action=deleted")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(deleted["items"].as_array().unwrap().len(), 1);
    let by_owner: Value = activity(&format!("?actor_id={}", owner.id))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(by_owner["items"].as_array().unwrap().len(), 2);
    let about: Value = activity(&format!("?subject_id={id}&subject_type=creative"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(about["items"].as_array().unwrap().len(), 3);
    // Page by page, nothing twice and nothing missed.
    let mut cursor = String::new();
    let mut paged = Vec::new();
    loop {
        let query = if cursor.is_empty() {
            "?limit=4".to_owned()
        } else {
            format!("?limit=4&cursor={cursor}")
        };
        let page: Value = activity(&query).await.unwrap().json().await.unwrap();
        paged.extend(
            page["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a["id"].clone()),
        );
        match page["next_cursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
    }
    let all: Vec<Value> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].clone())
        .collect();
    assert_eq!(paged, all);
    let response = activity("?action=flew").await.unwrap();
    assert_api_error(response, 422, "validation_failed").await;
    let response = app
        .api_send(
            Method::GET,
            &format!("/workspaces/{ws}/activity"),
            &outsider.user,
        )
        .await;
    assert_api_error(response, 404, "not_found").await;
}

#[tokio::test]
async fn a_deleted_owner_hands_their_workspaces_over() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let member = person(&app).await;
    let shared = shared_workspace(&app, &owner, "Transmise").await;
    let lonely = shared_workspace(&app, &owner, "Seule").await;
    join(&app, &owner, &shared, &member, "viewer").await;
    in_ws(&app, Method::POST, "/media", &owner, &lonely)
        .multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(png(30, 20)).file_name("seule.png"),
        ))
        .send()
        .await
        .unwrap();
    let response = crate::admin::admin(&app, Method::DELETE, &format!("/admin/users/{}", owner.id))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // The member who joined first now owns the shared workspace.
    let listed: Value = app
        .api_send(Method::GET, "/workspaces", &member.user)
        .await
        .json()
        .await
        .unwrap();
    let roles: Vec<(&str, &str)> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["id"].as_str().unwrap(), w["role"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [(member.id.as_str(), "owner"), (shared.as_str(), "owner")]
    );
    // The workspace only the deleted account was in went with it, files included.
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM workspaces WHERE id = $1")
        .bind(&lonely)
        .fetch_one(app.state.db.pool())
        .await
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty());
}

#[tokio::test]
async fn an_editor_inherits_a_workspace_before_a_viewer_who_joined_earlier() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let viewer = person(&app).await;
    let editor = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Agence").await;
    join(&app, &owner, &ws, &viewer, "viewer").await;
    join(&app, &owner, &ws, &editor, "editor").await;
    let response = crate::admin::admin(&app, Method::DELETE, &format!("/admin/users/{}", owner.id))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    async fn role(app: &TestApp, who: &Person, ws: &str) -> String {
        let listed: Value = app
            .api_send(Method::GET, "/workspaces", &who.user)
            .await
            .json()
            .await
            .unwrap();
        listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["id"] == ws)
            .map(|w| w["role"].as_str().unwrap().to_owned())
            .unwrap()
    }
    assert_eq!(role(&app, &editor, &ws).await, "owner");
    assert_eq!(role(&app, &viewer, &ws).await, "viewer");
}

/// The `Subject:` lines of the outbox's mails.
fn subjects(app: &TestApp) -> Vec<String> {
    outbox_mails(app)
        .iter()
        .filter_map(|mail| {
            mail.lines()
                .find(|line| line.starts_with("Subject:"))
                .map(str::to_owned)
        })
        .collect()
}

#[tokio::test]
async fn invitations_are_no_mail_relay() {
    // The review's replay: a workspace named as a scam, one address invited and resent 30
    // times, then 20 more addresses: 51 mails before, with the scam in every Subject.
    let app = spawn_app().await;
    let owner = person(&app).await;
    let ws = shared_workspace(
        &app,
        &owner,
        "URGENT: your bank account is locked, call 0800",
    )
    .await;
    let invite = |email: String| {
        app.api(
            Method::POST,
            &format!("/workspaces/{ws}/invitations"),
            &owner.user,
        )
        .header("Accept-Language", "en")
        .json(&json!({ "email": email, "role": "viewer" }))
        .send()
    };
    let response = invite("victim@example.com".into()).await.unwrap();
    assert_eq!(response.status(), 201);
    let invitation: Value = response.json().await.unwrap();
    let resend = format!(
        "/workspaces/{ws}/invitations/{}/resend",
        invitation["id"].as_str().unwrap()
    );
    let mut resends = Vec::new();
    for _ in 0..30 {
        let response = app
            .api(Method::POST, &resend, &owner.user)
            .header("Accept-Language", "en")
            .send()
            .await
            .unwrap();
        if response.status() == 429 {
            assert!(response.headers().contains_key("retry-after"));
            assert_api_error(response, 429, "over_email_send_rate_limit").await;
            resends.push(429);
        } else {
            resends.push(response.status().as_u16());
        }
    }
    // Three mails an hour to one address (`REGARD_RATE_LIMIT_INVITATIONS_PER_ADDRESS`).
    assert_eq!(
        resends,
        [[200; 2].as_slice(), [429; 28].as_slice()].concat()
    );
    // Refused resends spent the inviter's own hourly allowance (20): nothing more goes out.
    let mut invites = Vec::new();
    for i in 0..20 {
        let response = invite(format!("target-{i}@example.com")).await.unwrap();
        invites.push(response.status().as_u16());
    }
    assert_eq!(invites, [429; 20]);
    // Another owner inviting a team: twenty an hour (`REGARD_RATE_LIMIT_INVITATIONS`).
    let other = person(&app).await;
    let team = shared_workspace(&app, &other, "Agence").await;
    let mut invites = Vec::new();
    for i in 0..25 {
        let response = app
            .api(
                Method::POST,
                &format!("/workspaces/{team}/invitations"),
                &other.user,
            )
            .header("Accept-Language", "en")
            .json(&json!({ "email": format!("team-{i}@example.com"), "role": "editor" }))
            .send()
            .await
            .unwrap();
        invites.push(response.status().as_u16());
    }
    assert_eq!(
        invites,
        [[201; 20].as_slice(), [429; 5].as_slice()].concat()
    );
    // 51 mails before, the scam in every Subject; now 3 to the victim and the team's 20.
    let subjects = subjects(&app);
    assert_eq!(subjects.len(), 23, "{subjects:?}");
    for subject in &subjects {
        assert_eq!(subject, "Subject: You are invited to a workspace on Regard");
    }
    // The workspace's name is still in the mail's body, as the inviter's words.
    assert!(
        outbox_mails(&app)
            .iter()
            .any(|mail| mail.contains("URGENT"))
    );
}

#[tokio::test]
async fn an_account_creates_a_bounded_number_of_workspaces() {
    let app = crate::helpers::spawn_app_with(|config| config.max_workspaces_per_user = 2).await;
    let owner = person(&app).await;
    shared_workspace(&app, &owner, "Un").await;
    shared_workspace(&app, &owner, "Deux").await;
    let response = app
        .api_json(
            Method::POST,
            "/workspaces",
            &owner.user,
            &json!({ "name": "Trois" }),
        )
        .await;
    let body = assert_api_error(response, 409, "limit_reached").await;
    assert_eq!(body["details"], json!({ "limit": "workspaces", "max": 2 }));
}

#[tokio::test]
async fn mention_mails_are_throttled_per_author_and_comments_still_post() {
    let app = crate::helpers::spawn_app_with(|config| config.rate_limit_mentions = 2).await;
    let owner = person(&app).await;
    let member = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Revue").await;
    join(&app, &owner, &ws, &member, "editor").await;
    let (heatmap, _) = results(&app, &owner, &ws).await;
    let before = outbox_mails(&app).len();
    for i in 0..5 {
        let response = send_json(
            in_ws(
                &app,
                Method::POST,
                &format!("/heatmaps/{heatmap}/comments"),
                &member,
                &ws,
            ),
            &json!({ "body": format!("Relance {i} @{}", owner.email) }),
        )
        .await;
        assert_eq!(response.status(), 201);
    }
    assert_eq!(outbox_mails(&app).len(), before + 2);
    let listed: Value = in_ws(
        &app,
        Method::GET,
        &format!("/heatmaps/{heatmap}/comments"),
        &owner,
        &ws,
    )
    .send()
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(listed["items"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn a_removed_members_file_links_stop_at_once() {
    let app = spawn_app().await;
    let owner = person(&app).await;
    let member = person(&app).await;
    let ws = shared_workspace(&app, &owner, "Agence").await;
    join(&app, &owner, &ws, &member, "editor").await;
    let uploaded: Value = in_ws(&app, Method::POST, "/media", &owner, &ws)
        .multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(png(30, 20)).file_name("affiche.png"),
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = uploaded["id"].as_str().unwrap();
    let read: Value = in_ws(&app, Method::GET, &format!("/media/{id}"), &member, &ws)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let links: Vec<String> = ["original", "preview", "thumbnail"]
        .iter()
        .map(|variant| read["urls"][variant].as_str().unwrap().to_owned())
        .collect();
    for link in &links {
        assert!(link.contains(&format!("&m={}&", member.id)), "{link}");
        assert_eq!(app.get_url(link).await.status(), 200);
    }
    // The owner's own links are theirs, not the member's.
    let own = uploaded["urls"]["preview"].as_str().unwrap();
    assert_ne!(own, links[1]);
    // A link made for the member cannot be turned into the owner's by editing it.
    let forged = links[1].replace(&member.id, &owner.id);
    assert_api_error(app.get_url(&forged).await, 403, "invalid_signature").await;
    let response = app
        .api(
            Method::DELETE,
            &format!("/workspaces/{ws}/members/{}", member.id),
            &owner.user,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    for link in &links {
        assert_api_error(app.get_url(link).await, 404, "not_found").await;
    }
    assert_eq!(app.get_url(own).await.status(), 200);
}
