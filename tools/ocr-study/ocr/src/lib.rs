//! Reads the text lines of a creative (an advertising poster): where each line is, what it says,
//! and the height of its letters.
//!
//! Pipeline: PaddleOCR's PP-OCR text detector (a DB-style map of text-pixel probabilities) and line
//! recogniser (CTC over a character dictionary), run with `tract-onnx` on one thread; the
//! detector's post-processing (threshold, connected components, box expansion by the unclip
//! ratio) and the greedy CTC decoding are written here. The letter height of each line is measured
//! on the image inside its box (see [`letter_height`]).
//!
//! Models are embedded (`models/`, see PROVENANCE.md and LICENSE there).

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tract_onnx::prelude::*;

mod geometry;
pub use geometry::{LetterHeight, is_caps, letter_height};

const DET_ONNX: &[u8] = include_bytes!("../models/det.onnx");
const REC_ONNX: &[u8] = include_bytes!("../models/rec.onnx");
const DICT: &str = include_str!("../models/dict.txt");

/// Long side of the copy the detector sees (PaddleOCR's default `limit_side_len`).
pub const DET_LONG_SIDE: usize = 960;
/// Detector input (height, width) of a 2,048 × 1,448 portrait creative, prepared at load.
const DET_PORTRAIT: (usize, usize) = (960, 672);
/// Probability above which a pixel of the detector's map is text.
pub const DET_THRESHOLD: f32 = 0.3;
/// Least mean probability of a kept region.
pub const BOX_THRESHOLD: f32 = 0.6;
/// DB box expansion: each side grows by area × ratio / perimeter of the region's box.
pub const UNCLIP_RATIO: f32 = 1.5;
/// Lines read with a lower mean character probability are dropped (PaddleOCR's `drop_score`);
/// on the poster set these were the only reports off text (a shirt's print, a box merging a
/// legal line with a photograph).
pub const MIN_CONFIDENCE: f32 = 0.5;
/// Height of the recogniser's input.
pub const REC_HEIGHT: usize = 48;
/// Widest recogniser input (PaddleOCR's dynamic-shape limit).
pub const REC_MAX_WIDTH: usize = 3200;
/// Widths the recogniser is optimised for; a line is padded to the next one.
pub const REC_WIDTHS: [usize; 12] = [
    96, 160, 256, 384, 512, 768, 1024, 1280, 1600, 2048, 2560, 3200,
];

/// A box relative to the image (0..1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// A line of text read in an image.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Box of the line (the detector's region, expanded), relative to the image.
    pub rect: Rect,
    /// The words read.
    pub text: String,
    /// Cap height of the line's letters relative to the image's height (see [`letter_height`]).
    pub letter_height: f32,
    /// Whether the line is set in capitals (and figures) or in mixed case.
    pub capitals: bool,
    /// Mean probability of the characters read (0..1).
    pub confidence: f32,
}

type Plan = Arc<TypedRunnableModel>;

/// The two networks and the dictionary, loaded once.
pub struct Reader {
    det_long_side: usize,
    det: InferenceModel,
    det_plans: Mutex<HashMap<(usize, usize), Plan>>,
    rec: InferenceModel,
    rec_plans: Mutex<HashMap<usize, Plan>>,
    dict: Vec<String>,
}

impl Reader {
    /// Loads the embedded models (about a second: parsing and optimising the graphs).
    pub fn new() -> TractResult<Reader> {
        Self::from_bytes(DET_ONNX, REC_ONNX, DICT)
    }

