//! `POST /locations/import`: an inventory file (CSV or XLSX) and, optionally, a ZIP of the
//! photos its rows name, made into locations all at once, or only checked (`dry_run`).
//!
//! The file is read by [`crate::inventory`] into typed rows; each row becomes the JSON body
//! `POST /locations` takes and goes through the same reader and the same rules
//! (`locations::apply_body`), so a row is refused exactly when that body would be, with the
//! same field codes, reported under the column's name. Photos are found by file name in the
//! archive ([`crate::archive`], read under limits), inflated to staging files and checked
//! like uploads (`media::prepare`: format, bytes, pixels, decoding budget), then, only when
//! every row and photo passed, decoded and stored (`media::stage`); media rows and locations
//! are inserted in one transaction. Any failure after objects were stored takes them back.

use std::collections::HashMap;

use axum::Json;
use axum::extract::multipart::{MultipartError, MultipartRejection};
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::read_object;
use super::error::ApiError;
use super::input::Member;
use super::locations::{LocationChanges, NewLocation, apply_body};
use super::media::{clean_file_name, reserve};
use super::query::{Param, Params, QueryValue};
use crate::archive::{self, Archive, ArchiveError, EntryError, EntryId, Lookup};
use crate::codes::{ErrorCode, FieldCode};
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::{self, locations::LocationRow};
use crate::inventory::{self, Cell, FileError, ImportColumn, ImportRow, TableError};
use crate::media::{self as ingest, AcceptError, MediaError, MediaLimits, Upload, quota};
use crate::state::AppState;

/// Room for the multipart framing around the two files.
const MULTIPART_OVERHEAD: u64 = 1024 * 1024;

/// Most entries (files and folders) in a ZIP of photos.
pub const MAX_ARCHIVE_ENTRIES: u64 = 10_000;

/// An entry of the photos' ZIP over 1 MiB that declares more than this many times its
/// compressed size is a ZIP bomb: photos are already compressed and barely shrink in a ZIP.
pub const MAX_ARCHIVE_RATIO: u64 = 100;

/// The answer header giving how many rows the file has (what a dry run would create).
pub const ROWS_HEADER: &str = "x-import-rows";

/// Routes of this module.
pub fn router(body_limit: usize) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import))
        .layer(DefaultBodyLimit::max(body_limit))
}

/// The body limit of `POST /locations/import`: the largest ZIP of photos, the largest file and
/// the multipart framing.
pub fn import_body_limit(import_max_bytes: u64) -> usize {
    import_max_bytes
        .saturating_add(inventory::MAX_FILE_BYTES)
        .saturating_add(MULTIPART_OVERHEAD)
        .try_into()
        .unwrap_or(usize::MAX)
}

/// `dry_run`: `true` or `1` (check only), `false` or `0` (import); anything else, blank
/// included, is `invalid_type`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct DryRun(bool);

impl QueryValue for DryRun {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        match text {
            "1" | "true" => Ok(Some(DryRun(true))),
            "0" | "false" => Ok(Some(DryRun(false))),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// The query of `POST /locations/import`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ImportQuery {
    /// `true` (or `1`): check the file and photos, write nothing (`created` stays empty);
    /// `false` or `0` (the default): import. Also a form field; either one saying `true`
    /// makes a dry run.
    #[serde(default)]
    #[param(value_type = Option<String>, pattern = "^(0|1|true|false)$")]
    dry_run: Param<DryRun>,
}

// For the document only: the form is not read into a value but part by part, the ZIP streamed
// to a staging file as it arrives (refused as soon as it passes its limit), by the handler
// below, which accepts exactly these parts.
/// The body of `POST /locations/import`.
#[derive(ToSchema)]
#[allow(dead_code)] // A description of the multipart form; `import` reads it as a stream.
#[serde(deny_unknown_fields)]
struct ImportForm {
    /// The inventory: CSV (UTF-8 with or without a byte-order mark, or Windows-1252;
    /// separated by `,` or `;`) or XLSX (its first sheet), a header row then one row per
    /// location; at most 10 MiB and 5,000 rows.
    #[schema(format = Binary, content_media_type = "application/octet-stream")]
    file: String,
    /// A ZIP of the photos that the `photo` column names by file name (folders ignored).
    #[schema(format = Binary, content_media_type = "application/zip", nullable = false)]
    photos: Option<String>,
    /// `true`: check only (as the query parameter).
    #[schema(value_type = String, nullable = false, pattern = "^(0|1|true|false)$")]
    dry_run: Option<String>,
}

/// A row of the file that cannot be imported, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ImportError {
    /// The row's number as a spreadsheet shows it: the header is row 1, the first location
    /// row 2.
    pub row: u32,
    /// The column, by its English name.
    pub field: ImportColumn,
    /// What is wrong, as `POST /locations` says it of the same value (`photo`: `not_found`
    /// when the archive has no such file, `conflict` when it has two, or why the upload
    /// path refuses it: `invalid_type`, `invalid`, `too_large`).
    pub code: FieldCode,
}

