//! Process-level tests of the job queue (docs/architecture/heatmaps.md): the real `regard`
//! binary, killed in the middle of a job and started again, and several nodes sharing one
//! database and one storage.
//!
//! - SQLite in a temporary data folder by default; `REGARD_TEST_DATABASE_URL` (an admin URL)
//!   gives each test a fresh PostgreSQL database, dropped afterwards.
//! - `REGARD_TEST_S3` (scripts/s3-test-server.sh) puts media on S3, under a key prefix of the
//!   test's own.
//! - The multi-node test needs both (SQLite and local storage are single-node); without them it
//!   says it is skipped and passes.
//!
//! Nothing here sleeps to synchronise: the tests wait for lines in the processes' logs and for
//! server-sent events, each with a timeout. `TEST_LOG=1` echoes the processes' logs.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use sqlx::{AnyConnection, Connection};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::Notify;
use tokio::time::Instant;

#[path = "support/fixtures.rs"]
mod fixtures;
#[path = "support/postgres.rs"]
mod postgres;
#[path = "support/sse.rs"]
mod sse;
#[path = "support/client.rs"]
mod support_client;
use postgres::PostgresDb;
use sse::EventStream;

/// Shared by every process of a test, so a token signed by one node is valid on the others.
const JWT_SECRET: &str = "processes-test-jwt-secret-0123456789abcdef";
/// Start-up: migrations, the PostgreSQL listener, the dummy password hash.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// From a request to the job's outcome (a lease to expire, a claim, the computation).
const JOB_TIMEOUT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// Processes and their logs

/// Lines a process wrote so far (ANSI codes stripped), and how many of its pipes are open.
#[derive(Default)]
struct LogState {
    lines: Vec<String>,
    open_pipes: usize,
}

/// A running `regard` process whose stdout and stderr are read line by line.
struct Process {
    name: String,
    child: Child,
    logs: Arc<Mutex<LogState>>,
    changed: Arc<Notify>,
}

/// Removes ANSI escape sequences (`ESC [ ... final byte`): colours may be on even with
/// `NO_COLOR`.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// The value of `key=` in a log line (up to the next space).
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pattern = format!(" {key}=");
    let start = line.find(&pattern)? + pattern.len();
    let rest = &line[start..];
    Some(
        rest.split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches('"'),
    )
}

impl Process {
    /// Starts `regard <args>` with only the given `REGARD_*` variables (any inherited ones are
    /// removed) and info-level text logs.
    fn spawn(name: &str, args: &[&str], env: &[(String, String)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_regard"));
        command.args(args);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("REGARD_") {
                command.env_remove(key);
            }
        }
        command
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A failing test must not leave servers behind.
            .kill_on_drop(true);
        let mut child = command.spawn().expect("start the regard binary");
        let logs = Arc::new(Mutex::new(LogState {
            lines: Vec::new(),
            open_pipes: 2,
        }));
        let changed = Arc::new(Notify::new());
        let echo = std::env::var_os("TEST_LOG").is_some();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        for pipe in [
            Box::new(stdout) as Box<dyn AsyncRead + Send + Unpin>,
            Box::new(stderr),
        ] {
            let (logs, changed, name) = (Arc::clone(&logs), Arc::clone(&changed), name.to_owned());
            tokio::spawn(async move {
                let mut lines = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let line = strip_ansi(&line);
                    if echo {
                        eprintln!("[{name}] {line}");
                    }
                    logs.lock().unwrap().lines.push(line);
                    changed.notify_waiters();
                }
                logs.lock().unwrap().open_pipes -= 1;
                changed.notify_waiters();
            });
        }
        Self {
            name: name.to_owned(),
            child,
            logs,
            changed,
        }
    }

    /// The last lines of the log, for failure messages.
    fn tail(&self) -> String {
        let logs = self.logs.lock().unwrap();
        let from = logs.lines.len().saturating_sub(60);
        format!(
            "--- last lines of {} ---\n{}",
            self.name,
            logs.lines[from..].join("\n")
        )
    }

    /// Lines logged so far that contain `text`.
    fn lines_with(&self, text: &str) -> Vec<String> {
        let logs = self.logs.lock().unwrap();
        logs.lines
            .iter()
            .filter(|l| l.contains(text))
            .cloned()
            .collect()
    }

    /// Waits for a log line (already written or to come) for which `matches` holds. Panics
    /// with the log's tail on timeout or when the process closes its output first.
    async fn wait_for_line(
        &self,
        what: &str,
        timeout: Duration,
        matches: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            // Registered before looking, so a line written in between still wakes us.
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let logs = self.logs.lock().unwrap();
                if let Some(line) = logs.lines.iter().find(|l| matches(l)) {
                    return line.clone();
                }
                if logs.open_pipes == 0 {
                    drop(logs);
                    panic!(
                        "{} exited before logging {what}\n{}",
                        self.name,
                        self.tail()
                    );
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                panic!(
                    "{} did not log {what} within {timeout:?}\n{}",
                    self.name,
                    self.tail()
                );
            }
        }
    }

    /// SIGKILL, and waits for the process to be gone.
    async fn kill(&mut self) {
        self.child.kill().await.expect("kill the process");
    }
}

