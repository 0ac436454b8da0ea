//! PNG exports of results, made on the server (crate::reports::png):
//! `GET /heatmaps/{id}/items/{item_id}/export.png?view=overlay|fog|side_by_side&map=&opacity=&areas=`
//! and `GET /heatmaps/{id}/compare.png?items=<id>,<id>[,…]&view=overlay|fog&map=&areas=`.
//! `map=glance` draws the first glance (the first second's map and its hotspots) instead of the
//! exploration map. Unless `caption=0`, a band under the image says what a client reading the
//! file alone needs: each image's name, score, the map shown and its areas with their share,
//! in `lang`, signed with the agency's branding. Query problems answer 422
//! `validation_failed` with the field's code; an
//! image that is not done, or has no first glance stored, answers 409 `not_done`; anything not
//! the caller's is 404.

use std::collections::HashMap;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Id, IdPath};
use super::error::ApiError;
use super::input::Member;
use super::query::{Flag, Fraction, IdTexts, Param, Params, QueryValue, StrictParams};
use super::reports::{load_images, slug, view_media};
use crate::assistant::format::{number, percent};
use crate::codes::{ErrorCode, FieldCode};
use crate::db;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::heatmaps::{self as hdb, HeatmapWithItems, ItemRow};
use crate::heatmaps::ItemStatus;
use crate::heatmaps::result::{HeatmapResult, Moment};
use crate::i18n::{Locale, t};
use crate::reports::png::{self, ExportError, Layers, View};
use crate::reports::{Report, caption, marks_of};
use crate::state::AppState;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(export_item))
        .routes(routes!(export_compare))
}

/// Anything else (blank included) is `invalid`.
impl QueryValue for View {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        View::parse(text).map(Some).ok_or(FieldCode::Invalid)
    }
}

/// What a comparison shows.
#[derive(Debug, Clone, Copy, PartialEq, ToSchema)]
#[serde(rename_all = "snake_case")]
enum CompareView {
    /// The heatmap over each image (the default).
    Overlay,
    /// Each image darkened where attention is low.
    Fog,
}

/// Anything else (blank and `side_by_side` included) is `invalid`.
impl QueryValue for CompareView {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        match View::from_query(text)? {
            Some(View::Overlay) => Ok(Some(CompareView::Overlay)),
            Some(View::Fog) => Ok(Some(CompareView::Fog)),
            _ => Err(FieldCode::Invalid),
        }
    }
}

/// The query of the PNG exports (unknown parameters refused).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ExportQuery {
    #[serde(default)]
    #[param(inline, value_type = Option<View>)]
    view: Param<View>,
    /// Which map: `exploration` (about three seconds of viewing; the default) or `glance` (the
    /// fixations that start within the first second).
    #[serde(default)]
    #[param(inline, value_type = Option<Moment>)]
    map: Param<Moment>,
    /// 0 to 1: the strength of the overlay or fog (their usual strength by default).
    #[serde(default)]
    #[param(value_type = Option<f32>, minimum = 0, maximum = 1)]
    opacity: Param<Fraction>,
    /// `1` (the default) draws the areas of interest and the panel; `0` leaves them out.
    #[serde(default)]
    #[param(value_type = Option<String>, pattern = "^(|0|1|true|false)$")]
    areas: Param<Flag>,
    /// `1` (the default) adds a caption band under the image: its name, score, map and areas
    /// with their share, and the agency's name and logo; `0` gives the bare image.
    #[serde(default)]
    #[param(value_type = Option<String>, pattern = "^(|0|1|true|false)$")]
    caption: Param<Flag>,
    /// The caption's language: `fr` (the default) or `en`.
    #[serde(default)]
    #[param(inline, value_type = Option<Locale>)]
    lang: Param<Locale>,
}

/// The images of `GET /heatmaps/{id}/compare.png` (unknown parameters refused).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct CompareQuery {
    /// Two to four comma-separated image ids, in the order shown.
    #[serde(default)]
    #[param(
        required = true,
        value_type = String,
        pattern = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(,[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}){1,3}$"
    )]
    items: Param<Compared>,
    #[serde(default)]
    #[param(inline, value_type = Option<CompareView>)]
    view: Param<CompareView>,
    /// Which map: `exploration` (the default) or `glance`.
    #[serde(default)]
    #[param(inline, value_type = Option<Moment>)]
    map: Param<Moment>,
    /// 0 to 1: the strength of the overlay or fog (their usual strength by default).
    #[serde(default)]
    #[param(value_type = Option<f32>, minimum = 0, maximum = 1)]
    opacity: Param<Fraction>,
    /// `1` (the default) draws the areas of interest and the panel; `0` leaves them out.
    #[serde(default)]
    #[param(value_type = Option<String>, pattern = "^(|0|1|true|false)$")]
    areas: Param<Flag>,
    /// `1` (the default) adds a caption band under the image: its name, score, map and areas
    /// with their share, and the agency's name and logo; `0` gives the bare image.
    #[serde(default)]
    #[param(value_type = Option<String>, pattern = "^(|0|1|true|false)$")]
    caption: Param<Flag>,
    /// The caption's language: `fr` (the default) or `en`.
    #[serde(default)]
    #[param(inline, value_type = Option<Locale>)]
    lang: Param<Locale>,
}

