//! Request extractors of the auth API: JSON bodies with GoTrue's errors, the client IP, and
//! [`AuthUser`], the signed-in user behind a bearer access token (also for `/api/v1`); the
//! headers the endpoints read (user agent, language).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use super::error::AuthError;
use super::tokens::Claims;
use crate::db::users;
use crate::db::users::UserRow;
use crate::i18n::Locale;
use crate::state::AppState;

/// A JSON body. Unknown fields are ignored (auth-js sends extra ones); malformed JSON is 400
/// `bad_json`; a body over the limit is 413 `request_entity_too_large`.
pub struct GoTrueJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for GoTrueJson<T> {
    type Rejection = AuthError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AuthError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "request_entity_too_large",
                    "Request body too large",
                )
            } else {
                AuthError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_json",
                    "Could not read request body",
                )
            }
        })?;
        serde_json::from_slice(&bytes)
            .map(GoTrueJson)
            .map_err(|err| {
                AuthError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_json",
                    format!("Could not parse request body as JSON: {err}"),
                )
            })
    }
}

/// The client's IP address: the socket peer, or the address a trusted proxy saw
/// ([`client_ip`]; trusting `X-Forwarded-For` otherwise would let anyone dodge rate limits).
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|info| info.0.ip())
            // Only routers driven without a socket (oneshot tests) lack ConnectInfo.
            .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let forwarded = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok());
        Ok(ClientIp(client_ip(
            peer,
            forwarded,
            state.config.trust_proxy,
            &state.config.trusted_proxies,
        )))
    }
}

/// Who a request comes from, given its socket `peer` and its `X-Forwarded-For` header lines
/// (in order; each proxy appends the address it was reached from, so only the right end was
/// written by proxies and anything left of them by the client):
///
/// - `trusted` proxies listed: a request from one of them is the right-most entry that is not
///   one of them (every proxy of the chain skipped from the right); from anyone else, the
///   peer, whatever it says;
/// - else with `trust_proxy` (one hop): the right-most entry, the address that proxy saw;
/// - else, or without a usable entry: the peer.
pub fn client_ip<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trust_proxy: bool,
    trusted: &[ipnet::IpNet],
) -> IpAddr {
    let peer = canonical(peer);
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if trusted.is_empty() && !trust_proxy || !trusted.is_empty() && !is_trusted(&peer) {
        return peer;
    }
    let entries: Vec<&str> = forwarded.flat_map(|line| line.split(',')).collect();
    let mut from_right = entries
        .iter()
        .rev()
        .map(|entry| entry.trim().parse::<IpAddr>());
    if trusted.is_empty() {
        return from_right
            .next()
            .and_then(Result::ok)
            .map_or(peer, canonical);
    }
    let mut client = peer;
    for entry in from_right {
        // An entry that is not an address was not written by a proxy we trust: stop at the
        // last one that was.
        let Ok(ip) = entry.map(canonical) else {
            break;
        };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    client
}

/// An IPv4 address written as IPv6 (`::ffff:203.0.113.7`, as a dual-stack socket reports
/// one) as the IPv4 address it is, so that limits and lists see one address, not two.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The signed-in user of a request: a valid bearer access token whose user and session still
/// exist. Rejections are GoTrue's (`no_authorization`, `bad_jwt`, `user_not_found`,
/// `session_not_found`).
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub user: UserRow,
    pub session_id: String,
    pub claims: Claims,
    /// Whether the user has a verified second factor (read with the user and the session).
    pub has_verified_factor: bool,
    /// The user's membership of the workspace the request acts in: the one named by the
    /// [`WORKSPACE_HEADER`], else the personal one. Read with the user (see
    /// `db::users::SignedIn`); `None` when the user is not a member of the named one.
    pub membership: Option<crate::db::workspaces::Membership>,
}

/// The request header naming the workspace an `/api/v1` request acts in.
pub const WORKSPACE_HEADER: &str = "x-workspace-id";

