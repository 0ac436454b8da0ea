//! Test harness: `spawn_app()` starts the real server on a random port with a fresh data
//! folder and a fresh database (SQLite by default; PostgreSQL when `REGARD_TEST_DATABASE_URL`
//! names an admin URL, one database per test, dropped afterwards).

use std::path::PathBuf;

use regard::state::AppState;
use regard::{Application, Config};
use reqwest::{RequestBuilder, Response};
use serde_json::{Value, json};

use crate::postgres::PostgresDb;
use crate::sse::EventStream;

/// A running server and what it needs to stay alive.
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub address: String,
    pub client: reqwest::Client,
    /// The web build served by this instance (index.html and one hashed asset).
    pub web_dir: PathBuf,
    /// The server's state, for tests that reach into the database.
    pub state: AppState,
    _data_dir: tempfile::TempDir,
    postgres: Option<PostgresDb>,
}

/// The default test configuration: no rate limits unless a test sets them, and no job
/// workers: jobs run when the test drains the queue ([`TestApp::drain_jobs`],
/// [`TestApp::until_finished`]), in the test's own task, so no job runs unless a test needs it.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// A server with job workers (one per CPU, as `regard serve` starts), for the tests about what
/// workers do on their own: live progress, jobs running while the API answers.
pub async fn spawn_app_with_workers() -> TestApp {
    spawn_app_with(|config| config.no_worker = false).await
}

/// Starts a server after `adjust` has changed the test configuration.
pub async fn spawn_app_with(adjust: impl FnOnce(&mut Config)) -> TestApp {
    // `TEST_LOG=1` shows the server's logs (silent by default).
    if std::env::var_os("TEST_LOG").is_some() {
        regard::telemetry::init(regard::config::LogFormat::Text);
    }
    let data_dir = tempfile::tempdir().expect("temporary data dir");
    let web_dir = data_dir.path().join("web");
    std::fs::create_dir_all(web_dir.join("assets")).unwrap();
    std::fs::write(
        web_dir.join("index.html"),
        "<!doctype html><html><body><div id=\"root\"></div></body></html>",
    )
    .unwrap();
    std::fs::write(
        web_dir.join("assets/index-abc123.js"),
        "console.log('regard');",
    )
    .unwrap();

    let mut config = Config::for_data_dir(data_dir.path().join("data"));
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.web_dir = web_dir.clone();
    config.rate_limit_sign_in = 0;
    config.rate_limit_sign_up = 0;
    config.rate_limit_uploads = 0;
    config.no_worker = true;
    let postgres = match std::env::var("REGARD_TEST_DATABASE_URL") {
        Ok(admin_url) if !admin_url.is_empty() => Some(PostgresDb::create(&admin_url).await),
        _ => None,
    };
    if let Some(db) = &postgres {
        config.database_url = Some(regard::config::Secret::new(db.url.clone()));
    }
    // `REGARD_TEST_S3` (scripts/s3-test-server.sh) switches media storage to S3, under a key
    // prefix of this test's own so that tests can list "their" objects.
    config.storage_url = std::env::var("REGARD_TEST_S3")
        .ok()
        .filter(|v| !v.is_empty())
        .map(|endpoint| {
            let bucket =
                std::env::var("REGARD_TEST_S3_BUCKET").unwrap_or_else(|_| "regard-test".to_owned());
            format!(
                "s3://{bucket}/api-{}?endpoint={endpoint}&region=us-east-1",
                uuid::Uuid::new_v4().simple()
            )
        });
    adjust(&mut config);

    let app = Application::build(config)
        .await
        .expect("application builds");
    let address = format!("http://{}", app.address());
    let state = app.state().clone();
    tokio::spawn(app.run_until(std::future::pending()));
    TestApp {
        address,
        client: {
            regard::tls::install_provider();
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap()
        },
        web_dir,
        state,
        _data_dir: data_dir,
        postgres,
    }
}