/// Tallest image a side-by-side export is scaled to (each part), in pixels.
const MAX_SIDE_HEIGHT: u32 = 1080;
/// Most images in a comparison (as the compare view).
const MAX_COMPARED: usize = 4;

/// The ids of the images compared: two to [`MAX_COMPARED`] (`too_few`, `too_many`).
struct Compared(Vec<String>);

impl QueryValue for Compared {
    fn from_query(text: &str) -> Result<Option<Self>, FieldCode> {
        let Some(IdTexts(ids)) = IdTexts::from_query(text)? else {
            return Ok(None);
        };
        match ids.len() {
            n if n < 2 => Err(FieldCode::TooFew),
            n if n > MAX_COMPARED => Err(FieldCode::TooMany),
            _ => Ok(Some(Compared(ids))),
        }
    }
}

/// The map, opacity, areas and caption switches of an export, and its language.
struct Options {
    moment: Moment,
    opacity: Option<f32>,
    areas: bool,
    caption: bool,
    lang: Locale,
}

impl Options {
    fn read(
        map: Param<Moment>,
        opacity: Param<Fraction>,
        areas: Param<Flag>,
        caption: Param<Flag>,
        lang: Param<Locale>,
    ) -> Self {
        Self {
            moment: map.0.unwrap_or(Moment::Exploration),
            opacity: opacity.0.map(|Fraction(value)| value),
            areas: areas.0.is_none_or(|Flag(on)| on),
            caption: caption.0.is_none_or(|Flag(on)| on),
            lang: lang.0.unwrap_or(Locale::Fr),
        }
    }
}

/// What the caption band says under each image, and who signs it; `None` without a caption.
struct Captions {
    columns: Vec<caption::Column>,
    signature: caption::Signature,
}

impl Captions {
    /// The captions of `items` (in order): each one's name, score and band, the map shown and,
    /// with `areas`, its areas of interest with their share of attention, numbered as drawn.
    async fn gather(
        state: &AppState,
        owner_id: &str,
        found: &HeatmapWithItems,
        items: &[&ItemRow],
        opts: &Options,
    ) -> Result<Option<Self>, ApiError> {
        if !opts.caption {
            return Ok(None);
        }
        let lang = opts.lang;
        // The report's own summary of each image (no image bytes needed for the words).
        let report = Report::from_heatmap(found, lang, db::now_ms(), &HashMap::new());
        let map = t(
            lang,
            match opts.moment {
                Moment::Exploration => "report.caption.exploration",
                Moment::Glance => "report.caption.glance",
            },
            &[],
        );
        let columns = items
            .iter()
            .map(|item| {
                let image = found
                    .items
                    .iter()
                    .position(|i| i.id == item.id)
                    .and_then(|index| report.images.get(index));
                let mut lines = Vec::new();
                if let Some(result) = image.and_then(|i| i.result.as_ref()) {
                    lines.push(t(
                        lang,
                        "report.caption.score",
                        &[
                            ("score", &number(result.score.round(), 0, lang)),
                            ("band", &crate::reports::band_words(lang, result.score)),
                        ],
                    ));
                }
                lines.push(map.clone());
                if opts.areas {
                    for (n, aoi) in image.map_or(&[][..], |i| &i.aois[..]).iter().enumerate() {
                        lines.push(t(
                            lang,
                            "report.caption.area",
                            &[
                                ("n", &(n + 1).to_string()),
                                ("name", &aoi.name),
                                ("share", &percent(aoi.share, lang)),
                            ],
                        ));
                    }
                }
                caption::Column {
                    title: image_name(found, item),
                    lines,
                }
            })
            .collect();
        let brand = super::account::report_brand(state, owner_id).await?;
        let signature = match brand {
            Some(brand) => caption::Signature {
                name: brand.name,
                accent: brand.accent.map(|(r, g, b)| [r, g, b]),
                logo: brand.logo.as_deref().and_then(png::decode_on_white),
            },
            None => caption::Signature::default(),
        };
        Ok(Some(Self { columns, signature }))
    }

