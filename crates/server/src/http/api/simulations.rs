//! Simulations: `POST /simulations`, `GET /simulations?limit=&cursor=&q=&creative_id=&location_id=`,
//! `GET`/`PATCH`/`DELETE /simulations/{id}`, `POST /simulations/batch`,
//! `POST /simulations/{id}/render` and `POST /simulations/{id}/attention`. Shapes and codes:
//! docs/architecture/simulations.md.
//!
//! A simulation places one of the user's creatives on one of their locations' photos; every
//! change queues a render job (unless `render: false`) with a new `render_token`, so an older
//! render in flight can never overwrite the newer settings.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use regard_vision::composite::{Adjustments, Night};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{
    Body, Choice, FromField, Id, IdList, IdPath, Line, Patch, Problems, Ref, body_pair,
    read_object, report,
};
use super::error::ApiError;
use super::heatmaps::ItemStatus;
use super::input::{ApiUser, ListParams, ListQuery, Paged, rfc3339};
use super::locations::{Illumination, PanelFormat, QuadPoint, stored_quad};
use super::media::{Media, media_body, now_secs};
use crate::codes::{ErrorCode, FieldCode, JobErrorCode};
use crate::db::creatives::CreativeWithMedia;
use crate::db::locations::LocationWithPhoto;
use crate::db::simulations::{
    self as sdb, ListFilter, NewSimulation, Render, RenderChange, SimulationRow, SimulationView,
};
use crate::db::{self, media::MediaRow};
use crate::heatmaps::result::PanelShare;
use crate::quad::{self, parse_quad, quad_json};
pub use crate::simulations::SimulationStatus;
use crate::simulations::service;
use crate::state::AppState;

/// Longest simulation name, in characters.
pub const MAX_NAME: usize = 200;
/// Most locations in one batch.
pub const MAX_BATCH: usize = 50;
/// Smallest panel accepted, in photo pixels².
pub const MIN_QUAD_AREA_PX: f64 = 4.0;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(batch))
        .routes(routes!(get_one, update, delete_one))
        .routes(routes!(render))
        .routes(routes!(attention))
}

wire_enum! {
    /// How the creative fills the panel.
    pub enum FitMode {
        /// The whole creative stretched to the panel's corners.
        Stretch = "stretch";
        /// Cropped (centred) to the panel's aspect (the default).
        Cover = "cover";
        /// Whole, centred, the background colour around it.
        Contain = "contain";
    }
}

/// Default adjustments of a new simulation: unchanged, with the automatic match to the photo
/// on (what most users want from "make it look real").
fn default_adjustments() -> Adjustments {
    Adjustments {
        auto_match: true,
        ..Adjustments::default()
    }
}

wire_enum! {
    /// Night lighting of the panel (regard_vision's `Night`).
    pub enum NightMode {
        /// Backlit paper in a light box.
        Backlit = "backlit";
        /// An emissive LED screen.
        Led = "led";
    }
}

/// Exactly `"backlit"` or `"led"`; anything else is `invalid_value`.
impl FromField for NightMode {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        value
            .as_str()
            .and_then(NightMode::parse)
            .map(Some)
            .ok_or(FieldCode::InvalidValue)
    }
}

/// How the creative is made to look real (regard_vision's `Adjustments`).
#[derive(Debug, Serialize, ToSchema)]
pub struct AdjustmentsBody {
    /// −1 to 1: exposure, ±1.5 stops.
    pub brightness: f32,
    /// −1 to 1.
    pub contrast: f32,
    /// −1 to 1: −1 is grey.
    pub saturation: f32,
    /// −1 to 1: cooler to warmer.
    pub warmth: f32,
    /// −1 to 1: negative blurs, positive sharpens.
    pub sharpness: f32,
    /// 0 to 1: 1 is the photo's own noise level.
    pub grain: f32,
    /// 0 to 1: a soft specular band.
    pub glare: f32,
    /// Match the creative's exposure and colour cast to the photo around the panel.
    pub auto_match: bool,
    /// Night lighting, or `null` for day.
    pub night: Option<NightMode>,
}

impl From<&Adjustments> for AdjustmentsBody {
    fn from(a: &Adjustments) -> Self {
        AdjustmentsBody {
            brightness: a.brightness,
            contrast: a.contrast,
            saturation: a.saturation,
            warmth: a.warmth,
            sharpness: a.sharpness,
            grain: a.grain,
            glare: a.glare,
            auto_match: a.auto_match,
            night: a.night.map(|night| match night {
                Night::Backlit => NightMode::Backlit,
                Night::Led => NightMode::Led,
            }),
        }
    }
}