/// The workspace a request names, or `None` without the header. A value that is not text
/// names no workspace (it matches no row).
pub fn named_workspace(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(WORKSPACE_HEADER)?;
    Some(value.to_str().unwrap_or("").trim())
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(axum::http::header::AUTHORIZATION)?;
    let value = value.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// 401 `no_authorization`: no bearer token.
pub fn no_authorization() -> AuthError {
    AuthError::new(
        StatusCode::UNAUTHORIZED,
        "no_authorization",
        "This endpoint requires a valid Bearer token",
    )
}

/// 403 `bad_jwt`: a token that does not verify.
pub fn bad_jwt(err: impl std::fmt::Display) -> AuthError {
    AuthError::new(
        StatusCode::FORBIDDEN,
        "bad_jwt",
        format!("invalid JWT: unable to parse or verify signature, {err}"),
    )
}

/// A JSON body that may be absent: an empty (or blank) body is `T::default()`, malformed JSON
/// is 400 `bad_json` (for routes auth-js calls with a body and other clients without).
pub fn json_or_default<T: DeserializeOwned + Default>(body: &[u8]) -> Result<T, AuthError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|err| {
        AuthError::new(
            StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {err}"),
        )
    })
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = AuthError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = bearer(parts).ok_or_else(no_authorization)?;
        let claims: Claims = state.jwt.verify(token).map_err(bad_jwt)?;
        if uuid::Uuid::parse_str(&claims.sub).is_err() {
            return Err(AuthError::new(
                StatusCode::BAD_REQUEST,
                "bad_jwt",
                "invalid claim: sub claim must be a UUID",
            ));
        }
        // The user, the session and the second-factor flag in one statement; the checks
        // below keep GoTrue's order (a malformed session id is reported after a missing user).
        // A personal workspace's id is its account's.
        let workspace = named_workspace(parts).unwrap_or(&claims.sub);
        let found = users::find_signed_in(&state.db, &claims.sub, &claims.session_id, workspace)
            .await?
            .ok_or_else(|| {
                AuthError::new(
                    StatusCode::FORBIDDEN,
                    "user_not_found",
                    "User from sub claim in JWT does not exist",
                )
            })?;
        let user = found.user;
        if user.is_banned(crate::db::now_ms()) {
            return Err(AuthError::new(
                StatusCode::FORBIDDEN,
                "user_banned",
                "User is banned",
            ));
        }
        if uuid::Uuid::parse_str(&claims.session_id).is_err() {
            return Err(AuthError::new(
                StatusCode::FORBIDDEN,
                "bad_jwt",
                "invalid claim: session_id claim must be a UUID",
            ));
        }
        match found.session {
            Some(session) if session.user_id == user.id => Ok(AuthUser {
                user,
                session_id: session.id,
                claims,
                has_verified_factor: found.has_verified_factor,
                membership: found.membership,
            }),
            _ => Err(AuthError::new(
                StatusCode::FORBIDDEN,
                "session_not_found",
                "Session from session_id claim in JWT does not exist",
            )),
        }
    }
}

/// The `User-Agent` header, stored on the session for the user's device list.
pub fn user_agent(headers: &HeaderMap) -> Option<String> {
    headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.chars().take(512).collect())
}

/// The language of the request (`Accept-Language`), for mails.
pub fn request_lang(headers: &HeaderMap) -> Locale {
    Locale::from_accept_language(
        headers
            .get(axum::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn nets(list: &[&str]) -> Vec<ipnet::IpNet> {
        list.iter().map(|net| net.parse().unwrap()).collect()
    }

    #[test]
    fn without_trust_the_peer_is_the_client() {
        let peer = ip("198.51.100.9");
        let got = client_ip(peer, ["203.0.113.1"].into_iter(), false, &[]);
        assert_eq!(got, peer);
    }

    #[test]
    fn one_trusted_hop_takes_the_right_most_entry_not_the_clients_own() {
        let proxy = ip("10.0.0.2");
        // What nginx's `$proxy_add_x_forwarded_for` or an AWS ALB sends on for a client that
        // wrote its own first entry.
        let forwarded = ["203.0.113.77, 198.51.100.9"];
        assert_eq!(
            client_ip(proxy, forwarded.into_iter(), true, &[]),
            ip("198.51.100.9")
        );
        // Two header lines are one list.
        let lines = ["203.0.113.77", "198.51.100.9"];
        assert_eq!(
            client_ip(proxy, lines.into_iter(), true, &[]),
            ip("198.51.100.9")
        );
        // What Caddy sends (it replaces the header with the address it saw).
        assert_eq!(
            client_ip(proxy, ["198.51.100.9"].into_iter(), true, &[]),
            ip("198.51.100.9")
        );
        // Nothing usable: the proxy itself.
        assert_eq!(client_ip(proxy, ["junk"].into_iter(), true, &[]), proxy);
        assert_eq!(client_ip(proxy, [].into_iter(), true, &[]), proxy);
    }

    #[test]
    fn listed_proxies_are_skipped_from_the_right() {
        let trusted = nets(&["10.0.0.0/8", "192.0.2.10/32"]);
        let edge = ip("10.1.2.3");
        // client → CDN (192.0.2.10) → load balancer (10.0.0.5) → Regard
        let forwarded = ["203.0.113.77, 198.51.100.9, 192.0.2.10, 10.0.0.5"];
        assert_eq!(
            client_ip(edge, forwarded.into_iter(), false, &trusted),
            ip("198.51.100.9")
        );
        // A request straight from the internet is its socket address, whatever it says.
        let stranger = ip("203.0.113.200");
        assert_eq!(
            client_ip(stranger, forwarded.into_iter(), true, &trusted),
            stranger
        );
        // Only proxies in the chain: the left-most of them.
        assert_eq!(
            client_ip(edge, ["10.0.0.9, 10.0.0.5"].into_iter(), false, &trusted),
            ip("10.0.0.9")
        );
        // An entry that is not an address ends the walk at the last proxy's.
        assert_eq!(
            client_ip(edge, ["x, 10.0.0.5"].into_iter(), false, &trusted),
            ip("10.0.0.5")
        );
        // IPv4 written as IPv6 is the IPv4 address.
        assert_eq!(
            client_ip(
                ip("::ffff:10.0.0.1"),
                ["::ffff:198.51.100.9"].into_iter(),
                false,
                &trusted
            ),
            ip("198.51.100.9")
        );
    }
}
