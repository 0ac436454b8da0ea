//! Load figures of the real server on loopback, measured with `wrk` (Debian's package):
//!
//! ```text
//! cargo build --release -p regard
//! cargo run --release -p regard --example bench_load [-- SECONDS CONNECTIONS]
//! BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/regard_load cargo run --release ...
//! ```
//!
//! Seeds a temporary data folder (SQLite, or the empty PostgreSQL database named by
//! `BENCH_DATABASE_URL`) with one user and 10,000 creatives, starts `target/release/regard
//! serve` on it, and loads five scenarios for SECONDS (30) at CONNECTIONS (64) each:
//!
//! - `GET /healthz`: the floor of this server and this machine (no token, no query), measured
//!   in the same run so the other figures can be read against it;
//! - `GET /api/v1/creatives?limit=50` with a bearer token: the same page again and again, as a
//!   reload or a second tab asks for it (the token check, then the answer the server keeps for
//!   this caller, library revision and query: `answers.rs`);
//! - the same list "made anew": each request with a parameter the server ignores, different
//!   every time, so that no answer is kept from one to the next (the token check, one keyset
//!   query, 150 signed URLs, a 53 KB body written);
//! - `POST /auth/v1/token?grant_type=refresh_token`: every connection its own session, each
//!   request with the refresh token the previous answer gave (a rotation: a write);
//! - `GET /api/v1/files/{id}/thumbnail?exp=&sig=`: a signed image link (signature, a row
//!   lookup, the object from the media folder).
//!
//! `BENCH_ROUTES=healthz,list` loads only the routes named (`healthz`, `list`, `list_new`,
//! `refresh`, `thumbnail`).
//!
//! Prints requests per second, median and 99th-percentile latency, failed requests (non-2xx
//! answers and socket errors: must be 0), the server's peak resident memory during each
//! run (VmHWM, reset between runs) and the server's CPU time per answer (user + system, from
//! /proc: the cost of a request, less sensitive than req/s to what else runs on the machine). On PostgreSQL it then loads the list for 15 s while every
//! connection of the server is terminated 5 s in (a restart, a failover) and prints the
//! answers by status: the requests caught by the drop get 503 `unavailable`, the rest 200.

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use regard::storage::StorageKey;
use regard::{Application, Config};
use serde_json::{Value, json};
use tower::ServiceExt;

mod support;

const CREATIVES: usize = 10_000;
const PASSWORD: &str = "load-bench-1";

