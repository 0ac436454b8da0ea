//! `POST /simulations/renders.zip {ids, format?}`: the renders of several simulations in one ZIP
//! (a batch, or the simulations of one creative or one location), each named after its
//! creative and location: `Été 2027 — Lyon Part-Dieu.jpg`.
//!
//! The archive is written to a temporary file, one render at a time, and streamed from it, so
//! memory holds one render whatever the count. Entries are stored, not deflated: JPEG and PNG
//! are compressed already.

use std::collections::HashSet;
use std::io::{Seek, SeekFrom, Write};

use axum::body::Body as HttpBody;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;

use super::super::activity::record;
use super::super::body::{Body, Choice, IdList, Patch};
use super::super::error::ApiError;
use super::super::input::Reader;
use super::MAX_BATCH;
use crate::codes::{ErrorCode, FieldCode};
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::{self, simulations as sdb};
use crate::state::AppState;
use crate::storage::StorageKey;

/// Most simulations in one archive: a batch's worth.
pub const MAX_ZIP: usize = MAX_BATCH;

wire_enum! {
    /// The image format of the renders in an archive.
    pub enum RenderFormat {
        /// The JPEG render (the default; what a client is sent).
        Jpeg = "jpeg";
        /// The lossless PNG render.
        Png = "png";
    }
}

/// The body of `POST /simulations/renders.zip`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ZipFields {
    /// 1 to 50 simulations; those not rendered yet are left out.
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 50, required = true)]
    ids: Patch<IdList<MAX_ZIP>>,
    /// `jpeg` (default) or `png`.
    #[serde(default)]
    #[schema(value_type = Option<RenderFormat>)]
    format: Patch<Choice<RenderFormat, 8>>,
}

/// `POST /simulations/renders.zip` → 200 `application/zip`: the renders of the simulations
/// given that have one, in the order given; 409 `not_rendered` when none has. An id that names
/// nothing of the caller's is `validation_failed` with `ids: not_found`.
#[utoipa::path(
    post,
    path = "/simulations/renders.zip",
    tag = "deliverables",
    request_body = ZipFields,
    responses(
        (status = 200, description = "The renders", content_type = "application/zip", body = Vec<u8>),
        (status = 409, description = "`not_rendered`: none of them has a render yet", body = super::super::error::ErrorBody),
    )
)]
pub(super) async fn renders_zip(
    State(state): State<AppState>,
    user: Reader,
    Body(body, mut problems): Body<ZipFields>,
) -> Result<Response, ApiError> {
    let ids = problems.required("ids", body.ids).map(|ids| ids.0);
    let format = match body.format {
        Patch::Value(Choice(format)) => format,
        Patch::Absent | Patch::Null => RenderFormat::Jpeg,
    };
    let mut found = Vec::new();
    for id in ids.iter().flatten() {
        match sdb::find(&state.db, user.workspace_id(), id).await? {
            Some(view) => found.push(view),
            None => {
                problems.add("ids", FieldCode::NotFound);
                break;
            }
        }
    }
    problems.finish()?;

    let mut entries = Vec::new();
    let mut taken = HashSet::new();
    for view in &found {
        let media_id = match format {
            RenderFormat::Jpeg => view.sim.output_media_id.as_ref(),
            RenderFormat::Png => view.sim.output_png_media_id.as_ref(),
        };
        let Some(media_id) = media_id else { continue };
        let Some(media) = db::media::find(&state.db, media_id).await? else {
            continue;
        };
        let Ok(key) = StorageKey::new(media.original_key) else {
            continue;
        };
        let creative = view.creative.as_ref().map(|c| c.name.as_str());
        let location = view.location.as_ref().map(|l| l.name.as_str());
        let extension = match format {
            RenderFormat::Jpeg => "jpg",
            RenderFormat::Png => "png",
        };
        let name = unique(
            &mut taken,
            &entry_stem(creative, location, &view.sim.name),
            extension,
        );
        entries.push((name, key));
    }
    if entries.is_empty() {
        return Err(ApiError::new(ErrorCode::NotRendered));
    }

    let file = tokio::task::spawn_blocking(tempfile::tempfile)
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    let mut writer = zip::ZipWriter::new(file);
    for (name, key) in entries {
        let bytes = match state.storage.get_bytes(&key).await {
            Ok(bytes) => bytes,
            Err(err) => {
                // A render gone from storage is left out rather than failing the archive.
                tracing::warn!(error = %err, %name, "a render is missing from storage");
                continue;
            }
        };
        writer = tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored)
                .large_file(bytes.len() > u32::MAX as usize);
            writer
                .start_file(name, options)
                .map_err(ApiError::internal)?;
            writer.write_all(&bytes).map_err(ApiError::internal)?;
            Ok(writer)
        })
        .await
        .map_err(ApiError::internal)??;
    }
    let file = tokio::task::spawn_blocking(move || -> Result<_, ApiError> {
        let mut file = writer.finish().map_err(ApiError::internal)?;
        file.seek(SeekFrom::Start(0)).map_err(ApiError::internal)?;
        Ok(file)
    })
    .await
    .map_err(ApiError::internal)??;
    let length = file.metadata().map_err(ApiError::internal)?.len();
    let stream = tokio_util::io::ReaderStream::new(tokio::fs::File::from_std(file));
    let name = archive_name(
        found
            .first()
            .and_then(|v| v.creative.as_ref())
            .map(|c| c.name.as_str()),
    );
    for view in &found {
        record(
            &state,
            &user,
            ActivityAction::Exported,
            ActivitySubject::Simulation,
            &view.sim.id,
            Some(&view.sim.name),
        )
        .await;
    }
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .map_err(ApiError::internal)?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/zip"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CONTENT_LENGTH, HeaderValue::from(length)),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            ),
        ],
        HttpBody::from_stream(stream),
    )
        .into_response())
}

