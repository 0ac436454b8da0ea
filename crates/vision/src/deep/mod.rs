//! Attention model v3: a frozen EfficientNet-Lite1 (ImageNet weights) and small readouts
//! trained on eye fixations of two sets (tools/saliency/), run here in pure Rust on the
//! embedded weights.
//!
//! Pipeline for one image: area-average to the network size (longer side
//! [`Weights::net_long_side`], each side a multiple of 32), scale (x − 127) / 128, run the
//! backbone, take the stride-8, stride-16 and stride-32 stage outputs and the 1280-channel head;
//! each readout maps them to a few channels (1×1), upsamples them to the stride-8 grid, sums,
//! and applies two more 1×1 layers (softplus between) to one map per [`Head`]: the density of
//! all fixations (about three seconds of free viewing) and of those that start within the first
//! second. Each head's map is blurred by a Gaussian, its centre prior is added and a softmax
//! over the grid gives a fixation density. The file holds the five readouts of the training's
//! cross-validation folds; each head's map is the mean of their densities.
//!
//! One thread by default (more on request, with the same result), no I/O, deterministic: the
//! same pixels give the same bits.

pub mod kernels;
pub mod weights;

use crate::Prediction;
use crate::image::{Plane, RgbImage, downscale_rgb, working_size};
use crate::model::{DETAIL_LONG_SIDE, WORK_LONG_SIDE, search_faces_and_text};
use kernels::{Act, Tensor, depthwise_par, im2col, pointwise, pointwise_par, resize_bilinear};
use std::sync::OnceLock;
use weights::{BlockSpec, HeadSpec, Weights};

/// The embedded weights file (see tools/saliency/README.md for provenance and licence).
static WEIGHTS: &[u8] = include_bytes!("attention_v3.bin");

/// Channels of the backbone's head (the readout's fourth input).
const HEAD_CHANNELS: usize = 1280;

/// What a readout's output predicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// All fixations: about three seconds of free viewing ("exploration").
    Full = 0,
    /// The fixations that start within the first second ("first glance").
    Glance = 1,
}

impl Head {
    /// Both heads, in the file's order.
    pub const ALL: [Head; 2] = [Head::Full, Head::Glance];
    /// The name the weights file gives the head.
    pub fn name(self) -> &'static str {
        match self {
            Head::Full => "full",
            Head::Glance => "glance",
        }
    }
}

struct Block {
    spec: BlockSpec,
    /// Expansion `[in][out]` and bias.
    expand: Option<(Vec<f32>, Vec<f32>)>,
    dw_w: Vec<f32>,
    dw_b: Vec<f32>,
    /// Projection `[in][out]` and bias.
    proj_w: Vec<f32>,
    proj_b: Vec<f32>,
}

/// One readout: from the four feature maps to one density per head over the stride-8 grid.
struct Readout {
    l1_w: Vec<Vec<f32>>,
    l1_b: Vec<f32>,
    l2_w: Vec<f32>,
    l2_b: Vec<f32>,
    /// Last layer, `[head][hidden]`, and its biases.
    l3_w: Vec<f32>,
    l3_b: Vec<f32>,
    heads: Vec<HeadSpec>,
}

/// The network, with weights decoded to f32 and 1×1 weights transposed to `[in][out]`.
pub struct DeepModel {
    net_long_side: usize,
    stem_w: Vec<f32>,
    stem_b: Vec<f32>,
    blocks: Vec<Block>,
    taps: Vec<usize>,
    head_w: Vec<f32>,
    head_b: Vec<f32>,
    /// The readouts of the training's cross-validation folds (readout k was trained without
    /// fold k); each head's map is the mean of their densities.
    readouts: Vec<Readout>,
}

/// One density per head over the same grid, indexed by [`Head`].
#[derive(Debug, Clone)]
pub struct HeadMaps(pub [Plane; 2]);