/// A `regard serve` process and its address.
struct Server {
    process: Process,
    base: String,
}

impl Server {
    /// Starts `regard serve <extra args>` on a free port and waits until it listens; the
    /// address is read from its `listening` line.
    async fn start(name: &str, extra_args: &[&str], env: &[(String, String)]) -> Self {
        let mut args = vec!["serve"];
        args.extend_from_slice(extra_args);
        let mut env = env.to_vec();
        env.push(("REGARD_BIND".into(), "127.0.0.1:0".into()));
        let process = Process::spawn(name, &args, &env);
        let line = process
            .wait_for_line("its listening address", START_TIMEOUT, |l| {
                l.contains("listening") && field(l, "address").is_some()
            })
            .await;
        let address = field(&line, "address").unwrap().to_owned();
        Self {
            process,
            base: format!("http://{address}"),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

// ---------------------------------------------------------------------------------------------
// Database and storage of a test

/// Where a test's processes keep their data: a temporary folder (web build, data folders),
/// the database (SQLite in the first data folder, or a fresh PostgreSQL database) and the media
/// storage (local, or an S3 prefix of the test's own).
struct Backing {
    dir: tempfile::TempDir,
    postgres: Option<PostgresDb>,
    storage_url: Option<String>,
}

impl Backing {
    async fn new(tag: &str) -> Self {
        let dir = tempfile::tempdir().expect("temporary folder");
        let web = dir.path().join("web");
        std::fs::create_dir_all(&web).unwrap();
        std::fs::write(
            web.join("index.html"),
            "<!doctype html><html><body><div id=\"root\"></div></body></html>",
        )
        .unwrap();
        let postgres = match postgres_admin_url() {
            Some(admin_url) => Some(PostgresDb::create(&admin_url).await),
            None => None,
        };
        let storage_url = s3_endpoint().map(|endpoint| {
            let bucket =
                std::env::var("REGARD_TEST_S3_BUCKET").unwrap_or_else(|_| "regard-test".to_owned());
            format!(
                "s3://{bucket}/processes-{tag}-{}?endpoint={endpoint}&region=us-east-1",
                uuid::Uuid::new_v4().simple()
            )
        });
        Self {
            dir,
            postgres,
            storage_url,
        }
    }

    /// The data folder of one node (`data` for the single-node test).
    fn data_dir(&self, node: &str) -> PathBuf {
        self.dir.path().join(node)
    }

    /// URL of the database the processes share.
    fn database_url(&self) -> String {
        match &self.postgres {
            Some(db) => db.url.clone(),
            None => format!(
                "sqlite://{}",
                self.data_dir("data").join("regard.db").display()
            ),
        }
    }

    /// The `REGARD_*` variables of a process whose data folder is `node`.
    fn env(&self, node: &str) -> Vec<(String, String)> {
        let mut env = vec![
            ("REGARD_DATA_DIR", path_text(&self.data_dir(node))),
            ("REGARD_WEB_DIR", path_text(&self.dir.path().join("web"))),
            ("REGARD_JWT_SECRET", JWT_SECRET.to_owned()),
            ("REGARD_RATE_LIMIT_SIGN_UP", "0".to_owned()),
            ("REGARD_RATE_LIMIT_SIGN_IN", "0".to_owned()),
            ("REGARD_JOB_LEASE_SECS", "2".to_owned()),
            ("REGARD_JOB_POLL_SECS", "0.2".to_owned()),
            ("REGARD_WORKERS", "1".to_owned()),
        ];
        if let Some(db) = &self.postgres {
            env.push(("REGARD_DATABASE_URL", db.url.clone()));
        }
        if let Some(url) = &self.storage_url {
            env.push(("REGARD_STORAGE_URL", url.clone()));
        }
        env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }

    /// The database, through the server's own layer (migrations are already applied).
    async fn db(&self) -> regard::db::Db {
        regard::db::Db::connect(&self.database_url(), 2)
            .await
            .expect("connect to the test database")
    }

    /// Output media rows (kind `heatmap`) of a user.
    async fn heatmap_media_rows(&self, user_id: &str) -> i64 {
        self.media_rows_of_kind(user_id, "heatmap").await
    }

    /// Media rows of one kind (`heatmap`, `render`) of a user.
    async fn media_rows_of_kind(&self, user_id: &str, kind: &str) -> i64 {
        sqlx::any::install_default_drivers();
        let mut conn = AnyConnection::connect(&self.database_url())
            .await
            .expect("connect to the test database");
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM media WHERE owner_id = $1 AND kind = $2")
                .bind(user_id)
                .bind(kind)
                .fetch_one(&mut conn)
                .await
                .unwrap();
        let _ = conn.close().await;
        count
    }
}

fn path_text(path: &Path) -> String {
    path.to_str().expect("UTF-8 temporary path").to_owned()
}

fn postgres_admin_url() -> Option<String> {
    std::env::var("REGARD_TEST_DATABASE_URL")
        .ok()
        .filter(|v| !v.is_empty())
}

fn s3_endpoint() -> Option<String> {
    let value = std::env::var("REGARD_TEST_S3")
        .ok()
        .filter(|v| !v.is_empty())?;
    assert!(
        value.starts_with("http://") || value.starts_with("https://"),
        "REGARD_TEST_S3={value:?} is not an endpoint URL: start a server with \
         `eval \"$(scripts/s3-test-server.sh start)\"` (or run scripts/test.sh)"
    );
    Some(value)
}

// ---------------------------------------------------------------------------------------------
// HTTP: a signed-in user, uploads, heatmaps, the events stream

fn client() -> reqwest::Client {
    regard::tls::install_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A signed-up user.
struct User {
    id: String,
    token: String,
}

async fn sign_up(client: &reqwest::Client, server: &Server) -> User {
    let email = format!("user-{}@example.com", uuid::Uuid::new_v4().simple());
    let session = support_client::sign_up(client, &server.base, &email, "secret1").await;
    User {
        id: session["user"]["id"].as_str().unwrap().to_owned(),
        token: session["access_token"].as_str().unwrap().to_owned(),
    }
}

/// Uploads an image; its media id.
async fn upload(client: &reqwest::Client, server: &Server, user: &User, data: Vec<u8>) -> String {
    let response =
        support_client::upload(client, &server.base, &user.token, "poster.jpg", data).await;
    assert_eq!(response.status(), 201, "upload failed");
    let media: Value = response.json().await.unwrap();
    media["id"].as_str().unwrap().to_owned()
}

/// `POST /api/v1/heatmaps` with one image; returns the heatmap JSON.
async fn create_heatmap(
    client: &reqwest::Client,
    server: &Server,
    user: &User,
    media_id: &str,
) -> Value {
    let response = client
        .post(server.url("/api/v1/heatmaps"))
        .bearer_auth(&user.token)
        .json(&json!({"name": "Crash test", "media_ids": [media_id]}))
        .send()
        .await
        .expect("heatmap request sent");
    assert_eq!(response.status(), 202, "creating the heatmap failed");
    response.json().await.unwrap()
}

/// `POST` of a JSON body that must answer `status`; the answer.
async fn post_json(
    client: &reqwest::Client,
    server: &Server,
    user: &User,
    path: &str,
    body: Value,
    status: u16,
) -> Value {
    let response = client
        .post(server.url(path))
        .bearer_auth(&user.token)
        .json(&body)
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), status, "POST {path}");
    response.json().await.unwrap()
}

async fn get_json(client: &reqwest::Client, server: &Server, user: &User, path: &str) -> Value {
    let response = client
        .get(server.url(path))
        .bearer_auth(&user.token)
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), 200, "GET {path}");
    response.json().await.unwrap()
}