/// A change of the adjustments: any subset of their keys, the others keep their values. Each
/// problem is reported as `adjustments.<key>`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct AdjustmentsChanges {
    /// −1 to 1: exposure, ±1.5 stops.
    #[serde(default)]
    #[schema(value_type = f32, minimum = -1, maximum = 1)]
    brightness: Patch<f64>,
    /// −1 to 1.
    #[serde(default)]
    #[schema(value_type = f32, minimum = -1, maximum = 1)]
    contrast: Patch<f64>,
    /// −1 to 1: −1 is grey.
    #[serde(default)]
    #[schema(value_type = f32, minimum = -1, maximum = 1)]
    saturation: Patch<f64>,
    /// −1 to 1: cooler to warmer.
    #[serde(default)]
    #[schema(value_type = f32, minimum = -1, maximum = 1)]
    warmth: Patch<f64>,
    /// −1 to 1: negative blurs, positive sharpens.
    #[serde(default)]
    #[schema(value_type = f32, minimum = -1, maximum = 1)]
    sharpness: Patch<f64>,
    /// 0 to 1: 1 is the photo's own noise level.
    #[serde(default)]
    #[schema(value_type = f32, minimum = 0, maximum = 1)]
    grain: Patch<f64>,
    /// 0 to 1: a soft specular band.
    #[serde(default)]
    #[schema(value_type = f32, minimum = 0, maximum = 1)]
    glare: Patch<f64>,
    /// Match the creative's exposure and colour cast to the photo around the panel.
    #[serde(default)]
    #[schema(value_type = bool)]
    auto_match: Patch<bool>,
    /// Night lighting, or `null` for day.
    #[serde(default)]
    #[schema(value_type = Option<NightMode>)]
    night: Patch<NightMode>,
}

/// The `adjustments` of a body, checked key by key: `None` once any key had a problem (all of
/// them reported, nothing applied).
#[derive(Debug)]
struct AdjustmentsInput(Option<AdjustmentsChanges>);

impl FromField for AdjustmentsInput {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        let Value::Object(map) = value else {
            return Err(FieldCode::InvalidType);
        };
        let (changes, mut problems) =
            read_object::<AdjustmentsChanges>(map).map_err(|_| FieldCode::InvalidValue)?;
        // Numbers and booleans cannot be cleared: `null` is no number; each has its range.
        let numbers = [
            ("brightness", &changes.brightness),
            ("contrast", &changes.contrast),
            ("saturation", &changes.saturation),
            ("warmth", &changes.warmth),
            ("sharpness", &changes.sharpness),
            ("grain", &changes.grain),
            ("glare", &changes.glare),
        ];
        for (key, patch) in numbers {
            match patch {
                Patch::Null => problems.add(key, FieldCode::InvalidType),
                Patch::Value(v) => {
                    let range = if matches!(key, "grain" | "glare") {
                        0.0..=1.0
                    } else {
                        -1.0..=1.0
                    };
                    if !range.contains(v) {
                        problems.add(key, FieldCode::OutOfRange);
                    }
                }
                Patch::Absent => {}
            }
        }
        if changes.auto_match == Patch::Null {
            problems.add("auto_match", FieldCode::InvalidType);
        }
        let fields = problems.into_fields();
        if fields.is_empty() {
            return Ok(Some(AdjustmentsInput(Some(changes))));
        }
        for (key, code) in fields {
            report(&key, code);
        }
        Ok(Some(AdjustmentsInput(None)))
    }
}

impl AdjustmentsChanges {
    /// `current` with these changes.
    fn apply(self, current: &Adjustments) -> Adjustments {
        let mut a = *current;
        let set = |target: &mut f32, patch: Patch<f64>| {
            if let Patch::Value(v) = patch {
                *target = v as f32;
            }
        };
        set(&mut a.brightness, self.brightness);
        set(&mut a.contrast, self.contrast);
        set(&mut a.saturation, self.saturation);
        set(&mut a.warmth, self.warmth);
        set(&mut a.sharpness, self.sharpness);
        set(&mut a.grain, self.grain);
        set(&mut a.glare, self.glare);
        if let Patch::Value(auto_match) = self.auto_match {
            a.auto_match = auto_match;
        }
        a.night = match self.night {
            Patch::Value(NightMode::Backlit) => Some(Night::Backlit),
            Patch::Value(NightMode::Led) => Some(Night::Led),
            Patch::Null => None,
            Patch::Absent => a.night,
        };
        a
    }
}

/// A background colour: `#rrggbb`, stored lowercase.
#[derive(Debug)]
struct Background(String);

impl FromField for Background {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match Line::<16>::from_field(value)? {
            Some(Line(text))
                if text.len() == 7
                    && text.starts_with('#')
                    && text[1..].bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                Ok(Some(Background(text.to_ascii_lowercase())))
            }
            Some(_) => Err(FieldCode::InvalidValue),
            None => Ok(None),
        }
    }
}

/// The creative of a simulation.
#[derive(Debug, Serialize, ToSchema)]
pub struct SimulationCreative {
    pub id: String,
    pub name: String,
    pub media: Media,
}

/// The location of a simulation.
#[derive(Debug, Serialize, ToSchema)]
pub struct SimulationLocation {
    pub id: String,
    pub name: String,
    pub city: Option<String>,
    pub format: PanelFormat,
    pub illumination: Illumination,
    pub panel_width_cm: Option<i64>,
    pub panel_height_cm: Option<i64>,
    pub panel_quad: Option<Vec<QuadPoint>>,
    pub photo: Option<Media>,
}

