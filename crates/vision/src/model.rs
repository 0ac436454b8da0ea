//! The attention model: feature extraction on a downscaled copy, then a fitted log-linear
//! combination, a final blur, and normalisation to a probability map.
//!
//! Pipeline, for an input of any size:
//! 1. one area-average pass from the full-resolution bytes to a *detail* copy (longer side
//!    [`DETAIL_LONG_SIDE`]); faces and text-like regions are searched in its grey version;
//! 2. the *working* image (longer side [`WORK_LONG_SIDE`]) is the detail copy halved; all feature
//!    maps are computed there and scaled to 0..1 by their maximum (faces and text are 0/1 already);
//! 3. the map is `exp(Σ wₖ·featureₖ + w_u2·u² + w_v2·v² + w_v·v)` (u, v: offsets from the centre in units of
//!    width and height — the three centre weights make a fitted anisotropic Gaussian centre prior, possibly shifted
//!    vertically,
//!    and the exponential is the fitted monotonic mapping from feature scores to fixation density),
//!    blurred by a Gaussian of `final_blur × longer side`, and scaled to sum to 1.

use crate::blur::gaussian;
use crate::faces::{self, Face};
use crate::features;
use crate::image::{Plane, RgbImage, downscale_rgb, working_size};
use crate::text::{self, TextRegion};
use serde::{Deserialize, Serialize};

/// Longer side of the working image, in pixels.
pub const WORK_LONG_SIDE: usize = 256;
/// Longer side of the detail copy used for faces and text, in pixels.
pub const DETAIL_LONG_SIDE: usize = 512;

/// Names of the model's inputs, in the order of [`Params::weights`].
pub const FEATURE_NAMES: [&str; NF] = [
    "intensity_contrast",
    "colour_contrast",
    "edge_energy",
    "image_signature",
    "spectral_residual",
    "colour_rarity",
    "boolean_map",
    "faces",
    "text",
    "centre_u2",
    "centre_v2",
    "centre_v",
];
/// Number of model inputs.
pub const NF: usize = 12;

/// The model's fitted parameters, stored in `params.json` next to this file and embedded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Params {
    /// Feature names, in the order of `weights` (must equal [`FEATURE_NAMES`]).
    pub features: Vec<String>,
    /// One weight per feature in the exponent of the map.
    pub weights: Vec<f64>,
    /// Standard deviation of the final blur, as a fraction of the working image's longer side.
    pub final_blur: f64,
    /// How these values were obtained (data set, command, date), for the record.
    pub provenance: String,
}

static PARAMS_JSON: &str = include_str!("params.json");

impl Params {
    /// The fitted parameters shipped with the crate.
    pub fn fitted() -> Params {
        let p: Params = serde_json::from_str(PARAMS_JSON).expect("embedded params.json is valid");
        p.validate()
            .expect("embedded params.json matches the model");
        p
    }

    /// Checks that the parameters fit this version of the model.
    pub fn validate(&self) -> Result<(), String> {
        if self.features.len() != NF
            || self.weights.len() != NF
            || self.features.iter().zip(FEATURE_NAMES).any(|(a, b)| a != b)
        {
            return Err(format!("expected features {FEATURE_NAMES:?}"));
        }
        if !self.weights.iter().all(|w| w.is_finite()) || !(0.0..=0.5).contains(&self.final_blur) {
            return Err("weights must be finite and final_blur within 0..0.5".into());
        }
        Ok(())
    }
}

/// Every input of the model for one image, at working size.
#[derive(Debug, Clone)]
pub struct FeatureSet {
    /// Working width.
    pub width: usize,
    /// Working height.
    pub height: usize,
    /// [`NF`] planes in the order of [`FEATURE_NAMES`].
    pub maps: Vec<Plane>,
    /// Faces found (boxes relative to the image).
    pub faces: Vec<Face>,
    /// Text-like regions found (boxes relative to the image).
    pub texts: Vec<TextRegion>,
}

/// Computes all feature maps of an image.
pub fn compute_features(img: &RgbImage<'_>) -> FeatureSet {
    compute_features_for(img, None)
}

