//! The memory budget of heavy work in one process (`REGARD_RENDER_MEMORY_BUDGET`): PNG exports,
//! PDF reports, heatmap and simulation renders. Each works out what it will hold from its
//! images' stored dimensions before it decodes anything, and takes that much from the budget
//! (one permit per MiB) until it is done, as uploads do with `REGARD_MEDIA_DECODE_BUDGET`.
//! Requests wait up to `REGARD_RENDER_WAIT_SECS`, then answer 503 `unavailable`; job workers
//! wait as long as it takes, with the job's lease kept alive meanwhile. One piece of work that
//! needs more than the whole budget takes all of it, so it runs alone rather than never.
//!
//! Work done for nobody signed in (a share link's report) also takes its memory from an
//! anonymous slice, a quarter of the budget ([`ANONYMOUS_SHARE`]): however many anonymous
//! requests come, they hold at most that, and signed-in users keep the rest.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bytes per pixel that an export or report holds per stored image it draws (decoded RGB,
/// its converted copy, the blended view and its share of the composite and PNG encoder),
/// measured with `examples/bench_abuse.rs` on 4-image comparisons (6.3, rounded up).
pub const EXPORT_BYTES_PER_PIXEL: u64 = 7;
/// Bytes per preview pixel that a heatmap render holds (the decoded source, the saliency
/// maps in `f32`, the overlay and fog views).
pub const HEATMAP_BYTES_PER_PIXEL: u64 = 40;
/// Bytes per photo pixel that a simulation render holds (926 MB for an 81-MP photo).
pub const SIMULATION_BYTES_PER_PIXEL: u64 = 12;
/// The part of the budget anonymous work may hold at once, as a fraction (1/4).
pub const ANONYMOUS_SHARE: u32 = 4;
/// What any piece of work holds besides its pixels.
const BASE_BYTES: u64 = 8 << 20;

/// The budget; cheap to share (`Arc`).
pub struct RenderBudget {
    /// One permit per MiB; `None`: unlimited.
    permits: Option<Arc<Semaphore>>,
    /// The anonymous slice, one permit per MiB ([`ANONYMOUS_SHARE`] of the budget).
    anonymous: Option<Arc<Semaphore>>,
    budget_mib: u32,
    wait: Duration,
}

/// Memory held from the budget (and, for anonymous work, its slice) until dropped.
#[derive(Debug)]
pub struct Held(
    #[allow(dead_code)] Option<OwnedSemaphorePermit>,
    #[allow(dead_code)] Option<OwnedSemaphorePermit>,
);

/// No room came free in time.
#[derive(Debug, thiserror::Error)]
#[error("the render memory budget is in use")]
pub struct Busy;

impl RenderBudget {
    /// A budget of `budget_mib` MiB (0: unlimited) that requests wait up to `wait` for.
    pub fn new(budget_mib: u64, wait: Duration) -> Arc<Self> {
        let budget_mib = u32::try_from(budget_mib)
            .unwrap_or(u32::MAX)
            .min(u32::try_from(Semaphore::MAX_PERMITS).unwrap_or(u32::MAX));
        Arc::new(Self {
            permits: (budget_mib > 0).then(|| Arc::new(Semaphore::new(budget_mib as usize))),
            anonymous: (budget_mib > 0).then(|| {
                Arc::new(Semaphore::new(
                    (budget_mib / ANONYMOUS_SHARE).max(1) as usize
                ))
            }),
            budget_mib,
            wait,
        })
    }

    /// From `REGARD_RENDER_MEMORY_BUDGET` and `REGARD_RENDER_WAIT_SECS`.
    pub fn from_config(config: &crate::config::Config) -> Arc<Self> {
        let wait =
            Duration::try_from_secs_f64(config.render_wait_secs.max(0.0)).unwrap_or(Duration::ZERO);
        Self::new(config.render_memory_budget, wait)
    }

    /// Permits (MiB) that `bytes` take, at least 1 and at most the whole budget.
    fn mib(&self, bytes: u64) -> u32 {
        let mib = (bytes.saturating_add(BASE_BYTES)).div_ceil(1 << 20);
        u32::try_from(mib)
            .unwrap_or(u32::MAX)
            .clamp(1, self.budget_mib.max(1))
    }