/// Signed download links of the render (`Content-Disposition: attachment`).
#[derive(Debug, Serialize, ToSchema)]
pub struct Downloads {
    pub jpeg: String,
    pub png: String,
}

/// The latest attention analysis of the render.
#[derive(Debug, Serialize, ToSchema)]
pub struct SimulationAttention {
    pub heatmap_id: String,
    pub item_id: String,
    pub status: ItemStatus,
    /// Attention score, 0–100 (`done` only).
    pub score: Option<f64>,
    /// The panel's share of all attention (`done` only).
    pub panel_share: Option<f64>,
    /// The panel's share of the surface (`done` only).
    pub area_share: Option<f64>,
    /// `panel_share / area_share` (`done` only).
    pub visibility: Option<f64>,
    /// The probability that a viewer looks at the panel within the first second (`done` model
    /// v3 analyses only; calibrated on eye-tracking data).
    pub first_second_probability: Option<f64>,
    /// The panel's share of the first second's attention (as `first_second_probability`).
    pub glance_share: Option<f64>,
}

/// Why a render failed.
#[derive(Debug, Serialize, ToSchema)]
pub struct RenderError {
    pub code: JobErrorCode,
    /// English, for logs; the web app shows its translation of `code`.
    pub message: String,
}

/// A simulation: a creative placed on a location's panel, its settings and its render.
#[derive(Debug, Serialize, ToSchema)]
pub struct Simulation {
    pub id: String,
    pub name: String,
    pub creative_id: String,
    pub location_id: String,
    /// `null` once the creative is deleted (the simulation goes with it).
    pub creative: Option<SimulationCreative>,
    pub location: Option<SimulationLocation>,
    /// The panel's corners used: the override, else the location's.
    pub quad: Option<Vec<QuadPoint>>,
    /// Whether `quad` is this simulation's own.
    pub quad_override: bool,
    pub fit: FitMode,
    /// `#rrggbb`, around the creative in `contain` mode.
    pub background: String,
    pub adjustments: AdjustmentsBody,
    /// What stands in front of the panel (white), over the whole photo.
    pub mask: Option<Media>,
    pub status: SimulationStatus,
    /// Why the render failed (`failed` only).
    pub error: Option<RenderError>,
    /// The render.
    pub output: Option<Media>,
    /// `null` until rendered.
    pub downloads: Option<Downloads>,
    pub attention: Option<SimulationAttention>,
    /// RFC 3339.
    pub rendered_at: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

/// The simulations a batch made, in the order of its locations.
#[derive(Debug, Serialize, ToSchema)]
pub struct SimulationBatch {
    pub items: Vec<Simulation>,
}

/// The heatmap an attention analysis was queued in.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttentionQueued {
    pub heatmap_id: String,
}

body_pair! {
    /// The body of `POST /simulations`.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct NewSimulationFields {
        /// At most 200 characters; "creative — location" when absent, `null` or empty.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 200, format = "line")]
        name: Patch<Line<MAX_NAME>>,
        /// The creative placed on the panel.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid, required = true)]
        creative_id: Patch<Ref>,
        /// The location; it needs a photo and a panel outline.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid, required = true)]
        location_id: Patch<Ref>,
    }

    /// The body of `PATCH /simulations/{id}`: absent fields stay.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct SimulationChanges {
        /// At most 200 characters; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = String, max_length = 200, format = "name")]
        name: Patch<Line<MAX_NAME>>,
        /// Another creative of the caller's.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid)]
        creative_id: Patch<Ref>,
        /// Another location of the caller's, with a photo and a panel outline.
        #[serde(default)]
        #[schema(value_type = uuid::Uuid)]
        location_id: Patch<Ref>,
    }

    shared {
        /// This simulation's own panel corners (`null`: back to the location's).
        #[serde(default)]
        #[schema(value_type = Option<Vec<QuadPoint>>, min_items = 4, max_items = 4)]
        quad: Patch<Value>,
        #[serde(default)]
        #[schema(value_type = FitMode)]
        fit: Patch<Choice<FitMode, 16>>,
        /// `#rrggbb`.
        #[serde(default)]
        #[schema(value_type = String, pattern = r"^\s*#[0-9A-Fa-f]{6}\s*$")]
        background: Patch<Background>,
        /// Any subset (`null`: back to the defaults).
        #[serde(default)]
        #[schema(value_type = Option<AdjustmentsChanges>)]
        adjustments: Patch<AdjustmentsInput>,
        /// An uploaded grey image of the caller's (`null`: none).
        #[serde(default)]
        #[schema(value_type = Option<uuid::Uuid>)]
        mask_media_id: Patch<Ref>,
        /// `false` saves without rendering (a `draft` when render settings changed).
        #[serde(default)]
        #[schema(value_type = Option<bool>)]
        render: Patch<bool>,
    }
}

