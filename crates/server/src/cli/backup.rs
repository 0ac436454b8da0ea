//! `regard backup` and `regard restore`: the embedded default (SQLite file, local media
//! folder, generated secret) copied to a folder while the server runs, and put back.
//!
//! A backup folder holds `regard.db` (a `VACUUM INTO` snapshot: one consistent point in time),
//! `media/` (the stored objects), `jwt_secret` (it also seals second-factor secrets: without it
//! restored factors cannot be verified) and `backup.json` (what was copied). The media folder
//! is copied twice, before and after the snapshot: objects are immutable and named by their
//! content, so the second pass only adds what appeared meanwhile, and every object the snapshot
//! names is in the backup (the command checks, and says so). For PostgreSQL and S3, use their
//! own tools (docs/operations.md).
//!
//! A backup holds what the data folder holds, so it is as private: folders 0700, files 0600,
//! set when each is created (and the same for what `regard restore` writes back).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::config::Config;
use crate::db::{self, Db};

/// Flags of `regard backup`.
#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    /// Folder to write the backup to; must not exist yet, or be empty.
    #[arg(long)]
    pub to: PathBuf,
    #[command(flatten)]
    pub config: Config,
}

/// Flags of `regard restore`.
#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// A folder written by `regard backup`.
    #[arg(long)]
    pub from: PathBuf,
    /// Restore over an existing database: what is there is moved aside, into
    /// `<data dir>/before-restore-<time>/`, not deleted.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub config: Config,
}

/// Where the embedded media folder is, or why there is none to copy.
fn media_dir(config: &Config) -> anyhow::Result<PathBuf> {
    match config.storage_url.as_deref().map(str::trim) {
        None | Some("") => Ok(config.data_dir.join("media")),
        Some(url) => match url.strip_prefix("file://") {
            Some(path) if path.starts_with('/') => Ok(PathBuf::from(path)),
            _ => bail!(
                "backup and restore cover the embedded default; media in S3 are kept by the \
                 bucket's own versioning or replication (docs/operations.md)"
            ),
        },
    }
}

fn embedded_only(config: &Config) -> anyhow::Result<PathBuf> {
    if config.database_url.is_some() {
        bail!(
            "backup and restore cover the embedded SQLite database; for PostgreSQL use \
             pg_dump and pg_restore (docs/operations.md)"
        );
    }
    media_dir(config)
}

/// Copies every file under `from` that `to` lacks (or holds with another size) into `to`,
/// keeping the relative paths; staging files (`.regard-*`) are left out. Returns the files and
/// bytes copied.
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<(u64, u64)> {
    let (mut files, mut bytes) = (0, 0);
    if !from.exists() {
        return Ok((0, 0));
    }
    let mut stack = vec![from.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let entry = entry?;
            let path = entry.path();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            if !kind.is_file() || entry.file_name().to_string_lossy().starts_with(".regard-") {
                continue;
            }
            let target = to.join(path.strip_prefix(from)?);
            let size = entry.metadata()?.len();
            if target.metadata().is_ok_and(|m| m.len() == size) {
                continue;
            }
            if let Some(parent) = target.parent() {
                crate::private::create_dir_all(parent)?;
            }
            match crate::private::copy(&path, &target) {
                Ok(copied) => {
                    files += 1;
                    bytes += copied;
                }
                // Deleted since we listed it: the snapshot will not name it either.
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => {
                    return Err(err).with_context(|| format!("copying {}", path.display()));
                }
            }
        }
    }
    Ok((files, bytes))
}

/// Copies a secret file, readable by its owner only.
fn copy_private(from: &Path, to: &Path) -> anyhow::Result<()> {
    crate::private::copy(from, to).with_context(|| format!("copying {}", from.display()))?;
    Ok(())
}

fn sqlite_url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

/// Keys the database names that `media` lacks.
async fn missing_objects(db: &Db, media: &Path) -> anyhow::Result<Vec<String>> {
    Ok(db::backup::media_keys(db)
        .await?
        .into_iter()
        .filter(|key| !media.join(key).is_file())
        .collect())
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?)
}

