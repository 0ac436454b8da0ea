//! Typed inputs of `/api/v1`: JSON bodies read by [`Body`] into types that are also their
//! OpenAPI schema, and ids in paths read by [`IdPath`].
//!
//! A body type derives `Deserialize` and `ToSchema` and carries `#[serde(deny_unknown_fields)]`
//! (the document then says `additionalProperties: false`). Each of its fields has
//! `#[serde(default)]` and a field type that never fails: [`Patch`] of a [`FromField`] value
//! ([`Line`], [`Lines`], [`Ref`], [`IdList`], [`Choice`], numbers, booleans, raw JSON). A field
//! type reads whatever JSON it is given and reports what is wrong with a [`FieldCode`]; the
//! extractor collects those reports under the field's name, adds `unknown_field` for every key
//! the type does not know, and hands them to the handler as [`Problems`], which adds the rules
//! that need the database or several fields and answers one 422 `validation_failed` with all
//! of them. Malformed JSON or a non-object stays 400 `invalid_json`, a body over the limit 413
//! `payload_too_large`. The schema attributes beside each field (`value_type`, `max_length`,
//! `minimum`, `maximum`, `required`) say what the field type accepts: the field type is the
//! rule, the attribute its description, written once beside it.
//!
//! Why serde and not `deserr`: `deserr` (meilisearch's) was built for exactly these per-field
//! codes and would accumulate them itself, but utoipa reads `#[serde(...)]` attributes, not
//! `#[deserr(...)]` ones, so every body would carry a second set of attributes (names,
//! defaults, unknown fields) for the document, kept in step by hand: the drift that typed
//! bodies are meant to end. It would also add a dependency and a proc-macro, and thread its
//! own error type and value pointers through every custom field. With serde the one set of
//! attributes drives both the parser and the document; what serde lacks (going on after the
//! first bad field, codes instead of messages) is the small step in this module: field types
//! that cannot fail and a map reader that files their reports under each key.

use std::cell::RefCell;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::StatusCode;
use axum::http::request::Parts;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, DeserializeSeed, Error as _, IntoDeserializer, MapAccess};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value, json};

use super::error::{ApiError, FieldErrors};
use crate::codes::{ErrorCode, FieldCode};

/// A JSON object body read into `T`, with the problems found so far. Malformed JSON or a
/// non-object is 400 `invalid_json`; a body over the limit is 413 `payload_too_large`; field
/// problems do not refuse the request here: the handler adds its own and calls
/// [`Problems::finish`], so that every problem is answered together.
pub struct Body<T>(pub T, pub Problems);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let map = json_object(req, state).await?;
        let (value, problems) = read_object(map)?;
        Ok(Body(value, problems))
    }
}

/// Reads a request body as a JSON object.
pub async fn json_object<S: Send + Sync>(
    req: Request,
    state: &S,
) -> Result<Map<String, Value>, ApiError> {
    let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorCode::PayloadTooLarge)
        } else {
            invalid_json("unreadable")
        }
    })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid_json("not_an_object")),
        Err(_) => Err(invalid_json("not_json")),
    }
}

/// 400 `invalid_json`; `details.reason`: `not_json`, `not_an_object` or `unreadable` (the body
/// stream failed).
fn invalid_json(reason: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidJson).with_details(json!({ "reason": reason }))
}

/// The field problems of a body, by field name (dotted below it: `adjustments.grain`,
/// `messages.2.content`). The first problem of a field is the one answered.
#[derive(Debug, Default)]
pub struct Problems(FieldErrors);

impl Problems {
    /// Records a problem with `key`, unless it already has one.
    pub fn add(&mut self, key: &str, code: FieldCode) {
        self.0.entry(key.to_owned()).or_insert(code);
    }

    /// Whether `key` already has a problem.
    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Records `required` for `key` unless it already has a problem: for a required field that
    /// is absent, `null` or unreadable.
    pub fn require(&mut self, key: &str) {
        self.add(key, FieldCode::Required);
    }

    /// The value of a field that can be changed but not cleared: `null` is `required`.
    pub fn not_null<T>(&mut self, key: &str, patch: Patch<T>) -> Option<T> {
        match patch {
            Patch::Value(value) => Some(value),
            Patch::Null => {
                self.require(key);
                None
            }
            Patch::Absent => None,
        }
    }

