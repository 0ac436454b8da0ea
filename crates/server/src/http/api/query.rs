//! Typed query strings of `/api/v1`, read by [`Params`] into types that are also their
//! OpenAPI parameters, like bodies (see `body`).
//!
//! A query type derives `Deserialize` and `IntoParams`; each field is `#[serde(default)]` and a
//! [`Param`] of a [`QueryValue`], which reads the parameter's text and reports what is wrong
//! with a [`FieldCode`] (through `body::report`, so every bad parameter is answered together in
//! one 422 `validation_failed`). The `#[param(...)]` attributes beside a field describe what its
//! value type accepts. A query string that cannot be decoded at all is 400 `invalid_query`.
//! Unknown parameters are ignored, except by [`StrictParams`], which answers `unknown_field`
//! (the exports, whose parameters are all options of one picture).

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::body::{read_object, read_object_ignoring_unknown, report};
use super::error::ApiError;
use super::input::{MAX_LIMIT, decode_cursor, invalid_query};
use crate::assistant::Locale;
use crate::codes::FieldCode;
use crate::db::creatives::Sort;
use crate::heatmaps::result::Moment;

/// A query string read into `T`; any bad parameter answers 422 `validation_failed` with every
/// problem. With `STRICT`, parameters `T` does not know are `unknown_field`.
pub struct Params<T, const STRICT: bool = false>(pub T);

/// [`Params`] that refuse unknown parameters.
pub type StrictParams<T> = Params<T, true>;

impl<S: Send + Sync, T: DeserializeOwned, const STRICT: bool> FromRequestParts<S>
    for Params<T, STRICT>
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Query(pairs) = Query::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|_| invalid_query())?;
        // A parameter given twice keeps its last value.
        let map: Map<String, Value> = pairs
            .into_iter()
            .map(|(key, value)| (key, Value::String(value)))
            .collect();
        let (value, problems) = if STRICT {
            read_object::<T>(map)?
        } else {
            read_object_ignoring_unknown::<T>(map)?
        };
        problems.finish()?;
        Ok(Params(value))
    }
}

/// One query parameter: `None` when absent (or when its value counts as absent, such as an
/// empty cursor) or refused (the problem is reported).
#[derive(Debug, Clone, PartialEq)]
pub struct Param<T>(pub Option<T>);

impl<T> Default for Param<T> {
    fn default() -> Self {
        Param(None)
    }
}

impl<'de, T: QueryValue> Deserialize<'de> for Param<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `Params` gives every parameter as a JSON text.
        let text = String::deserialize(deserializer)?;
        Ok(Param(T::from_query(&text).unwrap_or_else(|code| {
            report("", code);
            None
        })))
    }
}

/// A value one query parameter holds, read from its text.
pub trait QueryValue: Sized {
    /// The value, `Ok(None)` when the text counts as absent, or what is wrong.
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode>;
}

/// Any text, as given (handlers trim where they search).
impl QueryValue for String {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Ok(Some(text.to_owned()))
    }
}

/// A page size: a whole number from 1 to [`MAX_LIMIT`] (`invalid_type`, `out_of_range`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit(pub i64);

impl QueryValue for Limit {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        match text.parse::<i64>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(Some(Limit(n))),
            Ok(_) => Err(FieldCode::OutOfRange),
            Err(_) => Err(FieldCode::InvalidType),
        }
    }
}

/// The `next_cursor` of a newest-first list: `(created_at, id)` of the last item of the
/// previous page; empty counts as absent, anything else is `invalid_value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor(pub i64, pub String);

impl QueryValue for Cursor {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        if text.is_empty() {
            return Ok(None);
        }
        decode_cursor(text)
            .map(|(at, id)| Some(Cursor(at, id)))
            .ok_or(FieldCode::InvalidValue)
    }
}

/// A fraction from 0 to 1 (`invalid_type`, `out_of_range`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fraction(pub f32);

impl QueryValue for Fraction {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        match text.parse::<f32>() {
            Ok(value) if (0.0..=1.0).contains(&value) => Ok(Some(Fraction(value))),
            Ok(_) => Err(FieldCode::OutOfRange),
            Err(_) => Err(FieldCode::InvalidType),
        }
    }
}

/// A switch: `1`, `true` or empty (on), `0` or `false` (off); anything else `invalid_type`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flag(pub bool);

