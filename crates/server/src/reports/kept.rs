//! Drawn reports kept for the public share links: `GET /shared/{token}/report.pdf` needs no
//! account, so it must not let anyone make the server draw the same report again and again
//! (each drawing decodes the heatmap's images and lays out the PDF: seconds of a core).
//!
//! A report is kept under what it is made of ([`KeptKey`]): the share, a digest of the heatmap
//! as read (its rows, items, results and areas: any change gives a new digest), the language,
//! the owner's branding and the day (the report is dated). The same key gives the same bytes,
//! on the same day. Requests for a report being drawn wait for that one drawing (one flight
//! per key) instead of drawing it again. Bounded in bytes; the least recently used go first.
//! In each process: another node draws its own copy once.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use lru::LruCache;
use tokio::sync::OnceCell;

/// Bytes of reports kept at most.
pub const BUDGET: usize = 32 << 20;

/// What a kept report is made of.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeptKey {
    /// The share link's id.
    pub share_id: String,
    /// A digest of everything else the report is drawn from ([`KeptKey::digest`]).
    pub digest: [u8; 32],
}

impl KeptKey {
    /// The key of a share's report drawn from `parts` (the heatmap as read, the branding row,
    /// the language, the day: anything whose change changes the report), each given by its
    /// `Debug` form, which shows every field.
    pub fn new(share_id: &str, parts: &[&dyn std::fmt::Debug]) -> Self {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update(format!("{part:?}").as_bytes());
            hasher.update([0]);
        }
        KeptKey {
            share_id: share_id.to_owned(),
            digest: hasher.finalize().into(),
        }
    }
}

type Slot = Arc<OnceCell<Bytes>>;

/// The kept reports (see the module's documentation).
pub struct KeptReports {
    inner: Mutex<Kept>,
    budget: usize,
}

struct Kept {
    reports: LruCache<KeptKey, Slot>,
    bytes: usize,
}

impl KeptReports {
    /// Keeps at most `budget` bytes of reports.
    pub fn new(budget: usize) -> Self {
        KeptReports {
            inner: Mutex::new(Kept {
                reports: LruCache::unbounded(),
                bytes: 0,
            }),
            budget,
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while holding the lock leaves consistent data (plain inserts and removes).
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The report kept under `key`, else the one `draw` makes (kept for the next request).
    /// Concurrent calls with one key wait for one drawing; a failed drawing is not kept, so
    /// the next call draws again.
    pub async fn get_or_draw<F, Fut, E>(&self, key: &KeptKey, draw: F) -> Result<Bytes, E>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Bytes, E>>,
    {
        let slot = Arc::clone(
            self.kept()
                .reports
                .get_or_insert(key.clone(), || Arc::new(OnceCell::new())),
        );
        let mut drew = false;
        let bytes = slot
            .get_or_try_init(|| {
                drew = true;
                draw()
            })
            .await?
            .clone();
        if drew {
            self.account(key, &slot, bytes.len());
        }
        Ok(bytes)
    }

    /// Counts a new drawing's `len` bytes (if its slot is still the one kept under `key`) and
    /// lets the least recently used reports go until the rest fits the budget.
    fn account(&self, key: &KeptKey, slot: &Slot, len: usize) {
        let mut kept = self.kept();
        let current = kept.reports.peek(key).is_some_and(|s| Arc::ptr_eq(s, slot));
        if !current {
            return;
        }
        if len > self.budget {
            kept.reports.pop(key);
            return;
        }
        kept.bytes += len;
        while kept.bytes > self.budget {
            let Some((_, gone)) = kept.reports.pop_lru() else {
                break;
            };
            kept.bytes = kept.bytes.saturating_sub(gone.get().map_or(0, Bytes::len));
        }
    }

    /// Bytes of drawn reports kept now.
    pub fn bytes(&self) -> usize {
        self.kept().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn key(name: &str) -> KeptKey {
        KeptKey::new("share", &[&name])
    }

    #[tokio::test]
    async fn a_report_is_drawn_once_for_many_concurrent_requests() {
        let kept = Arc::new(KeptReports::new(1 << 20));
        let drawings = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(tokio::sync::Notify::new());
        let tasks: Vec<_> = (0..24)
            .map(|_| {
                let (kept, drawings, gate) = (kept.clone(), drawings.clone(), gate.clone());
                tokio::spawn(async move {
                    kept.get_or_draw(&key("a"), || async move {
                        drawings.fetch_add(1, Ordering::SeqCst);
                        gate.notified().await;
                        Ok::<_, ()>(Bytes::from_static(b"%PDF"))
                    })
                    .await
                })
            })
            .collect();
        // Wait until the one drawing has started, then let it finish.
        while drawings.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        gate.notify_one();
        for task in tasks {
            assert_eq!(task.await.unwrap().unwrap(), Bytes::from_static(b"%PDF"));
        }
        assert_eq!(drawings.load(Ordering::SeqCst), 1);
        assert_eq!(kept.bytes(), 4);
    }

    #[tokio::test]
    async fn another_key_draws_again_failures_are_not_kept_and_the_budget_holds() {
        let kept = KeptReports::new(10);
        let draw =
            |text: &'static [u8]| move || async move { Ok::<_, ()>(Bytes::from_static(text)) };
        assert_eq!(
            kept.get_or_draw(&key("a"), draw(b"aaaaaa")).await.unwrap(),
            &b"aaaaaa"[..]
        );
        // Kept: the second call does not draw.
        let again = kept
            .get_or_draw(&key("a"), || async { Err::<Bytes, _>("drawn again") })
            .await;
        assert_eq!(again.unwrap(), &b"aaaaaa"[..]);
        // A failure is answered, not kept.
        assert!(
            kept.get_or_draw(&key("b"), || async { Err::<Bytes, _>(()) })
                .await
                .is_err()
        );
        assert_eq!(
            kept.get_or_draw(&key("b"), draw(b"bbbbbb")).await.unwrap(),
            &b"bbbbbb"[..]
        );
        // 12 bytes > 10: the least recently used ("a") went.
        assert_eq!(kept.bytes(), 6);
        let redrawn = kept.get_or_draw(&key("a"), draw(b"AAAAAA")).await.unwrap();
        assert_eq!(redrawn, &b"AAAAAA"[..]);
        // Larger than the whole budget: answered, not kept.
        let big = kept
            .get_or_draw(&key("c"), draw(b"ccccccccccccc"))
            .await
            .unwrap();
        assert_eq!(big.len(), 13);
        assert_eq!(kept.bytes(), 6);
    }

    #[test]
    fn keys_differ_with_any_part() {
        assert_eq!(
            KeptKey::new("s", &[&1, &"fr"]),
            KeptKey::new("s", &[&1, &"fr"])
        );
        assert_ne!(
            KeptKey::new("s", &[&1, &"fr"]),
            KeptKey::new("s", &[&1, &"en"])
        );
        assert_ne!(
            KeptKey::new("s", &[&1, &"fr"]),
            KeptKey::new("t", &[&1, &"fr"])
        );
    }
}