/// The answer of an import: the locations created, in the file's order (none in a dry run,
/// none when any row is refused), and the rows refused.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportResult {
    pub created: Vec<String>,
    /// Sorted by row, then column.
    pub errors: Vec<ImportError>,
}

/// A refused import (422): the usual error body, with `created` (empty) and the rows' `errors`
/// (empty when the refusal is about the whole request, which `details.fields` then says:
/// `file`, `name`, `photos`, `dry_run`).
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportRefused {
    pub code: ErrorCode,
    pub message: &'static str,
    #[schema(value_type = Object)]
    pub details: Value,
    pub created: Vec<String>,
    pub errors: Vec<ImportError>,
}

/// Why an import was not made: an error of the request, or refused rows.
enum Refusal {
    Api(ApiError),
    Rows {
        errors: Vec<ImportError>,
        rows: usize,
    },
}

impl From<ApiError> for Refusal {
    fn from(err: ApiError) -> Self {
        Refusal::Api(err)
    }
}

fn refused(code: ErrorCode, details: Value, errors: Vec<ImportError>) -> Response {
    let body = ImportRefused {
        code,
        message: code.message(),
        details,
        created: Vec::new(),
        errors,
    };
    (code.status(), Json(body)).into_response()
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            // Every 422 of this endpoint has one shape, whatever it refuses.
            Refusal::Api(err) if err.status() == StatusCode::UNPROCESSABLE_ENTITY => {
                refused(err.code, err.details, Vec::new())
            }
            Refusal::Api(err) => err.into_response(),
            Refusal::Rows { errors, rows } => {
                let mut response = refused(ErrorCode::ValidationFailed, json!({}), errors);
                response.headers_mut().insert(rows_header(), rows.into());
                response
            }
        }
    }
}

fn rows_header() -> HeaderName {
    HeaderName::from_static(ROWS_HEADER)
}