impl QueryValue for Flag {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        match text {
            "" | "1" | "true" => Ok(Some(Flag(true))),
            "0" | "false" => Ok(Some(Flag(false))),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// The id a list is filtered by: blank counts as absent; a text that is no uuid cannot name
/// one of the caller's rows, so it filters everything out (like another user's id).
#[derive(Debug, Clone, PartialEq)]
pub enum FilterId {
    Id(String),
    Nothing,
}

impl FilterId {
    /// The id to filter by; [`FilterId::Nothing`] gives one no row has.
    pub fn as_str(&self) -> &str {
        match self {
            FilterId::Id(id) => id,
            FilterId::Nothing => "-",
        }
    }
}

impl QueryValue for FilterId {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        Ok(Some(match uuid::Uuid::parse_str(text) {
            Ok(id) => FilterId::Id(id.hyphenated().to_string()),
            Err(_) => FilterId::Nothing,
        }))
    }
}

/// Comma-separated ids, trimmed, empty parts dropped, in the order given (not checked here:
/// the handler looks each one up and answers `not_found`).
#[derive(Debug, Clone, PartialEq)]
pub struct IdTexts(pub Vec<String>);

impl QueryValue for IdTexts {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Ok(Some(IdTexts(
            text.split(',')
                .map(str::trim)
                .filter(|part| !part.is_empty())
                .map(str::to_owned)
                .collect(),
        )))
    }
}

/// `fr` or `en` (regional forms such as `fr-CA` too); anything else `invalid_value`.
impl QueryValue for Locale {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Locale::parse(text).map(Some).ok_or(FieldCode::InvalidValue)
    }
}

/// A list order; anything else (blank included) `invalid`.
impl QueryValue for Sort {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Sort::parse(text).map(Some).ok_or(FieldCode::Invalid)
    }
}

/// A locations list order; anything else (blank included) `invalid`.
impl QueryValue for crate::db::locations::LocationSort {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Self::parse(text).map(Some).ok_or(FieldCode::Invalid)
    }
}

/// A heatmaps list order; anything else (blank included) `invalid`.
impl QueryValue for crate::db::heatmaps::HeatmapSort {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Self::parse(text).map(Some).ok_or(FieldCode::Invalid)
    }
}

/// A panel format; anything else (blank included) `invalid_value`.
impl QueryValue for crate::ooh::PanelFormat {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Self::parse(text).map(Some).ok_or(FieldCode::InvalidValue)
    }
}

/// An audience; anything else (blank included) `invalid_value`.
impl QueryValue for crate::ooh::Audience {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Self::parse(text).map(Some).ok_or(FieldCode::InvalidValue)
    }
}

/// Which map; anything else (blank included) `invalid`.
impl QueryValue for Moment {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        Moment::parse(text).map(Some).ok_or(FieldCode::Invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    #[derive(Debug, Deserialize)]
    struct Sample {
        #[serde(default)]
        limit: Param<Limit>,
        #[serde(default)]
        cursor: Param<Cursor>,
        #[serde(default)]
        opacity: Param<Fraction>,
        #[serde(default)]
        areas: Param<Flag>,
    }

    async fn read<const STRICT: bool>(query: &str) -> Result<Sample, ApiError> {
        let (mut parts, ()) = Request::get(format!("/x?{query}"))
            .body(())
            .unwrap()
            .into_parts();
        Params::<Sample, STRICT>::from_request_parts(&mut parts, &())
            .await
            .map(|Params(sample)| sample)
    }

    fn fields(err: ApiError) -> serde_json::Value {
        err.details["fields"].clone()
    }

    #[tokio::test]
    async fn every_bad_parameter_is_answered_together() {
        let err = read::<false>("limit=0&cursor=zz&opacity=x&areas=maybe&other=1")
            .await
            .unwrap_err();
        assert_eq!(
            fields(err),
            serde_json::json!({
                "limit": "out_of_range", "cursor": "invalid_value",
                "opacity": "invalid_type", "areas": "invalid_type"
            })
        );
        let err = read::<true>("limit=5&other=1").await.unwrap_err();
        assert_eq!(fields(err), serde_json::json!({"other": "unknown_field"}));
    }

    #[tokio::test]
    async fn values_and_absent_parameters_are_read() {
        let cursor = super::super::input::encode_cursor(7, "6f9619ff-8b86-d011-b42d-00c04fc964ff");
        let sample = read::<true>(&format!("limit=100&cursor={cursor}&opacity=0.5&areas=0"))
            .await
            .unwrap();
        assert_eq!(sample.limit, Param(Some(Limit(100))));
        assert_eq!(
            sample.cursor,
            Param(Some(Cursor(
                7,
                "6f9619ff-8b86-d011-b42d-00c04fc964ff".into()
            )))
        );
        assert_eq!(sample.opacity, Param(Some(Fraction(0.5))));
        assert_eq!(sample.areas, Param(Some(Flag(false))));
        let sample = read::<true>("cursor=&areas=").await.unwrap();
        assert_eq!(sample.limit, Param(None));
        assert_eq!(
            sample.cursor,
            Param(None),
            "an empty cursor is the first page"
        );
        assert_eq!(sample.areas, Param(Some(Flag(true))));
        assert_eq!(
            read::<false>("limit=abc").await.map(|_| ()).map_err(fields),
            Err(serde_json::json!({"limit": "invalid_type"}))
        );
    }
}