/// The body of `POST /simulations/batch`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct BatchFields {
    #[serde(default)]
    #[schema(value_type = uuid::Uuid, required = true)]
    creative_id: Patch<Ref>,
    /// 1 to 50 locations, each with a photo and a panel outline.
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 50, required = true)]
    location_ids: Patch<IdList<MAX_BATCH>>,
    #[serde(default)]
    #[schema(value_type = FitMode)]
    fit: Patch<Choice<FitMode, 16>>,
    /// `#rrggbb`.
    #[serde(default)]
    #[schema(value_type = String, pattern = r"^\s*#[0-9A-Fa-f]{6}\s*$")]
    background: Patch<Background>,
    /// Any subset (`null`: the defaults).
    #[serde(default)]
    #[schema(value_type = Option<AdjustmentsChanges>)]
    adjustments: Patch<AdjustmentsInput>,
}

/// The filters of `GET /simulations`, besides the page.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // Read from the query map in `list`; this type describes them.
struct SimulationFilters {
    /// Only the simulations of this creative.
    creative_id: Option<String>,
    /// Only the simulations at this location.
    location_id: Option<String>,
}

/// The simulation answered (simulations.md), with signed URLs.
fn simulation_body(state: &AppState, view: &SimulationView, now: u64) -> Simulation {
    let s = &view.sim;
    let signer = &state.signer;
    let exp = signer.expiry(now);
    let location_quad = view.location.as_ref().and_then(|l| l.panel_quad.as_deref());
    let creative = view.creative.as_ref().map(|c| SimulationCreative {
        id: c.id.clone(),
        name: c.name.clone(),
        media: media_body(signer, &c.media, now),
    });
    let location = view.location.as_ref().map(|l| SimulationLocation {
        id: l.id.clone(),
        name: l.name.clone(),
        city: l.city.clone(),
        format: PanelFormat::parse(&l.format).unwrap_or(PanelFormat::Other),
        illumination: Illumination::parse(&l.illumination).unwrap_or(Illumination::None),
        panel_width_cm: l.panel_width_cm,
        panel_height_cm: l.panel_height_cm,
        panel_quad: l.panel_quad.as_deref().and_then(stored_quad),
        photo: l.photo.as_ref().map(|m| media_body(signer, m, now)),
    });
    let download = |id: &str| format!("{}&download=1", signer.url(id, "original", exp));
    // A render writes both files; a row with only one is no render to download.
    let downloads = match (&view.output, &s.output_media_id, &s.output_png_media_id) {
        (Some(_), Some(jpeg), Some(png)) => Some(Downloads {
            jpeg: download(jpeg),
            png: download(png),
        }),
        _ => None,
    };
    let attention = view.attention.as_ref().map(|a| {
        let status = ItemStatus::parse(&a.status).unwrap_or(ItemStatus::Queued);
        let done = status == ItemStatus::Done;
        let panel = a
            .panel
            .as_deref()
            .filter(|_| done)
            .and_then(|t| serde_json::from_str::<PanelShare>(t).ok());
        SimulationAttention {
            heatmap_id: a.heatmap_id.clone(),
            item_id: a.item_id.clone(),
            status,
            score: a.score.filter(|_| done),
            panel_share: panel.map(|p| p.share),
            area_share: panel.map(|p| p.area_share),
            visibility: panel.and_then(|p| p.visibility),
            first_second_probability: panel.and_then(|p| p.first_second_probability),
            glance_share: panel.and_then(|p| p.glance_share),
        }
    });
    let status = SimulationStatus::parse(&s.status).unwrap_or(SimulationStatus::Draft);
    let error = match &s.error_code {
        Some(code) if status == SimulationStatus::Failed => Some(RenderError {
            code: JobErrorCode::parse(code).unwrap_or(JobErrorCode::Internal),
            message: s.error_message.clone().unwrap_or_default(),
        }),
        _ => None,
    };
    Simulation {
        id: s.id.clone(),
        name: s.name.clone(),
        creative_id: s.creative_id.clone(),
        location_id: s.location_id.clone(),
        creative,
        location,
        quad: s.quad.as_deref().or(location_quad).and_then(stored_quad),
        quad_override: s.quad.is_some(),
        fit: FitMode::parse(&s.fit).unwrap_or(FitMode::Cover),
        background: s.background.clone(),
        adjustments: AdjustmentsBody::from(
            &serde_json::from_str(&s.adjustments).unwrap_or_else(|_| default_adjustments()),
        ),
        mask: view.mask.as_ref().map(|m| media_body(signer, m, now)),
        status,
        error,
        output: view.output.as_ref().map(|m| media_body(signer, m, now)),
        downloads,
        attention,
        rendered_at: s.rendered_at.map(rfc3339),
        created_at: rfc3339(s.created_at),
        updated_at: rfc3339(s.updated_at),
    }
}

