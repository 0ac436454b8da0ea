//! The per-user storage quota (`REGARD_STORAGE_QUOTA_MB`, issue 26): what a user stores is the
//! sum of the `bytes` of the media rows they own (uploads, renders and heatmap layers: the
//! originals; previews and thumbnails, at most 2048 pixels, are not counted). An upload is
//! checked before anything of it is stored: refused with 413 `storage_quota_exceeded` when it
//! would take the user past the quota, so nothing is written and nothing already stored goes.
//!
//! Uploads of one user that run at once each reserve their size here until their row is
//! written, so a burst cannot pass the quota together (in one process; with several nodes each
//! keeps its own reservations, so a burst spread over N nodes may pass it by up to N - 1
//! uploads). Renders and heatmap layers are made by jobs and never refused: they count, so a
//! user at the quota can still finish work in hand but cannot upload more.

use std::sync::Arc;

use crate::db::{self, Db, DbError};
use crate::tally::{Held, Tally};

/// Bytes in one MB of `REGARD_STORAGE_QUOTA_MB` (decimal, as disks are sold).
pub const MB: u64 = 1_000_000;

/// The sizes of uploads in progress, by user.
#[derive(Debug, Default)]
pub struct Reservations(Arc<Tally>);

/// An upload's place in the quota while it is stored; given back when dropped (by then its
/// row counts instead, or it failed).
pub type Reserved = Held;

/// An upload the quota refuses: what the user stores (with uploads in progress) and the quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exceeded {
    pub used_bytes: u64,
    pub limit_bytes: u64,
}

/// What a user stores (the `bytes` of their media rows) and how many media rows that is.
pub async fn usage(db: &Db, owner_id: &str) -> Result<(u64, u64), DbError> {
    let (bytes, count) = db::media::usage(db, owner_id).await?;
    Ok((
        u64::try_from(bytes).unwrap_or(0),
        u64::try_from(count).unwrap_or(0),
    ))
}

impl Reservations {
    /// Reserves `bytes` for an upload of `user_id` when what they store, their uploads in
    /// progress and this one fit in `limit_bytes` (0: no quota, always reserved).
    pub async fn reserve(
        &self,
        db: &Db,
        user_id: &str,
        bytes: u64,
        limit_bytes: u64,
    ) -> Result<Result<Reserved, Exceeded>, DbError> {
        let stored = if limit_bytes == 0 {
            0
        } else {
            usage(db, user_id).await?.0
        };
        let fits = |held: u64| {
            limit_bytes == 0 || stored.saturating_add(held).saturating_add(bytes) <= limit_bytes
        };
        Ok(self.0.take(user_id, bytes, fits).map_err(|held| Exceeded {
            used_bytes: stored.saturating_add(held),
            limit_bytes,
        }))
    }
}