/// `regard backup --to DIR`.
pub fn run_backup(args: BackupArgs) -> anyhow::Result<()> {
    let media = embedded_only(&args.config)?;
    let data = &args.config.data_dir;
    let database = data.join("regard.db");
    if !database.is_file() {
        bail!("no database at {}: nothing to back up", database.display());
    }
    let to = &args.to;
    if to.exists() && std::fs::read_dir(to)?.next().is_some() {
        bail!("{} is not empty: back up into a new folder", to.display());
    }
    crate::private::restrict_umask();
    crate::private::create_dir_all(&to.join("media"))?;
    crate::private::tighten(to);

    runtime()?.block_on(async {
        let (mut files, mut bytes) = copy_tree(&media, &to.join("media"))?;
        let db = Db::connect(&sqlite_url(&database), 1).await?;
        // `VACUUM INTO` writes into an empty file: one made private first.
        crate::private::options()
            .create_new(true)
            .open(to.join("regard.db"))
            .with_context(|| format!("creating {}", to.join("regard.db").display()))?;
        db::backup::snapshot_sqlite(&db, &to.join("regard.db")).await?;
        db.close().await;
        let (more_files, more_bytes) = copy_tree(&media, &to.join("media"))?;
        files += more_files;
        bytes += more_bytes;
        let secret = data.join("jwt_secret");
        if secret.is_file() {
            copy_private(&secret, &to.join("jwt_secret"))?;
        }

        let snapshot = Db::connect(&sqlite_url(&to.join("regard.db")), 1).await?;
        let missing = missing_objects(&snapshot, &to.join("media")).await?;
        snapshot.close().await;
        let summary = serde_json::json!({
            "regard_version": env!("CARGO_PKG_VERSION"),
            "created_at": db::now_ms(),
            "database": "regard.db",
            "media_files": files,
            "media_bytes": bytes,
            "jwt_secret": secret.is_file(),
            "missing_objects": missing.len(),
        });
        {
            use std::io::Write;
            let mut file = crate::private::options()
                .create(true)
                .truncate(true)
                .open(to.join("backup.json"))?;
            file.write_all((serde_json::to_string_pretty(&summary)? + "\n").as_bytes())?;
        }
        println!("{summary}");
        if !missing.is_empty() {
            bail!(
                "{} object(s) the database names are missing from the media folder (first: {})",
                missing.len(),
                missing[0]
            );
        }
        anyhow::Ok(())
    })
}

/// `regard restore --from DIR [--force]`. Every `regard` process on this data folder must be
/// stopped first.
pub fn run_restore(args: RestoreArgs) -> anyhow::Result<()> {
    let media = embedded_only(&args.config)?;
    let from = &args.from;
    let backup_db = from.join("regard.db");
    if !backup_db.is_file() || !from.join("backup.json").is_file() {
        bail!(
            "{} is not a backup written by `regard backup`",
            from.display()
        );
    }
    let data = &args.config.data_dir;
    let database = data.join("regard.db");
    crate::private::restrict_umask();
    crate::private::create_dir_all(data)?;
    crate::private::tighten(data);
    let moved = if database.exists() {
        if !args.force {
            bail!(
                "{} already holds a database; stop every regard process and add --force to \
                 restore over it (it is moved aside, not deleted)",
                data.display()
            );
        }
        let aside = data.join(format!("before-restore-{}", db::now_ms()));
        crate::private::create_dir_all(&aside)?;
        for name in ["regard.db", "regard.db-wal", "regard.db-shm", "jwt_secret"] {
            if data.join(name).exists() {
                std::fs::rename(data.join(name), aside.join(name))?;
            }
        }
        if media.exists() {
            std::fs::rename(&media, aside.join("media"))
                .with_context(|| format!("moving {} aside", media.display()))?;
        }
        Some(aside)
    } else {
        None
    };

    copy_private(&backup_db, &database)?;
    let (files, bytes) = copy_tree(&from.join("media"), &media)?;
    if from.join("jwt_secret").is_file() {
        copy_private(&from.join("jwt_secret"), &data.join("jwt_secret"))?;
    }
    runtime()?.block_on(async {
        // Connecting also brings an older backup's schema up to date.
        let db = Db::connect(&sqlite_url(&database), 1).await?;
        let integrity = db::backup::integrity_check(&db).await?;
        let missing = missing_objects(&db, &media).await?;
        db.close().await;
        let summary = serde_json::json!({
            "database": database.display().to_string(),
            "integrity": integrity,
            "media_files": files,
            "media_bytes": bytes,
            "missing_objects": missing.len(),
            "moved_aside": moved.as_ref().map(|p| p.display().to_string()),
        });
        println!("{summary}");
        if integrity != "ok" {
            bail!("the restored database fails SQLite's integrity check: {integrity}");
        }
        if !missing.is_empty() {
            bail!("{} object(s) the database names are missing", missing.len());
        }
        anyhow::Ok(())
    })
}
