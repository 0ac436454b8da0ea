//! Rate limits: per client address on sign-in, sign-up and mail-sending requests, SMS per
//! number, per client address and in all, per user on reauthentication, invitations and
//! @mention mails, per invited address, per client address and per link on the public shared
//! pages, and per user on assistant questions and image uploads. Each is a GCRA bucket: `count`
//! per window, refilled evenly, a burst of `count`.
//!
//! Two kinds, by what they bound (docs/security.md lists each):
//!
//! - **Shared** limits bound an attack (password guessing, mail or SMS abuse) or a cost (the
//!   SMS bill, public report drawing). When nodes share a PostgreSQL database they are kept in
//!   it (`db::rate_limits`: one atomic upsert per request), so N nodes allow what one does.
//!   On SQLite (one node) they are kept in the process, and they fall back to the process
//!   when the database cannot be reached (logged), so a database hiccup neither opens the
//!   gates nor locks everyone out.
//! - **Process** limits are comfort or a node's own resource (assistant questions, decoding
//!   uploads on this node's CPU): each node keeps its own.
//!
//! In-process buckets come from `governor` (small, lock-free, well kept).

use std::fmt::Display;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::Config;
use crate::db::{self, Backend, Db};

/// Where a limit's count is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// In the shared database when nodes share one (PostgreSQL), else in the process.
    Shared,
    /// In each process.
    Process,
}

/// One limited action: its allowance and the in-process buckets (also the fallback of a
/// shared one). `local` is `None` when the action is unlimited (a count of 0).
struct Limit<K: Hash + Eq + Clone> {
    name: &'static str,
    scope: Scope,
    count: u32,
    window_ms: u64,
    local: Option<DefaultKeyedRateLimiter<K>>,
}

/// The window of the SMS limits (GoTrue's `RATE_LIMIT_SMS_SENT` is per hour).
const SMS_WINDOW_SECS: u64 = 3600;

/// The window of the invitation and mention mail limits.
const MAIL_WINDOW_SECS: u64 = 3600;

/// The quota of `count` per `window_secs`, refilled evenly, burst `count`.
fn quota(count: u32, window_secs: u64) -> Option<Quota> {
    let burst = NonZeroU32::new(count)?;
    let period_ms = (window_secs.saturating_mul(1000) / u64::from(count)).max(1);
    Some(Quota::with_period(Duration::from_millis(period_ms))?.allow_burst(burst))
}

/// Whole seconds (at least 1) for `Retry-After`.
fn ceil_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

impl<K: Hash + Eq + Clone + Display> Limit<K> {
    fn new(name: &'static str, scope: Scope, count: u32, window_secs: u64) -> Self {
        Self {
            name,
            scope,
            count,
            window_ms: window_secs.saturating_mul(1000),
            local: quota(count, window_secs).map(RateLimiter::keyed),
        }
    }

    /// The time between two requests once the burst is spent.
    fn interval_ms(&self) -> u64 {
        (self.window_ms / u64::from(self.count.max(1))).max(1)
    }