impl TestApp {
    /// Absolute URL of a path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// A request with the headers supabase-js always sends (apikey, dated API version, JSON
    /// content type), without `Authorization`.
    pub fn base_request(&self, method: reqwest::Method, path: &str) -> RequestBuilder {
        self.client
            .request(method, self.url(path))
            .header("apikey", "anon-key")
            .header("X-Supabase-Api-Version", "2024-01-01")
            .header("Content-Type", "application/json;charset=UTF-8")
    }

    /// A request as supabase-js sends it before sign-in: the anon key as bearer token too.
    pub fn auth_request(&self, method: reqwest::Method, path: &str) -> RequestBuilder {
        self.base_request(method, path).bearer_auth("anon-key")
    }

    /// POST a JSON body to an auth path.
    pub async fn post(&self, path: &str, body: &Value) -> Response {
        self.auth_request(reqwest::Method::POST, path)
            .body(body.to_string())
            .send()
            .await
            .expect("request sent")
    }

    /// Signs up and returns the session JSON (panics on failure).
    pub async fn sign_up(&self, email: &str, password: &str) -> Value {
        crate::client::sign_up(&self.client, &self.address, email, password).await
    }

    /// Password sign-in; returns the raw response.
    pub async fn sign_in(&self, email: &str, password: &str) -> Response {
        self.post(
            "/auth/v1/token?grant_type=password",
            &json!({"email": email, "password": password}),
        )
        .await
    }

    /// Refresh grant; returns the raw response.
    pub async fn refresh(&self, refresh_token: &str) -> Response {
        self.post(
            "/auth/v1/token?grant_type=refresh_token",
            &json!({"refresh_token": refresh_token}),
        )
        .await
    }

    /// A request with a bearer access token.
    pub fn with_token(
        &self,
        method: reqwest::Method,
        path: &str,
        access_token: &str,
    ) -> RequestBuilder {
        self.base_request(method, path).bearer_auth(access_token)
    }
}

/// A signed-in user of the `/api/v1` tests.
pub struct User {
    pub token: String,
}

impl TestApp {
    /// Signs up a fresh user.
    pub async fn new_user(&self) -> User {
        let session = self.sign_up(&unique_email(), "secret1").await;
        User {
            token: session["access_token"].as_str().unwrap().to_owned(),
        }
    }

    /// An `/api/v1` request with the user's bearer token.
    pub fn api(&self, method: reqwest::Method, path: &str, user: &User) -> RequestBuilder {
        self.client
            .request(method, self.url(&format!("/api/v1{path}")))
            .bearer_auth(&user.token)
    }

    /// Sends a JSON body to an `/api/v1` path.
    pub async fn api_json(
        &self,
        method: reqwest::Method,
        path: &str,
        user: &User,
        body: &Value,
    ) -> Response {
        self.api(method, path, user)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    /// A bodiless `/api/v1` request.
    pub async fn api_send(&self, method: reqwest::Method, path: &str, user: &User) -> Response {
        self.api(method, path, user)
            .send()
            .await
            .expect("request sent")
    }

    /// `POST /api/v1/media` with `data` as the multipart field `file`.
    pub async fn upload(&self, user: &User, file_name: &str, data: Vec<u8>) -> Response {
        crate::client::upload(&self.client, &self.address, &user.token, file_name, data).await
    }

    /// Uploads and returns the media JSON (panics unless 201).
    pub async fn upload_ok(&self, user: &User, file_name: &str, data: Vec<u8>) -> Value {
        let response = self.upload(user, file_name, data).await;
        assert_eq!(response.status(), 201, "upload of {file_name} failed");
        response.json().await.unwrap()
    }

    /// Uploads an image and makes a creative of it; returns the creative JSON.
    pub async fn creative(&self, user: &User, body: Value) -> Value {
        let media = self
            .upload_ok(user, "poster.png", crate::fixtures::png(64, 48))
            .await;
        self.creative_of(user, &media, body).await
    }

    /// Makes a creative of an uploaded media (`body`: its other fields); returns its JSON.
    pub async fn creative_of(&self, user: &User, media: &Value, body: Value) -> Value {
        let mut body = body;
        body["media_id"] = media["id"].clone();
        let response = self
            .api_json(reqwest::Method::POST, "/creatives", user, &body)
            .await;
        assert_eq!(response.status(), 201, "creating a creative failed");
        response.json().await.unwrap()
    }

    /// Makes a heatmap of these media, in order; returns its JSON (panics unless 202).
    pub async fn heatmap(&self, user: &User, name: &str, media: &[&Value]) -> Value {
        let ids: Vec<&Value> = media.iter().map(|m| &m["id"]).collect();
        let body = serde_json::json!({"name": name, "media_ids": ids});
        let response = self
            .api_json(reqwest::Method::POST, "/heatmaps", user, &body)
            .await;
        assert_eq!(response.status(), 202, "creating heatmap {name}");
        response.json().await.unwrap()
    }

    /// GET of a server-relative URL (a signed media URL), without any token.
    pub async fn get_url(&self, path: &str) -> Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request sent")
    }