    /// The value of a required field: absent or `null` is `required` (unless the field already
    /// has a problem, such as a value of the wrong type).
    pub fn required<T>(&mut self, key: &str, patch: Patch<T>) -> Option<T> {
        match patch {
            Patch::Value(value) => Some(value),
            Patch::Null | Patch::Absent => {
                self.require(key);
                None
            }
        }
    }

    /// A number kept only when `ok` says it is in range; otherwise `out_of_range`, read as
    /// absent.
    pub fn in_range<T: Copy>(
        &mut self,
        key: &str,
        patch: Patch<T>,
        ok: impl Fn(T) -> bool,
    ) -> Patch<T> {
        match patch {
            Patch::Value(value) if !ok(value) => {
                self.add(key, FieldCode::OutOfRange);
                Patch::Absent
            }
            other => other,
        }
    }

    /// The problems, by field.
    pub fn into_fields(self) -> FieldErrors {
        self.0
    }

    /// Ends reading: any problem gives one 422 `validation_failed` with all of them.
    pub fn finish(self) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(self.0))
        }
    }
}

thread_local! {
    /// The problems the field being read has reported, by path below it (`""`: the field
    /// itself). Serde gives a field's `Deserialize` no way to hand anything but its value back
    /// to the map reader, and a field type must not fail (serde would stop at the first bad
    /// field), so reports go through here; [`read_object`] drains them after each field, on
    /// the same thread, and keeps an outer object's apart while it reads a nested one.
    static REPORTED: RefCell<Vec<(String, FieldCode)>> = const { RefCell::new(Vec::new()) };
}

/// Records a problem with the field being read: `path` is `""` for the field itself, or the
/// part below it (`"brightness"`, `"2.content"`) for a field that holds an object or a list.
/// For field types ([`FromField`] implementations and the like); anywhere else it is lost.
pub fn report(path: &str, code: FieldCode) {
    REPORTED.with_borrow_mut(|reported| reported.push((path.to_owned(), code)));
}

/// Reads `map` into `T` (a body type, see the module documentation): each field's reports
/// filed under its key, every key `T` does not know is `unknown_field`. Fails only when `T`
/// itself is broken (a field type that can fail, a field without `#[serde(default)]`).
pub fn read_object<T: DeserializeOwned>(
    map: Map<String, Value>,
) -> Result<(T, Problems), ApiError> {
    read_nested(map, true)
}

/// Reads `map` into `T` like [`read_object`], but drops the keys `T` does not know without a
/// word: for the nested objects that have always tolerated extra keys (a chat message).
pub fn read_object_ignoring_unknown<T: DeserializeOwned>(
    map: Map<String, Value>,
) -> Result<(T, Problems), ApiError> {
    read_nested(map, false)
}

fn read_nested<T: DeserializeOwned>(
    map: Map<String, Value>,
    refuse_unknown: bool,
) -> Result<(T, Problems), ApiError> {
    // A nested object is read while its parent field is being read: keep the parent's reports.
    let outer = REPORTED.take();
    let read = read_fields(map, refuse_unknown);
    REPORTED.set(outer);
    read
}

fn read_fields<T: DeserializeOwned>(
    mut map: Map<String, Value>,
    refuse_unknown: bool,
) -> Result<(T, Problems), ApiError> {
    let mut problems = Problems::default();
    let known = field_names::<T>();
    let unknown: Vec<String> = map
        .keys()
        .filter(|key| !known.contains(&key.as_str()))
        .cloned()
        .collect();
    for key in &unknown {
        map.remove(key);
        if refuse_unknown {
            problems.add(key, FieldCode::UnknownField);
        }
    }
    let mut entries = Entries {
        entries: map.into_iter(),
        value: None,
        problems: &mut problems,
    };
    let value = T::deserialize(MapAccessDeserializer::new(&mut entries)).map_err(|err| {
        ApiError::internal(format!(
            "body type {} failed to read: {err}",
            std::any::type_name::<T>()
        ))
    })?;
    Ok((value, problems))
}

/// The keys of a struct that derives `Deserialize`, as serde's derive lists them (renames and
/// aliases applied). Found by offering the type a deserializer that only notes them.
fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);

    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = serde::de::value::Error;

        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(Self::Error::custom("fields noted"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }

    let mut fields: &'static [&'static str] = &[];
    // The probe always "fails": it only wants the field list.
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