async fn find_creative(
    state: &AppState,
    user: &ApiUser,
    problems: &mut Problems,
    id: &str,
) -> Result<Option<CreativeWithMedia>, ApiError> {
    let found = db::creatives::find(&state.db, user.id(), id).await?;
    if found.is_none() {
        problems.add("creative_id", FieldCode::NotFound);
    }
    Ok(found)
}

/// The user's location `id`, which must have a photo (`key`: `requires_photo`).
async fn find_location(
    state: &AppState,
    user: &ApiUser,
    problems: &mut Problems,
    key: &str,
    id: &str,
) -> Result<Option<LocationWithPhoto>, ApiError> {
    match db::locations::find(&state.db, user.id(), id).await? {
        None => {
            problems.add(key, FieldCode::NotFound);
            Ok(None)
        }
        Some(found) if found.photo.is_none() => {
            problems.add(key, FieldCode::RequiresPhoto);
            Ok(None)
        }
        Some(found) => Ok(Some(found)),
    }
}

/// The render settings a body gives (`quad`, `fit`, `background`, `adjustments`,
/// `mask_media_id`), checked against the database and applied onto `row`. The quad is checked
/// against the photo later.
struct Settings {
    quad: Patch<Value>,
    fit: Patch<Choice<FitMode, 16>>,
    background: Patch<Background>,
    adjustments: Patch<AdjustmentsInput>,
    mask_media_id: Patch<Ref>,
}

/// Applies `fit`, `background` and `adjustments` (onto `current`); `null` for `fit` or
/// `background` is `required`, for `adjustments` the defaults.
fn apply_look(
    problems: &mut Problems,
    row: &mut SimulationRow,
    fit: Patch<Choice<FitMode, 16>>,
    background: Patch<Background>,
    adjustments: Patch<AdjustmentsInput>,
    current: &Adjustments,
) -> Result<(), ApiError> {
    if let Some(Choice(fit)) = problems.not_null("fit", fit) {
        row.fit = fit.as_str().to_owned();
    }
    if let Some(Background(background)) = problems.not_null("background", background) {
        row.background = background;
    }
    let adjustments = match adjustments {
        Patch::Value(AdjustmentsInput(Some(changes))) => Some(changes.apply(current)),
        Patch::Null => Some(default_adjustments()),
        Patch::Value(AdjustmentsInput(None)) | Patch::Absent => None,
    };
    if let Some(adjustments) = adjustments {
        row.adjustments = serde_json::to_string(&adjustments).map_err(ApiError::internal)?;
    }
    Ok(())
}

async fn read_settings(
    state: &AppState,
    user: &ApiUser,
    problems: &mut Problems,
    settings: Settings,
    row: &mut SimulationRow,
) -> Result<(), ApiError> {
    match settings.quad {
        Patch::Value(value) => match parse_quad(&value) {
            Ok(points) => row.quad = Some(quad_json(&points).to_string()),
            Err(code) => problems.add("quad", code),
        },
        Patch::Null => row.quad = None,
        Patch::Absent => {}
    }
    let current = serde_json::from_str(&row.adjustments).unwrap_or_else(|_| default_adjustments());
    apply_look(
        problems,
        row,
        settings.fit,
        settings.background,
        settings.adjustments,
        &current,
    )?;
    match settings.mask_media_id {
        Patch::Value(Ref(id)) => match db::media::find_owned(&state.db, user.id(), &id).await? {
            Some(media) if media.kind == "upload" => row.mask_media_id = Some(media.id),
            _ => problems.add("mask_media_id", FieldCode::NotFound),
        },
        Patch::Null => row.mask_media_id = None,
        Patch::Absent => {}
    }
    Ok(())
}

/// Checks the quad the render will use (the override, else the location's) against the photo:
/// one must exist (`quad: required`) and cover at least [`MIN_QUAD_AREA_PX`].
fn check_render_quad(problems: &mut Problems, row: &SimulationRow, location: &LocationWithPhoto) {
    if problems.has("quad") {
        return;
    }
    let text = row
        .quad
        .as_deref()
        .or(location.location.panel_quad.as_deref());
    let Some(quad) = text.and_then(quad::read_stored) else {
        problems.require("quad");
        return;
    };
    if let Some(photo) = &location.photo
        && quad::area_px(&quad, photo.width, photo.height) < MIN_QUAD_AREA_PX
    {
        problems.add("quad", FieldCode::TooSmall);
    }
}

/// The default name: "creative — location", at most [`MAX_NAME`] characters.
fn default_name(creative: &CreativeWithMedia, location: &LocationWithPhoto) -> String {
    format!("{} — {}", creative.creative.name, location.location.name)
        .chars()
        .take(MAX_NAME)
        .collect()
}

/// A fresh row for `owner`, queued (with a token) or a draft.
fn new_row(
    user: &ApiUser,
    creative_id: &str,
    location_id: &str,
    render: bool,
    now: i64,
) -> SimulationRow {
    SimulationRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.id().to_owned(),
        creative_id: creative_id.to_owned(),
        location_id: location_id.to_owned(),
        fit: "cover".into(),
        background: "#ffffff".into(),
        adjustments: serde_json::to_string(&default_adjustments()).unwrap_or_default(),
        status: if render {
            SimulationStatus::Queued
        } else {
            SimulationStatus::Draft
        }
        .as_str()
        .into(),
        render_token: render.then(|| uuid::Uuid::new_v4().to_string()),
        created_at: now,
        updated_at: now,
        ..SimulationRow::default()
    }
}