async fn get_heatmap(client: &reqwest::Client, server: &Server, user: &User, id: &str) -> Value {
    let response = client
        .get(server.url(&format!("/api/v1/heatmaps/{id}")))
        .bearer_auth(&user.token)
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), 200, "GET /heatmaps/{id} failed");
    response.json().await.unwrap()
}

/// Opens the user's event stream on `server`, up to its `ready` event.
async fn open_events(client: &reqwest::Client, server: &Server, user: &User) -> EventStream {
    let response = client
        .get(server.url("/api/v1/events"))
        .bearer_auth(&user.token)
        .header("Accept", "text/event-stream")
        .send()
        .await
        .expect("events request sent");
    assert_eq!(response.status(), 200, "GET /api/v1/events failed");
    EventStream::open(response).await
}

/// Reads events until the item is `done` (panics if it fails, or on timeout); returns the
/// statuses seen for it, in order.
async fn until_item_done(
    events: &mut EventStream,
    item_id: &str,
    timeout: Duration,
) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut seen = Vec::new();
    loop {
        let event = events.next_before(deadline).await;
        let data = event.json();
        if event.event != "heatmap_item" || data["item_id"] != item_id {
            continue;
        }
        let status = data["status"].as_str().unwrap_or_default().to_owned();
        seen.push(status.clone());
        match status.as_str() {
            "done" => {
                assert!(
                    data["score"].is_number(),
                    "a done event has a score: {data}"
                );
                return seen;
            }
            "failed" => panic!("the item failed: {data}"),
            _ => {}
        }
    }
}