    /// `img` with the band, the columns under `spans` (one per image, left to right).
    fn apply(&self, img: &image::RgbImage, spans: &[(u32, u32)]) -> image::RgbImage {
        let columns: Vec<_> = spans
            .iter()
            .copied()
            .zip(self.columns.iter().cloned())
            .collect();
        caption::with_caption(img, &columns, &self.signature)
    }
}

/// 409 `not_done`: the image has no result to export yet (or failed).
fn not_done() -> ApiError {
    ApiError::new(ErrorCode::NotDone)
}

fn export_error(err: ExportError) -> ApiError {
    ApiError::internal(err)
}

/// Which stored images an item's layers are: the source, and the overlay and fog views of the
/// map asked for.
#[derive(Debug, Clone)]
struct LayerIds {
    source: String,
    overlay: String,
    fog: String,
}

impl LayerIds {
    /// `None` when the item has no such view stored (the first glance of an item analysed
    /// before it was stored).
    fn of(item: &ItemRow, moment: Moment) -> Option<Self> {
        let (overlay, fog) = view_media(item, moment);
        Some(Self {
            source: item.source.id.clone(),
            overlay: overlay?.clone(),
            fog: fog?.clone(),
        })
    }

    /// The layers decoded from `images`: CPU-heavy, so called on the blocking pool only. A
    /// view missing from storage is left out (`Layers` says which).
    fn decode(&self, images: &HashMap<String, Vec<u8>>) -> Result<Layers, ExportError> {
        let source = images.get(&self.source).ok_or(ExportError::MissingView)?;
        let view = |id: &String| images.get(id).map(|bytes| png::decode(bytes)).transpose();
        Ok(Layers {
            source: png::decode(source)?,
            overlay: view(&self.overlay)?,
            fog: view(&self.fog)?,
        })
    }
}

/// What is drawn over an item's views: the hotspots of the map shown and the areas, when
/// `areas` is asked for.
fn item_marks(item: &ItemRow, found: &HeatmapWithItems, moment: Moment, areas: bool) -> png::Marks {
    if !areas {
        return png::Marks::default();
    }
    let result = item
        .result
        .as_deref()
        .and_then(|text| HeatmapResult::parse(text, &item.id));
    let hotspots = result
        .as_ref()
        .and_then(|r| r.view(moment))
        .map_or(&[][..], |view| &view.hotspots[..]);
    marks_of(hotspots, found.aois_of(&item.id))
}

/// What a file name says it shows: the view, and `glance` for the first glance's.
fn export_what(view: &str, moment: Moment) -> String {
    match moment {
        Moment::Exploration => view.to_owned(),
        Moment::Glance => format!("{view}-glance"),
    }
}

/// `regard-<name>-<what>.png`, or `regard-<what>.png` for a name with no ASCII left.
fn png_name(name: &str, what: &str) -> String {
    let slug = slug(name);
    if slug.is_empty() {
        format!("regard-{what}.png")
    } else {
        format!("regard-{slug}-{what}.png")
    }
}

fn png_response(bytes: Vec<u8>, name: &str) -> Result<Response, ApiError> {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .map_err(ApiError::internal)?;
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
            (header::CONTENT_DISPOSITION, disposition),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            ),
        ],
        bytes,
    )
        .into_response())
}

/// The name an image goes by in exports: its label, else its file name.
fn image_name(found: &HeatmapWithItems, item: &ItemRow) -> String {
    found
        .labels
        .get(&item.source.id)
        .map(|label| label.name.clone())
        .or_else(|| {
            item.source
                .original_name
                .as_deref()
                .map(|n| crate::media::file_stem(n).to_owned())
        })
        .unwrap_or_default()
}