/// `POST /locations/import` (multipart: `file`, optional `photos`, optional `dry_run`; or
/// `?dry_run=true`). Every row is checked as `POST /locations` checks its body; a photo is
/// checked as an upload. 200 with the created ids when every row passed, nothing written
/// otherwise (422 with the rows' errors); a dry run answers 200 with the errors and writes
/// nothing. `X-Import-Rows` says how many location rows the file has.
#[utoipa::path(
    post,
    path = "/locations/import",
    tag = "locations",
    params(ImportQuery),
    request_body(content = ImportForm, content_type = "multipart/form-data"),
    responses(
        (status = 200, description = "Imported (or, in a dry run, checked): the ids created and the rows' errors", body = ImportResult,
            headers(("x-import-rows" = u32, description = "The location rows the file has"))),
        (status = 422, description = "Nothing imported: rows refused (`errors`), or the request itself (`details.fields`)", body = ImportRefused),
    )
)]
async fn import(
    State(state): State<AppState>,
    user: Member,
    query: Result<Params<ImportQuery>, ApiError>,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Response, Refusal> {
    let Params(query) = query?;
    state
        .limits
        .uploads(user.user_id(), 1)
        .await
        .map_err(|wait| ApiError::new(ErrorCode::RateLimited).retry_after(wait))?;
    let form = read_form(&state, multipart).await?;
    let dry_run = query.dry_run.0.is_some_and(|DryRun(on)| on) || form.dry_run;
    let file = form
        .file
        .ok_or_else(|| ApiError::field("file", FieldCode::Required))?;
    let rows = tokio::task::spawn_blocking(move || inventory::read(&file))
        .await
        .map_err(ApiError::internal)?
        .map_err(file_error)?;
    super::locations::room_for_locations(&state, user.workspace_id(), rows.len()).await?;
    let archive = match form.photos {
        Some(photos) => Some(open_archive(&state, photos).await?),
        None => None,
    };

    let now = db::now_ms();
    let mut errors = Vec::new();
    let mut locations = Vec::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        // Later rows a millisecond older: the newest-first list shows them in the file's order.
        let at = now - i64::try_from(index).unwrap_or(0);
        let (location, problems) = check_row(&state, &user, row, at).await?;
        errors.extend(problems);
        locations.push(location);
    }
    // The photos' place in the quota is held until their rows are written, or the import ends.
    let (photos, _reserved) = check_photos(&state, &user, &rows, archive, &mut errors).await?;
    errors.sort_by_key(|e| (e.row, ImportColumn::ALL.iter().position(|c| *c == e.field)));
    errors.dedup_by_key(|e| (e.row, e.field));

    let count = rows.len();
    if !errors.is_empty() && !dry_run {
        return Err(Refusal::Rows {
            errors,
            rows: count,
        });
    }
    if dry_run {
        return Ok(answer(Vec::new(), errors, count));
    }
    let names: Vec<String> = locations.iter().map(|l| l.name.clone()).collect();
    let created = store(&state, &user, &rows, locations, photos).await?;
    tracing::info!(rows = count, "inventory imported");
    let subjects: Vec<(String, String)> = created.iter().cloned().zip(names).collect();
    if let Err(err) = crate::db::activity::record_many(
        &state.db,
        user.workspace_id(),
        user.user_id(),
        ActivityAction::Created,
        ActivitySubject::Location,
        &subjects,
        db::now_ms(),
    )
    .await
    {
        tracing::warn!(error = %err, "recording an import's activity failed");
    }
    Ok(answer(created, Vec::new(), count))
}

fn answer(created: Vec<String>, errors: Vec<ImportError>, rows: usize) -> Response {
    let mut response = Json(ImportResult { created, errors }).into_response();
    response.headers_mut().insert(rows_header(), rows.into());
    response
}

/// The parts of the form.
#[derive(Default)]
struct Form {
    file: Option<Vec<u8>>,
    photos: Option<Upload>,
    dry_run: bool,
}

fn invalid_multipart() -> ApiError {
    ApiError::new(ErrorCode::InvalidMultipart)
}

fn too_large(max_bytes: u64) -> ApiError {
    ApiError::new(ErrorCode::FileTooLarge).with_details(json!({ "max_bytes": max_bytes }))
}

fn part_error(err: MultipartError, max_bytes: u64) -> ApiError {
    if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large(max_bytes)
    } else {
        ApiError::new(ErrorCode::UploadFailed)
    }
}

