//! What an abusive client costs the server (issue 26), with the limits off ("before": the
//! behaviour before them, by configuration) and at their defaults ("after"):
//!
//! - (a) 200 concurrent wrong-password sign-ins, each from its own address as far as the
//!   server can tell (the per-IP sign-in limit is off, so it cannot be what saves it): peak
//!   resident memory growth, growth once answered, answers by status;
//! - (b) 400 connections that send half a request head: time until the server closed them
//!   all, and the slowest of `/healthz` asked meanwhile;
//! - (c) 16 concurrent 4-image `compare.png` of 12-MP images: peak growth and answers by
//!   status;
//! - (d) 24 anonymous readers of a share link's PDF report, from one address, for 20 s (issue
//!   47): another user's own PDF export meanwhile (median and slowest, against its time alone),
//!   the readers' answers by status and the bytes sent to them. With the limits off, the
//!   report is still kept and served again (that cannot be turned off); with them on, the
//!   address's allowance also ends the load.
//!
//! ```text
//! cargo run -p regard --example bench_abuse [-- sign-ins|headers|exports|shared [off|on]]
//! ```
//!
//! The server runs in a child process (this program with `--serve`), so that its memory is
//! measured alone (`/proc/<pid>/status`), with the `REGARD_*` settings of each run.

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The settings that turn every limit of issues 26 and 47 off.
const LIMITS_OFF: [(&str, &str); 7] = [
    ("REGARD_RATE_LIMIT_SHARED", "0"),
    ("REGARD_RATE_LIMIT_SHARED_PER_LINK", "0"),
    ("REGARD_PASSWORD_HASH_MEMORY", "0"),
    ("REGARD_HTTP_HEADER_TIMEOUT", "0"),
    ("REGARD_HTTP_BODY_TIMEOUT", "0"),
    ("REGARD_HTTP_MAX_CONNECTIONS", "0"),
    ("REGARD_RENDER_MEMORY_BUDGET", "0"),
];

/// How long (b) waits for the half-open connections to be closed.
const HEADERS_GIVE_UP: Duration = Duration::from_secs(45);

/// A server in a child process.
struct ServerProcess {
    child: Child,
    pid: String,
    base: String,
}

impl ServerProcess {
    fn start(limits_off: bool) -> Self {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("RUST_LOG", "error")
            .env("REGARD_RATE_LIMIT_SIGN_IN", "0")
            .env("REGARD_RATE_LIMIT_SIGN_UP", "0");
        if limits_off {
            command.envs(LIMITS_OFF);
        }
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        ServerProcess {
            pid: child.id().to_string(),
            base: line.trim().to_owned(),
            child,
        }
    }

    fn rss_mib(&self) -> f64 {
        support::status_kib_of(&self.pid, "VmRSS:").map_or(f64::NAN, |k| k as f64 / 1024.0)
    }

    fn peak_mib(&self) -> f64 {
        support::status_kib_of(&self.pid, "VmHWM:").map_or(f64::NAN, |k| k as f64 / 1024.0)
    }

    /// Resets the peak and returns the resident memory now.
    fn baseline(&self) -> f64 {
        assert!(support::reset_peak_rss_of(&self.pid), "cannot reset VmHWM");
        self.rss_mib()
    }