    /// Takes `n` from the in-process bucket of `key`.
    fn take_local(&self, key: &K, n: u32) -> Result<(), u64> {
        use governor::clock::{Clock, DefaultClock};
        let (Some(limiter), Some(n)) = (&self.local, NonZeroU32::new(n)) else {
            return Ok(());
        };
        match limiter.check_key_n(key, n) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => Err(ceil_secs(
                not_until.wait_time_from(DefaultClock::default().now()),
            )),
            // More than the whole burst: never in one go; a full window at least.
            Err(_) => Err(ceil_secs(Duration::from_millis(self.window_ms))),
        }
    }

    fn forget_idle(&self) {
        if let Some(limiter) = &self.local {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// The limits, one per limited action.
pub struct RateLimits {
    /// The database shared limits are kept in: PostgreSQL only (nodes share it).
    shared: Option<Db>,
    sign_in: Limit<IpAddr>,
    sign_up: Limit<IpAddr>,
    email: Limit<IpAddr>,
    /// Per user (id), not per IP: the assistant is only reached signed in.
    assistant: Limit<String>,
    /// SMS per destination number, per client IP, and in all (hourly).
    sms_per_number: Limit<String>,
    sms_per_ip: Limit<IpAddr>,
    sms_sent: Limit<&'static str>,
    /// `PUT /user` with a reauthentication nonce or a current password, per user.
    reauthentication: Limit<String>,
    /// Image uploads (an import's photos each count), per user (id).
    uploads: Limit<String>,
    /// Invitation mails (resends included) per inviting user and per invited address.
    invitations_per_inviter: Limit<String>,
    invitations_per_address: Limit<String>,
    /// @mention mails per commenting user.
    mentions: Limit<String>,
    /// The public shared pages (`/api/v1/shared/*`) per client address and per link.
    shared_per_ip: Limit<IpAddr>,
    shared_per_link: Limit<String>,
}

/// The key of `key` under `name` in the shared store.
fn shared_key(name: &str, key: &impl Display) -> String {
    format!("{name}:{key}")
}

impl RateLimits {
    /// Limits from the configuration (`REGARD_RATE_LIMIT_*`), shared limits kept in `db` when
    /// it is PostgreSQL.
    pub fn new(config: &Config, db: Option<&Db>) -> Self {
        use Scope::{Process, Shared};
        let window = config.rate_limit_window;
        Self {
            shared: db.filter(|db| db.backend() == Backend::Postgres).cloned(),
            sign_in: Limit::new("sign_in", Shared, config.rate_limit_sign_in, window),
            sign_up: Limit::new("sign_up", Shared, config.rate_limit_sign_up, window),
            email: Limit::new("email", Shared, config.rate_limit_email, window),
            assistant: Limit::new("assistant", Process, config.rate_limit_assistant, window),
            sms_per_number: Limit::new(
                "sms_number",
                Shared,
                config.rate_limit_sms_per_number,
                SMS_WINDOW_SECS,
            ),
            sms_per_ip: Limit::new(
                "sms_ip",
                Shared,
                config.rate_limit_sms_per_ip,
                SMS_WINDOW_SECS,
            ),
            sms_sent: Limit::new(
                "sms_sent",
                Shared,
                config.rate_limit_sms_sent,
                SMS_WINDOW_SECS,
            ),
            reauthentication: Limit::new(
                "reauthentication",
                Shared,
                config.rate_limit_reauthentication,
                window,
            ),
            uploads: Limit::new("uploads", Process, config.rate_limit_uploads, window),
            invitations_per_inviter: Limit::new(
                "invite_from",
                Shared,
                config.rate_limit_invitations,
                MAIL_WINDOW_SECS,
            ),
            invitations_per_address: Limit::new(
                "invite_to",
                Shared,
                config.rate_limit_invitations_per_address,
                MAIL_WINDOW_SECS,
            ),
            mentions: Limit::new(
                "mentions",
                Shared,
                config.rate_limit_mentions,
                MAIL_WINDOW_SECS,
            ),
            shared_per_ip: Limit::new("shared_ip", Shared, config.rate_limit_shared, window),
            shared_per_link: Limit::new(
                "shared_link",
                Shared,
                config.rate_limit_shared_per_link,
                window,
            ),
        }
    }

    /// Takes `n` requests of `key` from `limit`; when its allowance cannot cover them, the
    /// whole seconds until it can (at least 1), for `Retry-After`.
    async fn take<K: Hash + Eq + Clone + Display>(
        &self,
        limit: &Limit<K>,
        key: &K,
        n: u32,
    ) -> Result<(), u64> {
        if limit.local.is_none() || n == 0 {
            return Ok(());
        }
        if limit.scope == Scope::Shared
            && let Some(db) = &self.shared
        {
            let cost = limit.interval_ms().saturating_mul(u64::from(n));
            match db::rate_limits::take(
                db,
                &shared_key(limit.name, key),
                db::now_ms(),
                cost,
                limit.window_ms,
            )
            .await
            {
                Ok(taken) => {
                    return taken.map_err(|wait_ms| ceil_secs(Duration::from_millis(wait_ms)));
                }
                Err(err) => tracing::warn!(
                    error = %err,
                    limit = limit.name,
                    "the shared rate limit could not be read; this node's count is used"
                ),
            }
        }
        limit.take_local(key, n)
    }

    /// Takes one sign-in from `ip`'s allowance; when it is used up, the seconds until the
    /// next one.
    pub async fn sign_in(&self, ip: IpAddr) -> Result<(), u64> {
        self.take(&self.sign_in, &ip, 1).await
    }

    /// Takes one sign-up from `ip`'s allowance.
    pub async fn sign_up(&self, ip: IpAddr) -> Result<(), u64> {
        self.take(&self.sign_up, &ip, 1).await
    }

    /// Takes one mail-sending request (recovery, resend, sign-in link) from `ip`'s allowance.
    pub async fn email(&self, ip: IpAddr) -> Result<(), u64> {
        self.take(&self.email, &ip, 1).await
    }

    /// Takes one assistant question from the user's allowance.
    pub async fn assistant(&self, user_id: &str) -> Result<(), u64> {
        self.take(&self.assistant, &user_id.to_owned(), 1).await
    }

    /// Takes one SMS to `number` asked from `ip`: the client's hourly allowance first, then
    /// the number's, then the global budget (so one client spends its own allowance before
    /// it can touch the budget everyone shares). When one is used up, the seconds to wait.
    pub async fn sms(&self, ip: IpAddr, number: &str) -> Result<(), u64> {
        self.take(&self.sms_per_ip, &ip, 1).await?;
        self.take(&self.sms_per_number, &number.to_owned(), 1)
            .await?;
        self.take(&self.sms_sent, &"all", 1).await
    }

    /// Takes one `PUT /user` with a reauthentication nonce or a current password from the
    /// user's allowance.
    pub async fn reauthentication(&self, user_id: &str) -> Result<(), u64> {
        self.take(&self.reauthentication, &user_id.to_owned(), 1)
            .await
    }

    /// Takes `n` image uploads from the user's allowance (an import's photos count one each):
    /// all of them or none.
    pub async fn uploads(&self, user_id: &str, n: u32) -> Result<(), u64> {
        self.take(&self.uploads, &user_id.to_owned(), n).await
    }

    /// Takes one invitation mail sent by `inviter` to `address` (lower-cased): the inviter's
    /// hourly allowance first, then the address's.
    pub async fn invitation(&self, inviter: &str, address: &str) -> Result<(), u64> {
        self.take(&self.invitations_per_inviter, &inviter.to_owned(), 1)
            .await?;
        self.take(&self.invitations_per_address, &address.to_lowercase(), 1)
            .await
    }

    /// Takes one @mention mail from its author's hourly allowance.
    pub async fn mention(&self, author: &str) -> Result<(), u64> {
        self.take(&self.mentions, &author.to_owned(), 1).await
    }

    /// Takes one request of a public shared page (no account) from `ip`'s allowance.
    pub async fn shared(&self, ip: IpAddr) -> Result<(), u64> {
        self.take(&self.shared_per_ip, &ip, 1).await
    }

    /// Takes one request of a public shared page from the link's allowance (`share_id`: the
    /// link's id, never its secret token), whoever asks.
    pub async fn shared_link(&self, share_id: &str) -> Result<(), u64> {
        self.take(&self.shared_per_link, &share_id.to_owned(), 1)
            .await
    }

    /// Forgets clients whose buckets are full again, so memory stays bounded; on PostgreSQL,
    /// the shared buckets that are full again too.
    pub async fn forget_idle(&self) {
        self.sign_in.forget_idle();
        self.sign_up.forget_idle();
        self.email.forget_idle();
        self.assistant.forget_idle();
        self.sms_per_number.forget_idle();
        self.sms_per_ip.forget_idle();
        self.sms_sent.forget_idle();
        self.reauthentication.forget_idle();
        self.uploads.forget_idle();
        self.invitations_per_inviter.forget_idle();
        self.invitations_per_address.forget_idle();
        self.mentions.forget_idle();
        self.shared_per_ip.forget_idle();
        self.shared_per_link.forget_idle();
        if let Some(db) = &self.shared
            && let Err(err) = db::rate_limits::forget_full(db, db::now_ms()).await
        {
            tracing::warn!(error = %err, "forgetting full rate-limit buckets failed");
        }
    }
}
