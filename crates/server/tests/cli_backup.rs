//! `regard backup` and `regard restore` on the embedded default: a backup taken while the
//! database is open holds the users, the stored objects and the secret, and puts them back;
//! a restore over existing data needs `--force` and moves the old data aside; PostgreSQL and
//! S3 set-ups are sent to their own tools.

use std::path::Path;
use std::process::{Command, Output};

use regard::db::{Db, media::MediaRow};
use serde_json::Value;

fn regard(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_regard"));
    command
        .args(args)
        .env("REGARD_DATA_DIR", data_dir)
        .env_remove("REGARD_DATABASE_URL")
        .env_remove("REGARD_STORAGE_URL")
        .env_remove("REGARD_JWT_SECRET")
        .env_remove("REGARD_JWT_KEYS");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn ok(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

fn failed(output: &Output) -> String {
    assert!(!output.status.success(), "should have failed");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn sqlite(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

const EMAIL: &str = "ops@example.com";

#[tokio::test]
async fn a_backup_taken_while_the_database_is_open_restores_everything() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut create = Command::new(env!("CARGO_BIN_EXE_regard"));
    let created = create
        .args(["admin", "create-user", "--email", EMAIL, "--no-password"])
        .env("REGARD_DATA_DIR", &data)
        .env_remove("REGARD_DATABASE_URL")
        .env_remove("REGARD_STORAGE_URL")
        .env_remove("REGARD_JWT_SECRET")
        .output()
        .unwrap();
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );

    // One stored image, its three objects and its row, as an upload leaves them. The database
    // stays open (as a running server keeps it) while the backup is taken.
    let db = Db::connect(&sqlite(&data.join("regard.db")), 2)
        .await
        .unwrap();
    let owner = regard::db::users::find_by_email(&db, EMAIL)
        .await
        .unwrap()
        .unwrap();
    let keys = [
        "originals/ab/abcd.png",
        "previews/ab/abcd.jpg",
        "thumbnails/ab/abcd.jpg",
    ];
    for (i, key) in keys.iter().enumerate() {
        let path = data.join("media").join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("object {i}")).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    // A staging file a killed upload left behind is not worth keeping.
    std::fs::write(data.join("media/.regard-upload"), "partial").unwrap();
    regard::db::media::insert(
        &db,
        &MediaRow {
            id: uuid::Uuid::new_v4().to_string(),
            owner_id: owner.id.clone(),
            kind: "upload".to_owned(),
            mime: "image/png".to_owned(),
            width: 10,
            height: 10,
            bytes: 8,
            sha256: "abcd".to_owned(),
            original_name: Some("affiche".to_owned()),
            original_key: keys[0].to_owned(),
            preview_key: keys[1].to_owned(),
            preview_mime: "image/jpeg".to_owned(),
            thumbnail_key: keys[2].to_owned(),
            thumbnail_mime: "image/jpeg".to_owned(),
            gps_latitude: None,
            gps_longitude: None,
            created_at: regard::db::now_ms(),
        },
    )
    .await
    .unwrap();

    let backup = dir.path().join("backup");
    let summary = ok(&regard(
        &data,
        &["backup", "--to", backup.to_str().unwrap()],
        &[],
    ));
    db.close().await;
    assert_eq!(summary["media_files"], 3, "{summary}");
    assert_eq!(summary["missing_objects"], 0);
    assert_eq!(summary["jwt_secret"], true);
    assert!(!backup.join("media/.regard-upload").exists());
    // The backup is as private as the data folder: 0600 files in 0700 folders, whatever the
    // modes of the originals (these were written 0644 in 0755 folders, as older versions did).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut open = Vec::new();
        let mut stack = vec![backup.clone()];
        while let Some(path) = stack.pop() {
            let metadata = std::fs::metadata(&path).unwrap();
            let mode = metadata.permissions().mode() & 0o777;
            if mode != if metadata.is_dir() { 0o700 } else { 0o600 } {
                open.push(format!("{} {mode:o}", path.display()));
            }
            if metadata.is_dir() {
                stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            }
        }
        assert!(open.is_empty(), "readable by others: {open:#?}");
        assert!(backup.join("media/originals/ab/abcd.png").is_file());
    }
    // A backup never lands on top of another.
    let again = regard(&data, &["backup", "--to", backup.to_str().unwrap()], &[]);
    assert!(failed(&again).contains("not empty"));

    // Things go wrong: the user is deleted, the media folder lost.
    let deleted = regard(&data, &["admin", "delete-user", "--email", EMAIL], &[]);
    assert!(deleted.status.success());
    std::fs::remove_dir_all(data.join("media")).unwrap();
    let secret = std::fs::read(data.join("jwt_secret")).unwrap();

    let from = backup.to_str().unwrap();
    let refused = regard(&data, &["restore", "--from", from], &[]);
    assert!(failed(&refused).contains("--force"));
    let restored = ok(&regard(&data, &["restore", "--from", from, "--force"], &[]));
    assert_eq!(restored["integrity"], "ok", "{restored}");
    assert_eq!(restored["missing_objects"], 0);
    let aside = restored["moved_aside"].as_str().unwrap();
    assert!(Path::new(aside).join("regard.db").is_file());

    let db = Db::connect(&sqlite(&data.join("regard.db")), 1)
        .await
        .unwrap();
    let back = regard::db::users::find_by_email(&db, EMAIL).await.unwrap();
    assert_eq!(back.map(|u| u.id), Some(owner.id));
    db.close().await;
    for (i, key) in keys.iter().enumerate() {
        let content = std::fs::read_to_string(data.join("media").join(key)).unwrap();
        assert_eq!(content, format!("object {i}"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            let path = data.join("media").join(key);
            assert_eq!(mode(&path), 0o600, "{key}");
            assert_eq!(mode(path.parent().unwrap()), 0o700, "{key}");
        }
    }
    assert_eq!(std::fs::read(data.join("jwt_secret")).unwrap(), secret);
}

#[test]
fn scale_out_set_ups_are_sent_to_their_own_tools() {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("b");
    let postgres = regard(
        dir.path(),
        &["backup", "--to", to.to_str().unwrap()],
        &[(
            "REGARD_DATABASE_URL",
            "postgres://postgres@127.0.0.1:5432/test",
        )],
    );
    assert!(failed(&postgres).contains("pg_dump"));
    let s3 = regard(
        dir.path(),
        &["restore", "--from", to.to_str().unwrap()],
        &[(
            "REGARD_STORAGE_URL",
            "s3://bucket?endpoint=http://127.0.0.1:9&region=x",
        )],
    );
    assert!(failed(&s3).contains("versioning"));
    let nothing = regard(dir.path(), &["backup", "--to", to.to_str().unwrap()], &[]);
    assert!(failed(&nothing).contains("nothing to back up"));
}