/// Waits until `process` logs that it started the job of `subject` and then that it finished
/// it; the `job started` line.
async fn until_job_done(process: &Process, subject: &str) -> String {
    let started = process
        .wait_for_line("`job started` for the subject", JOB_TIMEOUT, |l| {
            l.contains("job started") && field(l, "subject") == Some(subject)
        })
        .await;
    let job_id = field(&started, "job_id").unwrap().to_owned();
    process
        .wait_for_line("`job done` for its job", JOB_TIMEOUT, |l| {
            l.contains("job done") && field(l, "job_id") == Some(job_id.as_str())
        })
        .await;
    started
}

// ---------------------------------------------------------------------------------------------
// Tests

/// A server is killed (SIGKILL) while its worker holds a job; the next server started on the
/// same data claims the job once the lease expires and finishes it, and there is exactly one
/// set of outputs.
#[tokio::test]
async fn a_job_whose_process_was_killed_is_finished_by_the_next_one() {
    let backing = Backing::new("crash").await;
    let client = client();
    let mut env = backing.env("data");
    env.push(("REGARD_FAULT_HOLD_JOB_MS".into(), "600000".into()));
    let mut first = Server::start("serve-1", &[], &env).await;

    let user = sign_up(&client, &first).await;
    let media_id = upload(&client, &first, &user, fixtures::salient_jpeg(640, 400)).await;
    let heatmap = create_heatmap(&client, &first, &user, &media_id).await;
    let heatmap_id = heatmap["id"].as_str().unwrap().to_owned();
    let item_id = heatmap["items"][0]["id"].as_str().unwrap().to_owned();

    let started = first
        .process
        .wait_for_line("`job started` for the item", JOB_TIMEOUT, |l| {
            l.contains("job started") && field(l, "subject") == Some(item_id.as_str())
        })
        .await;
    assert_eq!(field(&started, "attempt"), Some("1"), "{started}");
    let job_id = field(&started, "job_id").unwrap().to_owned();
    // The hold comes after the item is marked processing: the process dies mid-job.
    first
        .process
        .wait_for_line("the fault-injection hold of the job", JOB_TIMEOUT, |l| {
            l.contains("fault injection: holding the job")
                && field(l, "job_id") == Some(job_id.as_str())
        })
        .await;
    let held = get_heatmap(&client, &first, &user, &heatmap_id).await;
    assert_eq!(held["items"][0]["status"], "processing", "{held}");
    assert_eq!(held["items"][0]["attempts"], 1, "{held}");
    first.process.kill().await;

    // What the crash left: the job claimed once, its lease not given back.
    let db = backing.db().await;
    let jobs = regard::db::jobs::for_subject(&db, &item_id).await.unwrap();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].status, "running", "{jobs:?}");
    assert_eq!(jobs[0].attempts, 1, "{jobs:?}");
    assert!(jobs[0].lease_owner.is_some(), "{jobs:?}");
    assert_eq!(
        backing.heatmap_media_rows(&user.id).await,
        0,
        "nothing saved by the killed attempt"
    );

    // The same data, without the fault.
    let second = Server::start("serve-2", &[], &backing.env("data")).await;
    let mut events = open_events(&client, &second, &user).await;
    let current = get_heatmap(&client, &second, &user, &heatmap_id).await;
    if current["items"][0]["status"] != "done" {
        until_item_done(&mut events, &item_id, JOB_TIMEOUT).await;
    }

    let found = get_heatmap(&client, &second, &user, &heatmap_id).await;
    assert_eq!(found["status"], "done", "{found}");
    let item = &found["items"][0];
    assert_eq!(item["id"], item_id.as_str());
    assert_eq!(item["status"], "done", "{item}");
    assert!(
        item["result"].is_object(),
        "a done item has a result: {item}"
    );
    assert!(item["result"]["score"].is_number(), "{item}");
    assert!(item["error"].is_null(), "{item}");
    // The item's attempts follow its job's: the killed one and the one that finished.
    assert_eq!(item["attempts"], 2, "{item}");

    // The job: claimed twice (the killed worker's attempt and the one that finished), done.
    let jobs = regard::db::jobs::for_subject(&db, &item_id).await.unwrap();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].status, "done", "{jobs:?}");
    assert_eq!(jobs[0].attempts, 2, "{jobs:?}");
    assert_eq!(jobs[0].lease_owner, None, "{jobs:?}");
    db.close().await;

    let restarted = second
        .process
        .wait_for_line("`job started` for the item", JOB_TIMEOUT, |l| {
            l.contains("job started") && field(l, "subject") == Some(item_id.as_str())
        })
        .await;
    assert_eq!(field(&restarted, "attempt"), Some("2"), "{restarted}");
    assert_ne!(
        field(&started, "worker"),
        field(&restarted, "worker"),
        "another worker took the job over"
    );

    // One set of outputs: the full map, overlay and fog, and the first glance's.
    assert_eq!(backing.heatmap_media_rows(&user.id).await, 6);
}