/// The entries of an object as serde reads them, filing each field's reports under its key.
struct Entries<'a> {
    entries: serde_json::map::IntoIter,
    value: Option<(String, Value)>,
    problems: &'a mut Problems,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        let read = seed.deserialize(key.as_str().into_deserializer())?;
        self.value = Some((key, value));
        Ok(Some(read))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let (key, value) = self
            .value
            .take()
            .ok_or_else(|| Self::Error::custom("a value asked for before its key"))?;
        let read = seed.deserialize(value);
        for (path, code) in REPORTED.take() {
            if path.is_empty() {
                self.problems.add(&key, code);
            } else {
                self.problems.add(&format!("{key}.{path}"), code);
            }
        }
        read
    }
}

/// Declares the body of a creation and the body of a change that share most of their fields:
/// each struct lists the fields it has alone (or documents otherwise: what is required, what may
/// be `null`), then `shared` the fields both have, written once.
macro_rules! body_pair {
    (
        $(#[$new_meta:meta])* $new_vis:vis struct $new:ident { $($new_fields:tt)* }
        $(#[$change_meta:meta])* $change_vis:vis struct $change:ident { $($change_fields:tt)* }
        shared { $($shared:tt)* }
    ) => {
        $(#[$new_meta])* $new_vis struct $new { $($new_fields)* $($shared)* }
        $(#[$change_meta])* $change_vis struct $change { $($change_fields)* $($shared)* }
    };
}
pub(super) use body_pair;

/// A field of a create or update body: absent (leave as is), `null` (clear) or a value. Reads
/// any JSON: a value its [`FromField`] type refuses is reported and read as absent.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Patch<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<T> Patch<T> {
    /// Applies the patch to the current value.
    pub fn apply(self, current: Option<T>) -> Option<T> {
        match self {
            Patch::Absent => current,
            Patch::Null => None,
            Patch::Value(value) => Some(value),
        }
    }

    /// The value, changed by `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Patch<U> {
        match self {
            Patch::Absent => Patch::Absent,
            Patch::Null => Patch::Null,
            Patch::Value(value) => Patch::Value(f(value)),
        }
    }

    /// Whether the field was present (as a value or `null`).
    pub fn is_present(&self) -> bool {
        !matches!(self, Patch::Absent)
    }
}

impl<'de, T: FromField> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(deserializer)? {
            Value::Null => Patch::Null,
            value => match T::from_field(value) {
                Ok(Some(value)) => Patch::Value(value),
                Ok(None) => Patch::Null,
                Err(code) => {
                    report("", code);
                    Patch::Absent
                }
            },
        })
    }
}

/// A value one body field holds, read from any JSON but `null` (which [`Patch`] reads).
pub trait FromField: Sized {
    /// The value, `Ok(None)` when it counts as `null` (an empty text), or what is wrong.
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode>;
}

/// Reads a text: at most `max` characters as sent (what the document's `maxLength` and a form's
/// `maxlength` count), then trimmed, empty counting as `null`; a single line refuses control
/// characters (`invalid_characters`).
fn text(value: Value, max: usize, multiline: bool) -> Result<Option<String>, FieldCode> {
    let Value::String(text) = value else {
        return Err(FieldCode::InvalidType);
    };
    if text.chars().count() > max {
        return Err(FieldCode::TooLong);
    }
    let text = text.trim();
    if text.is_empty() {
        Ok(None)
    } else if text
        .chars()
        .any(|c| c.is_control() && !(multiline && matches!(c, '\n' | '\r' | '\t')))
    {
        Err(FieldCode::InvalidCharacters)
    } else {
        Ok(Some(text.to_owned()))
    }
}

/// A one-line text of at most `MAX` characters (see [`text`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Line<const MAX: usize>(pub String);

impl<const MAX: usize> FromField for Line<MAX> {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        Ok(text(value, MAX, false)?.map(Self))
    }
}

/// A text of several lines, at most `MAX` characters (tabs and line breaks allowed).
#[derive(Debug, Clone, PartialEq)]
pub struct Lines<const MAX: usize>(pub String);

impl<const MAX: usize> FromField for Lines<MAX> {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        Ok(text(value, MAX, true)?.map(Self))
    }
}

/// A colour: `#rrggbb`, stored lowercase (a simulation's background, an agency's accent);
/// spaces around it are dropped, however many (the document's pattern allows them), and an
/// empty text counts as `null`.
#[derive(Debug, Clone, PartialEq)]
pub struct HexColour(pub String);

