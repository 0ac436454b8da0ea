//! Server configuration: every `REGARD_*` environment variable and its matching `regard serve`
//! flag, with defaults that need no configuration at all (docs/configuration.md lists them).

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

/// A secret string (JWT secret, database password in a URL) that never shows up in `Debug`
/// output, so configuration can be logged safely.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value; call sites are the few places that really need it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_owned()))
    }
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// One third-party sign-in provider (OpenID Connect), from `REGARD_OAUTH_<NAME>_*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthProviderConfig {
    /// Lowercase name: the `provider` of `/authorize` and of identities (`google`).
    pub name: String,
    /// Issuer URL; discovery is `<issuer>/.well-known/openid-configuration`.
    pub issuer: String,
    pub client_id: String,
    /// Absent for public clients.
    pub client_secret: Option<Secret>,
    /// Scopes asked for (`openid` is always added).
    pub scopes: Vec<String>,
}

/// Scopes asked for when `REGARD_OAUTH_<NAME>_SCOPES` is not set.
pub const DEFAULT_OAUTH_SCOPES: [&str; 3] = ["openid", "email", "profile"];

/// Provider names that would clash with other keys of `/settings`' `external` object.
const RESERVED_PROVIDER_NAMES: [&str; 4] = ["email", "phone", "anonymous_users", "saml"];

