//! Where the auth server may send a browser back to (`redirect_to`): GoTrue's `GetReferrer`
//! and `IsRedirectURLValid`, made safe against the URL parser differences they miss. A target
//! is accepted when it has the origin (scheme, host and port) of `REGARD_SITE_URL`, or when it
//! matches an entry of `REGARD_REDIRECT_ALLOW_LIST`; anything else falls back to the site URL,
//! so a crafted link can never send a user, or an auth code, to another site.
//!
//! A candidate is first read as a browser reads it (the WHATWG URL standard, the `url` crate)
//! and refused unless its written form leaves nothing to interpretation: printable ASCII only
//! (no tab, newline or space, which browsers drop), no backslash, `scheme://` written out, no
//! user info, and a host of letters, digits, `.`, `-` and `_` (or a bracketed IPv6 address)
//! that the parser keeps as written, apart from letter case. So `https://evil%2Ecom?.x/`
//! (a percent-encoded dot), `https://2130706433/` or `https://0x7f.1/` (numbers a browser
//! reads as 127.0.0.1), `https://x@evil.com/` and `https:evil.com` are refused outright.
//! `javascript:`, `data:`, `vbscript:`, `file:` and the like are refused whatever the list says.
//!
//! An allow-list entry is `scheme://host[:port][/path]`, and each part is matched separately
//! against the parsed URL, so no glob can run from the host into the path or the query:
//! * the scheme and the host (both compared in lower case) with globs as GoTrue's (gobwas/glob
//!   with `.` and `/` as separators): `*` matches any run of characters except `.` and `/`,
//!   `**` any run at all, `?` one character except `.` and `/`; everything else is literal;
//! * the port: without one in the entry, only the scheme's default port (or none); with one,
//!   a glob against the port number, the default one included (`http://localhost:*/**`
//!   allows every port of localhost);
//! * the path: the glob against the normalised path, query and fragment (`..` segments
//!   resolved, so `/app/../admin` is `/admin`); without a path in the entry, only `/` or
//!   nothing. A path with an escaped `.`, `/` or `\` (`%2e`, `%2f`, `%5c`) is refused.
//!
//! Entries without `://` match nothing. What the browser is then sent to is the normalised URL,
//! never the string as it came. `http://localhost:3000/**` allows every page of that origin;
//! `https://*.example.com/**` every page of every direct subdomain.
//!
//! It also builds what the browser is sent to once a flow ends ([`fragment_redirect`]: the
//! session in the fragment; [`error_redirect`]: the error in the query and the fragment), for
//! third-party sign-in and mailed links alike, and reads the `redirect_to` query parameter of
//! the endpoints that mail links ([`RedirectQuery`], [`checked_redirect`]).

use axum::http::HeaderMap;
use serde::Deserialize;
use serde_json::Value;
use url::{Position, Url};

use super::error::AuthError;
use super::flow::ProviderTokens;
use crate::config::Config;
use crate::db::DbError;
use crate::state::AppState;

/// The redirect target for a request: `requested`, normalised, when it is allowed, otherwise
/// the site URL.
pub fn resolve(config: &Config, requested: Option<&str>) -> String {
    requested
        .and_then(|candidate| checked(config, candidate))
        .unwrap_or_else(|| config.site_url.clone())
}

/// GoTrue's `GetReferrer`: `redirect_to` when allowed, else the request's `Referer` when
/// allowed, else the site URL (each normalised).
pub fn referrer(config: &Config, redirect_to: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(target) = redirect_to.and_then(|candidate| checked(config, candidate)) {
        return target;
    }
    let referer = headers
        .get(axum::http::header::REFERER)
        .and_then(|value| value.to_str().ok());
    resolve(config, referer)
}

/// Whether the browser may be sent to `candidate`.
pub fn is_allowed(config: &Config, candidate: &str) -> bool {
    checked(config, candidate).is_some()
}

/// Schemes never redirected to: they run code or open local content.
const REFUSED_SCHEMES: &[&str] = &[
    "javascript",
    "vbscript",
    "data",
    "file",
    "blob",
    "about",
    "filesystem",
];

/// `candidate` as the browser will read it (normalised), when it is allowed.
fn checked(config: &Config, candidate: &str) -> Option<String> {
    let candidate = candidate.trim();
    let url = unambiguous(candidate)?;
    if REFUSED_SCHEMES.contains(&url.scheme()) {
        return None;
    }
    if let Ok(site) = Url::parse(&config.site_url)
        && site.origin().is_tuple()
        && site.origin() == url.origin()
    {
        return Some(url.into());
    }
    config
        .redirect_allow_list
        .iter()
        .filter_map(|entry| Entry::parse(entry))
        .any(|entry| entry.matches(&url))
        .then(|| url.into())
}