/// Two API nodes without workers and one `regard worker`, sharing a PostgreSQL database and an
/// S3 bucket: a heatmap created through node 1 is computed by the worker, and a tab connected
/// to node 2 sees it finish.
#[tokio::test]
async fn api_nodes_see_the_work_of_a_separate_worker() {
    let mut missing = Vec::new();
    if postgres_admin_url().is_none() {
        missing.push("REGARD_TEST_DATABASE_URL");
    }
    if s3_endpoint().is_none() {
        missing.push("REGARD_TEST_S3");
    }
    if !missing.is_empty() {
        println!(
            "skipped: needs {} (several nodes share PostgreSQL and S3; scripts/test.sh sets both \
             in its PostgreSQL pass)",
            missing.join(" and ")
        );
        return;
    }

    let backing = Backing::new("nodes").await;
    let client = client();
    let node1 = Server::start("node-1", &["--no-worker"], &backing.env("node1")).await;
    let node2 = Server::start("node-2", &["--no-worker"], &backing.env("node2")).await;
    let worker = Process::spawn("worker", &["worker"], &backing.env("worker"));
    worker
        .wait_for_line("`job workers started`", START_TIMEOUT, |l| {
            l.contains("job workers started")
        })
        .await;
    for node in [&node1, &node2] {
        assert!(
            !node
                .process
                .lines_with("no job workers in this process")
                .is_empty(),
            "{}",
            node.process.tail()
        );
    }

    let user = sign_up(&client, &node1).await;
    let mut events = open_events(&client, &node2, &user).await;
    let media_id = upload(&client, &node1, &user, fixtures::salient_jpeg(640, 400)).await;
    let heatmap = create_heatmap(&client, &node1, &user, &media_id).await;
    let heatmap_id = heatmap["id"].as_str().unwrap().to_owned();
    let item_id = heatmap["items"][0]["id"].as_str().unwrap().to_owned();

    let statuses = until_item_done(&mut events, &item_id, JOB_TIMEOUT).await;
    assert_eq!(
        statuses,
        ["processing", "done"],
        "node 2's stream sees the item start and finish"
    );
    until_job_done(&worker, &item_id).await;
    for node in [&node1, &node2] {
        assert_eq!(
            node.process.lines_with("job started"),
            Vec::<String>::new(),
            "{} has no workers",
            node.process.name
        );
    }

    let found = get_heatmap(&client, &node2, &user, &heatmap_id).await;
    assert_eq!(found["status"], "done", "{found}");
    let item = &found["items"][0];
    assert_eq!(item["status"], "done", "{item}");
    assert_eq!(item["attempts"], 1, "{item}");
    let urls = &item["result"]["urls"];
    let mut signed: Vec<&str> = ["map", "overlay", "fog", "overlay_thumbnail"]
        .iter()
        .map(|k| {
            urls[k]
                .as_str()
                .unwrap_or_else(|| panic!("urls.{k} in {item}"))
        })
        .collect();
    signed.push(item["source"]["urls"]["preview"].as_str().unwrap());
    for url in signed {
        // Signed URLs need no token, and any node serves them.
        let response = client.get(node1.url(url)).send().await.unwrap();
        assert_eq!(response.status(), 200, "node 1 serving {url}");
        assert!(!response.bytes().await.unwrap().is_empty(), "{url}");
    }

    let db = backing.db().await;
    let jobs = regard::db::jobs::for_subject(&db, &item_id).await.unwrap();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].status, "done", "{jobs:?}");
    assert_eq!(jobs[0].attempts, 1, "{jobs:?}");
    db.close().await;
    // The full map, overlay and fog, and the first glance's.
    assert_eq!(backing.heatmap_media_rows(&user.id).await, 6);

    // A member removed on node 1 loses access on node 2 at once, open event stream included.
    let workspace = post_json(
        &client,
        &node1,
        &user,
        "/api/v1/workspaces",
        json!({"name": "Agence"}),
        201,
    )
    .await;
    let workspace_id = workspace["id"].as_str().unwrap().to_owned();
    let member = sign_up(&client, &node2).await;
    // Joined as an accepted invitation would make them (the invitation itself is tested in
    // the API suite).
    let db = backing.db().await;
    sqlx::query(
        "INSERT INTO workspace_members (workspace_id, user_id, role, created_at) \
         VALUES ($1, $2, 'editor', 0)",
    )
    .bind(&workspace_id)
    .bind(&member.id)
    .execute(db.pool())
    .await
    .unwrap();
    db.close().await;
    let in_workspace = |server: &Server, method: reqwest::Method, path: &str| {
        client
            .request(method, server.url(path))
            .bearer_auth(&member.token)
            .header("X-Workspace-Id", &workspace_id)
    };
    let response = in_workspace(&node2, reqwest::Method::GET, "/api/v1/events")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut member_events = EventStream::open(response).await;
    let response = client
        .delete(node1.url(&format!(
            "/api/v1/workspaces/{workspace_id}/members/{}",
            member.id
        )))
        .bearer_auth(&user.token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    // Well before the periodic session check: the `members` event reached node 2.
    member_events
        .end_before(tokio::time::Instant::now() + Duration::from_secs(5))
        .await;
    let response = in_workspace(&node2, reqwest::Method::GET, "/api/v1/creatives")
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        404,
        "node 2 refuses the removed member at once"
    );
}