/// Reads the form part by part: the file into memory (at most [`inventory::MAX_FILE_BYTES`]),
/// the ZIP to a staging file (at most `REGARD_IMPORT_MAX_BYTES`), `dry_run` as a flag. Other
/// parts are `unknown_field`, a part given twice `too_many`; an empty file part counts as
/// absent.
async fn read_form(
    state: &AppState,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Form, ApiError> {
    let mut multipart = multipart.map_err(|_| invalid_multipart())?;
    let max_zip = state.config.import_max_bytes;
    let mut form = Form::default();
    let mut seen: Vec<String> = Vec::new();
    loop {
        let mut field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(err) if err.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                return Err(too_large(max_zip));
            }
            Err(_) => return Err(invalid_multipart()),
        };
        let Some(name) = field.name().map(str::to_owned) else {
            return Err(invalid_multipart());
        };
        if seen.contains(&name) {
            return Err(ApiError::field(&name, FieldCode::TooMany));
        }
        seen.push(name.clone());
        match name.as_str() {
            "file" => {
                let mut bytes = Vec::new();
                while let Some(chunk) = field
                    .chunk()
                    .await
                    .map_err(|e| part_error(e, inventory::MAX_FILE_BYTES))?
                {
                    if (bytes.len() + chunk.len()) as u64 > inventory::MAX_FILE_BYTES {
                        return Err(too_large(inventory::MAX_FILE_BYTES));
                    }
                    bytes.extend_from_slice(&chunk);
                }
                form.file = (!bytes.is_empty()).then_some(bytes);
            }
            "photos" => {
                let limits = MediaLimits {
                    max_bytes: max_zip,
                    ..state.config.media_limits()
                };
                let stream = field
                    .map_err(|err| {
                        if err.status() == StatusCode::PAYLOAD_TOO_LARGE {
                            std::io::Error::new(std::io::ErrorKind::FileTooLarge, err.body_text())
                        } else {
                            std::io::Error::other(err.body_text())
                        }
                    })
                    .boxed();
                let upload =
                    ingest::collect_upload(stream, &limits, &state.config.data_dir.join("tmp"))
                        .await
                        .map_err(|err| match err {
                            MediaError::FileTooLarge { .. } => too_large(max_zip),
                            MediaError::Upload(io)
                                if io.kind() == std::io::ErrorKind::FileTooLarge =>
                            {
                                too_large(max_zip)
                            }
                            other => other.into(),
                        })?;
                form.photos = (!upload.is_empty()).then_some(upload);
            }
            "dry_run" => {
                let mut text = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(|e| part_error(e, 0))? {
                    text.extend_from_slice(&chunk);
                    if text.len() > 16 {
                        return Err(ApiError::field("dry_run", FieldCode::InvalidType));
                    }
                }
                let text = String::from_utf8_lossy(&text);
                form.dry_run = match DryRun::from_query(&text) {
                    Ok(flag) => flag.is_some_and(|DryRun(on)| on),
                    Err(code) => return Err(ApiError::field("dry_run", code)),
                };
            }
            other => return Err(ApiError::field(other, FieldCode::UnknownField)),
        }
    }
    Ok(form)
}

/// A file that cannot be imported at all: 422 `validation_failed` naming `file` (and `name`
/// for a file without a name column).
fn file_error(err: FileError) -> ApiError {
    let fields = |fields: &[(&str, FieldCode)]| {
        ApiError::validation(
            fields
                .iter()
                .map(|(key, code)| ((*key).to_owned(), *code))
                .collect(),
        )
    };
    match err {
        FileError::Empty => fields(&[("file", FieldCode::Required)]),
        FileError::Table(TableError::Unreadable) => fields(&[("file", FieldCode::Invalid)]),
        FileError::Table(TableError::TooLarge) => fields(&[("file", FieldCode::TooLarge)]),
        FileError::Table(TableError::TooManyRows) => {
            let mut err = fields(&[("file", FieldCode::TooMany)]);
            err.details["max_rows"] = json!(inventory::MAX_ROWS);
            err
        }
        FileError::Table(TableError::TooManyColumns) => {
            let mut err = fields(&[("file", FieldCode::TooMany)]);
            err.details["max_columns"] = json!(inventory::table::MAX_COLUMNS);
            err
        }
        FileError::NoNameColumn => {
            fields(&[("file", FieldCode::Invalid), ("name", FieldCode::Required)])
        }
        FileError::NoRows => fields(&[("file", FieldCode::TooFew)]),
    }
}

/// Opens the ZIP of photos and checks its directory (entries, declared sizes, ratios).
async fn open_archive(
    state: &AppState,
    photos: Upload,
) -> Result<(Archive<std::fs::File>, Upload), ApiError> {
    let limits = archive::Limits {
        max_entries: MAX_ARCHIVE_ENTRIES,
        max_total: state.config.import_max_bytes.saturating_mul(2),
        max_ratio: Some(MAX_ARCHIVE_RATIO),
    };
    tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(photos.path()).map_err(ApiError::internal)?;
        Archive::open(file, &limits)
            .map(|archive| (archive, photos))
            .map_err(|err| archive_error(err, &limits))
    })
    .await
    .map_err(ApiError::internal)?
}

/// The ZIP of photos refused as a whole: 422 `validation_failed` naming `photos`.
fn archive_error(err: ArchiveError, limits: &archive::Limits) -> ApiError {
    match err {
        ArchiveError::Unreadable => ApiError::field("photos", FieldCode::Invalid),
        ArchiveError::TooManyEntries => {
            let mut err = ApiError::field("photos", FieldCode::TooMany);
            err.details["max_entries"] = json!(limits.max_entries);
            err
        }
        ArchiveError::TooLarge => ApiError::field("photos", FieldCode::TooLarge),
    }
}