    /// Number of media rows, all users together.
    pub async fn media_rows(&self) -> i64 {
        regard::db::media::count_all(&self.state.db).await.unwrap()
    }

    /// Runs every ready job now, in this task, as a worker would (servers start without
    /// workers unless a test asks for them); returns how many ran.
    pub async fn drain_jobs(&self) -> usize {
        regard::jobs::run_ready(&self.state.job_context()).await
    }

    /// Reads `events` until each of `item_ids` has finished, as [`EventStream::until_finished`];
    /// on a server without workers (the default) the ready jobs are run first, here.
    pub async fn until_finished(&self, events: &mut EventStream, item_ids: &[&str]) -> Vec<Value> {
        if self.state.config.no_worker {
            self.drain_jobs().await;
        }
        events.until_finished(item_ids).await
    }

    /// Every object in this server's media storage.
    pub async fn objects(&self) -> Vec<String> {
        self.state.storage.list().await.unwrap()
    }
}

/// Asserts an `/api/v1` error: status, code, and the `{code, message, details}` shape.
pub async fn assert_api_error(response: Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status(), status, "unexpected status");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "unexpected error body {body}");
    assert!(body["message"].is_string(), "message missing in {body}");
    assert!(body["details"].is_object(), "details missing in {body}");
    body
}

/// Asserts a 422 `validation_failed` whose `details.fields` is exactly `fields`.
pub async fn assert_fields(response: Response, fields: Value) {
    let body = assert_api_error(response, 422, "validation_failed").await;
    assert_eq!(body["details"]["fields"], fields, "{body}");
}

/// Asserts the status and the dated-format error code, and returns the body.
pub async fn assert_error(response: Response, status: u16, code: &str) -> Value {
    assert_eq!(response.status(), status, "unexpected status");
    assert_eq!(
        response
            .headers()
            .get("x-supabase-api-version")
            .map(|v| v.to_str().unwrap().to_owned()),
        Some("2024-01-01".to_owned()),
        "dated errors echo the API version"
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "unexpected error body {body}");
    assert!(body["message"].is_string(), "message missing in {body}");
    body
}

/// The `Retry-After` of a 429 answer, in seconds (asserted present and at least 1).
pub fn retry_after(response: &Response) -> u64 {
    let seconds: u64 = response
        .headers()
        .get("retry-after")
        .expect("a 429 says when to retry")
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(seconds >= 1);
    seconds
}

/// One answer of a [`burst`]: status, error code (dated format, empty for a success) and
/// `Retry-After` when present.
#[derive(Debug, Clone)]
pub struct BurstAnswer {
    pub status: u16,
    pub code: String,
    pub retry_after: Option<u64>,
}

/// Sends all `requests` at once (concurrently, not one after the other) and returns their
/// answers in the same order.
pub async fn burst(requests: Vec<RequestBuilder>) -> Vec<BurstAnswer> {
    futures::future::join_all(requests.into_iter().map(|request| async move {
        let response = request.send().await.expect("request sent");
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()?.parse().ok());
        let body: Value = response.json().await.unwrap_or(Value::Null);
        BurstAnswer {
            status,
            code: body["code"].as_str().unwrap_or_default().to_owned(),
            retry_after,
        }
    }))
    .await
}