    /// Waits up to the configured time for `bytes`; [`Busy`] when they did not come free.
    pub async fn acquire(&self, bytes: u64) -> Result<Held, Busy> {
        let Some(permits) = &self.permits else {
            return Ok(Held(None, None));
        };
        let wanted = Arc::clone(permits).acquire_many_owned(self.mib(bytes));
        match tokio::time::timeout(self.wait, wanted).await {
            Ok(Ok(permit)) => Ok(Held(Some(permit), None)),
            Ok(Err(_)) | Err(_) => Err(Busy),
        }
    }

    /// [`RenderBudget::acquire`] for anonymous work: the memory from the anonymous slice
    /// first (at most all of it), then from the budget, within one wait.
    pub async fn acquire_anonymous(&self, bytes: u64) -> Result<Held, Busy> {
        let (Some(permits), Some(slice)) = (&self.permits, &self.anonymous) else {
            return Ok(Held(None, None));
        };
        let slice_mib = (self.budget_mib / ANONYMOUS_SHARE).max(1);
        let mib = self.mib(bytes).min(slice_mib);
        let both = async {
            let anonymous = Arc::clone(slice).acquire_many_owned(mib).await?;
            let budget = Arc::clone(permits).acquire_many_owned(mib).await?;
            Ok::<_, tokio::sync::AcquireError>(Held(Some(budget), Some(anonymous)))
        };
        match tokio::time::timeout(self.wait, both).await {
            Ok(Ok(held)) => Ok(held),
            Ok(Err(_)) | Err(_) => Err(Busy),
        }
    }

    /// Waits for `bytes` as long as it takes (job workers).
    pub async fn acquire_patiently(&self, bytes: u64) -> Held {
        let Some(permits) = &self.permits else {
            return Held(None, None);
        };
        // The semaphore is never closed.
        Held(
            Arc::clone(permits)
                .acquire_many_owned(self.mib(bytes))
                .await
                .ok(),
            None,
        )
    }

    /// MiB free now (tests and metrics); `None` when unlimited.
    pub fn available_mib(&self) -> Option<usize> {
        self.permits.as_ref().map(|p| p.available_permits())
    }
}

/// Pixels of an image of `width` × `height` shown at most `side` pixels on its longest side
/// (the stored previews: `media::PREVIEW_SIDE`).
pub fn pixels_within(width: i64, height: i64, side: u32) -> u64 {
    let (w, h) = (width.max(1) as f64, height.max(1) as f64);
    let scale = (f64::from(side) / w.max(h)).min(1.0);
    ((w * scale).round() * (h * scale).round()) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_waits_for_room_is_refused_after_the_wait_and_gets_it_back() {
        let budget = RenderBudget::new(100, Duration::ZERO);
        let first = budget.acquire(60 << 20).await.unwrap();
        assert!(budget.acquire(60 << 20).await.is_err());
        let small = budget.acquire(1 << 20).await.unwrap();
        drop(first);
        let _second = budget.acquire(60 << 20).await.unwrap();
        drop(small);
        // More than the whole budget takes all of it.
        assert!(budget.acquire(10_000 << 20).await.is_err());
        let unlimited = RenderBudget::new(0, Duration::ZERO);
        let _a = unlimited.acquire(u64::MAX).await.unwrap();
        let _b = unlimited.acquire(u64::MAX).await.unwrap();
    }

    #[tokio::test]
    async fn anonymous_work_holds_at_most_its_slice() {
        let budget = RenderBudget::new(100, Duration::ZERO);
        // The slice is 25 MiB: one anonymous piece of 20 MiB fits, a second does not, however
        // much of the budget is free; signed-in work still gets the rest.
        let first = budget.acquire_anonymous(12 << 20).await.unwrap();
        assert!(budget.acquire_anonymous(12 << 20).await.is_err());
        let _user = budget.acquire(60 << 20).await.unwrap();
        assert_eq!(budget.available_mib(), Some(100 - 20 - 68));
        drop(first);
        // A piece larger than the slice takes the slice, not more.
        let _big = budget.acquire_anonymous(500 << 20).await.unwrap();
        assert_eq!(budget.available_mib(), Some(100 - 68 - 25));
    }

    #[test]
    fn previews_are_fitted_to_their_side() {
        assert_eq!(pixels_within(4000, 3000, 2048), 2048 * 1536);
        assert_eq!(pixels_within(800, 600, 2048), 800 * 600);
    }
}