/// `candidate` parsed, when every parser reads it the same way (see the module's notes).
fn unambiguous(candidate: &str) -> Option<Url> {
    if candidate.is_empty()
        || candidate
            .chars()
            .any(|c| !c.is_ascii_graphic() || c == '\\')
    {
        return None;
    }
    let url = Url::parse(candidate).ok()?;
    // The authority as written: `scheme://` spelt out (browsers also read `https:evil.com`).
    let (_, rest) = candidate.split_once(':')?;
    let rest = rest.strip_prefix("//")?;
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if authority.contains(['@', '%']) || !url.username().is_empty() || url.password().is_some() {
        return None;
    }
    let written_host = if authority.starts_with('[') {
        &authority[..=authority.find(']')?]
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(host, _port)| host)
    };
    let plain = if written_host.starts_with('[') {
        written_host[1..written_host.len() - 1]
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
    } else {
        written_host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    // The parser must keep the host as written (numbers such as `2130706433`, `0x7f.1` or
    // `127.1` are IPv4 addresses to it and to browsers: they come out rewritten).
    if !plain
        || !url
            .host_str()
            .is_some_and(|host| host.eq_ignore_ascii_case(written_host))
    {
        return None;
    }
    let path = url.path().to_ascii_lowercase();
    if ["%2e", "%2f", "%5c"]
        .iter()
        .any(|escape| path.contains(escape))
    {
        return None;
    }
    Some(url)
}

/// One entry of `REGARD_REDIRECT_ALLOW_LIST`, split into its parts.
#[derive(Debug)]
struct Entry {
    scheme: String,
    host: String,
    port: Option<String>,
    path: String,
}

impl Entry {
    fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        let (scheme, rest) = raw.split_once("://")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (host, port) = if authority.starts_with('[') {
            let end = authority.find(']')?;
            let port = authority[end + 1..].strip_prefix(':');
            (&authority[..=end], port)
        } else {
            match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            }
        };
        Some(Self {
            scheme: scheme.to_ascii_lowercase(),
            host: host.to_ascii_lowercase(),
            port: port.map(str::to_owned),
            path: path.to_owned(),
        })
    }

    fn matches(&self, url: &Url) -> bool {
        let port_matches = match &self.port {
            None => url.port().is_none(),
            Some(glob) => glob_match(
                glob,
                &url.port_or_known_default()
                    .map(|port| port.to_string())
                    .unwrap_or_default(),
            ),
        };
        let rest = &url[Position::BeforePath..];
        let path_matches = if self.path.is_empty() {
            rest.is_empty() || rest == "/"
        } else {
            glob_match(&self.path, rest)
        };
        glob_match(&self.scheme, url.scheme())
            && glob_match(&self.host, url.host_str().unwrap_or_default())
            && port_matches
            && path_matches
    }
}

/// One element of a compiled glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Literal(char),
    /// `?`: one character other than a separator.
    One,
    /// `*`: any run of characters other than separators.
    Star,
    /// `**`: any run of characters.
    DoubleStar,
}

fn is_separator(c: char) -> bool {
    c == '.' || c == '/'
}

fn compile(pattern: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        tokens.push(match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                Token::DoubleStar
            }
            '*' => Token::Star,
            '?' => Token::One,
            other => Token::Literal(other),
        });
    }
    tokens
}

/// Whether `text` matches the glob `pattern` (dynamic programming over both, no backtracking
/// blow-up whatever the pattern).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let tokens = compile(pattern);
    let text: Vec<char> = text.chars().collect();
    // reachable[j]: the tokens seen so far can match text[..j].
    let mut reachable = vec![false; text.len() + 1];
    reachable[0] = true;
    for token in tokens {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            match token {
                Token::Literal(c) => {
                    next[j] = j > 0 && reachable[j - 1] && text[j - 1] == c;
                }
                Token::One => {
                    next[j] = j > 0 && reachable[j - 1] && !is_separator(text[j - 1]);
                }
                Token::Star => {
                    // Either the star matches nothing here, or it extends a match by one
                    // non-separator character.
                    next[j] = reachable[j] || (j > 0 && next[j - 1] && !is_separator(text[j - 1]));
                }
                Token::DoubleStar => {
                    next[j] = reachable[j] || (j > 0 && next[j - 1]);
                }
            }
        }
        reachable = next;
    }
    reachable[text.len()]
}