async fn find(state: &AppState, user: &ApiUser, id: &str) -> Result<SimulationView, ApiError> {
    sdb::find(&state.db, user.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Answers a simulation read back after a write.
async fn respond(state: &AppState, user: &ApiUser, id: &str) -> Result<Simulation, ApiError> {
    let view = sdb::find(&state.db, user.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(simulation_body(state, &view, now_secs()))
}

/// `POST /simulations` → 201 (`queued`, or `draft` with `render: false`).
#[utoipa::path(
    post,
    path = "/simulations",
    tag = "simulations",
    request_body = NewSimulationFields,
    responses((status = 201, description = "The new simulation", body = Simulation))
)]
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    Body(body, mut problems): Body<NewSimulationFields>,
) -> Result<(StatusCode, Json<Simulation>), ApiError> {
    // `render` is `true` when absent or `null`.
    let render = !matches!(body.render, Patch::Value(false));
    let now = db::now_ms();
    let mut row = new_row(&user, "", "", render, now);
    let settings = Settings {
        quad: body.quad,
        fit: body.fit,
        background: body.background,
        adjustments: body.adjustments,
        mask_media_id: body.mask_media_id,
    };
    read_settings(&state, &user, &mut problems, settings, &mut row).await?;
    let creative = match problems.required("creative_id", body.creative_id) {
        Some(Ref(id)) => find_creative(&state, &user, &mut problems, &id).await?,
        None => None,
    };
    let location = match problems.required("location_id", body.location_id) {
        Some(Ref(id)) => find_location(&state, &user, &mut problems, "location_id", &id).await?,
        None => None,
    };
    if let Some(location) = &location {
        check_render_quad(&mut problems, &row, location);
    }
    problems.finish()?;
    let (Some(creative), Some(location)) = (creative, location) else {
        return Err(ApiError::internal(
            "simulation validation let a missing field through",
        ));
    };
    row.creative_id = creative.creative.id.clone();
    row.location_id = location.location.id.clone();
    row.name = match body.name {
        Patch::Value(Line(name)) => name,
        _ => default_name(&creative, &location),
    };
    let job_id = render.then(|| uuid::Uuid::new_v4().to_string());
    let id = row.id.clone();
    service::create(
        &state.job_context(),
        user.id(),
        &[NewSimulation { row, job_id }],
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(respond(&state, &user, &id).await?),
    ))
}

/// `POST /simulations/batch {creative_id, location_ids, fit?, adjustments?, background?}` →
/// 201 `{items}`: one queued simulation per location, in the given order, in one transaction.
#[utoipa::path(
    post,
    path = "/simulations/batch",
    tag = "simulations",
    request_body = BatchFields,
    responses((status = 201, description = "One simulation per location", body = SimulationBatch))
)]
async fn batch(
    State(state): State<AppState>,
    user: ApiUser,
    Body(body, mut problems): Body<BatchFields>,
) -> Result<(StatusCode, Json<SimulationBatch>), ApiError> {
    let creative_id = problems.required("creative_id", body.creative_id);
    let location_ids = problems
        .required("location_ids", body.location_ids)
        .map(|ids| ids.0);
    let now = db::now_ms();
    let mut template = new_row(&user, "", "", true, now);
    apply_look(
        &mut problems,
        &mut template,
        body.fit,
        body.background,
        body.adjustments,
        &default_adjustments(),
    )?;
    let creative = match creative_id {
        Some(Ref(id)) => find_creative(&state, &user, &mut problems, &id).await?,
        None => None,
    };
    let mut locations = Vec::new();
    for id in location_ids.iter().flatten() {
        let Some(location) =
            find_location(&state, &user, &mut problems, "location_ids", id).await?
        else {
            break;
        };
        // The batch has no quad override: each location's own quad is used.
        let mut probe = Problems::default();
        check_render_quad(&mut probe, &template, &location);
        if probe.has("quad") {
            let code = if location.location.panel_quad.is_none() {
                FieldCode::RequiresQuad
            } else {
                FieldCode::TooSmall
            };
            problems.add("location_ids", code);
            break;
        }
        locations.push(location);
    }
    problems.finish()?;
    let Some(creative) = creative else {
        return Err(ApiError::internal(
            "batch validation let a missing creative through",
        ));
    };
    let new: Vec<NewSimulation> = locations
        .iter()
        .enumerate()
        .map(|(i, location)| {
            let mut row = template.clone();
            row.id = uuid::Uuid::new_v4().to_string();
            row.render_token = Some(uuid::Uuid::new_v4().to_string());
            row.name = default_name(&creative, location);
            row.creative_id = creative.creative.id.clone();
            row.location_id = location.location.id.clone();
            // One millisecond apart, so "newest first" keeps the batch's order reversed and
            // stable rather than tied.
            row.created_at = now + i as i64;
            row.updated_at = row.created_at;
            NewSimulation {
                row,
                job_id: Some(uuid::Uuid::new_v4().to_string()),
            }
        })
        .collect();
    service::create(&state.job_context(), user.id(), &new).await?;
    let ids: Vec<&str> = new.iter().map(|n| n.row.id.as_str()).collect();
    let mut items = Vec::with_capacity(ids.len());
    for id in &ids {
        items.push(respond(&state, &user, id).await?);
    }
    Ok((StatusCode::CREATED, Json(SimulationBatch { items })))
}