/// Where an API field's problem is reported: the column it comes from.
fn column_of(key: &str) -> ImportColumn {
    match key {
        "name" => ImportColumn::Name,
        "address" => ImportColumn::Address,
        "city" => ImportColumn::City,
        "postal_code" => ImportColumn::Postcode,
        "country" => ImportColumn::Country,
        "latitude" => ImportColumn::Latitude,
        "longitude" => ImportColumn::Longitude,
        // A format fills in a screen's pixels: the only way an import sets them.
        "format" | "screen_width_px" | "screen_height_px" => ImportColumn::Format,
        "panel_width_cm" => ImportColumn::WidthM,
        "panel_height_cm" => ImportColumn::HeightM,
        "audience" => ImportColumn::Audience,
        "viewing_distance_min_m" | "viewing_distance_max_m" => ImportColumn::DistanceM,
        "speed_kmh" => ImportColumn::SpeedKmh,
        "daily_contacts" => ImportColumn::DailyContacts,
        "audience_source" => ImportColumn::AudienceSource,
        "notes" => ImportColumn::Notes,
        "photo_media_id" | "panel_quad" => ImportColumn::Photo,
        other => {
            // The import's bodies hold only the fields above.
            tracing::error!(
                field = other,
                "an import row refused on a field it does not set"
            );
            ImportColumn::Name
        }
    }
}

/// The `POST /locations` body of a row: each cell under its field, in the field's unit
/// (metres of width to centimetres, rounded; a distance range to its two ends). A cell that
/// could not be read goes as the text it holds, which the field refuses as it would in a JSON
/// body.
fn location_body(row: &ImportRow) -> Map<String, Value> {
    fn cell<T>(cell: &Cell<T>, value: impl Fn(&T) -> Value) -> Value {
        match cell {
            Cell::Value(v) => value(v),
            Cell::Unreadable(text) => Value::String(text.clone()),
        }
    }
    let mut body = Map::new();
    let texts = [
        ("name", &row.name),
        ("address", &row.address),
        ("city", &row.city),
        ("postal_code", &row.postcode),
        ("country", &row.country),
        ("notes", &row.notes),
        ("audience_source", &row.audience_source),
    ];
    for (key, text) in texts {
        if let Some(text) = text {
            body.insert(key.into(), Value::String(text.clone()));
        }
    }
    let numbers = [
        ("latitude", &row.latitude, 1.0),
        ("longitude", &row.longitude, 1.0),
        ("panel_width_cm", &row.width_m, 100.0),
        ("panel_height_cm", &row.height_m, 100.0),
        ("speed_kmh", &row.speed_kmh, 1.0),
    ];
    for (key, value, scale) in numbers {
        if let Some(value) = value {
            let value = cell(value, |v| {
                // Centimetres are whole: metres are rounded to the centimetre, as written
                // (2.345 m is 235 cm, though 2.345 × 100 is 234.4999… in binary).
                let v = if scale == 1.0 {
                    *v
                } else {
                    ((v * scale * 1e6).round() / 1e6).round()
                };
                json!(v)
            });
            body.insert(key.into(), value);
        }
    }
    if let Some(contacts) = &row.daily_contacts {
        // Whole counts go as integers; anything else as written, which the field refuses.
        let value = cell(contacts, |&v| {
            if v.fract() == 0.0 && v.abs() < 1e15 {
                json!(v as i64)
            } else {
                json!(v)
            }
        });
        body.insert("daily_contacts".into(), value);
    }
    if let Some(format) = &row.format {
        body.insert("format".into(), cell(format, |f| json!(f.as_str())));
    }
    if let Some(audience) = &row.audience {
        body.insert("audience".into(), cell(audience, |a| json!(a.as_str())));
    }
    match &row.distance_m {
        Some(Cell::Value(distance)) => {
            body.insert("viewing_distance_max_m".into(), json!(distance.max_m));
            if let Some(min) = distance.min_m {
                body.insert("viewing_distance_min_m".into(), json!(min));
            }
        }
        Some(Cell::Unreadable(text)) => {
            body.insert("viewing_distance_max_m".into(), Value::String(text.clone()));
        }
        None => {}
    }
    body
}