/// `redirect_to` if the site allows it (`REGARD_SITE_URL`, `REGARD_REDIRECT_ALLOW_LIST`),
/// otherwise the site itself.
pub fn checked_redirect(state: &AppState, redirect_to: Option<&str>) -> String {
    resolve(&state.config, redirect_to)
}

/// The `redirect_to` query parameter of the endpoints that mail links.
#[derive(Debug, Deserialize)]
pub struct RedirectQuery {
    pub redirect_to: Option<String>,
}

/// The OAuth `error` value GoTrue's `getErrorQueryString` gives an error.
fn oauth_error_name(error: &AuthError) -> &'static str {
    if matches!(
        error.code,
        "signup_disabled" | "user_banned" | "provider_email_needs_verification"
    ) {
        return "access_denied";
    }
    match error.status.as_u16() {
        400 => "invalid_request",
        401 => "unauthorized_client",
        403 => "access_denied",
        503 => "temporarily_unavailable",
        _ => "server_error",
    }
}

/// An error of the callback as the client receives it.
#[derive(Debug)]
pub enum CallbackError {
    /// One of ours (with a GoTrue code).
    Auth(AuthError),
    /// The provider's own `error` and `error_description`, passed on.
    Provider { error: String, description: String },
}

impl From<AuthError> for CallbackError {
    fn from(err: AuthError) -> Self {
        CallbackError::Auth(err)
    }
}

impl From<DbError> for CallbackError {
    fn from(err: DbError) -> Self {
        CallbackError::Auth(err.into())
    }
}

impl CallbackError {
    fn pairs(&self) -> Vec<(&'static str, String)> {
        match self {
            CallbackError::Auth(err) => vec![
                ("error", oauth_error_name(err).to_owned()),
                ("error_code", err.code.to_owned()),
                ("error_description", err.message.clone()),
            ],
            CallbackError::Provider { error, description } => {
                let mut pairs = vec![("error", error.clone())];
                if !description.is_empty() {
                    pairs.push(("error_description", description.clone()));
                }
                pairs
            }
        }
    }
}

/// `target` with the error in its query (kept parameters first) and, unless `query_only`,
/// in its fragment too with GoTrue's `sb` marker (GoTrue's `redirectErrors`).
pub fn error_redirect(target: &str, error: &CallbackError, query_only: bool) -> String {
    let Ok(mut url) = url::Url::parse(target) else {
        return target.to_owned();
    };
    let pairs = error.pairs();
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(key, _)| !pairs.iter().any(|(name, _)| key == name))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    if !query_only {
        let mut fragment = url::form_urlencoded::Serializer::new(String::new());
        fragment.extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
        fragment.append_pair("sb", "");
        url.set_fragment(Some(&fragment.finish()));
    }
    url.into()
}