    /// Loads models given as bytes (ONNX) and a dictionary (one symbol a line).
    pub fn from_bytes(det: &[u8], rec: &[u8], dict: &str) -> TractResult<Reader> {
        // The detector's graph does not resolve with symbolic sizes (its feature pyramid's
        // concatenations need the sizes' rounding); it is optimised once per input size.
        let det = tract_onnx::onnx()
            .with_ignore_value_info(true)
            .with_ignore_output_shapes(true)
            .model_for_read(&mut std::io::Cursor::new(det))?;
        let det_plans = Mutex::new(HashMap::new());
        // The recogniser runs ~6 times faster optimised for one width than with a symbolic width
        // (measured: 134 against 855 ms at 1,056 px); lines are padded to the next of
        // [`REC_WIDTHS`], each optimised on first use (~0.2 s) and kept.
        let rec = tract_onnx::onnx()
            .with_ignore_value_info(true)
            .with_ignore_output_shapes(true)
            .model_for_read(&mut std::io::Cursor::new(rec))?;
        let rec_plans = Mutex::new(HashMap::new());
        let dict = dict.lines().map(|l| l.to_string()).collect();
        let reader = Reader {
            det_long_side: DET_LONG_SIDE,
            det,
            det_plans,
            rec,
            rec_plans,
            dict,
        };
        reader.det_plan(DET_PORTRAIT.0, DET_PORTRAIT.1)?;
        Ok(reader)
    }

    /// Reads the lines of an RGB image (8 bits a channel, rows top to bottom), top to bottom.
    pub fn read(&self, rgb: &[u8], width: usize, height: usize) -> TractResult<Vec<Line>> {
        anyhow::ensure!(
            rgb.len() == width * height * 3 && width > 0 && height > 0,
            "bad image size"
        );
        let trace = std::env::var_os("REGARD_OCR_TRACE").is_some();
        let t0 = std::time::Instant::now();
        let boxes = self.detect(rgb, width, height)?;
        if trace {
            eprintln!(
                "  detect: {:.0} ms, {} boxes",
                t0.elapsed().as_secs_f64() * 1e3,
                boxes.len()
            );
        }
        let mut out = Vec::with_capacity(boxes.len());
        for b in boxes {
            let (x0, y0, x1, y1) = (
                b.x0 as usize,
                b.y0 as usize,
                b.x1.ceil() as usize,
                b.y1.ceil() as usize,
            );
            let (x1, y1) = (x1.min(width), y1.min(height));
            if x1 <= x0 + 1 || y1 <= y0 + 1 {
                continue;
            }
            let crop = crop_rgb(rgb, width, x0, y0, x1, y1);
            let (cw, ch) = (x1 - x0, y1 - y0);
            let t1 = std::time::Instant::now();
            let (mut text, confidence) = self.recognise(&crop, cw, ch)?;
            if trace {
                eprintln!(
                    "  rec {cw}x{ch}: {:.0} ms {text:?}",
                    t1.elapsed().as_secs_f64() * 1e3
                );
            }
            if text.is_empty() || confidence < MIN_CONFIDENCE {
                continue;
            }
            let Some(lh) = letter_height(&crop, cw, ch, &text) else {
                continue;
            };
            if lh.capitals {
                text = text.to_uppercase();
            }
            out.push(Line {
                rect: Rect {
                    x: x0 as f32 / width as f32,
                    y: y0 as f32 / height as f32,
                    width: cw as f32 / width as f32,
                    height: ch as f32 / height as f32,
                },
                text,
                letter_height: lh.cap_height / height as f32,
                capitals: lh.capitals,
                confidence,
            });
        }
        out.sort_by(|a, b| {
            a.rect
                .y
                .total_cmp(&b.rect.y)
                .then(a.rect.x.total_cmp(&b.rect.x))
        });
        Ok(out)
    }

    /// Sets the long side of the detector's copy (default [`DET_LONG_SIDE`]): smaller is faster
    /// (736: ~0.6 of the detector's time) and loses the smallest lines (legal lines under ~1.2 %
    /// of the height on landscape creatives).
    pub fn with_det_long_side(mut self, side: usize) -> Self {
        self.det_long_side = side.max(32);
        self
    }

    /// The detector optimised for an input size (kept: creatives come in a few sizes).
    fn det_plan(&self, h: usize, w: usize) -> TractResult<Plan> {
        let mut plans = self
            .det_plans
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?;
        if let Some(p) = plans.get(&(h, w)) {
            return Ok(p.clone());
        }
        let mut m = self.det.clone();
        m.set_input_fact(0, f32::fact([1, 3, h, w]).into())?;
        let plan = m.into_optimized()?.into_runnable()?;
        plans.insert((h, w), plan.clone());
        Ok(plan)
    }