/// A server is killed (SIGKILL) in the middle of a render; the next one renders the simulation
/// once, and nothing of the killed attempt is visible.
#[tokio::test]
async fn a_render_whose_process_was_killed_is_finished_by_the_next_one() {
    let backing = Backing::new("render-crash").await;
    let client = client();
    let mut env = backing.env("data");
    env.push(("REGARD_FAULT_HOLD_JOB_MS".into(), "600000".into()));
    let mut first = Server::start("serve-1", &[], &env).await;

    let user = sign_up(&client, &first).await;
    let creative_media = upload(&client, &first, &user, fixtures::salient_jpeg(300, 200)).await;
    let photo = upload(&client, &first, &user, fixtures::jpeg(640, 480)).await;
    let creative = post_json(
        &client,
        &first,
        &user,
        "/api/v1/creatives",
        json!({"media_id": creative_media}),
        201,
    )
    .await;
    let location = post_json(
        &client,
        &first,
        &user,
        "/api/v1/locations",
        json!({
            "name": "Gare",
            "photo_media_id": photo,
            "panel_quad": [[0.2, 0.2], [0.8, 0.25], [0.8, 0.75], [0.2, 0.8]],
        }),
        201,
    )
    .await;
    let simulation = post_json(
        &client,
        &first,
        &user,
        "/api/v1/simulations",
        json!({"creative_id": creative["id"], "location_id": location["id"]}),
        201,
    )
    .await;
    let id = simulation["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/simulations/{id}");

    let started = first
        .process
        .wait_for_line("`job started` for the render", JOB_TIMEOUT, |l| {
            l.contains("job started") && field(l, "subject") == Some(id.as_str())
        })
        .await;
    let job_id = field(&started, "job_id").unwrap().to_owned();
    first
        .process
        .wait_for_line("the fault-injection hold of the render", JOB_TIMEOUT, |l| {
            l.contains("fault injection: holding the job")
                && field(l, "job_id") == Some(job_id.as_str())
        })
        .await;
    let held = get_json(&client, &first, &user, &path).await;
    assert_eq!(held["status"], "rendering", "{held}");
    first.process.kill().await;
    assert_eq!(
        backing.media_rows_of_kind(&user.id, "render").await,
        0,
        "nothing saved by the killed attempt"
    );

    let second = Server::start("serve-2", &[], &backing.env("data")).await;
    let mut events = open_events(&client, &second, &user).await;
    if get_json(&client, &second, &user, &path).await["status"] != "done" {
        let deadline = tokio::time::Instant::now() + JOB_TIMEOUT;
        loop {
            let event = events.next_before(deadline).await;
            let data = event.json();
            if event.event == "simulation" && data["simulation_id"] == id.as_str() {
                assert_ne!(data["status"], "failed", "{data}");
                if data["status"] == "done" {
                    break;
                }
            }
        }
    }
    let done = get_json(&client, &second, &user, &path).await;
    assert_eq!(done["status"], "done", "{done}");
    assert!(done["output"]["id"].is_string(), "{done}");
    assert!(done["error"].is_null(), "{done}");
    // One render, stored as JPEG and PNG; the job claimed twice and done.
    assert_eq!(backing.media_rows_of_kind(&user.id, "render").await, 2);
    let db = backing.db().await;
    let jobs = regard::db::jobs::for_subject(&db, &id).await.unwrap();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert_eq!(jobs[0].status, "done", "{jobs:?}");
    assert_eq!(jobs[0].attempts, 2, "{jobs:?}");
    db.close().await;
}