/// A setting that cannot work; `regard serve` stops at start with this message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// Everything `regard serve` needs. Built from flags and `REGARD_*` variables by clap, or
/// directly by tests (see [`Config::for_data_dir`]).
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// Address and port to listen on. Port 0 picks a free port (tests).
    #[arg(long, env = "REGARD_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Folder for the SQLite database, generated secrets and media. Created when missing.
    #[arg(long, env = "REGARD_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// Database URL: `sqlite://...` or `postgres://...`. Default: `<data dir>/regard.db`.
    #[arg(long, env = "REGARD_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<Secret>,

    /// Maximum number of pooled database connections.
    #[arg(long, env = "REGARD_DATABASE_MAX_CONNECTIONS", default_value_t = 10)]
    pub database_max_connections: u32,

    /// HS256 secret for access tokens. Default: generated once into `<data dir>/jwt_secret`.
    #[arg(long, env = "REGARD_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<Secret>,

    /// Asymmetric signing keys, as GoTrue's `GOTRUE_JWT_KEYS`: a JSON array of private JWKs
    /// (RS256, ES256 or HS256), the one whose `key_ops` holds `sign` signing, the others
    /// verifying until their tokens expire; `/auth/v1/.well-known/jwks.json` publishes the
    /// public halves. `regard keys generate` prints a new ES256 key. Default: HS256 with the
    /// secret above.
    #[arg(long, env = "REGARD_JWT_KEYS", hide_env_values = true)]
    pub jwt_keys: Option<Secret>,

    /// Access token lifetime in seconds.
    #[arg(long, env = "REGARD_JWT_EXP", default_value_t = 3600)]
    pub jwt_exp: u64,

    /// `iss` claim of access tokens. Default: `<site url>/auth/v1`.
    #[arg(long, env = "REGARD_JWT_ISSUER")]
    pub jwt_issuer: Option<String>,

    /// Admin API tokens (`service_role`) without an `exp` claim are taken (`true`), as GoTrue
    /// does, or refused (`false`, the default): such a token never expires, so a leaked one
    /// works for ever. `regard admin token` issues short-lived ones.
    #[arg(long, env = "REGARD_ADMIN_TOKENS_WITHOUT_EXP", default_value_t = false, action = clap::ArgAction::Set)]
    pub admin_tokens_without_exp: bool,

    /// The map's raster tiles (docs/configuration.md): a URL template with `{z}`, `{x}`, `{y}`
    /// (and optionally `{s}`), fetched by the browser. OpenStreetMap's standard tiles by
    /// default, whose policy suits light use only: set a provider of your own for production.
    #[arg(
        long,
        env = "REGARD_MAP_TILES_URL",
        default_value = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    )]
    pub map_tiles_url: String,

    /// The attribution the tiles' provider requires, shown on the map (plain text).
    #[arg(
        long,
        env = "REGARD_MAP_ATTRIBUTION",
        default_value = "© OpenStreetMap contributors"
    )]
    pub map_attribution: String,

    /// Public address of the site (used for the token issuer and, later, links in emails).
    #[arg(long, env = "REGARD_SITE_URL", default_value = "http://localhost:8080")]
    pub site_url: String,

    /// Extra places the auth server may send browsers back to (`redirect_to` of sign-in
    /// links), comma separated `scheme://host[:port][/path]` entries whose parts are globs
    /// matched separately against the parsed target: `*` matches within a host label or path
    /// segment, `**` matches anything. The origin of the site URL is always allowed; anything
    /// else, and any target written ambiguously, falls back to the site URL
    /// (`auth::redirect`, docs/security.md).
    #[arg(long, env = "REGARD_REDIRECT_ALLOW_LIST", value_delimiter = ',')]
    pub redirect_allow_list: Vec<String>,

    /// Third-party sign-in providers (OpenID Connect), comma separated names such as
    /// `google,keycloak`. Each needs `REGARD_OAUTH_<NAME>_ISSUER` and `_CLIENT_ID`, and may
    /// have `_CLIENT_SECRET` and `_SCOPES` (read by [`Config::load_oauth_providers`]).
    #[arg(long, env = "REGARD_OAUTH_PROVIDERS", value_delimiter = ',')]
    pub oauth_providers: Vec<String>,

    /// Address providers send the browser back to (register it with each provider).
    /// Default: `<site url>/auth/v1/callback`.
    #[arg(long, env = "REGARD_OAUTH_CALLBACK_URL")]
    pub oauth_callback_url: Option<String>,

    /// The providers' settings, from the `REGARD_OAUTH_<NAME>_*` variables (tests set them
    /// directly).
    #[arg(skip)]
    pub oauth: Vec<OAuthProviderConfig>,

    /// Folder holding the built web app (`index.html`, `assets/`).
    #[arg(long, env = "REGARD_WEB_DIR", default_value = "web/dist")]
    pub web_dir: PathBuf,

    /// Seconds during which a just-rotated refresh token may be presented again and still get
    /// the session's current token (several tabs refreshing at once, a lost response).
    #[arg(
        long,
        env = "REGARD_REFRESH_TOKEN_REUSE_INTERVAL",
        default_value_t = 10
    )]
    pub refresh_token_reuse_interval: u64,

    /// Refuse new sign-ups (existing users can still sign in).
    #[arg(long, env = "REGARD_DISABLE_SIGNUP")]
    pub disable_signup: bool,

    /// Sign-ups are confirmed at once (`true`), or only once the user follows the link mailed
    /// to them (`false`; signing in before answers `email_not_confirmed`).
    #[arg(long, env = "REGARD_MAILER_AUTOCONFIRM", default_value_t = true, action = clap::ArgAction::Set)]
    pub mailer_autoconfirm: bool,

    /// Sign-in with a phone number (a code sent by SMS, or a password), GoTrue's phone
    /// provider. Off by default.
    #[arg(long, env = "REGARD_PHONE_SIGN_IN", default_value_t = false, action = clap::ArgAction::Set)]
    pub phone_sign_in: bool,

    /// Phone sign-ups are confirmed at once (`true`), or once the user types the code sent by
    /// SMS (`false`).
    #[arg(long, env = "REGARD_SMS_AUTOCONFIRM", default_value_t = false, action = clap::ArgAction::Set)]
    pub sms_autoconfirm: bool,

    /// Anonymous sign-ins (`signInAnonymously`): a session without an address, which the user
    /// turns into a permanent account by adding an email and a password. Off by default.
    #[arg(long, env = "REGARD_ANONYMOUS_SIGN_IN", default_value_t = false, action = clap::ArgAction::Set)]
    pub anonymous_sign_in: bool,

    /// A password change needs the code of `GET /auth/v1/reauthenticate` (`nonce`), as GoTrue's
    /// `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`, unless the session signed
    /// in less than `REGARD_REAUTHENTICATION_WINDOW` ago.
    #[arg(long, env = "REGARD_SECURE_PASSWORD_CHANGE", default_value_t = false, action = clap::ArgAction::Set)]
    pub secure_password_change: bool,

    /// A password change needs the current password (`current_password` in `PUT /user`; 400
    /// `current_password_required` without it, 400 `current_password_invalid` when wrong), as
    /// GoTrue's `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`, so a session left
    /// open cannot lock its owner out. Not asked of a session that a recovery link or code
    /// opened, nor of an account without a password (made through a provider).
    #[arg(long, env = "REGARD_PASSWORD_CHANGE_NEEDS_CURRENT", default_value_t = true, action = clap::ArgAction::Set)]
    pub password_change_needs_current: bool,

    /// Seconds between two checks, by each open event stream (`GET /api/v1/events`), that its
    /// session still exists: a stream ends at most this long after a sign-out, a password
    /// change or a refresh-token reuse ended its session, on whichever node it runs.
    #[arg(long, env = "REGARD_EVENTS_SESSION_CHECK", default_value_t = 15)]
    pub events_session_check: u64,

    /// Seconds after signing in during which a session changes the password without a
    /// reauthentication code (with `REGARD_SECURE_PASSWORD_CHANGE`; GoTrue's 24 hours).
    #[arg(long, env = "REGARD_REAUTHENTICATION_WINDOW", default_value_t = 86_400)]
    pub reauthentication_window: u64,

    /// SMTP server for outgoing mail, as `lettre` reads it: `smtp://user:pass@host:587?tls=required`
    /// (STARTTLS), `smtps://user:pass@host:465` (TLS), or `smtp://host:25` (plain, for a local
    /// relay). Default: none, and every mail is written to `<data dir>/outbox/mail-*.eml`.
    #[arg(long, env = "REGARD_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<Secret>,

    /// Sender of outgoing mail.
    #[arg(
        long,
        env = "REGARD_SMTP_FROM",
        default_value = "Regard <no-reply@regard.localhost>"
    )]
    pub smtp_from: String,

    /// SMS gateway: each SMS is POSTed as JSON `{to, body}` to this URL. Default: none, and
    /// every SMS is written to `<data dir>/outbox/sms-*.json` and the log instead.
    #[arg(long, env = "REGARD_SMS_WEBHOOK_URL", hide_env_values = true)]
    pub sms_webhook_url: Option<Secret>,

    /// Allow phone (SMS) second factors.
    #[arg(long, env = "REGARD_MFA_PHONE_ENABLED", default_value_t = true, action = clap::ArgAction::Set)]
    pub mfa_phone_enabled: bool,

    /// Seconds a second-factor challenge (and its SMS code) stays valid.
    #[arg(long, env = "REGARD_MFA_CHALLENGE_EXPIRY", default_value_t = 300)]
    pub mfa_challenge_expiry: u64,

    /// Most factors (verified or not) a user may have.
    #[arg(long, env = "REGARD_MFA_MAX_FACTORS", default_value_t = 10)]
    pub mfa_max_factors: u32,

    /// Second-factor codes compared per factor per rate-limit window (each counted before the
    /// comparison; a success resets the count) before 429.
    #[arg(long, env = "REGARD_RATE_LIMIT_MFA_VERIFY", default_value_t = 5)]
    pub rate_limit_mfa_verify: u32,

    /// Seconds between two mails of one kind (recovery, confirmation) or two SMS codes to one
    /// user; requests in between send nothing (recovery) or answer 429 (SMS).
    #[arg(long, env = "REGARD_MAIL_MAX_FREQUENCY", default_value_t = 60)]
    pub mail_max_frequency: u64,

    /// Lifetime of links sent by mail (recovery, confirmation, email change), in seconds.
    #[arg(long, env = "REGARD_MAIL_LINK_TTL", default_value_t = 3600)]
    pub mail_link_ttl: u64,

    /// Password sign-ins allowed per client IP per rate-limit window (0 = unlimited).
    #[arg(long, env = "REGARD_RATE_LIMIT_SIGN_IN", default_value_t = 30)]
    pub rate_limit_sign_in: u32,

    /// Sign-ups allowed per client IP per rate-limit window (0 = unlimited).
    #[arg(long, env = "REGARD_RATE_LIMIT_SIGN_UP", default_value_t = 30)]
    pub rate_limit_sign_up: u32,

    /// Requests that send mail (password recovery) allowed per client IP per window.
    #[arg(long, env = "REGARD_RATE_LIMIT_EMAIL", default_value_t = 30)]
    pub rate_limit_email: u32,

    /// Length of the rate-limit window in seconds; the allowance refills evenly over it.
    #[arg(long, env = "REGARD_RATE_LIMIT_WINDOW", default_value_t = 300)]
    pub rate_limit_window: u64,

    /// Take the client IP from the right-most `X-Forwarded-For` entry: the address the one
    /// trusted proxy in front of Regard saw (only behind such a proxy; entries to its left are
    /// the client's own words).
    #[arg(long, env = "REGARD_TRUST_PROXY")]
    pub trust_proxy: bool,

    /// The proxies in front of Regard, as addresses or CIDR ranges (comma separated), for a
    /// deployment with more than one hop: a request from one of them has its client taken
    /// from `X-Forwarded-For`, skipping these addresses from the right. Implies
    /// `REGARD_TRUST_PROXY` for requests from them; others are taken at their socket address.
    #[arg(long, env = "REGARD_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_proxy)]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Largest accepted request body in bytes (larger ones get 413).
    #[arg(long, env = "REGARD_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Extra origins allowed to call the API from a browser (comma separated). Default: none,
    /// i.e. same origin only.
    #[arg(long, env = "REGARD_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,

    /// Object storage for media: empty = `<data dir>/media`; `file:///absolute/path`; or
    /// `s3://bucket[/prefix]?endpoint=URL&region=R` (credentials from the `AWS_*` variables).
    #[arg(long, env = "REGARD_STORAGE_URL")]
    pub storage_url: Option<String>,

    /// Largest accepted image upload in bytes (larger ones get 413 `file_too_large`).
    #[arg(long, env = "REGARD_MEDIA_MAX_BYTES", default_value_t = 50 * 1024 * 1024)]
    pub media_max_bytes: u64,

    /// Largest accepted image area in pixels (width × height, read from the header).
    #[arg(long, env = "REGARD_MEDIA_MAX_PIXELS", default_value_t = 100_000_000)]
    pub media_max_pixels: u64,

    /// Lifetime of signed media URLs in seconds (URLs are valid between 3/4 of it and all of
    /// it, because expiries are rounded so repeated responses give identical, cacheable URLs).
    #[arg(long, env = "REGARD_MEDIA_URL_TTL", default_value_t = 3600)]
    pub media_url_ttl: u64,

    /// Bearer token that `GET /metrics` requires. Unset: the route answers anyone, so keep it
    /// off the public internet (docs/operations.md).
    #[arg(long, env = "REGARD_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<Secret>,

    /// Image uploads processed at once per process; further uploads wait for a slot.
    #[arg(long, env = "REGARD_MEDIA_INGEST_CONCURRENCY", default_value_t = 2)]
    pub media_ingest_concurrency: usize,

    /// Memory, in MiB, that decoding uploads may take at once in this process. Each upload's
    /// need is worked out from its header before decoding; one that needs more than this all
    /// alone is refused with 422 `image_too_large`, others wait until enough is free.
    #[arg(long, env = "REGARD_MEDIA_DECODE_BUDGET", default_value_t = 320)]
    pub media_decode_budget: u64,

    /// Largest ZIP of photos an inventory import (`POST /api/v1/locations/import`) accepts, in
    /// bytes (the CSV or XLSX file beside it has its own limit, 10 MiB); larger ones get 413
    /// `file_too_large` (reading stops at the limit). The photos inside may declare twice this
    /// in all, inflated; each photo is held to `REGARD_MEDIA_MAX_BYTES` as an upload is.
    #[arg(long, env = "REGARD_IMPORT_MAX_BYTES", default_value_t = 256 * 1024 * 1024)]
    pub import_max_bytes: u64,

    /// Memory, in MiB, that password hashes (Argon2id, 19 MiB each) may take at once in this
    /// process: sign-ins, sign-ups and password changes beyond `budget / 19` wait for a slot,
    /// then answer 429 `over_request_rate_limit`. 0 = unlimited.
    #[arg(long, env = "REGARD_PASSWORD_HASH_MEMORY", default_value_t = 128)]
    pub password_hash_memory: u64,

    /// Milliseconds a password hash waits for a slot before its request is refused.
    #[arg(long, env = "REGARD_PASSWORD_HASH_WAIT_MS", default_value_t = 3000)]
    pub password_hash_wait_ms: u64,

    /// Seconds a connection may take to send a request's headers; also how long an idle
    /// keep-alive connection is kept waiting for its next request. 0 = no limit.
    #[arg(long, env = "REGARD_HTTP_HEADER_TIMEOUT", default_value_t = 10.0)]
    pub http_header_timeout: f64,

    /// Seconds a request body may take before it must keep up `REGARD_HTTP_BODY_MIN_RATE`:
    /// a body is cut off once it is slower than that rate after this grace. 0 = no limit.
    #[arg(long, env = "REGARD_HTTP_BODY_TIMEOUT", default_value_t = 30.0)]
    pub http_body_timeout: f64,

    /// Bytes per second a request body (an upload) must average after its grace.
    #[arg(long, env = "REGARD_HTTP_BODY_MIN_RATE", default_value_t = 16 * 1024)]
    pub http_body_min_rate: u64,

    /// Open client connections per process; further ones are closed at once (and logged).
    /// Lowered at start to what the file limit allows. 0 = unlimited.
    #[arg(long, env = "REGARD_HTTP_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub http_max_connections: usize,

    /// Memory, in MiB, that heavy work (exports, PDF reports, heatmap and simulation renders)
    /// may take at once in this process, each worked out from its images' sizes before
    /// decoding. Exports wait for room, then answer 503 `unavailable`; workers wait for room
    /// with the job's lease kept alive. 0 = unlimited.
    #[arg(long, env = "REGARD_RENDER_MEMORY_BUDGET", default_value_t = 512)]
    pub render_memory_budget: u64,

    /// Seconds an export or report waits for render memory before it answers 503.
    #[arg(long, env = "REGARD_RENDER_WAIT_SECS", default_value_t = 30.0)]
    pub render_wait_secs: f64,

    /// Live event streams (`GET /api/v1/events`) one user may hold open at once; further
    /// ones answer 429 `rate_limited`. 0 = unlimited.
    #[arg(long, env = "REGARD_EVENT_STREAMS_PER_USER", default_value_t = 16)]
    pub event_streams_per_user: usize,

    /// Job workers per process (`regard serve` and `regard worker`). Default: one per CPU.
    #[arg(long, env = "REGARD_WORKERS")]
    pub workers: Option<usize>,

    /// `regard serve` only: run the API without job workers (jobs are left to `regard worker`
    /// processes or other nodes).
    #[arg(long, env = "REGARD_NO_WORKER")]
    pub no_worker: bool,

    /// Seconds a worker holds a job before another may take it over; the worker extends it
    /// every third of that while it works, so this is how long a crashed worker's job waits.
    #[arg(long, env = "REGARD_JOB_LEASE_SECS", default_value_t = 30)]
    pub job_lease_secs: u64,

    /// Seconds between idle workers' looks at the queue (new jobs also wake them at once).
    #[arg(long, env = "REGARD_JOB_POLL_SECS", default_value_t = 2.0)]
    pub job_poll_secs: f64,

    /// Attempts of a job before it is given up (transient errors and lost workers).
    #[arg(long, env = "REGARD_JOB_MAX_ATTEMPTS", default_value_t = 5)]
    pub job_max_attempts: u32,

    /// Fault injection for tests: each job pauses this many milliseconds in the middle of its
    /// work (after marking its subject started), so a test can kill the process there.
    #[arg(
        long,
        env = "REGARD_FAULT_HOLD_JOB_MS",
        default_value_t = 0,
        hide = true
    )]
    pub fault_hold_job_ms: u64,

    /// The assistant's optional language model: the base address of an OpenAI-compatible
    /// chat-completions API (`https://api.openai.com/v1`, `http://localhost:11434/v1`). Empty:
    /// the assistant answers offline, and nothing leaves the server.
    #[arg(long, env = "REGARD_ASSISTANT_URL")]
    pub assistant_url: Option<String>,

    /// The model asked at `REGARD_ASSISTANT_URL` (required with it).
    #[arg(long, env = "REGARD_ASSISTANT_MODEL")]
    pub assistant_model: Option<String>,

    /// The bearer key sent to `REGARD_ASSISTANT_URL`, if it needs one. Never logged.
    #[arg(long, env = "REGARD_ASSISTANT_API_KEY", hide_env_values = true)]
    pub assistant_api_key: Option<Secret>,

    /// Seconds the assistant waits for the language model before answering offline.
    #[arg(long, env = "REGARD_ASSISTANT_TIMEOUT", default_value_t = 30)]
    pub assistant_timeout: u64,

    /// Assistant questions allowed per user per rate-limit window (0 = unlimited).
    #[arg(long, env = "REGARD_RATE_LIMIT_ASSISTANT", default_value_t = 60)]
    pub rate_limit_assistant: u32,

    /// SMS codes sent to one phone number per hour, whatever asked for them (`/otp`,
    /// `/resend`, phone sign-up and change, reauthentication, phone second factors); 0 =
    /// unlimited. Beyond it: 429 `over_sms_send_rate_limit`.
    #[arg(long, env = "REGARD_RATE_LIMIT_SMS_PER_NUMBER", default_value_t = 5)]
    pub rate_limit_sms_per_number: u32,

    /// SMS-sending requests allowed per client IP per hour (0 = unlimited).
    #[arg(long, env = "REGARD_RATE_LIMIT_SMS_PER_IP", default_value_t = 10)]
    pub rate_limit_sms_per_ip: u32,

    /// SMS sent per hour in all, GoTrue's `RATE_LIMIT_SMS_SENT` (0 = unlimited): a budget that
    /// caps the gateway bill whatever the spread of numbers and IPs (for all nodes together
    /// when they share a PostgreSQL database).
    #[arg(long, env = "REGARD_RATE_LIMIT_SMS_SENT", default_value_t = 30)]
    pub rate_limit_sms_sent: u32,

    /// `PUT /user` requests carrying a reauthentication `nonce` or a `current_password`
    /// allowed per user per rate-limit window (0 = unlimited).
    #[arg(long, env = "REGARD_RATE_LIMIT_REAUTHENTICATION", default_value_t = 10)]
    pub rate_limit_reauthentication: u32,
    /// Share the job workers fairly between users (`true`): a ready job of the user with the
    /// fewest running jobs, then of the user served least recently, goes first. `false`: the
    /// oldest job first, whoever it is for (one user's large batch then delays everyone).
    #[arg(long, env = "REGARD_JOB_FAIR_QUEUE", default_value_t = true, action = clap::ArgAction::Set)]
    pub job_fair_queue: bool,

    /// Storage each workspace may fill, in MB of stored originals (uploads, renders and heatmap
    /// layers; previews and thumbnails are not counted). An upload that would pass it is
    /// refused with 413 `storage_quota_exceeded`. 0 = no quota.
    #[arg(long, env = "REGARD_STORAGE_QUOTA_MB", default_value_t = 5000)]
    pub storage_quota_mb: u64,

    /// Image uploads (`POST /api/v1/media`) allowed per user per rate-limit window
    /// (`REGARD_RATE_LIMIT_WINDOW`); beyond it 429 `rate_limited` with `Retry-After`.
    /// 0 = unlimited.
    #[arg(long, env = "REGARD_RATE_LIMIT_UPLOADS", default_value_t = 120)]
    pub rate_limit_uploads: u32,

    /// Invitation mails (new invitations and resends) a user may send per hour (0 =
    /// unlimited); beyond it 429 `over_email_send_rate_limit` with `Retry-After`.
    #[arg(long, env = "REGARD_RATE_LIMIT_INVITATIONS", default_value_t = 20)]
    pub rate_limit_invitations: u32,

    /// Invitation mails one address may receive per hour, whoever sends them (0 = unlimited).
    #[arg(
        long,
        env = "REGARD_RATE_LIMIT_INVITATIONS_PER_ADDRESS",
        default_value_t = 3
    )]
    pub rate_limit_invitations_per_address: u32,

    /// @mention mails a user's comments may send per hour (0 = unlimited); past it the comment
    /// is still posted and the mentioned members see it in the app, but no more mail goes.
    #[arg(long, env = "REGARD_RATE_LIMIT_MENTIONS", default_value_t = 30)]
    pub rate_limit_mentions: u32,

    /// Requests to the public shared pages (`/api/v1/shared/*`, no account) allowed per client
    /// IP per rate-limit window (0 = unlimited); beyond it 429 `rate_limited`.
    #[arg(long, env = "REGARD_RATE_LIMIT_SHARED", default_value_t = 30)]
    pub rate_limit_shared: u32,

    /// Requests to one share link's public pages per rate-limit window, from all addresses
    /// together (0 = unlimited).
    #[arg(long, env = "REGARD_RATE_LIMIT_SHARED_PER_LINK", default_value_t = 120)]
    pub rate_limit_shared_per_link: u32,

    /// Workspaces one account may create (its personal one not counted; 0 = no cap).
    #[arg(long, env = "REGARD_MAX_WORKSPACES_PER_USER", default_value_t = 10)]
    pub max_workspaces_per_user: u32,

    /// Locations one workspace may hold (0 = no cap); an import that would pass it is refused
    /// whole.
    #[arg(
        long,
        env = "REGARD_MAX_LOCATIONS_PER_WORKSPACE",
        default_value_t = 20_000
    )]
    pub max_locations_per_workspace: u32,

    /// Photos one inventory import may bring (0 = no cap); each also counts as an upload
    /// against `REGARD_RATE_LIMIT_UPLOADS`.
    #[arg(long, env = "REGARD_IMPORT_MAX_PHOTOS", default_value_t = 500)]
    pub import_max_photos: u32,

    /// Log format (`text` or `json`); the level comes from `RUST_LOG` (default `info`).
    #[arg(long, env = "REGARD_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

