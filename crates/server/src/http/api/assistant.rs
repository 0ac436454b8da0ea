//! The assistant and the help articles (docs/assistant.md):
//!
//! - `POST /assistant/chat {messages: [{role, content}], locale, path}` → `{answer, links,
//!   intent}`; with `Accept: text/event-stream`, the answer streams as `delta` events (one per
//!   sentence, `{"text"}`) and ends with a `done` event carrying the whole JSON answer.
//!   Messages over 2,000 characters are 422 (`messages.<i>.content: too_long`); each user has
//!   `REGARD_RATE_LIMIT_ASSISTANT` questions per window (429 `rate_limited`).
//! - `GET /help?locale=` → `{items: [{slug, title, summary}]}`; `GET /help/{slug}?locale=` →
//!   `{slug, title, html, locale}`: the Help page.

use std::collections::HashMap;
use std::convert::Infallible;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::error::ApiError;
use super::input::{ApiUser, Fields, JsonObject, Patch};
use crate::assistant::{
    Locale, MAX_MESSAGE_CHARS, MAX_MESSAGES, Message, Question, Role, help, sentences,
};
use crate::state::AppState;

/// Longest `path` accepted.
const MAX_PATH: usize = 2000;

/// Routes of this module.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/assistant/chat", post(chat))
        .route("/help", get(list_help))
        .route("/help/{slug}", get(get_help))
}

/// Reads and checks a chat body.
fn read_question(mut fields: Fields) -> Result<Question, ApiError> {
    let mut messages = Vec::new();
    match fields.raw("messages") {
        Patch::Value(Value::Array(items)) if items.is_empty() => {
            fields.error("messages", "required")
        }
        Patch::Value(Value::Array(items)) if items.len() > MAX_MESSAGES => {
            fields.error("messages", "too_many")
        }
        Patch::Value(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let role = match item["role"].as_str() {
                    Some("user") => Some(Role::User),
                    Some("assistant") => Some(Role::Assistant),
                    Some(_) => {
                        fields.error(&format!("messages.{i}.role"), "invalid_value");
                        None
                    }
                    None if item.get("role").is_none_or(Value::is_null) => {
                        fields.error(&format!("messages.{i}.role"), "required");
                        None
                    }
                    None => {
                        fields.error(&format!("messages.{i}.role"), "invalid_type");
                        None
                    }
                };
                let key = format!("messages.{i}.content");
                let content = match item.get("content") {
                    Some(Value::String(text)) => {
                        let text = text.trim();
                        if text.is_empty() {
                            fields.error(&key, "required");
                            None
                        } else if text.chars().count() > MAX_MESSAGE_CHARS {
                            fields.error(&key, "too_long");
                            None
                        } else {
                            Some(text.to_owned())
                        }
                    }
                    None | Some(Value::Null) => {
                        fields.error(&key, "required");
                        None
                    }
                    Some(_) => {
                        fields.error(&key, "invalid_type");
                        None
                    }
                };
                if !item.is_object() {
                    fields.error(&format!("messages.{i}"), "invalid_type");
                }
                if let (Some(role), Some(content)) = (role, content) {
                    messages.push(Message { role, content });
                }
            }
            if !fields.has_error("messages") && items.last().is_some_and(|m| m["role"] != "user") {
                // The question is the last message: it must be the user's.
                fields.error("messages", "invalid_value");
            }
        }
        Patch::Value(_) => fields.error("messages", "invalid_type"),
        Patch::Null | Patch::Absent => fields.error("messages", "required"),
    }
    let locale = match fields.text("locale", 20, false) {
        Patch::Value(value) => match Locale::parse(&value) {
            Some(locale) => locale,
            None => {
                fields.error("locale", "invalid_value");
                Locale::Fr
            }
        },
        _ => Locale::Fr,
    };
    let path = match fields.text("path", MAX_PATH, false) {
        Patch::Value(path) if path.starts_with('/') => Some(path),
        Patch::Value(_) => {
            fields.error("path", "invalid_value");
            None
        }
        _ => None,
    };
    fields.finish()?;
    Ok(Question {
        messages,
        locale,
        path,
    })
}

fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"))
}

/// `POST /assistant/chat`.
async fn chat(
    State(state): State<AppState>,
    user: ApiUser,
    headers: HeaderMap,
    JsonObject(fields): JsonObject,
) -> Result<Response, ApiError> {
    let question = read_question(fields)?;
    state.limits.assistant(user.id()).map_err(|wait| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Too many questions; wait a moment and ask again",
        )
        .retry_after(wait)
    })?;
    let started = std::time::Instant::now();
    let reply = state
        .assistant
        .answer(&state.db, user.id(), &question)
        .await?;
    tracing::info!(
        intent = %reply.intent,
        elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
        "assistant answered"
    );
    if !wants_stream(&headers) {
        return Ok(Json(reply).into_response());
    }
    let mut events: Vec<Result<Event, Infallible>> = sentences(&reply.answer)
        .into_iter()
        .map(|text| {
            Ok(Event::default()
                .event("delta")
                .data(json!({ "text": text }).to_string()))
        })
        .collect();
    events.push(Ok(Event::default()
        .event("done")
        .data(serde_json::to_string(&reply).map_err(ApiError::internal)?)));
    let stream = futures::stream::iter(events);
    Ok(([("x-accel-buffering", "no")], Sse::new(stream)).into_response())
}

fn locale_of(query: &HashMap<String, String>) -> Result<Locale, ApiError> {
    match query.get("locale").map(String::as_str) {
        None | Some("") => Ok(Locale::Fr),
        Some(value) => {
            Locale::parse(value).ok_or_else(|| ApiError::field("locale", "invalid_value"))
        }
    }
}

/// `GET /help?locale=`: the articles, in the Help page's order.
async fn list_help(
    _user: ApiUser,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let locale = locale_of(&query)?;
    let items: Vec<Value> = help::articles(locale)
        .map(|a| json!({"slug": a.slug, "title": a.title, "summary": a.summary}))
        .collect();
    Ok(Json(json!({ "items": items })))
}

/// `GET /help/{slug}?locale=`: one article as HTML.
async fn get_help(
    _user: ApiUser,
    Path(slug): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    let locale = locale_of(&query)?;
    let article = help::article(&slug, locale).ok_or_else(ApiError::not_found)?;
    Ok(Json(json!({
        "slug": article.slug,
        "locale": locale,
        "title": article.title,
        "summary": article.summary,
        "html": article.html(),
    })))
}