/// GoTrue's `AccessTokenResponse.AsRedirectURL`: `redirect_to#access_token=...` (sorted keys),
/// with `extra` pairs (the `type` of a mailed link).
pub fn fragment_redirect(
    redirect_to: &str,
    session: &Value,
    provider: &ProviderTokens,
    extra: &[(&'static str, &str)],
) -> String {
    let mut pairs: Vec<(&str, String)> = vec![
        (
            "access_token",
            session["access_token"].as_str().unwrap_or("").to_owned(),
        ),
        ("expires_at", session["expires_at"].to_string()),
        ("expires_in", session["expires_in"].to_string()),
        (
            "provider_token",
            provider.access_token.clone().unwrap_or_default(),
        ),
        (
            "refresh_token",
            session["refresh_token"].as_str().unwrap_or("").to_owned(),
        ),
        ("sb", String::new()),
        ("token_type", "bearer".to_owned()),
    ];
    if let Some(refresh) = provider.refresh_token.clone().filter(|t| !t.is_empty()) {
        pairs.push(("provider_refresh_token", refresh));
    }
    pairs.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    let mut fragment = url::form_urlencoded::Serializer::new(String::new());
    fragment.extend_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    format!("{redirect_to}#{}", fragment.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(site: &str, allow: &[&str]) -> Config {
        let mut config = Config::for_data_dir("unused");
        config.site_url = site.to_owned();
        config.redirect_allow_list = allow.iter().map(|s| (*s).to_owned()).collect();
        config
    }

    #[test]
    fn globs_follow_gotrue() {
        let cases = [
            (
                "http://localhost:3000/**",
                "http://localhost:3000/a/b?c=d",
                true,
            ),
            (
                "http://localhost:3000/*",
                "http://localhost:3000/welcome",
                true,
            ),
            (
                "http://localhost:3000/*",
                "http://localhost:3000/a/b",
                false,
            ),
            (
                "https://*.example.com/**",
                "https://app.example.com/x",
                true,
            ),
            (
                "https://*.example.com/**",
                "https://a.b.example.com/x",
                false,
            ),
            (
                "https://*.example.com/**",
                "https://evil.com/.example.com/",
                false,
            ),
            (
                "https://**.example.com/**",
                "https://a.b.example.com/x",
                true,
            ),
            ("myapp://callback", "myapp://callback", true),
            ("myapp://callback", "myapp://callbacks", false),
            ("http://localhost:300?/", "http://localhost:3001/", true),
            ("http://localhost:300?/", "http://localhost:30/", false),
            ("", "", true),
        ];
        for (pattern, text, expected) in cases {
            assert_eq!(glob_match(pattern, text), expected, "{pattern} vs {text}");
        }
        // Long texts against many stars stay fast.
        assert!(!glob_match(
            &"*a".repeat(50),
            &"a".repeat(2000).replace("aa", "ab")
        ));
    }

    #[test]
    fn the_site_origin_and_the_allow_list_are_accepted_and_the_rest_falls_back() {
        let config = config(
            "https://regard.example/app",
            &[
                "http://localhost:3000/**",
                " myapp://auth ",
                "no-scheme-here",
            ],
        );
        let allowed = [
            "https://regard.example/",
            "https://regard.example/other/page?x=1#y",
            "http://localhost:3000/callback",
            "myapp://auth",
        ];
        for url in allowed {
            assert_eq!(resolve(&config, Some(url)), url);
        }
        let refused = [
            "https://regard.example:8443/",
            "http://regard.example/",
            "https://regard.example.evil.com/",
            "https://user@regard.example/",
            "https://evil.example/?https://regard.example/",
            "/relative/path",
            "http://localhost:3000\\@evil.com/",
            "javascript:alert(1)",
            "http://localhost:3000/café",
            "no-scheme-here",
            "",
        ];
        for url in refused {
            assert_eq!(
                resolve(&config, Some(url)),
                "https://regard.example/app",
                "{url}"
            );
        }
        assert_eq!(resolve(&config, None), "https://regard.example/app");

        let mut headers = HeaderMap::new();
        headers.insert("referer", "http://localhost:3000/from".parse().unwrap());
        assert_eq!(
            referrer(&config, Some("https://evil.example/"), &headers),
            "http://localhost:3000/from"
        );
        assert_eq!(
            referrer(&config, Some("myapp://auth"), &headers),
            "myapp://auth"
        );
        assert_eq!(
            referrer(&config, None, &HeaderMap::new()),
            "https://regard.example/app"
        );
    }

    /// Crafted targets, each refused (`None`: the site URL instead) or accepted as the
    /// normalised URL a browser goes to, which is inside the allow-list.
    #[test]
    fn crafted_redirects_never_leave_the_allow_list_as_a_browser_reads_them() {
        let site = "https://regard.example/app";
        let config = config(
            site,
            &[
                "https://*.example.com/**",
                "http://localhost:*/**",
                "https://docs.example.org/guide/**",
                "myapp://callback",
            ],
        );
        let cases: &[(&str, Option<&str>)] = &[
            // The review's findings: an escaped dot, a number host, each before a `?`.
            ("https://evil%2Ecom?.example.com/", None),
            ("https://evil%2ecom/.example.com/", None),
            ("https://evil.com%2F.example.com/", None),
            ("https://app%2Eexample.com/", None),
            ("https://2130706433?.example.com/", None),
            ("https://evil.com/.example.com/", None),
            ("https://evil.com?.example.com/", None),
            ("https://evil.com#.example.com/", None),
            // User info, `@`, `\` and missing `//`.
            ("https://app.example.com@evil.com/", None),
            ("https://@app.example.com/", None),
            ("https://x:y@app.example.com/", None),
            ("https://app.example.com\\@evil.com/", None),
            ("https://evil.com\\.example.com/", None),
            ("https://evil.com#@app.example.com/", None),
            ("https:evil.example.com/", None),
            ("https:/app.example.com/", None),
            ("//evil.com/", None),
            ("/\\evil.com/", None),
            ("\\\\evil.com/", None),
            // Numbers a browser reads as IPv4 addresses, and IPv6 ones.
            ("http://2130706433:3000/", None),
            ("http://0x7f000001:3000/", None),
            ("http://0x7f.0.0.1:3000/", None),
            ("http://0177.0.0.1:3000/", None),
            ("http://127.1:3000/", None),
            ("http://127.0.0.1:3000/", None),
            ("http://[::1]:3000/", None),
            ("http://[::ffff:7f00:1]:3000/", None),
            ("http://[0:0::1]:3000/", None),
            // Whitespace browsers drop, and non-ASCII lookalikes.
            ("https://app.exa\tmple.com/", None),
            ("https://app.example.com/a\nb", None),
            (
                " https://app.example.com/\n",
                Some("https://app.example.com/"),
            ),
            ("https://evil\r.com/.example.com", None),
            ("https://app.example.com /", None),
            ("https://аpp.example.com/", None),
            ("https://app.examp1e.com/", None),
            ("https://app.xn--exmple-cua.com/", None),
            ("https://xn--80ak6aa92e.com/", None),
            // Letter case, trailing dots, ports.
            (
                "HTTPS://APP.Example.COM/Some/Path",
                Some("https://app.example.com/Some/Path"),
            ),
            ("https://app.example.com./", None),
            ("https://app.example.com.evil.com/", None),
            ("https://a.b.example.com/", None),
            ("https://example.com/", None),
            (
                "https://app.example.com:443/x",
                Some("https://app.example.com/x"),
            ),
            (
                "https://app.example.com:/x",
                Some("https://app.example.com/x"),
            ),
            ("https://app.example.com:8443/x", None),
            ("http://app.example.com/x", None),
            (
                "http://localhost:3000/cb?x=1",
                Some("http://localhost:3000/cb?x=1"),
            ),
            ("http://LOCALHOST:5173/", Some("http://localhost:5173/")),
            ("http://localhost/", Some("http://localhost/")),
            ("http://localhost:99999/", None),
            ("http://localhost.:3000/", None),
            ("http://localhost:3000.evil.com/", None),
            ("http://evil.com:3000/localhost/", None),
            // Schemes that run code or open local content, and other schemes.
            ("javascript:alert(1)", None),
            ("javascript://app.example.com/%0aalert(1)", None),
            ("JavaScript://app.example.com/%0aalert(1)", None),
            ("data:text/html,<script>alert(1)</script>", None),
            ("vbscript://app.example.com/", None),
            ("file:///etc/passwd", None),
            ("ftp://app.example.com/", None),
            ("wss://app.example.com/", None),
            // Path prefixes: `..` (plain or escaped) cannot leave an allowed path.
            (
                "https://docs.example.org/guide/intro?a=b#c",
                Some("https://docs.example.org/guide/intro?a=b#c"),
            ),
            (
                "https://docs.example.org/guide/a/./b/../c",
                Some("https://docs.example.org/guide/a/c"),
            ),
            ("https://docs.example.org/guide/../admin", None),
            ("https://docs.example.org/guide/%2e%2e/admin", None),
            ("https://docs.example.org/guide/%2E%2E/admin", None),
            ("https://docs.example.org/guide/..%2fadmin", None),
            ("https://docs.example.org/guide/..%5cadmin", None),
            ("https://docs.example.org/guidebook", None),
            ("https://docs.example.org/", None),
            // A custom scheme for a mobile app.
            ("myapp://callback", Some("myapp://callback")),
            ("myapp://callback@evil.com", None),
            ("myapp://evil%2Ecom", None),
            ("myapp://callbacks", None),
            // The site's own origin.
            (
                "https://regard.example/x/../y",
                Some("https://regard.example/y"),
            ),
            (
                "https://REGARD.example:443/",
                Some("https://regard.example/"),
            ),
            ("https://regard.example%2eevil.com/", None),
            ("https://regard.example.evil.com/", None),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(candidate, expected)| {
                resolve(&config, Some(candidate)) != expected.unwrap_or(site)
            })
            .map(|(candidate, _)| format!("{candidate:?} → {}", resolve(&config, Some(candidate))))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
        for (candidate, _) in cases {
            let got = resolve(&config, Some(candidate));
            // Whatever came out, the browser lands on an allowed host.
            let landed = Url::parse(&got).unwrap();
            let host = landed.host_str().unwrap_or_default();
            assert!(
                host == "regard.example"
                    || host == "localhost"
                    || host == "docs.example.org"
                    || host == "callback"
                    || (host.ends_with(".example.com")
                        && !host.trim_end_matches(".example.com").contains('.')),
                "{candidate:?} → {got}"
            );
            // A normalised target is its own normal form.
            assert_eq!(resolve(&config, Some(&got)), got, "{candidate:?}");
        }
    }
}