    /// The recogniser optimised for an input width.
    fn rec_plan(&self, w: usize) -> TractResult<Plan> {
        let mut plans = self
            .rec_plans
            .lock()
            .map_err(|_| anyhow::anyhow!("poisoned"))?;
        if let Some(p) = plans.get(&w) {
            return Ok(p.clone());
        }
        let mut m = self.rec.clone();
        m.set_input_fact(0, f32::fact([1, 3, REC_HEIGHT, w]).into())?;
        let plan = m.into_optimized()?.into_runnable()?;
        plans.insert(w, plan.clone());
        Ok(plan)
    }

    /// Text regions, in image pixels.
    fn detect(&self, rgb: &[u8], width: usize, height: usize) -> TractResult<Vec<DetBox>> {
        let s = (self.det_long_side as f32 / width.max(height) as f32).min(1.0);
        let round32 = |v: f32| (((v / 32.0).round() as usize) * 32).max(32);
        let (w, h) = (round32(width as f32 * s), round32(height as f32 * s));
        let small = resize_rgb(rgb, width, height, w, h);
        const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
        const STD: [f32; 3] = [0.229, 0.224, 0.225];
        let mut input = vec![0f32; 3 * w * h];
        for i in 0..w * h {
            for c in 0..3 {
                // BGR channel order, as PaddleOCR reads images with OpenCV.
                let v = small[i * 3 + (2 - c)] / 255.0;
                input[c * w * h + i] = (v - MEAN[c]) / STD[c];
            }
        }
        let t = Tensor::from_shape(&[1, 3, h, w], &input)?;
        let plan = self.det_plan(h, w)?;
        let t0 = std::time::Instant::now();
        let out = plan.run(tvec!(t.into()))?;
        if std::env::var_os("REGARD_OCR_TRACE").is_some() {
            eprintln!(
                "  detector network {h}x{w}: {:.0} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
        }
        let prob = out[0].to_plain_array_view::<f32>()?;
        let prob = prob
            .as_slice()
            .ok_or_else(|| anyhow::anyhow!("det output not contiguous"))?;
        anyhow::ensure!(prob.len() == w * h, "det output size");
        Ok(db_boxes(
            prob,
            w,
            h,
            width as f32 / w as f32,
            height as f32 / h as f32,
            width,
            height,
        ))
    }

    /// Text of a line crop and the mean probability of its characters.
    fn recognise(&self, crop: &[u8], cw: usize, ch: usize) -> TractResult<(String, f32)> {
        let tw =
            ((REC_HEIGHT as f32 * cw as f32 / ch as f32).ceil() as usize).clamp(8, REC_MAX_WIDTH);
        let img = resize_rgb(crop, cw, ch, tw, REC_HEIGHT);
        let pw = REC_WIDTHS
            .iter()
            .copied()
            .find(|&b| b >= tw)
            .unwrap_or(REC_MAX_WIDTH);
        // normalised to -1..1, padded on the right with 0 (mid grey) as PaddleOCR does
        let n = pw * REC_HEIGHT;
        let mut input = vec![0f32; 3 * n];
        for y in 0..REC_HEIGHT {
            for x in 0..tw {
                let i = y * tw + x;
                for c in 0..3 {
                    input[c * n + y * pw + x] = (img[i * 3 + (2 - c)] / 255.0 - 0.5) / 0.5;
                }
            }
        }
        let t = Tensor::from_shape(&[1, 3, REC_HEIGHT, pw], &input)?;
        let out = self.rec_plan(pw)?.run(tvec!(t.into()))?;
        let probs = out[0].to_plain_array_view::<f32>()?;
        let shape = probs.shape().to_vec();
        let probs = probs
            .as_slice()
            .ok_or_else(|| anyhow::anyhow!("rec output not contiguous"))?;
        Ok(ctc_greedy(probs, shape[1], shape[2], &self.dict))
    }
}

/// Reads a creative with the embedded models, loaded on first use and kept.
pub fn read(rgb: &[u8], width: usize, height: usize) -> TractResult<Vec<Line>> {
    static READER: OnceLock<Reader> = OnceLock::new();
    if READER.get().is_none() {
        let r = Reader::new()?;
        let _ = READER.set(r);
    }
    READER.get().expect("set above").read(rgb, width, height)
}

/// A detected region in image pixels, with its mean probability.
#[derive(Debug, Clone, Copy)]
struct DetBox {
    x0: f32,
    y0: f32,
    x1: f32,
    y1: f32,
}

/// DB post-processing: pixels above [`DET_THRESHOLD`], 4-connected regions, regions whose mean
/// probability reaches [`BOX_THRESHOLD`] and whose box is at least 3 px a side, each box grown on
/// every side by area × [`UNCLIP_RATIO`] / perimeter, scaled back to the image.
fn db_boxes(
    prob: &[f32],
    w: usize,
    h: usize,
    sx: f32,
    sy: f32,
    width: usize,
    height: usize,
) -> Vec<DetBox> {
    let mut label = vec![0u32; w * h];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    let mut next = 0u32;
    for start in 0..w * h {
        if label[start] != 0 || prob[start] <= DET_THRESHOLD {
            continue;
        }
        next += 1;
        label[start] = next;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        let (mut sum, mut count) = (0f64, 0usize);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
            sum += prob[i] as f64;
            count += 1;
            let mut visit = |j: usize| {
                if label[j] == 0 && prob[j] > DET_THRESHOLD {
                    label[j] = next;
                    stack.push(j);
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < w {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - w);
            }
            if y + 1 < h {
                visit(i + w);
            }
        }
        let (bw, bh) = ((x1 - x0 + 1) as f32, (y1 - y0 + 1) as f32);
        if bw.min(bh) < 3.0 || (sum / count as f64) < BOX_THRESHOLD as f64 {
            continue;
        }
        let d = bw * bh * UNCLIP_RATIO / (2.0 * (bw + bh));
        out.push(DetBox {
            x0: ((x0 as f32 - d) * sx).max(0.0),
            y0: ((y0 as f32 - d) * sy).max(0.0),
            x1: ((x1 as f32 + 1.0 + d) * sx).min(width as f32),
            y1: ((y1 as f32 + 1.0 + d) * sy).min(height as f32),
        });
    }
    out
}

/// Greedy CTC decoding: the most probable class at each step, repeats collapsed, blanks (class 0)
/// dropped; class k is the dictionary's line k−1, the class after the dictionary a space.
/// Full-width forms (U+FF01..FF5E, which the Chinese-trained recogniser sometimes prefers) are
/// mapped to ASCII.
pub fn ctc_greedy(probs: &[f32], steps: usize, classes: usize, dict: &[String]) -> (String, f32) {
    let mut text = String::new();
    let (mut psum, mut n) = (0f32, 0usize);
    let mut prev = 0usize;
    for t in 0..steps {
        let row = &probs[t * classes..(t + 1) * classes];
        let (best, p) =
            row.iter().enumerate().fold(
                (0, f32::MIN),
                |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc },
            );
        if best != 0 && best != prev {
            match dict.get(best - 1) {
                Some(s) => text.extend(s.chars().map(halfwidth)),
                None => text.push(' '),
            }
            psum += p;
            n += 1;
        }
        prev = best;
    }
    (
        join_spaced(&text),
        if n > 0 { psum / n as f32 } else { 0.0 },
    )
}