/// A row as the location it would make, and its problems by column.
async fn check_row(
    state: &AppState,
    user: &Member,
    row: &ImportRow,
    at: i64,
) -> Result<(LocationRow, Vec<ImportError>), ApiError> {
    let (body, mut problems) = read_object::<NewLocation>(location_body(row))?;
    let mut location = LocationRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.workspace_id().to_owned(),
        format: "other".to_owned(),
        illumination: "none".to_owned(),
        created_at: at,
        updated_at: at,
        ..LocationRow::default()
    };
    let body: LocationChanges = body.into();
    apply_body(state, user, body, &mut problems, &mut location, true).await?;
    let errors = problems
        .into_fields()
        .into_iter()
        .map(|(key, code)| ImportError {
            row: row.row,
            field: column_of(&key),
            code,
        })
        .collect();
    Ok((location, errors))
}

/// One photo of the archive and the rows (their positions) that name it.
struct Photo {
    entry: EntryId,
    name: String,
    rows: Vec<usize>,
    /// Its headers read and checked, nothing decoded yet.
    prepared: Option<ingest::PreparedUpload>,
}

/// The photo code of an upload refusal: not an image (`invalid_type`), broken (`invalid`),
/// too many bytes or pixels or too much memory to decode (`too_large`); `None` for our own
/// failures.
fn photo_code(err: &MediaError) -> Option<FieldCode> {
    match err {
        MediaError::UnsupportedMediaType => Some(FieldCode::InvalidType),
        MediaError::InvalidImage(_) => Some(FieldCode::Invalid),
        MediaError::FileTooLarge { .. }
        | MediaError::ImageTooLarge { .. }
        | MediaError::TooLargeToDecode { .. } => Some(FieldCode::TooLarge),
        MediaError::Upload(_) | MediaError::Internal(_) => None,
    }
}

fn photo_errors(rows: &[ImportRow], photo: &Photo, code: FieldCode) -> Vec<ImportError> {
    photo
        .rows
        .iter()
        .map(|&i| ImportError {
            row: rows[i].row,
            field: ImportColumn::Photo,
            code,
        })
        .collect()
}