/// A server is killed (SIGKILL) while an upload streams in; after a restart nothing of it is
/// visible: no media row, no stored object.
#[tokio::test]
async fn an_upload_cut_by_a_kill_leaves_nothing_visible() {
    use tokio::io::AsyncWriteExt;

    let backing = Backing::new("upload-crash").await;
    let client = client();
    let mut first = Server::start("serve-1", &[], &backing.env("data")).await;
    let user = sign_up(&client, &first).await;

    // Half of a multipart upload, sent by hand so that the rest never comes.
    let image = fixtures::jpeg(1600, 1200);
    let boundary = "regard-test-boundary";
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.jpg\"\r\n\
         Content-Type: image/jpeg\r\n\r\n"
    );
    let tail = format!("\r\n--{boundary}--\r\n");
    let length = head.len() + image.len() + tail.len();
    let address = first.base.trim_start_matches("http://").to_owned();
    let mut socket = tokio::net::TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "POST /api/v1/media HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {length}\r\n\r\n",
        user.token
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    socket.write_all(head.as_bytes()).await.unwrap();
    socket.write_all(&image[..image.len() / 2]).await.unwrap();
    socket.flush().await.unwrap();

    // The server is streaming it into a staging file: kill it there.
    first
        .process
        .wait_for_line("`receiving an upload`", START_TIMEOUT, |l| {
            l.contains("receiving an upload")
        })
        .await;
    first.process.kill().await;
    drop(socket);

    let second = Server::start("serve-2", &[], &backing.env("data")).await;
    // The user's data as the API shows it, and what the database and the storage hold.
    let creatives = get_json(&client, &second, &user, "/api/v1/creatives").await;
    assert_eq!(creatives["items"], json!([]));
    let db = backing.db().await;
    assert_eq!(regard::db::media::count_all(&db).await.unwrap(), 0);
    db.close().await;
    let storage =
        regard::storage::from_url(backing.storage_url.as_deref(), &backing.data_dir("data"))
            .unwrap();
    assert_eq!(storage.list().await.unwrap(), Vec::<String>::new());
}

