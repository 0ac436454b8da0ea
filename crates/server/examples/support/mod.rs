//! What the server benchmarks share: the real server started in-process on a temporary data
//! folder (the embedded default: SQLite and local storage), a signed-up user, a reader of
//! `GET /api/v1/events`, JPEG encoding, the median, and the process's memory figures.

// Each benchmark uses part of this module.
#![allow(dead_code)]

use std::io::Cursor;
use std::time::Duration;

use image::{Rgb, RgbImage};
use regard::{Application, Config};
use serde_json::{Value, json};

/// A photo-like synthetic image: gradients, stripes and noise.
pub fn synthetic_photo(width: u32, height: u32, seed: u32) -> RgbImage {
    let mut state = 0x9e37_79b9u32.wrapping_mul(seed + 1);
    let mut noise = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 27) as i32 - 16
    };
    RgbImage::from_fn(width, height, |x, y| {
        let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
        let stripes = (((x + seed * 37) / (20 + seed * 3) + y / 45) % 2) as f32 * 35.0;
        let base = [
            90.0 + 110.0 * fx + stripes,
            70.0 + 120.0 * fy,
            60.0 + 80.0 * fx * fy + 8.0 * seed as f32,
        ];
        let mut px = [0u8; 3];
        for (out, channel) in px.iter_mut().zip(base) {
            *out = (channel as i32 + noise()).clamp(0, 255) as u8;
        }
        Rgb(px)
    })
}

/// JPEG at quality 90, as a camera or an export would give.
pub fn encode_jpeg(image: &RgbImage) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
        .encode_image(image)
        .unwrap();
    out.into_inner()
}

/// A field of `/proc/self/status` in KiB (`VmRSS:`, `VmHWM:`), on Linux.
pub fn status_kib(field: &str) -> Option<u64> {
    status_kib_of("self", field)
}

/// A field of `/proc/<process>/status` in KiB; `process` is a pid or `self`.
pub fn status_kib_of(process: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The CPU time a process has used so far (user + system), in milliseconds.
pub fn cpu_ms_of(process: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{process}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at the closing parenthesis.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // The kernel reports clock ticks, 100 a second on Linux.
    Some(ticks * 10.0)
}

/// Resets VmHWM to the current RSS (Linux ≥ 4.0); returns whether it worked.
pub fn reset_peak_rss() -> bool {
    reset_peak_rss_of("self")
}

/// [`reset_peak_rss`] of another process (a pid).
pub fn reset_peak_rss_of(process: &str) -> bool {
    std::fs::write(format!("/proc/{process}/clear_refs"), "5").is_ok()
}

/// Inserts `count` creatives of `owner` with their media rows (large JPEG originals whose
/// objects are never read), one second apart and newest last, with five brands (one in five
/// is "Évian") and thirty campaigns; returns the media rows.
pub async fn seed_creatives(
    db: &regard::db::Db,
    owner: &str,
    count: usize,
) -> Vec<regard::db::media::MediaRow> {
    use regard::db::creatives::{self, CreativeRow};
    use regard::db::media::{self, MediaRow};
    let now = regard::db::now_ms();
    let brands = ["Café Noir", "Évian", "Lumière", "Nord", "Océan"];
    let mut rows = Vec::with_capacity(count);
    for i in 0..count {
        let created_at = now - (count - i) as i64 * 1000;
        let sha = format!("{:064x}", i + 1);
        let key = |variant: &str| format!("{}/{sha}/{variant}.jpg", &sha[..2]);
        let row = MediaRow {
            id: uuid::Uuid::new_v4().to_string(),
            owner_id: owner.to_owned(),
            kind: "upload".to_owned(),
            mime: "image/jpeg".to_owned(),
            width: 6000,
            height: 4000,
            bytes: 14_000_000,
            original_name: Some(format!("poster-{i}.jpg")),
            original_key: key("original"),
            preview_key: key("preview"),
            preview_mime: "image/jpeg".to_owned(),
            thumbnail_key: key("thumbnail"),
            thumbnail_mime: "image/jpeg".to_owned(),
            sha256: sha.clone(),
            gps_latitude: None,
            gps_longitude: None,
            created_at,
        };
        media::insert(db, &row).await.unwrap();
        let creative = CreativeRow {
            id: uuid::Uuid::new_v4().to_string(),
            owner_id: owner.to_owned(),
            media_id: row.id.clone(),
            name: format!("Campagne d'été n° {i}"),
            brand: Some(brands[i % brands.len()].to_owned()),
            campaign: Some(format!("Rentrée {}", 2000 + i % 30)),
            notes: None,
            created_at,
            updated_at: created_at,
        };
        creatives::insert(db, &creative).await.unwrap();
        rows.push(row);
    }
    rows
}

/// Median of sorted values.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// A running server on `127.0.0.1:0` with no rate limits, stopped by [`Server::stop`].
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Job workers it runs (`REGARD_WORKERS`, default one per CPU).
    pub workers: usize,
    stop: tokio::sync::oneshot::Sender<()>,
    handle: tokio::task::JoinHandle<std::io::Result<()>>,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Starts the server on a fresh temporary data folder.
    pub async fn start() -> Server {
        Self::start_with(|_| {}).await
    }

    /// [`Server::start`] after `adjust` has changed the configuration.
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::for_data_dir(dir.path().join("data"));
        config.bind = "127.0.0.1:0".parse().unwrap();
        config.database_url = None;
        config.storage_url = None;
        config.web_dir = dir.path().join("web");
        config.rate_limit_sign_up = 0;
        config.rate_limit_sign_in = 0;
        config.rate_limit_uploads = 0;
        config.storage_quota_mb = 0;
        config.fault_hold_job_ms = 0;
        adjust(&mut config);
        let workers = config.worker_count();
        let app = Application::build(config).await.expect("server starts");
        let base = format!("http://{}", app.address());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let handle = tokio::spawn(app.run_until(async {
            let _ = stopped.await;
        }));
        Server {
            base,
            workers,
            stop,
            handle,
            _dir: dir,
        }
    }

    /// Signs up a user over HTTP and returns its access token.
    pub async fn sign_up(&self, client: &reqwest::Client) -> String {
        self.sign_up_as(client, "bench@example.com").await
    }

    /// Signs up the user `email` over HTTP and returns its access token.
    pub async fn sign_up_as(&self, client: &reqwest::Client, email: &str) -> String {
        sign_up_at(client, &self.base, email).await
    }

    /// Shuts the server down gracefully and waits for it.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.handle.await;
    }
}

