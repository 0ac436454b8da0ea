//! Recent list answers, kept under what makes them: the route, the workspace, the revision of
//! its library, the signed URLs' expiry window and the query string. The revision is raised by
//! the database itself on every write to the library's rows (triggers, migrations
//! `20261203000000_library_revision` and `20261204000000_workspaces`) and read with the
//! caller's membership on every request, so the same key
//! means the same rows on every node, and a write is seen by the next request wherever it
//! lands. A repeated request (a reload, a second tab, a return to the list) is answered from
//! here without reading the page or writing its JSON again: the same bytes as a fresh answer.
//!
//! Bounded in bytes; the least recently used answers go first.

use std::sync::Mutex;

use bytes::Bytes;
use lru::LruCache;

/// Bytes of answers kept at most.
pub const BUDGET: usize = 16 << 20;

/// What an answer is kept under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AnswerKey {
    /// The route (a list's name).
    pub route: &'static str,
    /// The workspace the list is of.
    pub workspace_id: String,
    /// The member the answer is for: its file URLs are signed for them.
    pub member: String,
    /// The workspace's library revision, read with the caller.
    pub revision: i64,
    /// The expiry of the URLs the answer signs (`UrlSigner::expiry`): one per window.
    pub expiry: u64,
    /// The raw query string.
    pub query: String,
}

/// The recent answers (see the module's documentation).
pub struct Answers {
    inner: Mutex<Kept>,
    budget: usize,
}

struct Kept {
    answers: LruCache<AnswerKey, Bytes>,
    bytes: usize,
}

impl Answers {
    /// Keeps at most `budget` bytes of answers.
    pub fn new(budget: usize) -> Answers {
        Answers {
            inner: Mutex::new(Kept {
                answers: LruCache::unbounded(),
                bytes: 0,
            }),
            budget,
        }
    }

    /// The answer kept under `key`, if any.
    pub fn get(&self, key: &AnswerKey) -> Option<Bytes> {
        self.kept().answers.get(key).cloned()
    }

    /// Keeps `answer` under `key`, letting the least recently used answers go to stay within
    /// the budget. An answer larger than an eighth of the budget is not kept.
    pub fn put(&self, key: AnswerKey, answer: Bytes) {
        if answer.len() > self.budget / 8 {
            return;
        }
        let mut kept = self.kept();
        kept.bytes += answer.len();
        if let Some(old) = kept.answers.put(key, answer) {
            kept.bytes -= old.len();
        }
        while kept.bytes > self.budget {
            match kept.answers.pop_lru() {
                Some((_, old)) => kept.bytes -= old.len(),
                None => break,
            }
        }
    }

    /// How many answers and bytes are kept.
    pub fn size(&self) -> (usize, usize) {
        let kept = self.kept();
        (kept.answers.len(), kept.bytes)
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while holding the lock leaves consistent maps (no code between the updates
        // can panic), so a poisoned lock is taken as it is.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(query: &str, revision: i64) -> AnswerKey {
        AnswerKey {
            member: "u".to_owned(),
            route: "creatives",
            workspace_id: "u".into(),
            revision,
            expiry: 60,
            query: query.into(),
        }
    }

    #[test]
    fn an_answer_is_found_only_under_its_own_key() {
        let answers = Answers::new(1000);
        answers.put(key("limit=50", 1), Bytes::from_static(b"[1]"));
        assert_eq!(
            answers.get(&key("limit=50", 1)).as_deref(),
            Some(&b"[1]"[..])
        );
        assert_eq!(answers.get(&key("limit=50", 2)), None);
        assert_eq!(answers.get(&key("limit=49", 1)), None);
        let mut other = key("limit=50", 1);
        other.workspace_id = "v".into();
        assert_eq!(answers.get(&other), None);
    }

    #[test]
    fn the_least_recently_used_answers_go_to_stay_within_the_budget() {
        let answers = Answers::new(800);
        let hundred = Bytes::from(vec![b'x'; 100]);
        for n in 0..8 {
            answers.put(key(&n.to_string(), 1), hundred.clone());
        }
        assert_eq!(answers.size(), (8, 800));
        answers.get(&key("0", 1));
        answers.put(key("8", 1), hundred.clone());
        assert_eq!(answers.size(), (8, 800));
        assert!(answers.get(&key("0", 1)).is_some(), "used last, kept");
        assert!(
            answers.get(&key("1", 1)).is_none(),
            "the least recently used went"
        );
        // Replacing an answer counts its bytes once.
        answers.put(key("8", 1), Bytes::from(vec![b'y'; 50]));
        assert_eq!(answers.size(), (8, 750));
        // Too large for the budget: not kept.
        answers.put(key("big", 1), Bytes::from(vec![b'z'; 101]));
        assert!(answers.get(&key("big", 1)).is_none());
    }
}
