//! The assistant and the help articles (docs/assistant.md):
//!
//! - `POST /assistant/chat {messages: [{role, content}], locale, path}` → `{answer, links,
//!   intent}`; with `Accept: text/event-stream`, the answer streams as `delta` events (one per
//!   sentence, `{"text"}`) and ends with a `done` event carrying the whole JSON answer.
//!   Messages over 2,000 characters are 422 (`messages.<i>.content: too_long`); each user has
//!   `REGARD_RATE_LIMIT_ASSISTANT` questions per window (429 `rate_limited`).
//! - `GET /help?locale=` → `{items: [{slug, title, summary}]}`; `GET /help/{slug}?locale=` →
//!   `{slug, title, html, locale}`: the Help page.

use std::convert::Infallible;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{Body, FromField, Line, Patch, read_object_ignoring_unknown, report};
use super::error::ApiError;
use super::input::{ApiUser, Reader};
use super::query::{Param, Params};
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

/// One message of a conversation (other keys are ignored).
#[derive(Deserialize, ToSchema)]
struct ChatMessage {
    #[serde(default)]
    #[schema(value_type = Role, required = true)]
    role: Patch<RoleField>,
    /// At most 2000 characters.
    #[serde(default)]
    #[schema(value_type = String, max_length = 2000, pattern = r"\S", required = true)]
    content: Patch<Content>,
}

/// A message's author: exactly `user` or `assistant`.
struct RoleField(Role);

impl FromField for RoleField {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match value.as_str() {
            Some("user") => Ok(Some(RoleField(Role::User))),
            Some("assistant") => Ok(Some(RoleField(Role::Assistant))),
            Some(_) => Err(FieldCode::InvalidValue),
            None => Err(FieldCode::InvalidType),
        }
    }
}

/// A message's text: at most [`MAX_MESSAGE_CHARS`] as sent (the document's `maxLength`), then
/// trimmed; empty counts as missing.
struct Content(String);

impl FromField for Content {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        let Value::String(text) = value else {
            return Err(FieldCode::InvalidType);
        };
        if text.chars().count() > MAX_MESSAGE_CHARS {
            return Err(FieldCode::TooLong);
        }
        let text = text.trim();
        if text.is_empty() {
            Ok(None)
        } else {
            Ok(Some(Content(text.to_owned())))
        }
    }
}

/// The messages of a chat body, each checked (`messages.<i>.role`, `messages.<i>.content`);
/// the last one must be the user's (`messages: invalid_value`).
struct Conversation(Vec<Message>);

impl FromField for Conversation {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        let Value::Array(items) = value else {
            return Err(FieldCode::InvalidType);
        };
        if items.is_empty() {
            return Err(FieldCode::Required);
        }
        if items.len() > MAX_MESSAGES {
            return Err(FieldCode::TooMany);
        }
        let mut messages = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let map = match item {
                Value::Object(map) => map.clone(),
                _ => {
                    report(&i.to_string(), FieldCode::InvalidType);
                    Map::new()
                }
            };
            let (message, mut problems) = read_object_ignoring_unknown::<ChatMessage>(map)
                .map_err(|_| FieldCode::InvalidValue)?;
            let role = problems.required("role", message.role);
            let content = problems.required("content", message.content);
            for (key, code) in problems.into_fields() {
                report(&format!("{i}.{key}"), code);
            }
            if let (Some(RoleField(role)), Some(Content(content))) = (role, content) {
                messages.push(Message { role, content });
            }
        }
        // The question is the last message: it must be the user's.
        if items.last().is_some_and(|m| m["role"] != "user") {
            report("", FieldCode::InvalidValue);
        }
        Ok(Some(Conversation(messages)))
    }
}

/// A locale, `fr` or `en` (regional forms such as `fr-CA` too).
struct LocaleField(Locale);

impl FromField for LocaleField {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match Line::<20>::from_field(value)? {
            Some(Line(text)) => Locale::parse(&text)
                .map(|locale| Some(LocaleField(locale)))
                .ok_or(FieldCode::InvalidValue),
            None => Ok(None),
        }
    }
}

/// The body of `POST /assistant/chat`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ChatRequest {
    /// The conversation so far, oldest first; the last one is the user's question.
    #[serde(default)]
    #[schema(value_type = Vec<ChatMessage>, min_items = 1, max_items = 50, required = true)]
    messages: Patch<Conversation>,
    /// The language of the answer (`fr` by default).
    #[serde(default)]
    #[schema(value_type = Option<Locale>)]
    locale: Patch<LocaleField>,
    /// The page the user is on (`/creatives/…`), for context.
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 2000, pattern = r"^\s*(/[^\u0000-\u001f\u007f-\u009f]*)?\s*$")]
    path: Patch<Line<MAX_PATH>>,
}

/// The `?locale=` of the help endpoints.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct HelpQuery {
    /// `fr` (the default) or `en`.
    #[serde(default)]
    #[param(inline, value_type = Option<Locale>)]
    locale: Param<Locale>,
}

impl HelpQuery {
    /// The articles' language: French unless English is asked for.
    fn locale(&self) -> Locale {
        self.locale.0.unwrap_or(Locale::Fr)
    }
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

/// Checks a chat body: the question it asks.
fn read_question(Body(request, mut problems): Body<ChatRequest>) -> Result<Question, ApiError> {
    let messages = problems
        .required("messages", request.messages)
        .map(|conversation| conversation.0)
        .unwrap_or_default();
    let locale = match request.locale {
        Patch::Value(LocaleField(locale)) => locale,
        _ => Locale::Fr,
    };
    let path = match request.path {
        Patch::Value(Line(path)) if path.starts_with('/') => Some(path),
        Patch::Value(_) => {
            problems.add("path", FieldCode::InvalidValue);
            None
        }
        _ => None,
    };
    problems.finish()?;
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
    user: Reader,
    headers: HeaderMap,
    body: Body<ChatRequest>,
) -> Result<Response, ApiError> {
    let question = read_question(body)?;
    state
        .limits
        .assistant(user.user_id())
        .await
        .map_err(|wait| ApiError::new(ErrorCode::RateLimited).retry_after(wait))?;
    let started = std::time::Instant::now();
    let reply = state
        .assistant
        .answer(&state.db, user.workspace_id(), &question)
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
    Params(query): Params<HelpQuery>,
) -> Result<Json<HelpList>, ApiError> {
    let locale = query.locale();
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
    Params(query): Params<HelpQuery>,
) -> Result<Json<HelpArticle>, ApiError> {
    let locale = query.locale();
    let article = help::article(&slug, locale).ok_or_else(ApiError::not_found)?;
    Ok(Json(HelpArticle {
        slug: article.slug.to_string(),
        locale,
        title: article.title.to_string(),
        summary: article.summary.to_string(),
        html: article.html(),
    }))
}