/// Finds each row's photo in the archive, holds their size against the user's quota, inflates
/// them to staging files and reads their headers as an upload's are read. Problems go to
/// `errors`; the photos that passed are returned, each with the rows naming it (one file named
/// by several rows is one image they share), with their place in the quota, to hold until
/// their rows are written (as an upload holds its own).
async fn check_photos(
    state: &AppState,
    user: &Member,
    rows: &[ImportRow],
    archive: Option<(Archive<std::fs::File>, Upload)>,
    errors: &mut Vec<ImportError>,
) -> Result<(Vec<Photo>, Option<quota::Reserved>), ApiError> {
    let limits = state.config.media_limits();
    let mut photos: Vec<Photo> = Vec::new();
    let mut by_entry: HashMap<EntryId, usize> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        let Some(name) = &row.photo else { continue };
        let error = |code| ImportError {
            row: row.row,
            field: ImportColumn::Photo,
            code,
        };
        match archive.as_ref().map(|(archive, _)| archive.find(name)) {
            Some(Lookup::Found(entry)) => {
                let at = *by_entry.entry(entry).or_insert_with(|| {
                    photos.push(Photo {
                        entry,
                        name: String::new(),
                        rows: Vec::new(),
                        prepared: None,
                    });
                    photos.len() - 1
                });
                photos[at].rows.push(i);
            }
            Some(Lookup::Ambiguous) => errors.push(error(FieldCode::Conflict)),
            Some(Lookup::Missing) | None => errors.push(error(FieldCode::NotFound)),
        }
    }
    let Some((mut archive, zip)) = archive else {
        return Ok((photos, None));
    };
    // A photo over the upload limit is refused on what its entry declares, never inflated.
    photos.retain(|photo| {
        let fits = archive.size(photo.entry) <= limits.max_bytes;
        if !fits {
            errors.extend(photo_errors(rows, photo, FieldCode::TooLarge));
        }
        fits
    });
    if photos.is_empty() {
        return Ok((photos, None));
    }
    // Each photo is an upload to decode: capped per import, and counted one by one against
    // the user's uploads (all or none) before anything is inflated.
    let max_photos = state.config.import_max_photos;
    let count = u32::try_from(photos.len()).unwrap_or(u32::MAX);
    if max_photos > 0 && count > max_photos {
        let mut err = ApiError::field("photos", FieldCode::TooMany);
        err.details["max_photos"] = json!(max_photos);
        return Err(err);
    }
    state
        .limits
        .uploads(user.user_id(), count)
        .await
        .map_err(|wait| ApiError::new(ErrorCode::RateLimited).retry_after(wait))?;
    for photo in &mut photos {
        photo.name = archive.name(photo.entry);
    }
    // The photos count against the quota as uploads do, before anything is inflated.
    let bytes: u64 = photos.iter().map(|p| archive.size(p.entry)).sum();
    let quota = state.config.storage_quota_mb.saturating_mul(quota::MB);
    let reserved = reserve(state, user.workspace_id(), bytes, quota).await?;

    let tmp = state.config.data_dir.join("tmp");
    let entries: Vec<EntryId> = photos.iter().map(|p| p.entry).collect();
    let (inflated, lied) = tokio::task::spawn_blocking(move || {
        let mut inflated = Vec::with_capacity(entries.len());
        for entry in entries {
            let result = inflate(&mut archive, entry, &tmp);
            let lied = matches!(result, Err(EntryError::Lies));
            inflated.push(result);
            if lied {
                return (inflated, true);
            }
        }
        drop(zip);
        (inflated, false)
    })
    .await
    .map_err(ApiError::internal)?;
    if lied {
        // An entry inflating past the size it declared: the archive is a bomb, whatever else
        // it holds.
        return Err(ApiError::field("photos", FieldCode::TooLarge));
    }
    let mut uploads = Vec::with_capacity(inflated.len());
    for (photo, result) in photos.iter().zip(inflated) {
        match result {
            Ok(upload) => uploads.push(Some(upload)),
            Err(EntryError::Write(err)) => return Err(ApiError::internal(err)),
            Err(_) => {
                errors.extend(photo_errors(rows, photo, FieldCode::Invalid));
                uploads.push(None);
            }
        }
    }
    let gate = gate(state);
    let concurrency = state.config.media_ingest_concurrency.max(1);
    let prepared: Vec<Option<Result<ingest::PreparedUpload, AcceptError>>> =
        futures::stream::iter(uploads)
            .map(|upload| {
                let gate = &gate;
                async move {
                    match upload {
                        Some(upload) => Some(ingest::prepare_gated(gate, &limits, upload).await),
                        None => None,
                    }
                }
            })
            .buffered(concurrency)
            .collect()
            .await;
    let mut checked = Vec::with_capacity(photos.len());
    for (mut photo, result) in photos.into_iter().zip(prepared) {
        match result {
            Some(Ok(prepared)) => {
                photo.prepared = Some(prepared);
                checked.push(photo);
            }
            Some(Err(AcceptError::Media(err))) => match photo_code(&err) {
                Some(code) => errors.extend(photo_errors(rows, &photo, code)),
                None => return Err(err.into()),
            },
            Some(Err(other)) => return Err(other.into()),
            None => {}
        }
    }
    Ok((checked, Some(reserved)))
}

/// Inflates one entry of the archive to a staging file.
fn inflate(
    archive: &mut Archive<std::fs::File>,
    entry: EntryId,
    tmp: &std::path::Path,
) -> Result<Upload, EntryError> {
    use std::io::Write;
    let mut file = Upload::temp_file(tmp).map_err(EntryError::Write)?;
    {
        let mut writer = std::io::BufWriter::with_capacity(64 << 10, file.as_file_mut());
        archive.copy_to(entry, &mut writer)?;
        writer.flush().map_err(EntryError::Write)?;
    }
    Upload::from_temp(file).map_err(EntryError::Write)
}

fn gate(state: &AppState) -> ingest::IngestGate {
    ingest::IngestGate {
        slots: state.ingest_slots.clone(),
        budget: state.decode_budget.clone(),
        budget_mib: state.config.media_decode_budget as u32,
    }
}

