//! Per-client-IP rate limits on sign-in, sign-up and mail-sending requests, per-user limits
//! on assistant questions, image uploads and reauthentication nonces, and SMS limits per
//! number, per client IP and in all (GCRA buckets from `governor`).
//!
//! In memory, per process: with several `regard serve` nodes each keeps its own buckets, which
//! multiplies the allowance by the node count but needs no shared store. `governor` was chosen
//! over a hand-written limiter because it is small, lock-free and well kept.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::Config;

/// The limiters, one per limited action. `None` means unlimited.
pub struct RateLimits {
    sign_in: Option<DefaultKeyedRateLimiter<IpAddr>>,
    sign_up: Option<DefaultKeyedRateLimiter<IpAddr>>,
    email: Option<DefaultKeyedRateLimiter<IpAddr>>,
    /// Per user (id), not per IP: the assistant is only reached signed in.
    assistant: Option<DefaultKeyedRateLimiter<String>>,
    /// SMS per destination number, per client IP, and in all (hourly).
    sms_per_number: Option<DefaultKeyedRateLimiter<String>>,
    sms_per_ip: Option<DefaultKeyedRateLimiter<IpAddr>>,
    sms_sent: Option<DefaultDirectRateLimiter>,
    /// `PUT /user` with a reauthentication nonce or a current password, per user.
    reauthentication: Option<DefaultKeyedRateLimiter<String>>,
    /// Image uploads, per user (id).
    uploads: Option<DefaultKeyedRateLimiter<String>>,
}

/// The window of the SMS limits (GoTrue's `RATE_LIMIT_SMS_SENT` is per hour).
const SMS_WINDOW_SECS: u64 = 3600;

/// The quota of `count` per `window_secs`, refilled evenly, burst `count`.
fn quota(count: u32, window_secs: u64) -> Option<Quota> {
    let burst = NonZeroU32::new(count)?;
    let period_ms = (window_secs.saturating_mul(1000) / u64::from(count)).max(1);
    Some(Quota::with_period(Duration::from_millis(period_ms))?.allow_burst(burst))
}

/// The whole seconds until `not_until` (at least 1), for `Retry-After`.
fn wait_secs(not_until: &governor::NotUntil<governor::clock::QuantaInstant>) -> u64 {
    use governor::clock::{Clock, DefaultClock};
    let wait = not_until.wait_time_from(DefaultClock::default().now());
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

/// A limiter allowing `count` requests per `window_secs`, refilled evenly, burst `count`.
fn limiter<K: std::hash::Hash + Eq + Clone>(
    count: u32,
    window_secs: u64,
) -> Option<DefaultKeyedRateLimiter<K>> {
    Some(RateLimiter::keyed(quota(count, window_secs)?))
}

/// Takes one request of `key` from `limiter` (none: unlimited); when the allowance is used
/// up, the whole seconds until the next request is allowed (at least 1), for `Retry-After`.
fn take<K: std::hash::Hash + Eq + Clone>(
    limiter: Option<&DefaultKeyedRateLimiter<K>>,
    key: &K,
) -> Result<(), u64> {
    let Some(limiter) = limiter else {
        return Ok(());
    };
    limiter
        .check_key(key)
        .map_err(|not_until| wait_secs(&not_until))
}

impl RateLimits {
    /// Limiters from the configuration (`REGARD_RATE_LIMIT_*`).
    pub fn new(config: &Config) -> Self {
        Self {
            sign_in: limiter(config.rate_limit_sign_in, config.rate_limit_window),
            sign_up: limiter(config.rate_limit_sign_up, config.rate_limit_window),
            email: limiter(config.rate_limit_email, config.rate_limit_window),
            assistant: limiter(config.rate_limit_assistant, config.rate_limit_window),
            sms_per_number: limiter(config.rate_limit_sms_per_number, SMS_WINDOW_SECS),
            sms_per_ip: limiter(config.rate_limit_sms_per_ip, SMS_WINDOW_SECS),
            sms_sent: quota(config.rate_limit_sms_sent, SMS_WINDOW_SECS).map(RateLimiter::direct),
            reauthentication: limiter(config.rate_limit_reauthentication, config.rate_limit_window),
            uploads: limiter(config.rate_limit_uploads, config.rate_limit_window),
        }
    }

    /// Takes one sign-in from `ip`'s allowance; when it is used up, the seconds until the
    /// next one.
    pub fn sign_in(&self, ip: IpAddr) -> Result<(), u64> {
        take(self.sign_in.as_ref(), &ip)
    }

    /// Takes one sign-up from `ip`'s allowance.
    pub fn sign_up(&self, ip: IpAddr) -> Result<(), u64> {
        take(self.sign_up.as_ref(), &ip)
    }

    /// Takes one mail-sending request (recovery, resend, sign-in link) from `ip`'s allowance.
    pub fn email(&self, ip: IpAddr) -> Result<(), u64> {
        take(self.email.as_ref(), &ip)
    }

    /// Takes one assistant question from the user's allowance.
    pub fn assistant(&self, user_id: &str) -> Result<(), u64> {
        take(self.assistant.as_ref(), &user_id.to_owned())
    }

    /// Takes one SMS to `number` asked from `ip`: the client's hourly allowance first, then
    /// the number's, then the global budget (so one client spends its own allowance before
    /// it can touch the budget everyone shares). When one is used up, the seconds to wait.
    pub fn sms(&self, ip: IpAddr, number: &str) -> Result<(), u64> {
        take(self.sms_per_ip.as_ref(), &ip)?;
        take(self.sms_per_number.as_ref(), &number.to_owned())?;
        match &self.sms_sent {
            Some(limiter) => limiter.check().map_err(|not_until| wait_secs(&not_until)),
            None => Ok(()),
        }
    }

    /// Takes one `PUT /user` with a reauthentication nonce or a current password from the
    /// user's allowance.
    pub fn reauthentication(&self, user_id: &str) -> Result<(), u64> {
        take(self.reauthentication.as_ref(), &user_id.to_owned())
    }

    /// Takes one image upload from the user's allowance.
    pub fn upload(&self, user_id: &str) -> Result<(), u64> {
        take(self.uploads.as_ref(), &user_id.to_owned())
    }

    /// Forgets clients whose buckets are full again, so memory stays bounded.
    pub fn forget_idle(&self) {
        for limiter in [
            &self.assistant,
            &self.sms_per_number,
            &self.reauthentication,
            &self.uploads,
        ]
        .into_iter()
        .flatten()
        {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        for limiter in [&self.sign_in, &self.sign_up, &self.email, &self.sms_per_ip]
            .into_iter()
            .flatten()
        {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}