impl HeadMaps {
    /// The map of one head.
    pub fn get(&self, head: Head) -> &Plane {
        &self.0[head as usize]
    }
}

/// `[out][in]` → `[in][out]`.
fn transpose(w: &[f32], out: usize, inp: usize) -> Vec<f32> {
    let mut t = vec![0.0; w.len()];
    for o in 0..out {
        for i in 0..inp {
            t[i * out + o] = w[o * inp + i];
        }
    }
    t
}

/// The four readout inputs of one image: stride-8, stride-16, stride-32 stage outputs and the
/// head (computed once, read by every readout).
pub struct Features(Vec<Tensor>);

impl DeepModel {
    /// Builds the model from a weights file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<DeepModel, String> {
        let wf = Weights::parse(bytes)?;
        let pw = |name: &str, out: usize, inp: usize| -> Result<Vec<f32>, String> {
            Ok(transpose(&wf.get(name, &[out, inp])?, out, inp))
        };
        // Stem: [out][ky][kx][in] = [out][27] for im2col's channel order.
        let stem_w = transpose(&wf.get("stem.w", &[32, 3, 3, 3])?, 32, 27);
        let stem_b = wf.get("stem.b", &[32])?;
        let mut blocks = Vec::new();
        for (i, s) in wf.blocks.iter().enumerate() {
            let expand = if s.expand {
                Some((
                    pw(&format!("b{i}.expand.w"), s.cexp, s.cin)?,
                    wf.get(&format!("b{i}.expand.b"), &[s.cexp])?,
                ))
            } else {
                None
            };
            blocks.push(Block {
                spec: s.clone(),
                expand,
                dw_w: wf.get(&format!("b{i}.dw.w"), &[s.kernel * s.kernel, s.cexp])?,
                dw_b: wf.get(&format!("b{i}.dw.b"), &[s.cexp])?,
                proj_w: pw(&format!("b{i}.project.w"), s.cout, s.cexp)?,
                proj_b: wf.get(&format!("b{i}.project.b"), &[s.cout])?,
            });
        }
        let last = blocks.last().ok_or("no blocks")?.spec.cout;
        if wf.taps.len() != 3 {
            return Err(format!("{} taps, expected 3", wf.taps.len()));
        }
        // Channels of the readout's four inputs: the tapped blocks' outputs and the head.
        let mut tap_channels = Vec::with_capacity(4);
        for &t in &wf.taps {
            tap_channels.push(
                blocks
                    .get(t)
                    .ok_or(format!("tap {t} is not a block"))?
                    .spec
                    .cout,
            );
        }
        tap_channels.push(HEAD_CHANNELS);
        if wf.readouts.is_empty() {
            return Err("no readouts".into());
        }
        let names: Vec<&str> = Head::ALL.iter().map(|h| h.name()).collect();
        if wf.heads != names {
            return Err(format!("heads {:?}, expected {names:?}", wf.heads));
        }
        let readouts = wf
            .readouts
            .iter()
            .enumerate()
            .map(|(r, spec)| -> Result<Readout, String> {
                let [h1, h2] = spec.hidden;
                let nh = Head::ALL.len();
                if spec.heads.len() != nh {
                    return Err(format!(
                        "readout {r}: {} heads, expected {nh}",
                        spec.heads.len()
                    ));
                }
                Ok(Readout {
                    l1_w: tap_channels
                        .iter()
                        .enumerate()
                        .map(|(k, &c)| pw(&format!("readout{r}.l1.{k}.w"), h1, c))
                        .collect::<Result<Vec<_>, _>>()?,
                    l1_b: wf.get(&format!("readout{r}.l1.b"), &[h1])?,
                    l2_w: pw(&format!("readout{r}.l2.w"), h2, h1)?,
                    l2_b: wf.get(&format!("readout{r}.l2.b"), &[h2])?,
                    l3_w: wf.get(&format!("readout{r}.l3.w"), &[nh, h2])?,
                    l3_b: wf.get(&format!("readout{r}.l3.b"), &[nh])?,
                    heads: spec.heads.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DeepModel {
            net_long_side: wf.net_long_side,
            stem_w,
            stem_b,
            taps: wf.taps.clone(),
            head_w: pw("head.w", HEAD_CHANNELS, last)?,
            head_b: wf.get("head.b", &[HEAD_CHANNELS])?,
            readouts,
            blocks,
        })
    }

    /// The shipped model (decoded once, on first use).
    pub fn embedded() -> &'static DeepModel {
        static MODEL: OnceLock<DeepModel> = OnceLock::new();
        MODEL.get_or_init(|| DeepModel::from_bytes(WEIGHTS).expect("embedded weights are valid"))
    }

    /// Number of readouts (the training's cross-validation folds).
    pub fn readout_count(&self) -> usize {
        self.readouts.len()
    }

    /// Network input size for an image of `width × height`: longer side the trained size,
    /// each side rounded to a multiple of 32 (at least 32).
    pub fn net_size(&self, width: usize, height: usize) -> (usize, usize) {
        let s = self.net_long_side as f64 / width.max(height) as f64;
        let r = |v: usize| (((v as f64 * s / 32.0).round() as usize) * 32).max(32);
        (r(width), r(height))
    }

    /// The network input of an image: area-averaged to [`DeepModel::net_size`], channels last,
    /// scaled (x − 127) / 128.
    pub fn input(&self, img: &RgbImage<'_>) -> Tensor {
        let (w, h) = self.net_size(img.width(), img.height());
        let p = downscale_rgb(img, w, h);
        let mut t = Tensor::zeros(h, w, 3);
        for i in 0..w * h {
            for c in 0..3 {
                t.data[i * 3 + c] = (p[c].data[i] - 127.0) / 128.0;
            }
        }
        t
    }

    /// Predicted fixation densities (both heads) over the stride-8 grid of `input` (each sums
    /// to 1): the means of the readouts' densities, with the network on up to `threads` threads.
    pub fn densities(&self, input: &Tensor, threads: usize) -> HeadMaps {
        self.mean_densities(&self.features(input, threads))
    }

    /// Per head, the mean of the readouts' densities over the stride-8 grid (each sums to 1).
    pub fn mean_densities(&self, feats: &Features) -> HeadMaps {
        let mut acc = self.readout_densities(feats, 0);
        for r in 1..self.readouts.len() {
            let d = self.readout_densities(feats, r);
            for (a, p) in acc.0.iter_mut().zip(&d.0) {
                for (x, v) in a.data.iter_mut().zip(&p.data) {
                    *x += v;
                }
            }
        }
        let n = self.readouts.len() as f32;
        for a in &mut acc.0 {
            a.data.iter_mut().for_each(|v| *v /= n);
        }
        acc
    }

    /// The backbone's outputs for `input` that the readouts read, on up to `threads` threads
    /// (the same bits for any number).
    pub fn features(&self, input: &Tensor, threads: usize) -> Features {
        let pw = |x: &Tensor, w: &[f32], b: &[f32], a: Act| pointwise_par(x, w, b, a, threads);
        let mut x = pw(&im2col(input, 3, 2), &self.stem_w, &self.stem_b, Act::Relu6);
        let mut feats = Vec::with_capacity(4);
        for (i, b) in self.blocks.iter().enumerate() {
            let mut y = match &b.expand {
                Some((w, bias)) => pw(&x, w, bias, Act::Relu6),
                None => x.clone(),
            };
            y = depthwise_par(&y, &b.dw_w, &b.dw_b, b.spec.kernel, b.spec.stride, threads);
            y = pw(&y, &b.proj_w, &b.proj_b, Act::None);
            if b.spec.skip {
                for (o, &v) in y.data.iter_mut().zip(&x.data) {
                    *o += v;
                }
            }
            x = y;
            if self.taps.contains(&i) {
                feats.push(x.clone());
            }
        }
        feats.push(pw(&x, &self.head_w, &self.head_b, Act::Relu6));
        Features(feats)
    }

    /// Readout `r` alone: its densities (both heads) over the stride-8 grid (each sums to 1).
    /// Readout `r` was trained without the images of cross-validation fold `r`. Panics if `r`
    /// is not below [`DeepModel::readout_count`].
    pub fn readout_densities(&self, feats: &Features, r: usize) -> HeadMaps {
        let ro = &self.readouts[r];
        let feats = &feats.0;
        let (h, w) = (feats[0].h, feats[0].w);
        let h1 = ro.l1_b.len();
        let mut s = Tensor::zeros(h, w, h1);
        for px in s.data.chunks_exact_mut(h1) {
            px.copy_from_slice(&ro.l1_b);
        }
        let zero = vec![0.0; h1];
        for (f, wt) in feats.iter().zip(&ro.l1_w) {
            let mut y = pointwise(f, wt, &zero, Act::None);
            if (y.h, y.w) != (h, w) {
                y = resize_bilinear(&y, h, w);
            }
            for (o, v) in s.data.iter_mut().zip(&y.data) {
                *o += v;
            }
        }
        s.data.iter_mut().for_each(|v| *v = softplus(*v));
        let mut s = pointwise(&s, &ro.l2_w, &ro.l2_b, Act::None);
        s.data.iter_mut().for_each(|v| *v = softplus(*v));
        let h2 = ro.l2_b.len();
        let head_map = |head: Head| {
            let j = head as usize;
            let (wt, bias, spec) = (&ro.l3_w[j * h2..(j + 1) * h2], ro.l3_b[j], &ro.heads[j]);
            let mut map = Plane {
                width: w,
                height: h,
                data: s
                    .data
                    .chunks_exact(h2)
                    .map(|px| {
                        let mut a = bias;
                        for (x, k) in px.iter().zip(wt) {
                            a += x * k;
                        }
                        a
                    })
                    .collect(),
            };
            blur_normalised(&mut map, spec.blur_sigma * w.max(h) as f32);
            let [cu2, cv2, cv] = spec.centre;
            for y in 0..h {
                let v = (y as f32 + 0.5) / h as f32 - 0.5;
                for x in 0..w {
                    let u = (x as f32 + 0.5) / w as f32 - 0.5;
                    map.data[y * w + x] += cu2 * u * u + cv2 * v * v + cv * v;
                }
            }
            softmax(&mut map);
            map
        };
        HeadMaps([head_map(Head::Full), head_map(Head::Glance)])
    }
}

/// ln(1 + eˣ), linear above 20 (as PyTorch's softplus).
fn softplus(x: f32) -> f32 {
    if x > 20.0 { x } else { x.exp().ln_1p() }
}

/// Separable Gaussian blur (kernel cut at 3σ, at least radius 1) with zero padding, divided by
/// the blur of an all-ones image so the borders keep their level.
fn blur_normalised(p: &mut Plane, sigma: f32) {
    let r = ((3.0 * sigma).ceil() as usize).max(1);
    let k: Vec<f32> = (0..=2 * r)
        .map(|i| {
            let d = i as f32 - r as f32;
            (-0.5 * (d / sigma) * (d / sigma)).exp()
        })
        .collect();
    let pass = |src: &[f32], n: usize, stride: usize, count: usize, step: usize| -> Vec<f32> {
        // Blurs `count` lines of `n` values (element stride `stride`, line step `step`).
        let mut out = vec![0.0; src.len()];
        for l in 0..count {
            for i in 0..n {
                let (mut s, mut wsum) = (0.0f32, 0.0f32);
                for (j, &kj) in k.iter().enumerate() {
                    let q = i as isize + j as isize - r as isize;
                    if q >= 0 && (q as usize) < n {
                        s += kj * src[l * step + q as usize * stride];
                        wsum += kj;
                    }
                }
                out[l * step + i * stride] = s / wsum;
            }
        }
        out
    };
    let (w, h) = (p.width, p.height);
    let t = pass(&p.data, w, 1, h, w);
    p.data = pass(&t, h, w, w, 1);
}

/// Softmax over all values, in place.
fn softmax(p: &mut Plane) {
    let m = p.max();
    p.data.iter_mut().for_each(|v| *v = (*v - m).exp());
    let s: f64 = p.data.iter().map(|&v| v as f64).sum();
    p.data.iter_mut().for_each(|v| *v = (*v as f64 / s) as f32);
}

/// Predicted fixation densities (both heads) of an image over the network's stride-8 grid (each
/// sums to 1), on one thread.
pub fn densities(img: &RgbImage<'_>) -> HeadMaps {
    let m = DeepModel::embedded();
    m.densities(&m.input(img), 1)
}

/// Predicts where people look with model v3, on one thread; see [`predict_threads`].
pub fn predict(img: &RgbImage<'_>) -> Prediction {
    predict_threads(img, 1)
}

/// Predicts where people look with model v3, in the same form as the classical model: each
/// head's density grid upsampled (bilinear) to the working size and scaled to sum to 1 (the
/// full map, and the first-second map as [`Prediction::glance`]), with the faces and text-like
/// regions found on the grey detail copy as the classical model does (the analysis reports
/// them). With `threads` > 1 the network's layers are split between threads and the face and
/// text search runs beside it; the result is the same for any number.
pub fn predict_threads(img: &RgbImage<'_>, threads: usize) -> Prediction {
    let search = || {
        let (dw, dh) = working_size(img.width(), img.height(), DETAIL_LONG_SIDE);
        search_faces_and_text(&downscale_rgb(img, dw, dh))
    };
    let m = DeepModel::embedded();
    let net = |threads: usize| m.densities(&m.input(img), threads);
    let ((found_faces, texts), grids) = if threads > 1 {
        std::thread::scope(|s| {
            let h = s.spawn(search);
            let grid = net(threads - 1);
            (h.join().expect("face and text search"), grid)
        })
    } else {
        (search(), net(1))
    };
    let (w, h) = working_size(img.width(), img.height(), WORK_LONG_SIDE);
    let up = |head: Head| {
        let mut map = grids.get(head).resize_bilinear(w, h);
        map.normalize_sum();
        map
    };
    Prediction {
        map: up(Head::Full),
        glance: up(Head::Glance),
        faces: found_faces,
        texts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(b: &[u8]) -> Vec<f32> {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Largest difference from `want`, as a fraction of its peak.
    fn worst(got: &Plane, want: &[f32]) -> f32 {
        let peak = want.iter().copied().fold(0.0, f32::max);
        got.data
            .iter()
            .zip(want)
            .map(|(a, b)| (a - b).abs() / peak)
            .fold(0.0, f32::max)
    }

    fn golden(name: &str, rgb: &[u8], map: &[u8], last: &[u8], w: usize, h: usize) {
        let m = DeepModel::embedded();
        let mut t = Tensor::zeros(h, w, 3);
        for (o, &v) in t.data.iter_mut().zip(rgb) {
            *o = (v as f32 - 127.0) / 128.0;
        }
        // The fixtures hold the full head's grid, then the glance head's. Float32 here and in
        // PyTorch differ only in summation order.
        let n = (w / 8) * (h / 8);
        let (map, last) = (floats(map), floats(last));
        assert_eq!((map.len(), last.len()), (2 * n, 2 * n), "{name}");
        let got = m.densities(&t, 1);
        let feats = m.features(&t, 3);
        let one = m.readout_densities(&feats, m.readout_count() - 1);
        for head in Head::ALL {
            let (j, g) = (head as usize, got.get(head));
            assert_eq!((g.width, g.height), (w / 8, h / 8), "{name}");
            let e = worst(g, &map[j * n..(j + 1) * n]);
            assert!(
                e < 1e-4,
                "{name} {head:?}: ensemble differs by {e} of the peak"
            );
            assert!((g.sum() - 1.0).abs() < 1e-4);
            let e = worst(one.get(head), &last[j * n..(j + 1) * n]);
            assert!(
                e < 1e-4,
                "{name} {head:?}: last readout differs by {e} of the peak"
            );
        }
        let threaded = m.densities(&t, 3);
        for head in Head::ALL {
            assert_eq!(
                threaded.get(head).data,
                got.get(head).data,
                "threads change nothing"
            );
        }
        // The two heads are different predictions, not one map twice.
        let diff = worst(got.get(Head::Glance), &got.get(Head::Full).data);
        assert!(diff > 1e-3, "{name}: the heads differ by only {diff}");
    }

    #[test]
    fn matches_pytorch_reference_maps() {
        golden(
            "card_96x64",
            include_bytes!("golden/card_96x64.rgb"),
            include_bytes!("golden/card_96x64.map.f32"),
            include_bytes!("golden/card_96x64.last.f32"),
            96,
            64,
        );
        golden(
            "card_64x128",
            include_bytes!("golden/card_64x128.rgb"),
            include_bytes!("golden/card_64x128.map.f32"),
            include_bytes!("golden/card_64x128.last.f32"),
            64,
            128,
        );
    }

    #[test]
    fn net_size_keeps_aspect_in_multiples_of_32() {
        let m = DeepModel::embedded();
        assert_eq!(m.net_size(1920, 1080), (384, 224));
        assert_eq!(m.net_size(800, 600), (384, 288));
        assert_eq!(m.net_size(600, 800), (288, 384));
        assert_eq!(m.net_size(4000, 10), (384, 32));
    }

    #[test]
    fn prediction_is_a_working_size_probability_map_that_analysis_reads() {
        let (w, h) = (640, 360);
        let data: Vec<u8> = (0..w * h * 3)
            .map(|i| {
                let (x, y) = ((i / 3) % w, (i / 3) / w);
                // A bright square on a dark noisy background.
                if (400..480).contains(&x) && (100..180).contains(&y) {
                    230
                } else {
                    ((i * 7919) % 61) as u8
                }
            })
            .collect();
        let img = RgbImage::new(w, h, &data).unwrap();
        let p = predict(&img);
        assert_eq!((p.map.width, p.map.height), (256, 144));
        assert!((p.map.sum() - 1.0).abs() < 1e-4);
        assert_eq!((p.glance.width, p.glance.height), (256, 144));
        assert!((p.glance.sum() - 1.0).abs() < 1e-4);
        assert_ne!(p.glance.data, p.map.data);
        let a = crate::analyse(&p.map, &p.faces, &p.texts);
        assert!(!a.hotspots.is_empty());
        assert_eq!(predict(&img).map.data, p.map.data);
        let t = predict_threads(&img, 3);
        assert_eq!(t.map.data, p.map.data);
        assert_eq!(t.glance.data, p.glance.data);
        assert_eq!(
            (t.faces.len(), t.texts.len()),
            (p.faces.len(), p.texts.len())
        );
    }

    #[test]
    fn densities_of_an_image_sum_to_one_and_are_deterministic() {
        let (w, h) = (200, 120);
        let data: Vec<u8> = (0..w * h * 3).map(|i| ((i * 7919) % 251) as u8).collect();
        let img = RgbImage::new(w, h, &data).unwrap();
        let a = densities(&img);
        let b = densities(&img);
        for head in Head::ALL {
            let (a, b) = (a.get(head), b.get(head));
            assert_eq!(a.data, b.data);
            assert!((a.sum() - 1.0).abs() < 1e-4);
            assert!(a.data.iter().all(|v| v.is_finite() && *v > 0.0));
        }
    }
}