impl Config {
    /// The defaults alone, rooted at `data_dir`: the environment is never read, so a test or a
    /// benchmark behaves the same whatever `REGARD_*` variables the developer's shell holds.
    /// Tests start from this and override what they depend on.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Self {
        use clap::{CommandFactory, FromArgMatches};

        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            config: Config,
        }
        // An empty command line with every argument's `env` removed: clap fills in the
        // defaults, so they are written once, in the attributes above.
        let matches = Wrapper::command()
            .mut_args(|arg| arg.env(clap::builder::Resettable::Reset))
            .get_matches_from(["regard"]);
        let mut config = Wrapper::from_arg_matches(&matches)
            .expect("the defaults parse")
            .config;
        config.data_dir = data_dir.into();
        config
    }

    /// Reads `REGARD_OAUTH_<NAME>_ISSUER`, `_CLIENT_ID`, `_CLIENT_SECRET` and `_SCOPES` for
    /// every name of `oauth_providers` through `var` (the environment, in `regard serve`)
    /// into `oauth`. A missing issuer or client id, an issuer that is not an http(s) URL, or
    /// a bad or repeated name is an error.
    pub fn load_oauth_providers(
        &mut self,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        let mut providers: Vec<OAuthProviderConfig> = Vec::new();
        for raw in &self.oauth_providers {
            let name = raw.trim().to_ascii_lowercase();
            if name.is_empty() {
                continue;
            }
            if !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            {
                return Err(ConfigError(format!(
                    "REGARD_OAUTH_PROVIDERS: provider name {name:?} may only hold letters, digits and _"
                )));
            }
            if RESERVED_PROVIDER_NAMES.contains(&name.as_str()) {
                return Err(ConfigError(format!(
                    "REGARD_OAUTH_PROVIDERS: {name:?} is reserved"
                )));
            }
            if providers.iter().any(|p| p.name == name) {
                return Err(ConfigError(format!(
                    "REGARD_OAUTH_PROVIDERS names {name:?} twice"
                )));
            }
            let prefix = format!("REGARD_OAUTH_{}_", name.to_ascii_uppercase());
            let get = |suffix: &str| {
                var(&format!("{prefix}{suffix}"))
                    .map(|value| value.trim().to_owned())
                    .filter(|value| !value.is_empty())
            };
            let required = |suffix: &str| {
                get(suffix).ok_or_else(|| {
                    ConfigError(format!(
                        "provider {name:?} is listed in REGARD_OAUTH_PROVIDERS but {prefix}{suffix} is not set"
                    ))
                })
            };
            let issuer = required("ISSUER")?;
            match url::Url::parse(&issuer) {
                Ok(url) if matches!(url.scheme(), "http" | "https") && url.host().is_some() => {}
                _ => {
                    return Err(ConfigError(format!(
                        "{prefix}ISSUER must be an http(s) URL, not {issuer:?}"
                    )));
                }
            }
            let client_id = required("CLIENT_ID")?;
            let scopes = match get("SCOPES") {
                Some(list) => list
                    .split([',', ' '])
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
                None => DEFAULT_OAUTH_SCOPES.map(str::to_owned).to_vec(),
            };
            providers.push(OAuthProviderConfig {
                name,
                issuer,
                client_id,
                client_secret: get("CLIENT_SECRET").map(Secret::new),
                scopes,
            });
        }
        self.oauth = providers;
        Ok(())
    }

    /// Where providers send the browser back: `oauth_callback_url`, or
    /// `<site url>/auth/v1/callback`.
    pub fn oauth_callback(&self) -> String {
        self.oauth_callback_url
            .clone()
            .unwrap_or_else(|| format!("{}/auth/v1/callback", self.site_url.trim_end_matches('/')))
    }

    /// The upload limits, from `media_max_bytes`, `media_max_pixels` and `media_decode_budget`.
    pub fn media_limits(&self) -> crate::media::MediaLimits {
        crate::media::MediaLimits {
            max_bytes: self.media_max_bytes,
            max_pixels: self.media_max_pixels,
            max_decode_bytes: self.media_decode_budget.saturating_mul(1 << 20),
            ..crate::media::MediaLimits::default()
        }
    }

    /// Workers to start: `REGARD_WORKERS`, or one per CPU.
    pub fn worker_count(&self) -> usize {
        self.workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
            .max(1)
    }

    /// The `iss` claim put into access tokens.
    pub fn issuer(&self) -> String {
        self.jwt_issuer
            .clone()
            .unwrap_or_else(|| format!("{}/auth/v1", self.site_url.trim_end_matches('/')))
    }
}

