//! What the simulation endpoints answer: a simulation with its creative, location, render,
//! downloads and latest attention analysis, URLs signed.

use serde::Serialize;
use utoipa::ToSchema;

use super::super::heatmaps::ItemStatus;
use super::super::input::rfc3339;
use super::super::locations::{Illumination, PanelFormat, QuadPoint, ViewingBody, stored_quad};
use super::super::media::{Media, media_body};
use super::look::{AdjustmentsBody, FitMode, default_adjustments};
use crate::codes::JobErrorCode;
use crate::db::simulations::SimulationView;
use crate::heatmaps::result::PanelShare;
use crate::media::signing::MemberSigner;
use crate::ooh::{self, Audience, Conditions, Fit, Reading};
use crate::simulations::SimulationStatus;
use crate::simulations::legibility;
use crate::state::AppState;

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
    /// The location's viewing conditions (see `Location`).
    pub audience: Option<Audience>,
    pub viewing_distance_min_m: Option<f64>,
    pub viewing_distance_max_m: Option<f64>,
    pub speed_kmh: Option<f64>,
    /// The location's contacts a day and where they come from (see `Location`).
    pub daily_contacts: Option<i64>,
    pub audience_source: Option<String>,
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

/// How many of the site's passers-by will notice this creative (docs/viewing.md, audiences).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct SimulationAudience {
    /// The location's contacts a day; `null` when unknown.
    pub daily_contacts: Option<i64>,
    /// The contacts a day who look at the panel within the first second: `daily_contacts` ×
    /// `attention.first_second_probability`, rounded; `null` without contacts or before the
    /// render's attention analysis is done.
    pub noticed_per_day: Option<i64>,
}

