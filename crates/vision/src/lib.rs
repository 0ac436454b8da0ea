//! Pure pixel work for Regard: attention (saliency) prediction, its metrics, scores and overlays,
//! and perspective rendering (`composite`).
//!
//! Invariant: this crate does no I/O, no async and knows nothing of the web. It takes decoded
//! pixels in memory and returns pixels and plain data, so it can be benchmarked, fuzzed and used
//! from the command line as easily as from the server's workers.
//!
//! Entry point: [`predict`] turns an [`RgbImage`] into a [`Prediction`] (the attention map at
//! working size, summing to 1, plus faces and text-like regions) with the default model, v2
//! ([`deep`]); [`predict_model`] chooses the model (v2 or the classical [`model`]) and threads;
//! [`analysis::analyse`] reads scores and hotspots from it; [`render`] draws the grey map,
//! overlay and fog at any size.

// Numeric kernels index several parallel buffers by the same position; index loops say that
// more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod analysis;
pub mod annotate;
pub mod blur;
pub mod composite;
pub mod deep;
pub mod faces;
pub mod features;
pub mod fit;
pub mod image;
pub mod metrics;
pub mod model;
pub mod render;
pub mod text;

pub use analysis::{Analysis, AreaShare, Hotspot, Rect, analyse};
pub use image::{Plane, RgbImage};
pub use model::Params;

/// Errors for inputs the engine cannot work on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VisionError {
    /// Width or height is zero.
    Empty,
    /// More pixels than [`image::MAX_PIXELS`].
    TooLarge {
        /// Width in pixels.
        width: usize,
        /// Height in pixels.
        height: usize,
    },
    /// The pixel buffer does not match the dimensions.
    BufferSize {
        /// Bytes expected (width × height × 3).
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
}

impl std::fmt::Display for VisionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VisionError::Empty => write!(f, "image has zero width or height"),
            VisionError::TooLarge { width, height } => write!(
                f,
                "image is {width}×{height}, more than {} pixels",
                image::MAX_PIXELS
            ),
            VisionError::BufferSize { expected, actual } => {
                write!(f, "pixel buffer has {actual} bytes, expected {expected}")
            }
        }
    }
}

impl std::error::Error for VisionError {}

/// The model's output for one image.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// Predicted fixation density at working size (longer side [`model::WORK_LONG_SIDE`]),
    /// summing to 1: all fixations, about three seconds of free viewing ("exploration").
    /// Upsample with [`render`] or [`Plane::resize_bilinear`].
    pub map: Plane,
    /// Predicted density of the fixations that start within the first second ("first
    /// glance"), same size, summing to 1. The classical model has no such readout: its glance
    /// is its full map.
    pub glance: Plane,
    /// Faces found.
    pub faces: Vec<faces::Face>,
    /// Text-like regions found.
    pub texts: Vec<text::TextRegion>,
}

/// The attention models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Model {
    /// Attention model v3 ([`deep`]): a frozen EfficientNet-Lite1 and readouts learned from
    /// eye fixations, with a first-second head. The default.
    #[default]
    V3,
    /// The classical model ([`model`]): hand-made features with fitted weights, kept for
    /// comparison.
    Classical,
}

/// Predicts where people look in `img` with the default model ([`Model::V3`]), on one thread.
pub fn predict(img: &RgbImage<'_>) -> Prediction {
    predict_model(img, Model::default(), 1)
}

/// Predicts with the given model; v3 uses up to `threads` threads (the same result for any
/// number), the classical model one.
pub fn predict_model(img: &RgbImage<'_>, model: Model, threads: usize) -> Prediction {
    match model {
        Model::V3 => deep::predict_threads(img, threads),
        Model::Classical => predict_with(img, &Params::fitted()),
    }
}

/// Predicts with the classical model and explicit parameters (used by fitting and
/// cross-validation).
pub fn predict_with(img: &RgbImage<'_>, params: &Params) -> Prediction {
    let fs = model::compute_features_for(img, Some(&params.weights));
    let map = model::combine(&fs, params);
    Prediction {
        glance: map.clone(),
        map,
        faces: fs.faces,
        texts: fs.texts,
    }
}