/// A photo decoded and its objects stored, its media row not inserted yet.
struct StoredPhoto {
    /// The positions of the rows that name it.
    rows: Vec<usize>,
    row: db::media::MediaRow,
    stored: ingest::StoredMedia,
    gps: Option<ingest::GpsCoordinates>,
    /// What was stored, kept only when the objects were already there (another row's), to
    /// store again should they vanish before the insert (see `media::accept`).
    again: Option<ingest::IngestedMedia>,
}

/// Takes back the objects of photos whose rows were not inserted (unless another row has the
/// same content).
async fn release(state: &AppState, photos: &[StoredPhoto]) {
    for photo in photos {
        ingest::delete_objects_if_orphaned(&state.db, state.storage.as_ref(), &photo.row).await;
    }
}

/// Decodes and stores the photos, gives their rows the photos (and, where a row has no
/// coordinates, the photos' GPS positions), and inserts media rows and locations in one
/// transaction. On any failure the stored objects are taken back and nothing is written.
async fn store(
    state: &AppState,
    user: &Member,
    rows: &[ImportRow],
    mut locations: Vec<LocationRow>,
    photos: Vec<Photo>,
) -> Result<Vec<String>, Refusal> {
    let limits = state.config.media_limits();
    let gate = gate(state);
    let concurrency = state.config.media_ingest_concurrency.max(1);
    let storage = state.storage.as_ref();
    let staged: Vec<(Photo, Result<ingest::Staged, AcceptError>)> = futures::stream::iter(photos)
        .map(|mut photo| {
            let gate = &gate;
            async move {
                let result = match photo.prepared.take() {
                    Some(prepared) => {
                        let name = clean_file_name(&photo.name);
                        ingest::stage(storage, gate, &limits, prepared, user.workspace_id(), name)
                            .await
                    }
                    None => Err(AcceptError::Internal("a photo was not prepared".into())),
                };
                (photo, result)
            }
        })
        .buffered(concurrency)
        .collect()
        .await;

    let mut errors = Vec::new();
    let mut failure: Option<ApiError> = None;
    let mut stored = Vec::with_capacity(staged.len());
    for (photo, result) in staged {
        match result {
            Ok(staged) => stored.push(StoredPhoto {
                rows: photo.rows,
                gps: staged.ingested.gps,
                again: staged.stored.deduplicated.then_some(staged.ingested),
                row: staged.row,
                stored: staged.stored,
            }),
            // Broken past its headers: found only once decoded.
            Err(AcceptError::Media(err)) if photo_code(&err).is_some() => {
                let code = photo_code(&err).unwrap_or(FieldCode::Invalid);
                errors.extend(photo_errors(rows, &photo, code));
            }
            Err(err) => failure = failure.or(Some(err.into())),
        }
    }
    if let Some(err) = failure {
        release(state, &stored).await;
        return Err(Refusal::Api(err));
    }
    if !errors.is_empty() {
        release(state, &stored).await;
        errors.sort_by_key(|e| e.row);
        return Err(Refusal::Rows {
            errors,
            rows: rows.len(),
        });
    }
    for photo in &stored {
        for &i in &photo.rows {
            let location = &mut locations[i];
            location.photo_media_id = Some(photo.row.id.clone());
            if let (None, None, Some(gps)) = (location.latitude, location.longitude, photo.gps) {
                (location.latitude, location.longitude) = (Some(gps.latitude), Some(gps.longitude));
            }
        }
    }
    let media: Vec<db::media::MediaRow> = stored.iter().map(|p| p.row.clone()).collect();
    if let Err(err) = db::locations::insert_all(&state.db, &media, &locations).await {
        release(state, &stored).await;
        return Err(Refusal::Api(err.into()));
    }
    for photo in &stored {
        let Some(ingested) = &photo.again else {
            continue;
        };
        // As for an upload: the last other row with this content went between the check and
        // the insert, and its objects with it.
        let vanished = !storage.exists(&photo.stored.original).await.unwrap_or(true);
        if vanished && let Err(err) = ingest::store(storage, ingested).await {
            tracing::error!(error = %err, media_id = %photo.row.id, "cannot store an imported photo again");
        }
    }
    Ok(locations.into_iter().map(|l| l.id).collect())
}
