//! Perspective rendering: a creative placed on a panel quad of a site photo, filtered without
//! aliasing, adjusted and lit, composited in linear light. The maths are specified in
//! `docs/architecture/rendering.md`, which the browser preview implements as well.
//!
//! SKELETON: the types are the contract; `render` is a placeholder to be replaced.

use serde::{Deserialize, Serialize};

use crate::image::RgbImage;

/// How the creative fills the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fit {
    /// The whole creative stretched to the panel's corners.
    Stretch,
    /// Cropped (centred) to the panel's aspect, then filling the panel.
    #[default]
    Cover,
    /// Whole, centred, the background colour around it.
    Contain,
}

/// Night lighting of the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Night {
    /// Backlit paper in a light box.
    Backlit,
    /// An emissive LED screen.
    Led,
}

/// Adjustments of the panel. Every field defaults to "unchanged"; ranges in rendering.md §3.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Adjustments {
    /// −1..1: exposure, ±1.5 stops.
    pub brightness: f32,
    /// −1..1: contrast around linear mid-grey.
    pub contrast: f32,
    /// −1..1: −1 is grey.
    pub saturation: f32,
    /// −1..1: cooler to warmer.
    pub warmth: f32,
    /// −1..1: negative blurs, positive sharpens.
    pub sharpness: f32,
    /// 0..1: grain, 1 = the photo's own noise level.
    pub grain: f32,
    /// 0..1: strength of a soft specular band.
    pub glare: f32,
    /// Match the creative's exposure and colour cast to the photo around the panel.
    pub auto_match: bool,
    /// Night mode, or day when `None`.
    pub night: Option<Night>,
}

/// Everything that decides a render besides the pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderSpec {
    /// Panel corners in photo pixels (continuous coordinates), clockwise from top-left.
    pub quad: [[f64; 2]; 4],
    /// How the creative fills the panel.
    pub fit: Fit,
    /// Background colour (sRGB) around the creative in `contain` mode.
    pub background: [u8; 3],
    /// The panel's width / height when known (else estimated from the quad).
    pub panel_aspect: Option<f64>,
    /// Colour, sharpness, grain, glare, matching and lighting.
    pub adjustments: Adjustments,
}

/// A borrowed 8-bit grey occlusion mask (255 = in front of the panel), any size; it is
/// stretched over the whole photo.
#[derive(Debug, Clone, Copy)]
pub struct Mask<'a> {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width * height` bytes, row by row.
    pub data: &'a [u8],
}

/// Why a render cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum RenderError {
    /// The quad is not convex and clockwise (or is self-intersecting).
    NotConvex,
    /// A corner lies outside the photo.
    OutsidePhoto,
    /// The quad covers less than 4 px².
    TooSmall,
    /// A value is not finite or out of its range (the field's name).
    InvalidValue(&'static str),
    /// The mask's buffer does not match its size.
    InvalidMask,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::NotConvex => write!(f, "the quad is not convex and clockwise"),
            RenderError::OutsidePhoto => write!(f, "a corner of the quad is outside the photo"),
            RenderError::TooSmall => write!(f, "the quad covers less than 4 square pixels"),
            RenderError::InvalidValue(field) => write!(f, "{field} is out of range"),
            RenderError::InvalidMask => write!(f, "the mask's buffer does not match its size"),
        }
    }
}

impl std::error::Error for RenderError {}

/// Renders `creative` onto `photo` (see rendering.md). Returns RGB8 pixels of the photo's size.
pub fn render(
    photo: &RgbImage<'_>,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
) -> Result<Vec<u8>, RenderError> {
    // Placeholder until the renderer lands: the photo unchanged.
    let _ = (creative, mask, spec);
    Ok(photo.data().to_vec())
}