async fn call(router: &axum::Router, method: &str, uri: &str, body: Value) -> (StatusCode, Value) {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// Seeds the data folder (and database); returns the user's email.
async fn seed(dir: &Path, database_url: Option<&str>) -> String {
    let mut config = Config::for_data_dir(dir);
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.rate_limit_sign_up = 0;
    config.storage_url = None;
    config.database_url = database_url.map(|url| regard::config::Secret::new(url.to_owned()));
    let app = Application::build(config).await.unwrap();
    let state = app.state().clone();
    let router = regard::http::router(state.clone());
    println!("backend: {:?}", state.db.backend());
    let email = "load@example.com".to_owned();
    let (status, session) = call(
        &router,
        "POST",
        "/auth/v1/signup",
        json!({"email": email, "password": PASSWORD}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{session}");
    let owner = session["user"]["id"].as_str().unwrap().to_owned();

    // One real thumbnail, for the signed file route; the other rows name objects never read.
    let thumbnail = {
        let image = image::RgbImage::from_fn(400, 300, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut out = std::io::Cursor::new(Vec::new());
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
            .encode_image(&image)
            .unwrap();
        out.into_inner()
    };
    let started = Instant::now();
    let rows = support::seed_creatives(&state.db, &owner, CREATIVES).await;
    // The newest creative's thumbnail, for the signed file route.
    let newest = rows.last().unwrap();
    let key = StorageKey::new(newest.thumbnail_key.as_str()).unwrap();
    state
        .storage
        .put_bytes(&key, thumbnail.into())
        .await
        .unwrap();
    println!(
        "seeded {CREATIVES} creatives in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    state.db.close().await;
    email
}

/// A free port on loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn server_binary() -> std::path::PathBuf {
    // target/release/examples/bench_load → target/release/regard
    let exe = std::env::current_exe().unwrap();
    let binary = exe.parent().unwrap().parent().unwrap().join("regard");
    assert!(
        binary.exists(),
        "{} is missing: run `cargo build --release -p regard` first",
        binary.display()
    );
    binary
}

fn start_server(dir: &Path, port: u16, database_url: Option<&str>) -> Child {
    let mut command = Command::new(server_binary());
    command
        .arg("serve")
        .env("REGARD_DATA_DIR", dir)
        .env("REGARD_BIND", format!("127.0.0.1:{port}"))
        .env("REGARD_RATE_LIMIT_SIGN_IN", "0")
        .env("REGARD_WEB_DIR", dir.join("no-web"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
    if let Some(url) = database_url {
        command.env("REGARD_DATABASE_URL", url);
    }
    command.spawn().expect("start regard serve")
}

/// What `wrk --latency` printed.
struct Run {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    requests: u64,
    failed: u64,
}

fn millis(text: &str) -> f64 {
    let text = text.trim();
    let (number, factor) = if let Some(v) = text.strip_suffix("us") {
        (v, 1e-3)
    } else if let Some(v) = text.strip_suffix("ms") {
        (v, 1.0)
    } else if let Some(v) = text.strip_suffix('s') {
        (v, 1e3)
    } else {
        (text, 1.0)
    };
    number.parse::<f64>().unwrap_or(f64::NAN) * factor
}

fn parse_wrk(output: &str) -> Run {
    let field = |prefix: &str| {
        output
            .lines()
            .find_map(|l| l.trim().strip_prefix(prefix).map(str::to_owned))
    };
    let requests = output
        .lines()
        .find(|l| l.contains("requests in"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let non_2xx: u64 = field("Non-2xx or 3xx responses:")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    // "Socket errors: connect 0, read 0, write 0, timeout 0"
    let socket: u64 = field("Socket errors:")
        .map(|v| {
            v.split(',')
                .filter_map(|part| part.split_whitespace().last()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    Run {
        rps: field("Requests/sec:")
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(f64::NAN),
        p50_ms: field("50%").map_or(f64::NAN, |v| millis(&v)),
        p99_ms: field("99%").map_or(f64::NAN, |v| millis(&v)),
        requests,
        failed: non_2xx + socket,
    }
}

fn wrk(args: &[String], tokens: &Path) -> Run {
    // The refresh script reads the tokens' file from its environment.
    let output = Command::new("wrk")
        .args(args)
        .env("BENCH_TOKENS", tokens)
        .output()
        .expect("wrk is installed (apt-get install wrk)");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "wrk failed: {text}");
    parse_wrk(&text)
}

/// The refresh scenario's script: each thread (one connection) keeps its own session and
/// sends the refresh token the last answer gave.
const REFRESH_LUA: &str = r#"
local tokens = {}
for line in io.lines(os.getenv("BENCH_TOKENS")) do tokens[#tokens + 1] = line end
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("token", tokens[counter])
end
function request()
  return wrk.format("POST", "/auth/v1/token?grant_type=refresh_token",
    {["Content-Type"] = "application/json"},
    '{"refresh_token":"' .. token .. '"}')
end
function response(status, headers, body)
  local fresh = body:match('"refresh_token":"([^"]+)"')
  if fresh then token = fresh end
end
"#;

/// The list with a parameter the server ignores, different on every request: no answer is
/// kept from one request to the next (the server keeps answers by query string), so each is
/// read and written anew.
const LIST_NEW_LUA: &str = r#"
local tag = tostring({}):match("0x(%x+)") or "0"
local counter = 0
function request()
  counter = counter + 1
  return wrk.format("GET", "/api/v1/creatives?limit=50&n=" .. tag .. "-" .. counter)
end
"#;

/// Counts the answers by status, for the fault run.
const STATUS_LUA: &str = r#"
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) counts = {} end
function response(status, headers, body)
  counts[status] = (counts[status] or 0) + 1
end
function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get("counts")) do total[status] = (total[status] or 0) + n end
  end
  for status, n in pairs(total) do io.write(string.format("status %d: %d\n", status, n)) end
end
"#;

/// PostgreSQL only: loads the list for `seconds` while every connection of the server is
/// terminated a third of the way in; prints what the clients got.
async fn dropped_connections(
    base: &str,
    access: &str,
    database_url: &str,
    seconds: u64,
    connections: usize,
    dir: &Path,
) {
    let script = dir.join("status.lua");
    std::fs::write(&script, STATUS_LUA).unwrap();
    let url = database_url.to_owned();
    let dropper = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(seconds / 3)).await;
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let mut admin = sqlx::AnyConnection::connect(&url).await.unwrap();
        let rows: Vec<(bool,)> = sqlx::query_as(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_all(&mut admin)
        .await
        .unwrap();
        rows.len()
    });
    let args = vec![
        "-t2".to_owned(),
        format!("-c{connections}"),
        format!("-d{seconds}s"),
        "-s".into(),
        script.display().to_string(),
        "-H".into(),
        format!("Authorization: Bearer {access}"),
        format!("{base}/api/v1/creatives?limit=50"),
    ];
    let output =
        tokio::task::spawn_blocking(move || Command::new("wrk").args(&args).output().expect("wrk"))
            .await
            .unwrap();
    let terminated = dropper.await.unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    println!(
        "fault: {terminated} PostgreSQL connections terminated {} s into a {seconds} s run of \
         GET /api/v1/creatives:",
        seconds / 3
    );
    for line in text.lines().filter(|l| l.starts_with("status ")) {
        println!("  {line}");
    }
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let connections: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);
    let database_url = std::env::var("BENCH_DATABASE_URL").ok();
    let dir = tempfile::tempdir().unwrap();
    let email = seed(dir.path(), database_url.as_deref()).await;

    let port = free_port();
    let mut server = start_server(dir.path(), port, database_url.as_deref());
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !client
        .get(format!("{base}/readyz"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        assert!(Instant::now() < deadline, "the server did not become ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // One session per connection (the refresh chains), the first also for the list.
    let mut sessions = Vec::with_capacity(connections);
    for _ in 0..connections {
        let session: Value = client
            .post(format!("{base}/auth/v1/token?grant_type=password"))
            .json(&json!({"email": email, "password": PASSWORD}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        sessions.push(session);
    }
    let access = sessions[0]["access_token"].as_str().unwrap().to_owned();
    let page: Value = client
        .get(format!("{base}/api/v1/creatives?limit=50"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page["items"].as_array().map(Vec::len), Some(50));
    println!(
        "one list answer: {:.1} KB of JSON",
        page.to_string().len() as f64 / 1000.0
    );
    let file = page["items"][0]["media"]["urls"]["thumbnail"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        client
            .get(format!("{base}{file}"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    let tokens = dir.path().join("tokens.txt");
    let mut out = std::fs::File::create(&tokens).unwrap();
    for session in &sessions {
        writeln!(out, "{}", session["refresh_token"].as_str().unwrap()).unwrap();
    }
    let script = dir.path().join("refresh.lua");
    std::fs::write(&script, REFRESH_LUA).unwrap();
    let list_new = dir.path().join("list-new.lua");
    std::fs::write(&list_new, LIST_NEW_LUA).unwrap();
    let duration = format!("{seconds}s");
    let conns = connections.to_string();
    let scenarios: Vec<(&str, Vec<String>)> = vec![
        // The floor: no token, no query, a few bytes. What the list reaches is read against it.
        (
            "GET /healthz",
            vec![
                "--latency".into(),
                "-t2".into(),
                format!("-c{conns}"),
                format!("-d{duration}"),
                format!("{base}/healthz"),
            ],
        ),
        (
            "GET /api/v1/creatives?limit=50",
            vec![
                "--latency".into(),
                "-t2".into(),
                format!("-c{conns}"),
                format!("-d{duration}"),
                "-H".into(),
                format!("Authorization: Bearer {access}"),
                format!("{base}/api/v1/creatives?limit=50"),
            ],
        ),
        (
            "GET /api/v1/creatives, made anew",
            vec![
                "--latency".into(),
                "-t2".into(),
                format!("-c{conns}"),
                format!("-d{duration}"),
                "-H".into(),
                format!("Authorization: Bearer {access}"),
                "-s".into(),
                list_new.display().to_string(),
                base.clone(),
            ],
        ),
        (
            "POST /auth/v1/token (refresh)",
            vec![
                "--latency".into(),
                format!("-t{conns}"),
                format!("-c{conns}"),
                format!("-d{duration}"),
                "-s".into(),
                script.display().to_string(),
                base.clone(),
            ],
        ),
        (
            "GET signed thumbnail",
            vec![
                "--latency".into(),
                "-t2".into(),
                format!("-c{conns}"),
                format!("-d{duration}"),
                format!("{base}{file}"),
            ],
        ),
    ];
    println!(
        "{seconds} s at {connections} connections; wrk on the same 2-core machine as the server"
    );
    println!(
        "{:<34} {:>9} {:>9} {:>9} {:>9} {:>7} {:>9} {:>12}",
        "route", "req/s", "p50 ms", "p99 ms", "requests", "failed", "peak MiB", "server µs/req"
    );
    // `BENCH_ROUTES=healthz,list` runs only those (healthz, list, list_new, refresh,
    // thumbnail).
    let only = std::env::var("BENCH_ROUTES").ok();
    let keys = ["healthz", "list", "list_new", "refresh", "thumbnail"];
    let pid = server.id().to_string();
    for ((name, args), key) in scenarios.into_iter().zip(keys) {
        if only
            .as_ref()
            .is_some_and(|only| !only.split(',').any(|k| k == key))
        {
            continue;
        }
        support::reset_peak_rss_of(&pid);
        let cpu_before = support::cpu_ms_of(&pid);
        let run = wrk(&args, &tokens);
        // The server's own CPU time per answer: less sensitive than req/s to what else runs
        // on the machine (wrk included).
        let cpu_us = match (cpu_before, support::cpu_ms_of(&pid)) {
            (Some(a), Some(b)) if run.requests > 0 => (b - a) * 1000.0 / run.requests as f64,
            _ => f64::NAN,
        };
        println!(
            "{name:<34} {:>9.0} {:>9.2} {:>9.2} {:>9} {:>7} {:>9.1} {cpu_us:>12.0}",
            run.rps,
            run.p50_ms,
            run.p99_ms,
            run.requests,
            run.failed,
            support::status_kib_of(&pid, "VmHWM:").map_or(f64::NAN, |kib| kib as f64 / 1024.0)
        );
    }
    if let Some(url) = &database_url {
        dropped_connections(&base, &access, url, 15, connections, dir.path()).await;
    }
    let _ = server.kill();
    let _ = server.wait();
}