/// Collapses runs of spaces; a letter-spaced word ("K O R A L I S", read as pieces of one or two
/// letters, at least four) is joined.
pub fn join_spaced(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() >= 4 && words.iter().all(|w| w.chars().count() <= 2) {
        words.concat()
    } else {
        words.join(" ")
    }
}

fn halfwidth(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ => c,
    }
}

fn crop_rgb(rgb: &[u8], width: usize, x0: usize, y0: usize, x1: usize, y1: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity((x1 - x0) * (y1 - y0) * 3);
    for y in y0..y1 {
        out.extend_from_slice(&rgb[(y * width + x0) * 3..(y * width + x1) * 3]);
    }
    out
}

/// Separable resampling with a triangle filter widened by the reduction factor (an antialiased
/// bilinear, as image libraries do): returns RGB as f32 0..255.
pub fn resize_rgb(rgb: &[u8], w: usize, h: usize, nw: usize, nh: usize) -> Vec<f32> {
    let wx = weights(w, nw);
    let wy = weights(h, nh);
    // horizontal pass
    let mut tmp = vec![0f32; nw * h * 3];
    for y in 0..h {
        let row = &rgb[y * w * 3..(y + 1) * w * 3];
        for (x, (first, ws)) in wx.iter().enumerate() {
            let mut acc = [0f32; 3];
            for (k, &wt) in ws.iter().enumerate() {
                let p = (first + k) * 3;
                acc[0] += wt * row[p] as f32;
                acc[1] += wt * row[p + 1] as f32;
                acc[2] += wt * row[p + 2] as f32;
            }
            tmp[(y * nw + x) * 3..(y * nw + x) * 3 + 3].copy_from_slice(&acc);
        }
    }
    let mut out = vec![0f32; nw * nh * 3];
    for (y, (first, ws)) in wy.iter().enumerate() {
        let dst = &mut out[y * nw * 3..(y + 1) * nw * 3];
        for (k, &wt) in ws.iter().enumerate() {
            let src = &tmp[(first + k) * nw * 3..(first + k + 1) * nw * 3];
            for (d, s) in dst.iter_mut().zip(src) {
                *d += wt * s;
            }
        }
    }
    out
}