    fn stop(mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

fn client() -> reqwest::Client {
    regard::tls::install_provider();
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

fn by_status(statuses: impl IntoIterator<Item = u16>) -> String {
    let mut counts = BTreeMap::new();
    for status in statuses {
        *counts.entry(status).or_insert(0) += 1;
    }
    counts
        .iter()
        .map(|(s, n)| format!("{n}×{s}"))
        .collect::<Vec<_>>()
        .join(" ")
}

async fn sign_ins(limits_off: bool) {
    let server = ServerProcess::start(limits_off);
    let client = client();
    support::sign_up_at(&client, &server.base, "victim@example.com").await;
    let base = server.baseline();
    let started = Instant::now();
    let answers = futures::future::join_all((0..200).map(|i| {
        client
            .post(format!("{}/auth/v1/token?grant_type=password", server.base))
            .header("apikey", "anon-key")
            .header(
                "x-forwarded-for",
                format!("10.0.{}.{}", i / 250, i % 250 + 1),
            )
            .json(&json!({"email": "victim@example.com", "password": "wrong-password"}))
            .send()
    }))
    .await;
    let elapsed = started.elapsed();
    let statuses: Vec<u16> = answers
        .iter()
        .map(|r| r.as_ref().map_or(0, |r| r.status().as_u16()))
        .collect();
    let peak = server.peak_mib() - base;
    let after = server.rss_mib() - base;
    println!(
        "(a) 200 wrong-password sign-ins, limits {}: peak growth {peak:.0} MiB, after {after:.0} MiB, {:.1} s, {}",
        if limits_off { "off" } else { "on " },
        elapsed.as_secs_f64(),
        by_status(statuses)
    );
    server.stop();
}

async fn headers(limits_off: bool) {
    let server = ServerProcess::start(limits_off);
    let address = server.base.trim_start_matches("http://").to_owned();
    let started = Instant::now();
    let mut closers = Vec::new();
    for _ in 0..400 {
        let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            .await
            .unwrap();
        closers.push(tokio::spawn(async move {
            let mut buffer = [0u8; 1024];
            let read = tokio::time::timeout(HEADERS_GIVE_UP, async {
                loop {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
            })
            .await;
            read.ok().map(|()| started.elapsed())
        }));
    }
    let client = client();
    let mut slowest = Duration::ZERO;
    let mut health = Vec::new();
    for _ in 0..10 {
        let asked = Instant::now();
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            client.get(format!("{}/healthz", server.base)).send(),
        )
        .await;
        slowest = slowest.max(asked.elapsed());
        health.push(match answer {
            Ok(Ok(r)) => r.status().as_u16(),
            _ => 0,
        });
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let closed: Vec<Option<Duration>> = futures::future::join_all(closers)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let open = closed.iter().filter(|c| c.is_none()).count();
    let last = closed.iter().flatten().max().copied().unwrap_or_default();
    println!(
        "(b) 400 unfinished headers, limits {}: {} closed, the last after {:.1} s, {open} still open after {} s; /healthz meanwhile: slowest {:.0} ms, {}",
        if limits_off { "off" } else { "on " },
        400 - open,
        last.as_secs_f64(),
        HEADERS_GIVE_UP.as_secs(),
        slowest.as_secs_f64() * 1000.0,
        by_status(health)
    );
    server.stop();
}

/// A 12-MP photo-like JPEG, different per `seed`.
fn photo(seed: u32) -> Vec<u8> {
    let image = image::RgbImage::from_fn(4000, 3000, |x, y| {
        let noise = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503) ^ seed) >> 28;
        image::Rgb([
            (x * 200 / 4000 + noise) as u8,
            (y * 200 / 3000 + noise) as u8,
            (((x + y + seed * 97) / 64 % 2) * 60 + 80) as u8,
        ])
    });
    support::encode_jpeg(&image)
}

/// A heatmap of `user` over the 12-MP photos of `seeds`, once every image is done: its id and
/// its items.
async fn done_heatmap(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    seeds: std::ops::Range<u32>,
) -> (String, Vec<Value>) {
    let mut ids = Vec::new();
    for seed in seeds {
        let name = format!("photo-{seed}.jpg");
        let media = support::upload_jpeg(client, base, token, &name, photo(seed)).await;
        ids.push(media["id"].clone());
    }
    let heatmap = support::post_json(
        client,
        base,
        token,
        "/heatmaps",
        json!({"name": "Bench", "media_ids": ids}),
    )
    .await;
    let hid = heatmap["id"].as_str().unwrap().to_owned();
    loop {
        let found: Value = client
            .get(format!("{base}/api/v1/heatmaps/{hid}"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let items = found["items"].as_array().unwrap().clone();
        if items.iter().all(|i| i["status"] == "done") {
            return (hid, items);
        }
        assert!(!items.iter().any(|i| i["status"] == "failed"), "{found}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn exports(limits_off: bool) {
    let server = ServerProcess::start(limits_off);
    let client = client();
    let token = support::sign_up_at(&client, &server.base, "exports@example.com").await;
    let (hid, items) = done_heatmap(&client, &server.base, &token, 0..4).await;
    let list: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    let path = format!(
        "{}/api/v1/heatmaps/{hid}/compare.png?items={}",
        server.base,
        list.join(",")
    );
    let base = server.baseline();
    let started = Instant::now();
    let answers = futures::future::join_all((0..16).map(|_| async {
        let response = client.get(&path).bearer_auth(&token).send().await.unwrap();
        let status = response.status().as_u16();
        let _ = response.bytes().await;
        status
    }))
    .await;
    println!(
        "(c) 16 compare.png of 4 × 12-MP images, limits {}: peak growth {:.0} MiB, after {:.0} MiB, {:.1} s, {}",
        if limits_off { "off" } else { "on " },
        server.peak_mib() - base,
        server.rss_mib() - base,
        started.elapsed().as_secs_f64(),
        by_status(answers)
    );
    server.stop();
}

/// How long the anonymous readers of (d) keep asking.
const SHARED_LOAD: Duration = Duration::from_secs(20);

async fn shared(limits_off: bool) {
    let server = ServerProcess::start(limits_off);
    let client = client();
    let owner = support::sign_up_at(&client, &server.base, "owner@example.com").await;
    let (shared_id, _) = done_heatmap(&client, &server.base, &owner, 0..2).await;
    let link = support::post_json(
        &client,
        &server.base,
        &owner,
        &format!("/heatmaps/{shared_id}/shares"),
        json!({}),
    )
    .await;
    let report = format!(
        "{}/api/v1/shared/{}/report.pdf",
        server.base,
        link["token"].as_str().unwrap()
    );
    let user = support::sign_up_at(&client, &server.base, "user@example.com").await;
    let (own_id, _) = done_heatmap(&client, &server.base, &user, 2..4).await;
    let export = format!("{}/api/v1/heatmaps/{own_id}/report.pdf", server.base);
    let time_export = || async {
        let asked = Instant::now();
        let response = client.get(&export).bearer_auth(&user).send().await.unwrap();
        assert_eq!(response.status(), 200);
        let _ = response.bytes().await.unwrap();
        asked.elapsed().as_secs_f64() * 1000.0
    };
    let mut alone = Vec::new();
    for _ in 0..3 {
        alone.push(time_export().await);
    }
    alone.sort_by(f64::total_cmp);
    let deadline = Instant::now() + SHARED_LOAD;
    let readers: Vec<_> = (0..24)
        .map(|_| {
            let (client, report) = (client.clone(), report.clone());
            tokio::spawn(async move {
                let (mut statuses, mut bytes) = (Vec::new(), 0usize);
                while Instant::now() < deadline {
                    let response = client.get(&report).send().await.unwrap();
                    statuses.push(response.status().as_u16());
                    bytes += response.bytes().await.map_or(0, |b| b.len());
                }
                (statuses, bytes)
            })
        })
        .collect();
    let mut loaded = Vec::new();
    while Instant::now() < deadline {
        loaded.push(time_export().await);
    }
    let (mut statuses, mut bytes) = (Vec::new(), 0usize);
    for reader in readers {
        let (s, b) = reader.await.unwrap();
        statuses.extend(s);
        bytes += b;
    }
    loaded.sort_by(f64::total_cmp);
    println!(
        "(d) 24 anonymous report readers for {} s, limits {}: another user's export {:.0} ms median, {:.0} ms slowest ({} exports; {:.0} ms alone, {:.1}×); readers {}, {:.1} MB/s sent",
        SHARED_LOAD.as_secs(),
        if limits_off { "off" } else { "on " },
        support::median(&loaded),
        loaded.last().copied().unwrap_or(f64::NAN),
        loaded.len(),
        support::median(&alone),
        support::median(&loaded) / support::median(&alone),
        by_status(statuses),
        bytes as f64 / 1e6 / SHARED_LOAD.as_secs_f64(),
    );
    server.stop();
}

/// The child: a server with the environment's settings; prints its address, stops when its
/// standard input closes.
async fn serve() {
    use clap::Parser;
    /// The settings as `regard serve` reads them, `REGARD_*` variables included (the parent
    /// sets those of each run; `Config::for_data_dir` would ignore them).
    #[derive(Parser)]
    struct Settings {
        #[command(flatten)]
        config: regard::Config,
    }
    let dir = tempfile::tempdir().unwrap();
    let mut config = Settings::parse_from(["bench_abuse"]).config;
    config.data_dir = dir.path().join("data");
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.web_dir = dir.path().join("web");
    // The sign-ins come "from 200 addresses": X-Forwarded-For is believed.
    config.trust_proxy = true;
    let app = regard::Application::build(config).await.unwrap();
    println!("http://{}", app.address());
    std::io::stdout().flush().unwrap();
    let stopped = async {
        let _ = tokio::task::spawn_blocking(|| {
            let mut sink = Vec::new();
            let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
        })
        .await;
    };
    app.run_until(stopped).await.unwrap();
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--serve") {
        return serve().await;
    }
    let only = args.first().cloned().unwrap_or_default();
    let runs: &[bool] = match args.get(1).map(String::as_str) {
        Some("off") => &[true],
        Some("on") => &[false],
        _ => &[true, false],
    };
    for &limits_off in runs {
        if only.is_empty() || only == "sign-ins" {
            sign_ins(limits_off).await;
        }
        if only.is_empty() || only == "headers" {
            headers(limits_off).await;
        }
        if only.is_empty() || only == "exports" {
            exports(limits_off).await;
        }
        if only.is_empty() || only == "shared" {
            shared(limits_off).await;
        }
    }
}
