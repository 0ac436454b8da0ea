//! The look of a simulation: how the creative fills the panel, its adjustments (as answered,
//! and as a change read key by key) and the background colour around it.

use regard_vision::composite::{Adjustments, Night, View, view};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::super::body::{FromField, Patch, read_object, report};
use crate::codes::FieldCode;

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
pub(super) fn default_adjustments() -> Adjustments {
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
    /// Match the creative's exposure and colour cast to the light of the photo (its white surfaces).
    pub auto_match: bool,
    /// Night lighting, or `null` for day.
    pub night: Option<NightMode>,
    /// The panel as seen from a distance, passing at a speed (rendering.md §2), or `null` for
    /// the plain render. Needs the location's panel size.
    pub view: Option<ViewBody>,
}

/// Where the viewer of a view from a distance is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewBody {
    /// Distance to the panel, metres: 1 to 1,000.
    #[schema(minimum = 1, maximum = 1000)]
    pub distance_m: f64,
    /// Speed past the panel, km/h: 0 (standing) to 200.
    #[schema(minimum = 0, maximum = 200)]
    pub speed_kmh: f64,
}

/// An object of exactly `distance_m` and `speed_kmh`, numbers in their ranges: else
/// `invalid_type` (not such an object) or `out_of_range`.
impl FromField for ViewBody {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        let body: ViewBody = serde_json::from_value(value).map_err(|_| FieldCode::InvalidType)?;
        let (d, v) = (body.distance_m as f32, body.speed_kmh as f32);
        if body.distance_m.is_finite()
            && body.speed_kmh.is_finite()
            && view::DISTANCE_M.contains(&d)
            && view::SPEED_KMH.contains(&v)
        {
            Ok(Some(body))
        } else {
            Err(FieldCode::OutOfRange)
        }
    }
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
            view: a.view.map(|v| ViewBody {
                distance_m: f64::from(v.distance_m),
                speed_kmh: f64::from(v.speed_kmh),
            }),
        }
    }
}

/// A change of the adjustments: any subset of their keys, the others keep their values. Each
/// problem is reported as `adjustments.<key>`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct AdjustmentsChanges {
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
    /// Match the creative's exposure and colour cast to the light of the photo (its white surfaces).
    #[serde(default)]
    #[schema(value_type = bool)]
    auto_match: Patch<bool>,
    /// Night lighting, or `null` for day.
    #[serde(default)]
    #[schema(value_type = Option<NightMode>)]
    night: Patch<NightMode>,
    /// The panel as seen from a distance, or `null` for the plain render.
    #[serde(default)]
    #[schema(value_type = Option<ViewBody>)]
    view: Patch<ViewBody>,
}

/// The `adjustments` of a body, checked key by key: `None` once any key had a problem (all of
/// them reported, nothing applied).
#[derive(Debug)]
pub(super) struct AdjustmentsInput(pub(super) Option<AdjustmentsChanges>);

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
    pub(super) fn apply(self, current: &Adjustments) -> Adjustments {
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
        a.view = match self.view {
            Patch::Value(v) => Some(View {
                distance_m: v.distance_m as f32,
                speed_kmh: v.speed_kmh as f32,
            }),
            Patch::Null => None,
            Patch::Absent => a.view,
        };
        a
    }
}
