//! Where the auth server may send a browser back to (`redirect_to`): GoTrue's `GetReferrer`
//! and `IsRedirectURLValid`. A target is accepted when it has the origin (scheme, host and
//! port) of `REGARD_SITE_URL`, or when it matches a glob of `REGARD_REDIRECT_ALLOW_LIST`;
//! anything else falls back to the site URL, so a crafted link can never send a user, or an
//! auth code, to another site.
//!
//! Globs work as GoTrue's (gobwas/glob with `.` and `/` as separators): `*` matches any run of
//! characters except `.` and `/`, `**` any run at all, `?` one character except `.` and `/`;
//! everything else is literal. `http://localhost:3000/**` allows every page of that origin;
//! `https://*.example.com/**` every subdomain.

use axum::http::HeaderMap;

use crate::config::Config;

/// The redirect target for a request: `requested` when it is allowed, otherwise the site URL.
pub fn resolve(config: &Config, requested: Option<&str>) -> String {
    match requested.map(str::trim) {
        Some(candidate) if is_allowed(config, candidate) => candidate.to_owned(),
        _ => config.site_url.clone(),
    }
}

/// GoTrue's `GetReferrer`: `redirect_to` when allowed, else the request's `Referer` when
/// allowed, else the site URL.
pub fn referrer(config: &Config, redirect_to: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(candidate) = redirect_to.map(str::trim)
        && is_allowed(config, candidate)
    {
        return candidate.to_owned();
    }
    let referer = headers
        .get(axum::http::header::REFERER)
        .and_then(|value| value.to_str().ok());
    resolve(config, referer)
}

/// Whether the browser may be sent to `candidate`.
pub fn is_allowed(config: &Config, candidate: &str) -> bool {
    // Only absolute URLs that fit in a Location header as they are (printable ASCII), without
    // user info (which browsers show misleadingly) or backslashes (which browsers read as
    // slashes, unlike the globs).
    if candidate.is_empty()
        || candidate
            .chars()
            .any(|c| !c.is_ascii_graphic() || c == '\\')
    {
        return false;
    }
    let Ok(url) = url::Url::parse(candidate) else {
        return false;
    };
    if !url.username().is_empty() || url.password().is_some() {
        return false;
    }
    if let Ok(site) = url::Url::parse(&config.site_url)
        && site.origin().is_tuple()
        && site.origin() == url.origin()
    {
        return true;
    }
    config
        .redirect_allow_list
        .iter()
        .map(|pattern| pattern.trim())
        .filter(|pattern| !pattern.is_empty())
        .any(|pattern| glob_match(pattern, candidate))
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
            &["http://localhost:3000/**", " myapp://auth "],
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
}