impl FromField for HexColour {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        let Value::String(text) = value else {
            return Err(FieldCode::InvalidType);
        };
        match Some(text.trim()).filter(|text| !text.is_empty()) {
            Some(text)
                if text.len() == 7
                    && text.starts_with('#')
                    && text[1..].bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                Ok(Some(HexColour(text.to_ascii_lowercase())))
            }
            Some(_) => Err(FieldCode::InvalidValue),
            None => Ok(None),
        }
    }
}

/// The id of one of the caller's rows: a uuid text, canonical once read. A text that is no
/// uuid cannot name one of the caller's rows: `not_found`, like an id of nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Ref(pub String);

impl FromField for Ref {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match text(value, 64, false)? {
            Some(raw) => match uuid::Uuid::parse_str(&raw) {
                Ok(id) => Ok(Some(Ref(id.hyphenated().to_string()))),
                Err(_) => Err(FieldCode::NotFound),
            },
            None => Ok(None),
        }
    }
}

/// One to `MAX` ids of the caller's rows, duplicates dropped, in the given order. Codes:
/// `required` (empty), `invalid_type` (not a list of texts), `not_found` (a text that is no
/// uuid cannot name a row), `too_many`.
#[derive(Debug, Clone, PartialEq)]
pub struct IdList<const MAX: usize>(pub Vec<String>);

impl<const MAX: usize> FromField for IdList<MAX> {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        let items = match value {
            Value::Array(items) if items.is_empty() => return Err(FieldCode::Required),
            Value::Array(items) => items,
            _ => return Err(FieldCode::InvalidType),
        };
        let mut ids: Vec<String> = Vec::with_capacity(items.len());
        for item in items {
            let Value::String(text) = item else {
                return Err(FieldCode::InvalidType);
            };
            let id = uuid::Uuid::parse_str(text.trim())
                .map_err(|_| FieldCode::NotFound)?
                .hyphenated()
                .to_string();
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        if ids.len() > MAX {
            return Err(FieldCode::TooMany);
        }
        Ok(Some(IdList(ids)))
    }
}

/// One of the values of a string enum (`wire_enum!`), given as a one-line text of at most
/// `MAX` characters; any other text is `invalid_value`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice<T, const MAX: usize>(pub T);

impl<T: std::str::FromStr, const MAX: usize> FromField for Choice<T, MAX> {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match text(value, MAX, false)? {
            Some(text) => text
                .parse()
                .map(|value| Some(Choice(value)))
                .map_err(|_| FieldCode::InvalidValue),
            None => Ok(None),
        }
    }
}