/// `GET /heatmaps/{id}/items/{item_id}/export.png`: one image's result as a PNG.
#[utoipa::path(
    get,
    path = "/heatmaps/{id}/items/{item_id}/export.png",
    tag = "deliverables",
    params(
        ("id" = String, Path, description = "The heatmap's id"),
        ("item_id" = String, Path, description = "The image's id"),
        ExportQuery,
    ),
    responses((status = 200, description = "The PNG (a download)", content_type = "image/png", body = Vec<u8>))
)]
async fn export_item(
    State(state): State<AppState>,
    user: Member,
    IdPath((id, Id(item_id))): IdPath<(Id, Id)>,
    Params(query): StrictParams<ExportQuery>,
) -> Result<Response, ApiError> {
    let view = query.view.0.unwrap_or(View::Overlay);
    let opts = Options::read(
        query.map,
        query.opacity,
        query.areas,
        query.caption,
        query.lang,
    );
    let found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    record(
        &state,
        &user,
        ActivityAction::Exported,
        ActivitySubject::Heatmap,
        &found.heatmap.id,
        Some(&found.heatmap.name),
    )
    .await;
    let item = found
        .items
        .iter()
        .find(|i| i.id == item_id)
        .ok_or_else(ApiError::not_found)?;
    if !ItemStatus::has_result(&item.status) {
        return Err(not_done());
    }
    let ids = LayerIds::of(item, opts.moment).ok_or_else(not_done)?;
    let captions = Captions::gather(&state, user.workspace_id(), &found, &[item], &opts).await?;
    let (images, held) = load_images(&state, std::iter::once(item), opts.moment).await?;
    let marks = item_marks(item, &found, opts.moment, opts.areas);
    let name = png_name(
        &image_name(&found, item),
        &export_what(view.as_str(), opts.moment),
    );
    let opacity = opts.opacity;
    // Decoding and drawing run on the blocking pool: a large export must not hold up the
    // runtime's threads, which serve every other request.
    let bytes = tokio::task::spawn_blocking(move || {
        let _held = held;
        let layers = ids.decode(&images)?;
        drop(images);
        let img = match view {
            View::Overlay => view_or_default(&layers, false, opacity, &marks),
            View::Fog => view_or_default(&layers, true, opacity, &marks),
            View::SideBySide => png::triptych(&layers, Some(&marks), MAX_SIDE_HEIGHT),
        }?;
        match &captions {
            // One image (or its three views): one caption across the whole width.
            Some(captions) => png::encode(&captions.apply(&img, &[(0, img.width())])),
            None => png::encode(&img),
        }
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(export_error)?;
    png_response(bytes, &name)
}

fn view_or_default(
    layers: &Layers,
    fog: bool,
    opacity: Option<f32>,
    marks: &png::Marks,
) -> Result<image::RgbImage, ExportError> {
    let default = if fog {
        png::FOG_OPACITY
    } else {
        png::OVERLAY_OPACITY
    };
    png::view_over(layers, fog, opacity.unwrap_or(default), Some(marks))
}

/// `GET /heatmaps/{id}/compare.png`: two to four images' results side by side, as a PNG.
#[utoipa::path(
    get,
    path = "/heatmaps/{id}/compare.png",
    tag = "deliverables",
    params(("id" = String, Path, description = "The heatmap's id"), CompareQuery),
    responses((status = 200, description = "The PNG (a download)", content_type = "image/png", body = Vec<u8>))
)]
async fn export_compare(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Params(query): StrictParams<CompareQuery>,
) -> Result<Response, ApiError> {
    let fog = query.view.0 == Some(CompareView::Fog);
    let opts = Options::read(
        query.map,
        query.opacity,
        query.areas,
        query.caption,
        query.lang,
    );
    // Absent (or refused, which the extractor has answered already).
    let Some(Compared(ids)) = query.items.0 else {
        return Err(ApiError::field("items", FieldCode::TooFew));
    };
    let found = hdb::find_owned(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    record(
        &state,
        &user,
        ActivityAction::Exported,
        ActivitySubject::Heatmap,
        &found.heatmap.id,
        Some(&found.heatmap.name),
    )
    .await;
    let mut items = Vec::new();
    for raw in &ids {
        let item = uuid::Uuid::parse_str(raw)
            .ok()
            .map(|u| u.hyphenated().to_string())
            .and_then(|id| found.items.iter().find(|i| i.id == id));
        match item {
            Some(item) if ItemStatus::has_result(&item.status) => items.push(item),
            Some(_) => return Err(not_done()),
            None => return Err(ApiError::field("items", FieldCode::NotFound)),
        }
    }
    let mut parts: Vec<(LayerIds, png::Marks)> = Vec::with_capacity(items.len());
    for item in &items {
        let ids = LayerIds::of(item, opts.moment).ok_or_else(not_done)?;
        parts.push((ids, item_marks(item, &found, opts.moment, opts.areas)));
    }
    let captions = Captions::gather(&state, user.workspace_id(), &found, &items, &opts).await?;
    let (images, held) = load_images(&state, items.iter().copied(), opts.moment).await?;
    let opacity = opts.opacity;
    let name = png_name(
        &found.heatmap.name,
        &export_what(if fog { "compare-fog" } else { "compare" }, opts.moment),
    );
    let bytes = tokio::task::spawn_blocking(move || {
        let _held = held;
        let mut views = Vec::with_capacity(parts.len());
        for (ids, marks) in &parts {
            let layers = ids.decode(&images)?;
            views.push(view_or_default(&layers, fog, opacity, marks)?);
        }
        drop(images);
        let (img, spans) = png::side_by_side_spans(&views, MAX_SIDE_HEIGHT);
        match &captions {
            // Each image's caption under it.
            Some(captions) => png::encode(&captions.apply(&img, &spans)),
            None => png::encode(&img),
        }
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(export_error)?;
    png_response(bytes, &name)
}