/// `GET /simulations?limit=&cursor=&q=&creative_id=&location_id=` → `{items, next_cursor}`.
#[utoipa::path(
    get,
    path = "/simulations",
    tag = "simulations",
    params(ListParams, SimulationFilters),
    responses((status = 200, description = "One page of simulations, newest first", body = Paged<Simulation>))
)]
async fn list(
    State(state): State<AppState>,
    user: ApiUser,
    list: ListQuery,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<Paged<Simulation>>, ApiError> {
    // A filter id that is not a uuid matches nothing, like another user's id.
    let filter_id = |key: &str| {
        params.get(key).filter(|v| !v.trim().is_empty()).map(|v| {
            uuid::Uuid::parse_str(v.trim())
                .map(|id| id.hyphenated().to_string())
                .unwrap_or_else(|_| "-".into())
        })
    };
    let (creative_id, location_id) = (filter_id("creative_id"), filter_id("location_id"));
    let filter = ListFilter {
        creative_id: creative_id.as_deref(),
        location_id: location_id.as_deref(),
    };
    let rows = sdb::list(
        &state.db,
        user.id(),
        list.page.limit,
        list.after(),
        &list.q,
        &filter,
    )
    .await?;
    let now = now_secs();
    Ok(Json(list.page.paged(
        rows,
        |v| (v.sim.created_at, v.sim.id.as_str()),
        |v| simulation_body(&state, v, now),
    )))
}

/// `GET /simulations/{id}`.
#[utoipa::path(
    get,
    path = "/simulations/{id}",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 200, description = "The simulation", body = Simulation))
)]
async fn get_one(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Simulation>, ApiError> {
    let view = find(&state, &user, &id).await?;
    Ok(Json(simulation_body(&state, &view, now_secs())))
}

/// `PATCH /simulations/{id}`: absent fields stay, `null` clears (`quad`: back to the
/// location's; `mask_media_id`: none; `adjustments`: defaults). Any change queues a new render
/// (new token: a render in flight is discarded when it saves) unless `render: false`, which
/// leaves a `draft` when render settings changed.
#[utoipa::path(
    patch,
    path = "/simulations/{id}",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    request_body = SimulationChanges,
    responses((status = 200, description = "The simulation, changed", body = Simulation))
)]
async fn update(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
    Body(body, mut problems): Body<SimulationChanges>,
) -> Result<Json<Simulation>, ApiError> {
    let view = find(&state, &user, &id).await?;
    let before = view.sim.clone();
    let mut row = before.clone();
    if let Some(Line(name)) = problems.not_null("name", body.name) {
        row.name = name;
    }
    let render = match body.render {
        Patch::Value(render) => Some(render),
        Patch::Absent | Patch::Null => None,
    };
    let settings = Settings {
        quad: body.quad,
        fit: body.fit,
        background: body.background,
        adjustments: body.adjustments,
        mask_media_id: body.mask_media_id,
    };
    read_settings(&state, &user, &mut problems, settings, &mut row).await?;
    if let Some(Ref(id)) = problems.not_null("creative_id", body.creative_id)
        && find_creative(&state, &user, &mut problems, &id)
            .await?
            .is_some()
    {
        row.creative_id = id;
    }
    let location = match body.location_id {
        Patch::Value(Ref(id)) => {
            find_location(&state, &user, &mut problems, "location_id", &id).await?
        }
        Patch::Null => {
            problems.require("location_id");
            None
        }
        Patch::Absent => db::locations::find(&state.db, user.id(), &row.location_id).await?,
    };
    if let Some(location) = &location {
        row.location_id = location.location.id.clone();
        check_render_quad(&mut problems, &row, location);
    }
    problems.finish()?;
    let settings_changed = row.creative_id != before.creative_id
        || row.location_id != before.location_id
        || row.quad != before.quad
        || row.fit != before.fit
        || row.background != before.background
        || row.adjustments != before.adjustments
        || row.mask_media_id != before.mask_media_id;
    let changed = settings_changed || row.name != before.name;
    let change = match render {
        Some(false) if settings_changed => RenderChange::Draft,
        Some(false) => RenderChange::Keep,
        Some(true) => RenderChange::Queue {
            job_id: uuid::Uuid::new_v4().to_string(),
        },
        None if changed => RenderChange::Queue {
            job_id: uuid::Uuid::new_v4().to_string(),
        },
        None => RenderChange::Keep,
    };
    match change {
        RenderChange::Keep => {}
        RenderChange::Draft => {
            row.status = SimulationStatus::Draft.as_str().into();
            row.render_token = None;
            row.error_code = None;
            row.error_message = None;
        }
        RenderChange::Queue { .. } => {
            row.status = SimulationStatus::Queued.as_str().into();
            row.render_token = Some(uuid::Uuid::new_v4().to_string());
            row.error_code = None;
            row.error_message = None;
        }
    }
    row.updated_at = db::now_ms().max(row.updated_at);
    if !service::update(&state.job_context(), user.id(), &before, &row, &change).await? {
        return Err(ApiError::not_found());
    }
    Ok(Json(respond(&state, &user, &row.id).await?))
}