/// A file name for people: the creative's and the location's names (else the simulation's),
/// without what file systems refuse (`/ \ : * ? " < > |`, control characters), at most 120
/// characters.
fn entry_stem(creative: Option<&str>, location: Option<&str>, simulation: &str) -> String {
    let joined = match (creative, location) {
        (Some(c), Some(l)) => format!("{c} — {l}"),
        _ => simulation.to_owned(),
    };
    let cleaned: String = joined
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let stem: String = words.join(" ").chars().take(120).collect();
    // A name of dots only would be `.` or `..` to an unzipper.
    let stem = stem.trim_matches('.').trim().to_owned();
    if stem.is_empty() {
        "render".to_owned()
    } else {
        stem
    }
}

/// `stem.ext`, or `stem (2).ext`, `stem (3).ext`… when taken (compared ignoring case, as
/// macOS and Windows do).
fn unique(taken: &mut HashSet<String>, stem: &str, extension: &str) -> String {
    let mut n = 1;
    loop {
        let name = if n == 1 {
            format!("{stem}.{extension}")
        } else {
            format!("{stem} ({n}).{extension}")
        };
        if taken.insert(name.to_lowercase()) {
            return name;
        }
        n += 1;
    }
}

/// The archive's own name, ASCII for the header: `regard-<first creative>-renders.zip`, else
/// `regard-renders.zip`.
fn archive_name(creative: Option<&str>) -> String {
    let slug = creative
        .map(super::super::reports::slug)
        .unwrap_or_default();
    if slug.is_empty() {
        "regard-renders.zip".to_owned()
    } else {
        format!("regard-{slug}-renders.zip")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_readable_and_safe() {
        let cases = [
            (
                Some("Été 2027"),
                Some("Lyon Part-Dieu"),
                "x",
                "Été 2027 — Lyon Part-Dieu",
            ),
            (Some("a/b\\c"), Some("d:e*f?"), "x", "a b c — d e f"),
            (Some(".."), None, "..", "render"),
            (None, Some("Lyon"), "Ma simulation", "Ma simulation"),
            (
                Some("  Tab\there  "),
                Some("\u{7}Bell"),
                "x",
                "Tab here — Bell",
            ),
        ];
        for (creative, location, simulation, expected) in cases {
            assert_eq!(entry_stem(creative, location, simulation), expected);
        }
        assert_eq!(
            entry_stem(Some(&"é".repeat(200)), Some("x"), "s")
                .chars()
                .count(),
            120
        );
    }

    #[test]
    fn repeated_names_are_numbered_ignoring_case() {
        let mut taken = HashSet::new();
        assert_eq!(unique(&mut taken, "A — B", "jpg"), "A — B.jpg");
        assert_eq!(unique(&mut taken, "a — b", "jpg"), "a — b (2).jpg");
        assert_eq!(unique(&mut taken, "A — B", "jpg"), "A — B (3).jpg");
        assert_eq!(unique(&mut taken, "A — B", "png"), "A — B.png");
    }
}
