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

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::input::{ApiUser, Fields, JsonObject, Patch};
use crate::assistant::{
    Locale, MAX_MESSAGE_CHARS, MAX_MESSAGES, Message, Question, Reply, Role, help, sentences,
};
use crate::codes::{ErrorCode, FieldCode};
use crate::state::AppState;

/// Longest `path` accepted.
const MAX_PATH: usize = 2000;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(chat))
        .routes(routes!(list_help))
        .routes(routes!(get_help))
}

/// One message of a conversation.
#[derive(ToSchema)]
#[allow(dead_code)] // Read field by field (see `read_question`); this type describes it.
struct ChatMessage {
    role: Role,
    /// At most 2000 characters.
    content: String,
}

/// The body of `POST /assistant/chat`.
#[derive(ToSchema)]
#[allow(dead_code)] // Read field by field (see `read_question`); this type describes it.
struct ChatRequest {
    /// The conversation so far, oldest first; the last one is the user's question.
    messages: Vec<ChatMessage>,
    /// The language of the answer (`fr` by default).
    locale: Option<Locale>,
    /// The page the user is on (`/creatives/…`), for context.
    path: Option<String>,
}

/// The `?locale=` of the help endpoints.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Read from the query map (see `locale_of`); this type describes it.
struct HelpQuery {
    /// `fr` (the default) or `en`.
    #[param(inline)]
    locale: Option<Locale>,
}

/// A help article in a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct HelpSummary {
    pub slug: String,
    pub title: String,
    pub summary: String,
}

/// The help articles, in the Help page's order.
#[derive(Debug, Serialize, ToSchema)]
pub struct HelpList {
    pub items: Vec<HelpSummary>,
}

/// One help article.
#[derive(Debug, Serialize, ToSchema)]
pub struct HelpArticle {
    pub slug: String,
    pub locale: Locale,
    pub title: String,
    pub summary: String,
    /// The article as HTML (headings, paragraphs, lists, links).
    pub html: String,
}

/// Reads and checks a chat body.
fn read_question(mut fields: Fields) -> Result<Question, ApiError> {
    let mut messages = Vec::new();
    match fields.raw("messages") {
        Patch::Value(Value::Array(items)) if items.is_empty() => {
            fields.error("messages", FieldCode::Required)
        }
        Patch::Value(Value::Array(items)) if items.len() > MAX_MESSAGES => {
            fields.error("messages", FieldCode::TooMany)
        }
        Patch::Value(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let role = match item["role"].as_str() {
                    Some("user") => Some(Role::User),
                    Some("assistant") => Some(Role::Assistant),
                    Some(_) => {
                        fields.error(&format!("messages.{i}.role"), FieldCode::InvalidValue);
                        None
                    }
                    None if item.get("role").is_none_or(Value::is_null) => {
                        fields.error(&format!("messages.{i}.role"), FieldCode::Required);
                        None
                    }
                    None => {
                        fields.error(&format!("messages.{i}.role"), FieldCode::InvalidType);
                        None
                    }
                };
                let key = format!("messages.{i}.content");
                let content = match item.get("content") {
                    Some(Value::String(text)) => {
                        let text = text.trim();
                        if text.is_empty() {
                            fields.error(&key, FieldCode::Required);
                            None
                        } else if text.chars().count() > MAX_MESSAGE_CHARS {
                            fields.error(&key, FieldCode::TooLong);
                            None
                        } else {
                            Some(text.to_owned())
                        }
                    }
                    None | Some(Value::Null) => {
                        fields.error(&key, FieldCode::Required);
                        None
                    }
                    Some(_) => {
                        fields.error(&key, FieldCode::InvalidType);
                        None
                    }
                };
                if !item.is_object() {
                    fields.error(&format!("messages.{i}"), FieldCode::InvalidType);
                }
                if let (Some(role), Some(content)) = (role, content) {
                    messages.push(Message { role, content });
                }
            }
            if !fields.has_error("messages") && items.last().is_some_and(|m| m["role"] != "user") {
                // The question is the last message: it must be the user's.
                fields.error("messages", FieldCode::InvalidValue);
            }
        }
        Patch::Value(_) => fields.error("messages", FieldCode::InvalidType),
        Patch::Null | Patch::Absent => fields.error("messages", FieldCode::Required),
    }
    let locale = match fields.text("locale", 20, false) {
        Patch::Value(value) => match Locale::parse(&value) {
            Some(locale) => locale,
            None => {
                fields.error("locale", FieldCode::InvalidValue);
                Locale::Fr
            }
        },
        _ => Locale::Fr,
    };
    let path = match fields.text("path", MAX_PATH, false) {
        Patch::Value(path) if path.starts_with('/') => Some(path),
        Patch::Value(_) => {
            fields.error("path", FieldCode::InvalidValue);
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

/// `POST /assistant/chat`: the answer as JSON, or with `Accept: text/event-stream` as `delta`
/// events (`{"text"}`, one per sentence) and a final `done` event holding the whole answer.
#[utoipa::path(
    post,
    path = "/assistant/chat",
    tag = "assistant",
    request_body = ChatRequest,
    responses((
        status = 200,
        description = "The answer (JSON, or an event stream when asked for)",
        content((Reply = "application/json"), (String = "text/event-stream"))
    ))
)]
async fn chat(
    State(state): State<AppState>,
    user: ApiUser,
    headers: HeaderMap,
    JsonObject(fields): JsonObject,
) -> Result<Response, ApiError> {
    let question = read_question(fields)?;
    state
        .limits
        .assistant(user.id())
        .map_err(|wait| ApiError::new(ErrorCode::RateLimited).retry_after(wait))?;
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
            Locale::parse(value).ok_or_else(|| ApiError::field("locale", FieldCode::InvalidValue))
        }
    }
}

/// `GET /help?locale=`: the articles, in the Help page's order.
#[utoipa::path(
    get,
    path = "/help",
    tag = "assistant",
    params(HelpQuery),
    responses((status = 200, description = "The help articles", body = HelpList))
)]
async fn list_help(
    _user: ApiUser,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<HelpList>, ApiError> {
    let locale = locale_of(&query)?;
    let items = help::articles(locale)
        .map(|a| HelpSummary {
            slug: a.slug.to_string(),
            title: a.title.to_string(),
            summary: a.summary.to_string(),
        })
        .collect();
    Ok(Json(HelpList { items }))
}

/// `GET /help/{slug}?locale=`: one article as HTML.
#[utoipa::path(
    get,
    path = "/help/{slug}",
    tag = "assistant",
    params(("slug" = String, Path, description = "The article's slug"), HelpQuery),
    responses((status = 200, description = "The article", body = HelpArticle))
)]
async fn get_help(
    _user: ApiUser,
    Path(slug): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<HelpArticle>, ApiError> {
    let locale = locale_of(&query)?;
    let article = help::article(&slug, locale).ok_or_else(ApiError::not_found)?;
    Ok(Json(HelpArticle {
        slug: article.slug.to_string(),
        locale,
        title: article.title.to_string(),
        summary: article.summary.to_string(),
        html: article.html(),
    }))
}