/// For each output sample: the first input index and the normalised weights.
fn weights(n: usize, nn: usize) -> Vec<(usize, Vec<f32>)> {
    let scale = n as f32 / nn as f32;
    let support = scale.max(1.0);
    (0..nn)
        .map(|i| {
            let centre = (i as f32 + 0.5) * scale;
            let lo = ((centre - support).floor().max(0.0)) as usize;
            let hi = ((centre + support).ceil() as usize).min(n);
            let mut ws: Vec<f32> = (lo..hi)
                .map(|j| (1.0 - ((j as f32 + 0.5 - centre) / support).abs()).max(0.0))
                .collect();
            let s: f32 = ws.iter().sum();
            if s > 0.0 {
                ws.iter_mut().for_each(|v| *v /= s);
            } else {
                let j = (centre as usize).min(n - 1);
                return (j, vec![1.0]);
            }
            (lo, ws)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctc_collapses_repeats_and_drops_blanks() {
        let dict: Vec<String> = ["A", "B", "Ｃ"].iter().map(|s| s.to_string()).collect();
        // classes: 0 blank, 1 A, 2 B, 3 Ｃ (full width), 4 space
        let steps = [1, 1, 0, 1, 2, 4, 3, 0];
        let mut probs = vec![0f32; steps.len() * 5];
        for (t, &c) in steps.iter().enumerate() {
            probs[t * 5 + c] = 0.9;
        }
        let (text, conf) = ctc_greedy(&probs, steps.len(), 5, &dict);
        assert_eq!(text, "AAB C");
        assert!((conf - 0.9).abs() < 1e-6);
    }

    #[test]
    fn letter_spaced_words_are_joined() {
        assert_eq!(join_spaced("K O R A L I S"), "KORALIS");
        assert_eq!(join_spaced("BO U LA N G A"), "BOULANGA");
        assert_eq!(join_spaced("À LA UNE"), "À LA UNE");
    }

    #[test]
    fn db_box_grows_by_the_unclip_distance() {
        let (w, h) = (40, 20);
        let mut prob = vec![0f32; w * h];
        for y in 5..15 {
            for x in 10..30 {
                prob[y * w + x] = 0.9;
            }
        }
        let b = db_boxes(&prob, w, h, 1.0, 1.0, w, h);
        assert_eq!(b.len(), 1);
        let d = 20.0 * 10.0 * UNCLIP_RATIO / (2.0 * 30.0);
        assert!(
            (b[0].x0 - (10.0 - d)).abs() < 1e-4 && (b[0].y1 - (15.0 + d)).abs() < 1e-4,
            "{:?}",
            b[0]
        );
    }

    #[test]
    fn resize_keeps_flat_colour() {
        let img = vec![200u8; 30 * 20 * 3];
        let out = resize_rgb(&img, 30, 20, 7, 48);
        assert!(out.iter().all(|&v| (v - 200.0).abs() < 1e-3));
    }
}