/// The value of one OpenMetrics series line (`name{labels} value`), when present.
fn series_value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// A `regard worker` with `--metrics-bind` is probed and scraped like an API node: its own job
/// series count the job it ran, behind the same token, and it serves nothing else.
#[tokio::test]
async fn a_worker_answers_metrics_and_health_on_its_own_listener() {
    let backing = Backing::new("worker-metrics").await;
    let client = client();
    let mut env = backing.env("data");
    env.push(("REGARD_METRICS_TOKEN".into(), "scrape-token".into()));
    let node = Server::start("api", &["--no-worker"], &env).await;
    let worker = Process::spawn("worker", &["worker", "--metrics-bind", "127.0.0.1:0"], &env);
    let line = worker
        .wait_for_line("its metrics address", START_TIMEOUT, |l| {
            l.contains("metrics listening") && field(l, "address").is_some()
        })
        .await;
    let base = format!("http://{}", field(&line, "address").unwrap());

    let response = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let response = client.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.json::<Value>().await.unwrap()["status"], "ready");
    let response = client.get(format!("{base}/metrics")).send().await.unwrap();
    assert_eq!(response.status(), 401, "the token is required");
    for path in ["/api/v1/openapi.json", "/auth/v1/health", "/"] {
        let response = client.get(format!("{base}{path}")).send().await.unwrap();
        assert_eq!(response.status(), 404, "a worker serves no {path}");
    }

    let user = sign_up(&client, &node).await;
    let media_id = upload(&client, &node, &user, fixtures::salient_jpeg(320, 200)).await;
    let heatmap = create_heatmap(&client, &node, &user, &media_id).await;
    let item_id = heatmap["items"][0]["id"].as_str().unwrap().to_owned();
    until_job_done(&worker, &item_id).await;

    let scrape = |base: String| {
        let client = client.clone();
        async move {
            let response = client
                .get(format!("{base}/metrics"))
                .bearer_auth("scrape-token")
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            response.text().await.unwrap()
        }
    };
    let text = scrape(base.clone()).await;
    let done = r#"regard_job_outcomes_total{kind="heatmap_item",outcome="done"}"#;
    assert_eq!(series_value(&text, done), Some(1.0), "{text}");
    assert_eq!(
        series_value(&text, r#"regard_job_attempts_total{kind="heatmap_item"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        series_value(&text, r#"regard_jobs_queued{kind="heatmap_item"}"#),
        Some(0.0),
        "the queue is read from the shared database: {text}"
    );
    assert!(
        series_value(&text, "regard_db_pool_max_connections").is_some_and(|max| max >= 1.0),
        "{text}"
    );
    // The API node ran no job: its own series do not count the worker's.
    let text = scrape(node.base.clone()).await;
    assert_eq!(series_value(&text, done).unwrap_or(0.0), 0.0, "{text}");
}

/// Two API nodes on one PostgreSQL database: the limits that bound attacks are kept in the
/// database, so 60 wrong passwords from one address, spread over both nodes, get what one
/// node would allow (30), not 30 each (issue 47).
#[tokio::test]
async fn two_nodes_share_one_sign_in_allowance() {
    if postgres_admin_url().is_none() {
        println!(
            "skipped: needs REGARD_TEST_DATABASE_URL (nodes share limits through PostgreSQL; \
             scripts/test.sh runs this suite on it in its PostgreSQL pass)"
        );
        return;
    }
    let backing = Backing::new("limits").await;
    let client = client();
    let env = |node: &str| {
        let mut env = backing.env(node);
        env.retain(|(key, _)| key != "REGARD_RATE_LIMIT_SIGN_IN");
        env.push(("REGARD_RATE_LIMIT_SIGN_IN".into(), "30".into()));
        env
    };
    let node1 = Server::start("node-1", &["--no-worker"], &env("node1")).await;
    let node2 = Server::start("node-2", &["--no-worker"], &env("node2")).await;
    let email = format!("user-{}@example.com", uuid::Uuid::new_v4().simple());
    support_client::sign_up(&client, &node1.base, &email, "secret1").await;
    let mut statuses = Vec::new();
    for i in 0..60 {
        let node = if i % 2 == 0 { &node1 } else { &node2 };
        let response = client
            .post(node.url("/auth/v1/token?grant_type=password"))
            .header("apikey", "anon-key")
            .json(&json!({"email": email, "password": "wrong"}))
            .send()
            .await
            .unwrap();
        statuses.push(response.status().as_u16());
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 400).count(),
        30,
        "{statuses:?}"
    );
    assert!(statuses[30..].iter().all(|s| *s == 429), "{statuses:?}");
}
