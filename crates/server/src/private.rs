//! The data folder is the server user's alone: files are created 0600 and folders 0700 (media
//! objects, staging files, outbox mails and SMS, the SQLite database, the generated secret,
//! backups), so no other local account reads private images or live recovery links.
//!
//! The modes are set when each file or folder is created, never changed after: the server's
//! own files through [`create_dir_all`] and [`options`], and those libraries create
//! (object_store's media files, SQLite's `-wal` and `-shm`) through the process's umask, which
//! [`restrict_umask`] sets to 077 before anything is opened. Folders that already exist with
//! wider modes are tightened at start ([`tighten`]).

use std::path::Path;

/// Mode of the folders the server creates.
pub const DIR_MODE: u32 = 0o700;
/// Mode of the files the server creates.
pub const FILE_MODE: u32 = 0o600;

/// From now on, files and folders this process creates are readable by its user only (umask
/// 077), whoever creates them. Called before the data folder is opened.
pub fn restrict_umask() {
    #[cfg(unix)]
    {
        use nix::sys::stat::{Mode, umask};
        umask(Mode::from_bits_truncate(0o077));
    }
}

/// Creates `path` and its missing parents with mode 0700.
pub fn create_dir_all(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(DIR_MODE);
    }
    builder.create(path)
}

/// [`create_dir_all`] for async code.
pub async fn create_dir_all_async(path: &Path) -> std::io::Result<()> {
    let mut builder = tokio::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    builder.mode(DIR_MODE);
    builder.create(path).await
}

/// Options that create a file with mode 0600 (writing; add `create_new` or `create`).
pub fn options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(FILE_MODE);
    }
    options
}

/// [`options`] for async code.
pub fn options_async() -> tokio::fs::OpenOptions {
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    options.mode(FILE_MODE);
    options
}

/// Copies `from` to a new or truncated file `to` created with mode 0600 (`std::fs::copy`
/// would give it `from`'s mode). Returns the bytes copied.
pub fn copy(from: &Path, to: &Path) -> std::io::Result<u64> {
    let mut source = std::fs::File::open(from)?;
    let mut target = options().create(true).truncate(true).open(to)?;
    let copied = std::io::copy(&mut source, &mut target)?;
    target.sync_all()?;
    Ok(copied)
}

/// Narrows an existing folder that others may enter to 0700 (a data folder made by an older
/// version, or by hand). A failure (a folder of another user) is logged, not fatal.
pub fn tighten(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(metadata) = std::fs::metadata(path) else {
            return;
        };
        if !metadata.is_dir() || metadata.permissions().mode() & 0o077 == 0 {
            return;
        }
        match std::fs::set_permissions(path, std::fs::Permissions::from_mode(DIR_MODE)) {
            Ok(()) => tracing::info!(path = %path.display(), "folder made private (0700)"),
            Err(err) => tracing::warn!(
                path = %path.display(),
                error = %err,
                "cannot make the folder private (0700): other local users may read it"
            ),
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}