/// An open `GET /api/v1/events` stream.
pub struct Events {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl Events {
    /// Opens the user's stream and waits for its `ready` event.
    pub async fn open(client: &reqwest::Client, base: &str, token: &str) -> Events {
        let response = client
            .get(format!("{base}/api/v1/events"))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let mut events = Events {
            response,
            buffer: Vec::new(),
        };
        let (name, _) = events
            .next(tokio::time::Instant::now() + Duration::from_secs(10))
            .await;
        assert_eq!(name, "ready");
        events
    }

    /// The next event's name and data (comments skipped).
    pub async fn next(&mut self, deadline: tokio::time::Instant) -> (String, Value) {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let frame = String::from_utf8(self.buffer[..end].to_vec()).unwrap();
                self.buffer.drain(..end + 2);
                let mut name = None;
                let mut data = Vec::new();
                for line in frame.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push(v.trim_start().to_owned());
                    }
                }
                if let Some(name) = name {
                    return (name, serde_json::from_str(&data.join("\n")).unwrap());
                }
                continue;
            }
            let chunk = tokio::time::timeout_at(deadline, self.response.chunk())
                .await
                .expect("timed out waiting for events")
                .expect("event stream failed")
                .expect("event stream ended");
            self.buffer.extend_from_slice(&chunk);
        }
    }
}

/// Signs up `email` on the server at `base` over HTTP and returns its access token.
pub async fn sign_up_at(client: &reqwest::Client, base: &str, email: &str) -> String {
    let session: Value = client
        .post(format!("{base}/auth/v1/signup"))
        .header("apikey", "anon-key")
        .json(&json!({"email": email, "password": "secret1"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    session["access_token"]
        .as_str()
        .expect("signed up")
        .to_owned()
}

/// Uploads a JPEG as `name` and returns the media answer (201 expected).
pub async fn upload_jpeg(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    name: &str,
    data: Vec<u8>,
) -> Value {
    let part = reqwest::multipart::Part::bytes(data)
        .file_name(name.to_owned())
        .mime_str("image/jpeg")
        .unwrap();
    let response = client
        .post(format!("{base}/api/v1/media"))
        .bearer_auth(token)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "upload of {name} failed");
    response.json().await.unwrap()
}

/// `POST /api/v1{path}` with a JSON body; the answer (a success expected).
pub async fn post_json(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    path: &str,
    body: Value,
) -> Value {
    let response = client
        .post(format!("{base}/api/v1{path}"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "POST {path} failed: {}",
        response.status()
    );
    response.json().await.unwrap()
}