/// A finite number.
impl FromField for f64 {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match value {
            Value::Number(n) => n
                .as_f64()
                .filter(|v| v.is_finite())
                .map(Some)
                .ok_or(FieldCode::InvalidType),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// A whole number (`12` or `12.0`).
impl FromField for i64 {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match f64::from_field(value)? {
            Some(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => Ok(Some(v as i64)),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// `true` or `false`.
impl FromField for bool {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match value {
            Value::Bool(value) => Ok(Some(value)),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// Any text, as given (not trimmed: the handler reads it).
impl FromField for String {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match value {
            Value::String(text) => Ok(Some(text)),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// Any JSON, for the fields whose parser reads JSON itself (quads, shapes).
impl FromField for Value {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        Ok(Some(value))
    }
}

/// A path id: a uuid, canonical once read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Id(pub String);

impl Id {
    /// Reads an id given outside a path (a query parameter): anything but a uuid is 404
    /// `not_found`, like the id of nothing.
    pub fn parse(raw: &str) -> Result<Self, ApiError> {
        uuid::Uuid::parse_str(raw)
            .map(|id| Id(id.hyphenated().to_string()))
            .map_err(|_| ApiError::not_found())
    }

    /// The id, canonical (lowercase, hyphenated).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Id {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        uuid::Uuid::parse_str(&raw)
            .map(|id| Id(id.hyphenated().to_string()))
            .map_err(|_| D::Error::custom("not a uuid"))
    }
}

/// The ids of a path (`IdPath(id): IdPath<Id>`, `IdPath((id, item_id)): IdPath<(Id, Id)>`).
/// An id that is no uuid answers 404 `not_found`, exactly like the id of nothing: it cannot
/// name a row.
pub struct IdPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for IdPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        use axum::extract::rejection::PathRejection;
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(ids)) => Ok(IdPath(ids)),
            Err(PathRejection::FailedToDeserializePathParams(_)) => Err(ApiError::not_found()),
            Err(rejection) => Err(ApiError::internal(rejection.body_text())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        #[serde(default)]
        name: Patch<Line<5>>,
        #[serde(default)]
        count: Patch<i64>,
        #[serde(default)]
        ids: Patch<IdList<2>>,
    }

    fn read(value: Value) -> (Sample, FieldErrors) {
        let Value::Object(map) = value else {
            panic!("not an object")
        };
        let (sample, problems) = read_object::<Sample>(map).unwrap();
        (sample, problems.0)
    }

    #[test]
    fn every_problem_is_filed_under_its_field() {
        let (sample, errors) = read(json!({
            "name": "too long a name", "count": 1.5, "ids": ["x"], "extra": 1
        }));
        assert_eq!(sample.name, Patch::Absent);
        assert_eq!(errors["name"], FieldCode::TooLong);
        assert_eq!(errors["count"], FieldCode::InvalidType);
        assert_eq!(errors["ids"], FieldCode::NotFound);
        assert_eq!(errors["extra"], FieldCode::UnknownField);
        assert_eq!(errors.len(), 4);
    }

    #[test]
    fn values_nulls_and_absent_fields_are_told_apart() {
        let id = "6F9619FF-8B86-D011-B42D-00C04FC964FF";
        let (sample, errors) = read(json!({"name": "  ab ", "count": null, "ids": [id, id]}));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(sample.name, Patch::Value(Line("ab".into())));
        assert_eq!(sample.count, Patch::Null);
        assert_eq!(
            sample.ids,
            Patch::Value(IdList(vec![id.to_lowercase()])),
            "canonical, duplicates dropped"
        );
        let (sample, _) = read(json!({"name": ""}));
        assert_eq!(sample.name, Patch::Null, "an empty text counts as null");
        assert_eq!(sample.count, Patch::Absent);
    }

    /// The limit counts the text as sent, spaces included, as the document's `maxLength` does:
    /// a text that passes it is never refused for its spaces, one over it never accepted.
    #[test]
    fn the_length_limit_counts_the_text_as_sent() {
        let (sample, errors) = read(json!({"name": " abcd"}));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(sample.name, Patch::Value(Line("abcd".into())));
        let (sample, errors) = read(json!({"name": "  abcd "}));
        assert_eq!(sample.name, Patch::Absent);
        assert_eq!(errors["name"], FieldCode::TooLong);
    }

    #[test]
    fn serde_lists_the_fields_of_a_body_type() {
        assert_eq!(field_names::<Sample>(), ["name", "count", "ids"]);
    }

    /// The patterns the document gives text fields (`openapi::TEXT_FORMATS`) say exactly what
    /// `text` accepts, on texts made of every kind of character it treats apart.
    #[test]
    fn text_patterns_match_the_rule() {
        let pattern = |name: &str| {
            let (_, text) = super::super::openapi::TEXT_FORMATS
                .iter()
                .find(|(format, _)| *format == name)
                .unwrap();
            regex::Regex::new(text).unwrap()
        };
        let (line, name, lines) = (pattern("line"), pattern("name"), pattern("lines"));
        let several = pattern("text");
        // Spaces (trimmed), controls that are spaces, controls that are not, and ordinary text.
        let parts = [
            "", " ", "a", "é b", "\t", "\n", "\r", "\u{b}", "\u{85}", "\u{a0}", "\u{3000}",
            "\u{1}", "\u{1c}", "\u{7f}", "\u{9f}", "\u{feff}",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    let sample = format!("{a}{b}{c}");
                    let single = text(Value::String(sample.clone()), 100, false);
                    let multi = text(Value::String(sample.clone()), 100, true);
                    assert_eq!(line.is_match(&sample), single.is_ok(), "line {sample:?}");
                    assert_eq!(
                        name.is_match(&sample),
                        matches!(single, Ok(Some(_))),
                        "name {sample:?}"
                    );
                    assert_eq!(lines.is_match(&sample), multi.is_ok(), "lines {sample:?}");
                    assert_eq!(
                        several.is_match(&sample),
                        matches!(multi, Ok(Some(_))),
                        "text {sample:?}"
                    );
                }
            }
        }
    }
}
