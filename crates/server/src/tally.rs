//! Amounts held per user in this process, each given back when its guard is dropped: the
//! event streams a user has open (`REGARD_EVENT_STREAMS_PER_USER`) and the sizes of their
//! uploads in progress (`REGARD_STORAGE_QUOTA_MB`). Per process: with several nodes each
//! keeps its own tally.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What each user holds now.
#[derive(Debug, Default)]
pub struct Tally(Mutex<HashMap<String, u64>>);

/// `amount` held by `user_id` until dropped.
#[derive(Debug)]
pub struct Held {
    tally: Arc<Tally>,
    user_id: String,
    amount: u64,
}

impl Tally {
    /// Holds `amount` more for `user_id` when `fits(what the user holds now)` allows it; else
    /// what they hold now.
    pub fn take(
        self: &Arc<Self>,
        user_id: &str,
        amount: u64,
        fits: impl FnOnce(u64) -> bool,
    ) -> Result<Held, u64> {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let held = map.get(user_id).copied().unwrap_or(0);
        if !fits(held) {
            return Err(held);
        }
        *map.entry(user_id.to_owned()).or_insert(0) += amount;
        Ok(Held {
            tally: Arc::clone(self),
            user_id: user_id.to_owned(),
            amount,
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut map = self.tally.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(held) = map.get_mut(&self.user_id) {
            *held = held.saturating_sub(self.amount);
            if *held == 0 {
                map.remove(&self.user_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_held_per_user_until_dropped() {
        let tally = Arc::new(Tally::default());
        let first = tally.take("a", 5, |held| held + 5 <= 8).unwrap();
        assert_eq!(tally.take("a", 5, |held| held + 5 <= 8).unwrap_err(), 5);
        let other = tally.take("b", 5, |held| held + 5 <= 8).unwrap();
        drop(first);
        let again = tally.take("a", 5, |held| held + 5 <= 8).unwrap();
        drop((other, again));
        assert!(tally.0.lock().unwrap().is_empty());
    }
}