/// The `name` of each item of a list answer, in order.
pub fn names(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The SMS in the development outbox, oldest first, as written (`{to, body, ...}`).
pub fn outbox_sms_json(app: &TestApp) -> Vec<Value> {
    let dir = app.state.config.data_dir.join("outbox");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        })
        .unwrap_or_default();
    names.retain(|name| name.starts_with("sms-") && name.ends_with(".json"));
    names.sort();
    names
        .iter()
        .map(|name| serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap())
        .collect()
}

/// The SMS in the development outbox, oldest first: `(to, body)`.
pub fn outbox_sms(app: &TestApp) -> Vec<(String, String)> {
    outbox_sms_json(app)
        .iter()
        .map(|sms| {
            (
                sms["to"].as_str().unwrap().to_owned(),
                sms["body"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The 6-digit code in a message.
pub fn six_digits(text: &str) -> String {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|w| w.len() == 6)
        .expect("a 6-digit code")
        .to_owned()
}

/// A unique French mobile number (E.164) for a test.
pub fn unique_phone() -> String {
    format!("+336{:08}", uuid::Uuid::new_v4().as_u128() % 100_000_000)
}

/// A unique email address for a test.
pub fn unique_email() -> String {
    format!("user-{}@example.com", uuid::Uuid::new_v4().simple())
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // Dropping `postgres` drops the database; kept explicit for readability.
        self.postgres.take();
    }
}

impl TestApp {
    /// Opens the user's event stream and waits for its `ready` event, after which every event
    /// of the user is delivered.
    pub async fn events(&self, user: &User) -> EventStream {
        let response = self
            .api(reqwest::Method::GET, "/events", user)
            .send()
            .await
            .expect("request sent");
        assert_eq!(response.status(), 200, "GET /api/v1/events");
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(
            content_type.starts_with("text/event-stream"),
            "content type {content_type}"
        );
        EventStream::open(response).await
    }
}

/// The payload of a JWT (not verified: the tests only read what the server wrote).
pub fn jwt_claims(jwt: &str) -> Value {
    use base64::Engine;
    let payload = jwt.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// The TOTP code of `secret` for the time step `step_offset` steps from now (RFC 6238 with
/// totp-rs, independent of the server's own check).
pub fn totp_code(secret: &str, step_offset: i64) -> String {
    let totp = totp_rs::Builder::new()
        .with_algorithm(totp_rs::Algorithm::SHA1)
        .with_digits(6)
        .with_skew(1)
        .with_step_duration(30)
        .with_secret(totp_rs::Secret::try_from_base32(secret).unwrap())
        .with_account_name("test")
        .build()
        .unwrap();
    let now = chrono::Utc::now().timestamp() + step_offset * 30;
    totp.generate(u64::try_from(now).unwrap()).to_string()
}

impl TestApp {
    /// `user` with a verified authenticator app: the session is raised to aal2 by the first
    /// code, and the user as that session.
    pub async fn with_totp(&self, user: &User) -> User {
        let post = |path: &str, body: Value| {
            self.with_token(reqwest::Method::POST, path, &user.token)
                .body(body.to_string())
                .send()
        };
        let factor: Value = post(
            "/auth/v1/factors",
            json!({"factor_type": "totp", "friendly_name": "Phone"}),
        )
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        let id = factor["id"].as_str().unwrap();
        let secret = factor["totp"]["secret"].as_str().unwrap();
        let challenge: Value = post(&format!("/auth/v1/factors/{id}/challenge"), json!({}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let session: Value = post(
            &format!("/auth/v1/factors/{id}/verify"),
            json!({"challenge_id": challenge["id"], "code": totp_code(secret, 0)}),
        )
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        User {
            token: session["access_token"].as_str().unwrap().to_owned(),
        }
    }
}