/// A trusted proxy: a CIDR range (`10.0.0.0/8`) or one address (`10.0.0.7`).
fn parse_proxy(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .map(|net| net.trunc())
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("{text:?} is neither an IP address nor a CIDR range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(
        names: &[&str],
        vars: &[(&str, &str)],
    ) -> Result<Vec<OAuthProviderConfig>, ConfigError> {
        let mut config = Config::for_data_dir("unused");
        config.oauth_providers = names.iter().map(|n| (*n).to_owned()).collect();
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        config.load_oauth_providers(|key| {
            vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
        })?;
        Ok(config.oauth)
    }

    #[test]
    fn oauth_providers_are_read_from_their_variables() {
        let providers = load(
            &["Google", " keycloak", ""],
            &[
                ("REGARD_OAUTH_GOOGLE_ISSUER", "https://accounts.google.com"),
                ("REGARD_OAUTH_GOOGLE_CLIENT_ID", "id-1"),
                ("REGARD_OAUTH_GOOGLE_CLIENT_SECRET", "s3cret"),
                ("REGARD_OAUTH_KEYCLOAK_ISSUER", "http://kc:8080/realms/r"),
                ("REGARD_OAUTH_KEYCLOAK_CLIENT_ID", "id-2"),
                ("REGARD_OAUTH_KEYCLOAK_SCOPES", "openid,email roles"),
            ],
        )
        .unwrap();
        assert_eq!(providers.len(), 2);
        assert_eq!(providers[0].name, "google");
        assert_eq!(providers[0].scopes, ["openid", "email", "profile"]);
        assert_eq!(providers[0].client_secret, Some(Secret::new("s3cret")));
        assert!(!format!("{:?}", providers[0]).contains("s3cret"));
        assert_eq!(providers[1].client_secret, None);
        assert_eq!(providers[1].scopes, ["openid", "email", "roles"]);
    }

    #[test]
    fn incomplete_or_bad_oauth_settings_are_refused_with_the_variable_named() {
        let missing_id = load(
            &["google"],
            &[("REGARD_OAUTH_GOOGLE_ISSUER", "https://a.b")],
        );
        assert!(
            missing_id
                .unwrap_err()
                .0
                .contains("REGARD_OAUTH_GOOGLE_CLIENT_ID")
        );
        let missing_issuer = load(&["google"], &[("REGARD_OAUTH_GOOGLE_CLIENT_ID", "x")]);
        assert!(
            missing_issuer
                .unwrap_err()
                .0
                .contains("REGARD_OAUTH_GOOGLE_ISSUER")
        );
        let bad_issuer = load(
            &["google"],
            &[
                ("REGARD_OAUTH_GOOGLE_ISSUER", "accounts.google.com"),
                ("REGARD_OAUTH_GOOGLE_CLIENT_ID", "x"),
            ],
        );
        assert!(bad_issuer.unwrap_err().0.contains("http(s) URL"));
        assert!(load(&["my-idp"], &[]).is_err());
        assert!(load(&["email"], &[]).is_err());
        let twice = load(
            &["a", "A"],
            &[
                ("REGARD_OAUTH_A_ISSUER", "https://a.b"),
                ("REGARD_OAUTH_A_CLIENT_ID", "x"),
            ],
        );
        assert!(twice.unwrap_err().0.contains("twice"));
    }
}