/// `DELETE /simulations/{id}` → 204; its jobs go with it, its output and mask are released
/// (a render that a heatmap uses stays there).
#[utoipa::path(
    delete,
    path = "/simulations/{id}",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    if service::delete(&state.job_context(), user.id(), &id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found())
    }
}

/// `POST /simulations/{id}/render` → 202, queued again (after a failure, or to redo a draft);
/// 409 `already_rendering` while queued or rendering.
#[utoipa::path(
    post,
    path = "/simulations/{id}/render",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 202, description = "The simulation, queued", body = Simulation))
)]
async fn render(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<(StatusCode, Json<Simulation>), ApiError> {
    let view = find(&state, &user, &id).await?;
    // The settings may have become unrenderable since (the location's photo was removed).
    let mut problems = Problems::default();
    match db::locations::find(&state.db, user.id(), &view.sim.location_id).await? {
        Some(location) if location.photo.is_some() => {
            check_render_quad(&mut problems, &view.sim, &location)
        }
        _ => problems.add("location_id", FieldCode::RequiresPhoto),
    }
    problems.finish()?;
    let id = view.sim.id;
    match service::queue_render(&state.job_context(), user.id(), &id).await? {
        Render::NotFound => return Err(ApiError::not_found()),
        Render::AlreadyRendering => return Err(ApiError::new(ErrorCode::AlreadyRendering)),
        Render::Queued => {}
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(respond(&state, &user, &id).await?),
    ))
}

/// `POST /simulations/{id}/attention` → 202 `{heatmap_id}`: a one-image heatmap of the current
/// output, with the panel's quad as its area of interest; 409 `not_rendered` without output.
#[utoipa::path(
    post,
    path = "/simulations/{id}/attention",
    tag = "simulations",
    params(("id" = String, Path, description = "The simulation's id")),
    responses((status = 202, description = "The heatmap the analysis is queued in", body = AttentionQueued))
)]
async fn attention(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<(StatusCode, Json<AttentionQueued>), ApiError> {
    let view = find(&state, &user, &id).await?;
    let not_rendered = || ApiError::new(ErrorCode::NotRendered);
    let output: &MediaRow = view.output.as_ref().ok_or_else(not_rendered)?;
    let location_quad = view.location.as_ref().and_then(|l| l.panel_quad.as_deref());
    let aoi = view
        .sim
        .quad
        .as_deref()
        .or(location_quad)
        .and_then(quad::read_stored)
        .map(|quad| quad_json(&quad).to_string())
        .ok_or_else(not_rendered)?;
    let heatmap_id =
        service::analyse(&state.job_context(), user.id(), &view.sim.name, output, aoi).await?;
    Ok((StatusCode::ACCEPTED, Json(AttentionQueued { heatmap_id })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(body: Value) -> (SimulationChanges, String) {
        let (fields, problems) =
            read_object::<SimulationChanges>(body.as_object().unwrap().clone()).unwrap();
        let errors = format!("{:?}", problems.finish().err());
        (fields, errors)
    }

    #[test]
    fn adjustments_are_checked_per_key() {
        let (fields, errors) = read(
            json!({"adjustments": {"brightness": 2, "grain": "x", "night": "day", "bogus": 1,
                                   "contrast": 0.5}}),
        );
        assert!(matches!(
            fields.adjustments,
            Patch::Value(AdjustmentsInput(None))
        ));
        for key in [
            "adjustments.brightness",
            "adjustments.grain",
            "adjustments.night",
            "adjustments.bogus",
        ] {
            assert!(errors.contains(key), "{key} in {errors}");
        }
        assert!(!errors.contains("adjustments.contrast"), "{errors}");
        let (fields, errors) = read(json!({"adjustments": {"contrast": 0.5, "night": "led"}}));
        assert_eq!(errors, "None");
        let Patch::Value(AdjustmentsInput(Some(changes))) = fields.adjustments else {
            panic!("adjustments not read");
        };
        let merged = changes.apply(&default_adjustments());
        assert_eq!(merged.contrast, 0.5);
        assert_eq!(merged.night, Some(Night::Led));
        assert!(merged.auto_match, "absent keys keep their current value");
    }
}