impl SimulationAudience {
    /// The audience of a site with `daily_contacts` whose panel is looked at within the first
    /// second with probability `first_second`.
    pub fn of(daily_contacts: Option<i64>, first_second: Option<f64>) -> Self {
        Self {
            daily_contacts,
            noticed_per_day: daily_contacts
                .zip(first_second)
                .map(|(c, p)| (c as f64 * p.clamp(0.0, 1.0)).round() as i64),
        }
    }
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
    /// The location's contacts a day and how many of them notice the panel in the first
    /// second.
    pub audience: SimulationAudience,
    /// The creative's texts on the panel: their size, from how far they can be read, and the
    /// main text's time in view (docs/viewing.md). On the answers about one simulation, when
    /// the location has its physical size; `null` in lists.
    pub legibility: Option<SimulationLegibility>,
    /// RFC 3339.
    pub rendered_at: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

wire_enum! {
    /// Over which part of the approach a text can be read.
    pub enum ReadingCode {
        /// From the farthest viewing distance on: all the way.
        Whole = "whole";
        /// Only nearer than the farthest viewing distance.
        Part = "part";
        /// Not even from the nearest viewing distance.
        Never = "never";
    }
}

/// A line of text of the creative, on the panel.
#[derive(Debug, Serialize, ToSchema)]
pub struct PanelText {
    /// The line's box in the creative, relative to it (0..1).
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// The letters' height on the panel, in millimetres.
    pub letter_height_mm: f64,
    /// The farthest distance from which it can be read at all, in metres (10′ of arc).
    pub legible_distance_m: f64,
    /// The farthest distance from which it reads comfortably, in metres (20′ of arc).
    pub comfortable_distance_m: f64,
    /// How much of the line the panel shows, 0..1 (`cover` may crop it).
    pub shown: f64,
    /// Over which part of the approach it can be read; `null` without a distance range.
    pub reading: Option<ReadingCode>,
    /// The letter height needed to be read from the farthest viewing distance, in millimetres.
    pub needed_mm: Option<f64>,
}

/// The creative's texts on the panel and the main text's time in view.
#[derive(Debug, Serialize, ToSchema)]
pub struct SimulationLegibility {
    /// The lines of text found in the creative, largest letters first.
    pub texts: Vec<PanelText>,
    /// The main text (the largest the panel shows at least half of) under the location's
    /// viewing conditions; `null` without a distance range, or a speed or an audience.
    pub viewing: Option<ViewingBody>,
}

/// The legibility of a simulation's creative on its location's panel; `None` without a
/// creative, a panel size, or when the creative's lines cannot be read (logged).
pub(in crate::http::api) async fn legibility(
    state: &AppState,
    view: &SimulationView,
) -> Option<SimulationLegibility> {
    let (creative, location) = (view.creative.as_ref()?, view.location.as_ref()?);
    let panel_mm = (
        ooh::cm_to_mm(location.panel_width_cm?),
        ooh::cm_to_mm(location.panel_height_cm?),
    );
    let media = &creative.media;
    let lines = match legibility::lines_of(&state.db, state.storage.as_ref(), media).await {
        Ok(lines) => lines,
        Err(err) => {
            tracing::warn!(media_id = %media.id, error = %err, "no lines of text for legibility");
            return None;
        }
    };
    let fit = match FitMode::parse(&view.sim.fit).unwrap_or(FitMode::Cover) {
        FitMode::Stretch => Fit::Stretch,
        FitMode::Cover => Fit::Cover,
        FitMode::Contain => Fit::Contain,
    };
    let conditions = Conditions {
        audience: location.audience.as_deref().and_then(Audience::parse),
        distance_min_m: location.viewing_distance_min_m,
        distance_max_m: location.viewing_distance_max_m,
        speed_kmh: location.speed_kmh,
    };
    let creative_px = (media.width as f64, media.height as f64);
    let assessment = legibility::assess(&lines, creative_px, panel_mm, fit, &conditions);
    let round = |v: f64, places: i32| {
        let k = 10f64.powi(places);
        (v * k).round() / k
    };
    Some(SimulationLegibility {
        texts: assessment
            .texts
            .iter()
            .map(|t| PanelText {
                x: round(f64::from(t.line.x), 4),
                y: round(f64::from(t.line.y), 4),
                width: round(f64::from(t.line.width), 4),
                height: round(f64::from(t.line.height), 4),
                letter_height_mm: round(t.letter_mm, 1),
                legible_distance_m: round(t.legible_m, 1),
                comfortable_distance_m: round(ooh::comfortable_distance_m(t.letter_mm), 1),
                shown: round(t.shown, 3),
                reading: t.reading.map(|r| match r {
                    Reading::Whole => ReadingCode::Whole,
                    Reading::Part => ReadingCode::Part,
                    Reading::Never => ReadingCode::Never,
                }),
                needed_mm: t.needed_mm.map(|v| round(v, 1)),
            })
            .collect(),
        viewing: assessment.viewing.map(ViewingBody::from),
    })
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

/// The simulation answered (simulations.md), with signed URLs.
pub(in crate::http::api) fn simulation_body(
    signer: &MemberSigner,
    view: &SimulationView,
    now: u64,
) -> Simulation {
    let s = &view.sim;
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
        audience: l.audience.as_deref().and_then(Audience::parse),
        viewing_distance_min_m: l.viewing_distance_min_m,
        viewing_distance_max_m: l.viewing_distance_max_m,
        speed_kmh: l.speed_kmh,
        daily_contacts: l.daily_contacts,
        audience_source: l.audience_source.clone(),
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
    let audience = SimulationAudience::of(
        view.location.as_ref().and_then(|l| l.daily_contacts),
        attention.as_ref().and_then(|a| a.first_second_probability),
    );
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
        legibility: None,
        downloads,
        attention,
        audience,
        rendered_at: s.rendered_at.map(rfc3339),
        created_at: rfc3339(s.created_at),
        updated_at: rfc3339(s.updated_at),
    }
}

#[cfg(test)]
mod tests {
    use super::SimulationAudience;

    #[test]
    fn noticed_contacts_are_the_contacts_times_the_first_second_probability() {
        let a = SimulationAudience::of(Some(10_000), Some(0.4242));
        assert_eq!(a.noticed_per_day, Some(4_242));
        assert_eq!(
            SimulationAudience::of(None, Some(0.5)).noticed_per_day,
            None
        );
        assert_eq!(SimulationAudience::of(Some(10), None).noticed_per_day, None);
        assert_eq!(
            SimulationAudience::of(Some(0), Some(0.9)).noticed_per_day,
            Some(0)
        );
    }
}