/// The faces and text-like regions of an image, searched on the grey version (ITU-R BT.601
/// luma) of its detail copy (the image area-averaged to [`DETAIL_LONG_SIDE`]). Both models
/// report them.
pub fn search_faces_and_text(detail: &[Plane; 3]) -> (Vec<Face>, Vec<TextRegion>) {
    let (w, h) = (detail[0].width, detail[0].height);
    let grey = Plane {
        width: w,
        height: h,
        data: (0..w * h)
            .map(|i| {
                0.299 * detail[0].data[i] + 0.587 * detail[1].data[i] + 0.114 * detail[2].data[i]
            })
            .collect(),
    };
    (faces::detect(&grey), text::detect(&grey))
}

/// Computes the feature maps an image needs under `weights` (all when `None`). A feature whose
/// weight is 0 contributes nothing, so its map is left at zero instead of computed; faces and
/// text regions are always searched (the analysis reports them).
pub fn compute_features_for(img: &RgbImage<'_>, weights: Option<&[f64]>) -> FeatureSet {
    let need = |k: usize| weights.is_none_or(|w| w[k] != 0.0);
    let (dw, dh) = working_size(img.width(), img.height(), DETAIL_LONG_SIDE);
    let (w, h) = working_size(img.width(), img.height(), WORK_LONG_SIDE);
    let detail = downscale_rgb(img, dw, dh);
    let (found_faces, texts) = search_faces_and_text(&detail);
    let rgb = [
        detail[0].resize_area(w, h),
        detail[1].resize_area(w, h),
        detail[2].resize_area(w, h),
    ];
    drop(detail);
    let long = w.max(h);
    let lab = features::to_lab(&rgb);
    let scales = [0.02f32, 0.05, 0.1];
    let skip = || Plane::filled(w, h, 0.0);
    let mut maps = vec![
        if need(0) {
            features::centre_surround(&[&lab[0]], long, &scales)
        } else {
            skip()
        },
        if need(1) {
            features::centre_surround(&[&lab[1], &lab[2]], long, &scales)
        } else {
            skip()
        },
        if need(2) {
            features::edge_energy(&lab[0], long)
        } else {
            skip()
        },
        if need(3) {
            features::signature(&lab)
        } else {
            skip()
        },
        // The spectral residual is also the evaluation's baseline: always computed.
        features::spectral_residual(&lab[0], w, h),
        if need(5) {
            features::colour_rarity(&lab, long)
        } else {
            skip()
        },
        if need(6) {
            features::boolean_map(&lab, long)
        } else {
            skip()
        },
        faces::face_map(&found_faces, w, h),
        {
            let mut t = text::text_map(&texts, w, h);
            gaussian(&mut t, 0.01 * long as f32);
            t
        },
    ];
    for m in maps.iter_mut() {
        m.normalize_max();
    }
    let (u2, v2) = features::centre_offsets(w, h);
    let mut v = v2.clone();
    for (y, row) in v.data.chunks_exact_mut(w).enumerate() {
        row.fill((y as f32 + 0.5) / h as f32 - 0.5);
    }
    maps.push(u2);
    maps.push(v2);
    maps.push(v);
    FeatureSet {
        width: w,
        height: h,
        maps,
        faces: found_faces,
        texts,
    }
}

/// Linear score `Σ wₖ·featureₖ` at every pixel.
pub fn linear_score(maps: &[Plane], weights: &[f64]) -> Plane {
    let (w, h) = (maps[0].width, maps[0].height);
    let mut s = Plane::filled(w, h, 0.0);
    for (m, &wk) in maps.iter().zip(weights) {
        if wk == 0.0 {
            continue;
        }
        let wk = wk as f32;
        for (o, &v) in s.data.iter_mut().zip(&m.data) {
            *o += wk * v;
        }
    }
    s
}

/// Turns a linear score into the final map: exponential, blur (`final_blur` × longer side),
/// normalised to sum 1.
pub fn score_to_map(mut s: Plane, final_blur: f64) -> Plane {
    let m = s.data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    s.data.iter_mut().for_each(|v| *v = (*v - m).exp());
    let sigma = (final_blur * s.width.max(s.height) as f64) as f32;
    gaussian(&mut s, sigma);
    s.normalize_sum();
    s
}

/// Combines precomputed features with `params` into an attention map (sums to 1).
pub fn combine(fs: &FeatureSet, params: &Params) -> Plane {
    score_to_map(linear_score(&fs.maps, &params.weights), params.final_blur)
}
