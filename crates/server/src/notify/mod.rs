//! Messages to users outside the app: mail (recovery, confirmation, email change) and SMS
//! (second-factor codes). Each goes through a trait with a production implementation (SMTP
//! through `lettre`, an HTTP webhook to an SMS gateway) and a development one that writes the
//! message to `<data dir>/outbox/` — so a new user, and the tests, can read links and codes
//! without any external service.

pub mod mail;
pub mod sms;
pub mod templates;

use std::path::{Path, PathBuf};

/// Writes `bytes` to `<outbox>/<prefix>-<epoch ms>-<uuid>.<ext>` atomically (a temporary name,
/// then a rename), so a reader never sees half a message. Returns the path.
async fn write_outbox(
    dir: &Path,
    prefix: &str,
    ext: &str,
    bytes: &[u8],
) -> std::io::Result<PathBuf> {
    // Mails and texts hold live links and codes: the server user's only (0600 in 0700).
    crate::private::create_dir_all_async(dir).await?;
    let name = format!(
        "{prefix}-{}-{}.{ext}",
        crate::db::now_ms(),
        uuid::Uuid::new_v4()
    );
    let path = dir.join(&name);
    let partial = dir.join(format!(".{name}.partial"));
    {
        use tokio::io::AsyncWriteExt;
        let mut file = crate::private::options_async()
            .create(true)
            .truncate(true)
            .open(&partial)
            .await?;
        file.write_all(bytes).await?;
        file.flush().await?;
    }
    tokio::fs::rename(&partial, &path).await?;
    Ok(path)
}
