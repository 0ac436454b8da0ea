//! Face detection with `rustface` (a Rust port of the SeetaFace frontal detector), whose model is
//! embedded in the binary (models/, BSD-2-Clause): nothing is read or downloaded at run time.
//! Detection runs single-threaded on a grey copy whose longer side is at most
//! [`DETECT_LONG_SIDE`], so its cost is bounded whatever the input size, and it is deterministic.

use crate::analysis::Rect;
use crate::image::Plane;
use std::sync::OnceLock;

/// Longer side of the grey copy faces are searched in. Faces smaller than 20 px there (about
/// 4% of the image's longer side) are not found.
pub const DETECT_LONG_SIDE: usize = 512;

static MODEL_BYTES: &[u8] = include_bytes!("../models/seeta_fd_frontal_v1.0.bin");
static MODEL: OnceLock<Option<rustface::Model>> = OnceLock::new();

/// A detected face: its box in fractions of the image's width and height, and the detector's
/// confidence score.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Box, relative to the image (0..1 on both axes).
    pub rect: Rect,
    /// Detector score (higher is surer; the threshold is 2.0).
    pub score: f32,
}

/// Finds frontal faces in a grey plane (0..=255), typically the detail copy whose longer side is
/// [`DETECT_LONG_SIDE`].
pub fn detect(grey: &Plane) -> Vec<Face> {
    let Some(model) = MODEL
        .get_or_init(|| rustface::read_model(MODEL_BYTES).ok())
        .as_ref()
    else {
        return Vec::new();
    };
    let (w, h) = (grey.width, grey.height);
    if w < 24 || h < 24 {
        return Vec::new();
    }
    let grey: Vec<u8> = grey
        .data
        .iter()
        .map(|v| v.round().clamp(0.0, 255.0) as u8)
        .collect();
    let mut det = rustface::create_detector_with_model(model.clone());
    det.set_min_face_size(20);
    det.set_score_thresh(2.0);
    det.set_pyramid_scale_factor(0.8);
    det.set_slide_window_step(4, 4);
    let image = rustface::ImageData::new(&grey, w as u32, h as u32);
    let mut faces: Vec<Face> = det
        .detect(&image)
        .into_iter()
        .map(|f| {
            let b = f.bbox();
            let x0 = (b.x().max(0) as f32) / w as f32;
            let y0 = (b.y().max(0) as f32) / h as f32;
            let x1 = ((b.x() + b.width() as i32) as f32 / w as f32).min(1.0);
            let y1 = ((b.y() + b.height() as i32) as f32 / h as f32).min(1.0);
            Face {
                rect: Rect {
                    x: x0,
                    y: y0,
                    width: (x1 - x0).max(0.0),
                    height: (y1 - y0).max(0.0),
                },
                score: f.score() as f32,
            }
        })
        .collect();
    faces.sort_by(|a, b| b.score.total_cmp(&a.score));
    faces
}

/// Feature map for the model: a Gaussian blob on each face (standard deviation half the face's
/// size), 1 at its centre, combined by maximum.
pub fn face_map(faces: &[Face], width: usize, height: usize) -> Plane {
    let mut p = Plane::filled(width, height, 0.0);
    for f in faces {
        let cx = (f.rect.x + f.rect.width / 2.0) * width as f32;
        let cy = (f.rect.y + f.rect.height / 2.0) * height as f32;
        let s = 0.5 * (f.rect.width * width as f32).max(f.rect.height * height as f32);
        let s = s.max(1.0);
        for y in 0..height {
            let dy = (y as f32 + 0.5 - cy) / s;
            for x in 0..width {
                let dx = (x as f32 + 0.5 - cx) / s;
                let v = (-0.5 * (dx * dx + dy * dy)).exp();
                let o = &mut p.data[y * width + x];
                *o = o.max(v);
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_model_loads_and_blank_images_have_no_faces() {
        assert!(rustface::read_model(MODEL_BYTES).is_ok());
        assert!(detect(&Plane::filled(200, 150, 90.0)).is_empty());
    }

    #[test]
    fn face_map_peaks_at_the_face_centre() {
        let f = Face {
            rect: Rect {
                x: 0.5,
                y: 0.25,
                width: 0.1,
                height: 0.2,
            },
            score: 5.0,
        };
        let m = face_map(&[f], 100, 50);
        assert!((m.at(55, 17) - m.max()).abs() < 0.05);
        assert!(m.at(5, 45) < 0.01);
    }
}
