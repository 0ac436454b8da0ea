//! Zero-configuration start-up: the data folder, the generated JWT secret, CORS when asked.

use std::os::unix::fs::PermissionsExt;

use regard::{Application, Config};
use reqwest::Method;

use crate::helpers::{spawn_app_with, unique_email};

#[tokio::test]
async fn the_data_folder_is_created_and_the_secret_survives_a_restart() {
    let root = tempfile::tempdir().unwrap();
    let data_dir = root.path().join("data");
    let config = || {
        let mut config = Config::for_data_dir(&data_dir);
        config.bind = "127.0.0.1:0".parse().unwrap();
        config.database_url = None;
        config.jwt_secret = None;
        config.web_dir = root.path().join("no-web");
        config.rate_limit_sign_up = 0;
        config
    };

    let first = Application::build(config()).await.unwrap();
    let first_url = format!("http://{}", first.address());
    tokio::spawn(first.run_until(std::future::pending()));
    let secret_file = data_dir.join("jwt_secret");
    let mode = std::fs::metadata(&secret_file)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(data_dir.join("media").is_dir());
    assert!(data_dir.join("regard.db").is_file());
    let secret = std::fs::read_to_string(&secret_file).unwrap();
    assert!(secret.len() >= 64);

    regard::tls::install_provider();
    let client = reqwest::Client::new();
    let session: serde_json::Value = client
        .post(format!("{first_url}/auth/v1/signup"))
        .json(&serde_json::json!({"email": unique_email(), "password": "secret1"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    // SQLite runs in WAL mode; the database and its log are the owner's alone.
    assert!(data_dir.join("regard.db-wal").is_file());
    for file in ["regard.db", "regard.db-wal"] {
        let mode = std::fs::metadata(data_dir.join(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file}");
    }

    // A second server on the same folder keeps the secret, so the token stays valid.
    let second = Application::build(config()).await.unwrap();
    let second_url = format!("http://{}", second.address());
    tokio::spawn(second.run_until(std::future::pending()));
    assert_eq!(std::fs::read_to_string(&secret_file).unwrap(), secret);
    let response = client
        .get(format!("{second_url}/auth/v1/user"))
        .bearer_auth(session["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn cors_is_same_origin_unless_origins_are_configured() {
    let app = spawn_app_with(|_| {}).await;
    let response = app
        .client
        .request(Method::OPTIONS, app.url("/auth/v1/token"))
        .header("Origin", "http://localhost:5173")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert!(
        !response
            .headers()
            .contains_key("access-control-allow-origin")
    );

    let app = spawn_app_with(|config| {
        config.cors_origins = vec!["http://localhost:5173".to_owned()];
    })
    .await;
    let response = app
        .client
        .request(Method::OPTIONS, app.url("/auth/v1/token"))
        .header("Origin", "http://localhost:5173")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "apikey,authorization,content-type,x-client-info,x-supabase-api-version",
        )
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success());
    let headers = response.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "http://localhost:5173"
    );
    let allowed = headers["access-control-allow-headers"].to_str().unwrap();
    assert!(allowed.contains("apikey"), "{allowed}");
    let response = app
        .client
        .get(app.url("/auth/v1/settings"))
        .header("Origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    let exposed = response.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(exposed.contains("x-supabase-api-version"), "{exposed}");
}

#[tokio::test]
async fn staging_files_a_killed_process_left_are_swept_at_start() {
    let root = tempfile::tempdir().unwrap();
    let data_dir = root.path().join("data");
    let tmp = data_dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    for (name, old) in [
        (".regard-left-by-a-crash", true),
        (".regard-upload-in-progress", false),
        ("someone-elses-file", true),
    ] {
        let file = std::fs::File::create(tmp.join(name)).unwrap();
        if old {
            file.set_modified(two_hours_ago).unwrap();
        }
    }
    let mut config = Config::for_data_dir(&data_dir);
    config.bind = "127.0.0.1:0".parse().unwrap();
    config.database_url = None;
    config.jwt_secret = None;
    config.web_dir = root.path().join("no-web");
    let app = Application::build(config).await.unwrap();
    let url = format!("http://{}/healthz", app.address());
    tokio::spawn(app.run_until(std::future::pending()));
    // Answering means the server is past its start-up sweep.
    assert_eq!(reqwest::get(&url).await.unwrap().status(), 200);
    let mut left: Vec<String> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, [".regard-upload-in-progress", "someone-elses-file"]);
}

/// Every folder and file under `root` with a mode that lets other accounts in.
fn not_private(root: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        let metadata = std::fs::symlink_metadata(&path).unwrap();
        let mode = metadata.permissions().mode() & 0o777;
        let expected = if metadata.is_dir() { 0o700 } else { 0o600 };
        if mode != expected {
            found.push(format!("{} {mode:o}", path.display()));
        }
        if metadata.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
    found
}

/// Media, staging files, mails, the database and the secret are 0600 in 0700 folders, and
/// folders an older version left open are closed at start.
#[tokio::test]
async fn the_data_folder_and_everything_in_it_are_private() {
    let app = spawn_app_with(|config| {
        // The media folder is the embedded default's, even when the suite runs on S3.
        config.storage_url = None;
        // As an older version (or `mkdir`) left them: 0755.
        for dir in [config.data_dir.clone(), config.data_dir.join("media")] {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    })
    .await;
    // A mail in the outbox (a confirmation link), and an uploaded image with its variants.
    let user = app.new_user().await;
    let email = unique_email();
    app.sign_up(&email, "secret1").await;
    let body = serde_json::json!({"email": email});
    let response = app.post("/auth/v1/recover", &body).await;
    assert_eq!(response.status(), 200);
    crate::mail_links::wait_for_mails(&app, 1).await;
    app.upload_ok(&user, "private.png", crate::fixtures::png(64, 48))
        .await;
    let data_dir = &app.state.config.data_dir;
    assert!(data_dir.join("media").read_dir().unwrap().next().is_some());
    assert!(data_dir.join("outbox").read_dir().unwrap().next().is_some());
    let open = not_private(data_dir);
    assert!(open.is_empty(), "readable by others: {open:#?}");
}
