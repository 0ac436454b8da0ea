//! Scores and analysis read from an attention map (a plane summing to 1): focus, clarity, the
//! attention score, shares of attention inside rectangles and polygons, hotspots in predicted
//! viewing order, and the shares of faces and text-like regions. Every formula is documented in
//! docs/attention.md, where users read it. Positions are relative to the image (0..1), so they
//! apply at any resolution.

use crate::faces::Face;
use crate::image::Plane;
use crate::text::TextRegion;
use serde::Serialize;

/// An axis-aligned box relative to the image: x, y, width, height in 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Rect {
    /// Left edge (fraction of the width).
    pub x: f32,
    /// Top edge (fraction of the height).
    pub y: f32,
    /// Width (fraction of the width).
    pub width: f32,
    /// Height (fraction of the height).
    pub height: f32,
}

impl Rect {
    /// The rectangle's corners as a polygon.
    pub fn to_polygon(&self) -> Vec<(f32, f32)> {
        vec![
            (self.x, self.y),
            (self.x + self.width, self.y),
            (self.x + self.width, self.y + self.height),
            (self.x, self.y + self.height),
        ]
    }
}

/// Share of attention in an area, and that share relative to the area's size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AreaShare {
    /// Fraction of all attention inside the area (0..1; the whole image is 1).
    pub share: f64,
    /// Fraction of the image's surface the area covers (0..1).
    pub area: f64,
    /// `share / area`: 1 means the area draws attention in proportion to its size, 2 twice that.
    pub relative: f64,
}

/// Calibration of [`first_glance_probability`]: p = 1 − exp(−k · sᵞ). Fitted by
/// `tools/saliency/calibrate.py` on held-out predictions of model v3's glance head over OSIE and
/// EyeCrowd (random boxes and boxes on predicted peaks, three sizes); docs/attention.md gives
/// its reliability.
pub const GLANCE_CALIBRATION: (f64, f64) = (3.9, 0.92);

/// The probability that a viewer looks at a region within the first second, from the share of
/// the first-glance map inside it (0..1). For fixations falling independently it would be
/// 1 − (1 − s)ⁿ with n the first second's fixations; they cluster, so both constants are
/// fitted ([`GLANCE_CALIBRATION`]). 0 for an empty share, below 1 for any share.
pub fn first_glance_probability(glance_share: f64) -> f64 {
    let (k, gamma) = GLANCE_CALIBRATION;
    // Zero, negative and NaN shares give 0.
    if glance_share.is_nan() || glance_share <= 0.0 {
        return 0.0;
    }
    1.0 - (-k * glance_share.min(1.0).powf(gamma)).exp()
}

/// Sub-samples per pixel side when rasterising polygons (16 points per pixel).
const SUB: usize = 4;

/// Share of attention inside a polygon given in relative coordinates (any simple polygon; the
/// even–odd rule decides inside). Pixels partly inside count for the part inside, estimated on
/// a 4 × 4 grid of points per pixel.
pub fn polygon_share(map: &Plane, poly: &[(f32, f32)]) -> AreaShare {
    let (w, h) = (map.width, map.height);
    if poly.len() < 3 {
        return AreaShare {
            share: 0.0,
            area: 0.0,
            relative: 0.0,
        };
    }
    let total = map.sum().max(1e-300);
    let (mut s, mut covered) = (0.0f64, 0.0f64);
    let min_y = poly.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
    let max_y = poly.iter().map(|p| p.1).fold(f32::NEG_INFINITY, f32::max);
    let y0 = ((min_y * h as f32).floor().max(0.0) as usize).min(h);
    let y1 = ((max_y * h as f32).ceil().max(0.0) as usize).min(h);
    let mut xs: Vec<f32> = Vec::new();
    for y in y0..y1 {
        for sy in 0..SUB {
            let py = (y as f32 + (sy as f32 + 0.5) / SUB as f32) / h as f32;
            // Crossings of this scan line with the polygon's edges.
            xs.clear();
            for i in 0..poly.len() {
                let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
                if (a.1 <= py) != (b.1 <= py) {
                    xs.push(a.0 + (py - a.1) / (b.1 - a.1) * (b.0 - a.0));
                }
            }
            xs.sort_by(|a, b| a.total_cmp(b));
            for pair in xs.chunks_exact(2) {
                let (xa, xb) = (pair[0] * (w * SUB) as f32, pair[1] * (w * SUB) as f32);
                // Sub-sample columns whose centre (k + 0.5) lies in [xa, xb).
                let ka = (xa - 0.5).ceil().max(0.0) as usize;
                let kb = ((xb - 0.5).ceil().max(0.0) as usize).min(w * SUB);
                for k in ka..kb {
                    s += map.data[y * w + k / SUB] as f64;
                    covered += 1.0;
                }
            }
        }
    }
    let n = (SUB * SUB) as f64;
    let share = s / n / total;
    let area = covered / n / (w * h) as f64;
    AreaShare {
        share,
        area,
        relative: if area > 0.0 { share / area } else { 0.0 },
    }
}

/// Share of attention inside a rectangle given in relative coordinates.
pub fn rect_share(map: &Plane, r: &Rect) -> AreaShare {
    polygon_share(map, &r.to_polygon())
}

/// A hotspot: a peak of attention and the region around it, in predicted viewing order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hotspot {
    /// 1 for the first region predicted to be looked at, then 2, ...
    pub rank: usize,
    /// Peak position, relative (0..1).
    pub x: f32,
    /// Peak position, relative (0..1).
    pub y: f32,
    /// Bounding box of the region (pixels at least half the peak's value, connected to it).
    pub rect: Rect,
    /// Share of all attention inside the region.
    pub share: f64,
    /// The region's share of the image's surface.
    pub area: f64,
}

/// Most hotspots reported.
pub const MAX_HOTSPOTS: usize = 5;
/// A peak weaker than this fraction of the first peak is not a hotspot.
pub const HOTSPOT_MIN_PEAK: f32 = 0.2;
/// A peak is a hotspot of its own only if it rises at least this fraction of the first peak
/// above the highest pass joining it to a higher peak; lower bumps are part of their
/// neighbour's hotspot (one object, one hotspot).
pub const HOTSPOT_MIN_PROMINENCE: f32 = 0.1;
/// Radius of the inhibition of return around a visited peak, as a fraction of the longer side.
pub const INHIBITION_RADIUS: f32 = 0.08;

/// Whether pixel `a` is higher than pixel `b` (ties: the first in row-major order).
fn higher(map: &Plane, a: usize, b: usize) -> bool {
    let (va, vb) = (map.data[a], map.data[b]);
    va > vb || (va == vb && a < b)
}

/// The map's peaks whose prominence is at least `min_prominence`, highest first. A peak's
/// prominence is how far it rises above the highest pass (saddle) that joins it to a higher
/// peak; the highest peak's is its own value. Computed by flooding the map from the top (pixels
/// by decreasing value, 4-connected, union–find): when two rising areas meet, the one with the
/// lower peak ends there, at the current level.
pub fn prominent_peaks(map: &Plane, min_prominence: f32) -> Vec<usize> {
    let (w, h) = (map.width, map.height);
    let n = w * h;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| map.data[b].total_cmp(&map.data[a]).then(a.cmp(&b)));
    const NONE: usize = usize::MAX;
    let mut parent = vec![NONE; n];
    // The highest pixel of each area, kept at the area's root.
    let mut top = vec![NONE; n];
    let mut peaks: Vec<(usize, f32)> = Vec::new();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for &i in &order {
        parent[i] = i;
        top[i] = i;
        let (x, y) = (i % w, i / w);
        let neighbours = [
            (x > 0).then(|| i - 1),
            (x + 1 < w).then(|| i + 1),
            (y > 0).then(|| i - w),
            (y + 1 < h).then(|| i + w),
        ];
        for j in neighbours.into_iter().flatten() {
            if parent[j] == NONE {
                continue;
            }
            let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
            if ri == rj {
                continue;
            }
            let (keep, end) = if higher(map, top[ri], top[rj]) {
                (ri, rj)
            } else {
                (rj, ri)
            };
            let ended = top[end];
            // A lone pixel joining at once is no peak (it rises nothing above this pass).
            if ended != i {
                peaks.push((ended, map.data[ended] - map.data[i]));
            }
            parent[end] = keep;
        }
    }
    if let Some(&first) = order.first() {
        peaks.push((first, map.data[first]));
    }
    let mut out: Vec<usize> = peaks
        .into_iter()
        .filter(|&(_, prominence)| prominence >= min_prominence)
        .map(|(peak, _)| peak)
        .collect();
    out.sort_by(|&a, &b| map.data[b].total_cmp(&map.data[a]).then(a.cmp(&b)));
    out
}

/// Hotspots by winner-take-all with inhibition of return, over the map's prominent peaks: take
/// the highest remaining peak, grow its region (connected pixels ≥ half the peak), record its
/// share, suppress the region and a disc around the peak, repeat (at most [`MAX_HOTSPOTS`],
/// while peaks stay ≥ [`HOTSPOT_MIN_PEAK`] × the first). Only peaks of prominence ≥
/// [`HOTSPOT_MIN_PROMINENCE`] × the first count, so the shoulders of one bright object are not
/// reported as hotspots of their own, and the order does not change with the image's
/// resolution.
pub fn hotspots(map: &Plane) -> Vec<Hotspot> {
    let (w, h) = (map.width, map.height);
    let total = map.sum().max(1e-300);
    let mut live: Vec<bool> = vec![true; w * h];
    let mut out = Vec::new();
    let first_peak = map.max();
    if first_peak <= 0.0 {
        return out;
    }
    let radius = INHIBITION_RADIUS * w.max(h) as f32;
    let mut stack = Vec::new();
    for peak in prominent_peaks(map, HOTSPOT_MIN_PROMINENCE * first_peak) {
        if out.len() >= MAX_HOTSPOTS {
            break;
        }
        if !live[peak] {
            continue;
        }
        let pv = map.data[peak];
        if pv < HOTSPOT_MIN_PEAK * first_peak {
            break;
        }
        let (px, py) = (peak % w, peak / w);
        let thr = 0.5 * pv;
        let mut in_region = vec![false; w * h];
        let (mut x0, mut y0, mut x1, mut y1) = (px, py, px, py);
        let (mut share, mut count) = (0.0f64, 0usize);
        in_region[peak] = true;
        stack.push(peak);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            share += map.data[i] as f64;
            count += 1;
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
            let nb = [
                (x > 0).then(|| i - 1),
                (x + 1 < w).then(|| i + 1),
                (y > 0).then(|| i - w),
                (y + 1 < h).then(|| i + w),
            ];
            for j in nb.into_iter().flatten() {
                if live[j] && !in_region[j] && map.data[j] >= thr {
                    in_region[j] = true;
                    stack.push(j);
                }
            }
        }
        for i in 0..w * h {
            let (x, y) = ((i % w) as f32 - px as f32, (i / w) as f32 - py as f32);
            if in_region[i] || x * x + y * y <= radius * radius {
                live[i] = false;
            }
        }
        out.push(Hotspot {
            rank: out.len() + 1,
            x: (px as f32 + 0.5) / w as f32,
            y: (py as f32 + 0.5) / h as f32,
            rect: Rect {
                x: x0 as f32 / w as f32,
                y: y0 as f32 / h as f32,
                width: (x1 - x0 + 1) as f32 / w as f32,
                height: (y1 - y0 + 1) as f32 / h as f32,
            },
            share: share / total,
            area: count as f64 / (w * h) as f64,
        });
    }
    out
}

/// A detected face or text-like region with its share of attention.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionShare {
    /// Box, relative to the image.
    pub rect: Rect,
    /// Detector confidence (faces: SeetaFace score, ≥ 2; text: stroke density 0..1).
    pub confidence: f32,
    /// Share of attention and share relative to size.
    #[serde(flatten)]
    pub attention: AreaShare,
}

/// Everything the product shows about one map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// Attention score, 0–100: `0.6 × focus + 0.4 × clarity`.
    pub score: f64,
    /// Focus, 0–100: `(top10 − 0.1) / 0.9 × 100`, top10 being the share of attention in the
    /// most-attended 10% of the image (0 = attention spread evenly, 100 = all in that 10%).
    pub focus: f64,
    /// Clarity, 0–100: `100 / n`, where `n = (Σ sᵢ)² / Σ sᵢ²` is the effective number of
    /// competing hotspots computed from their shares sᵢ (one dominant region: 100; two equal: 50).
    pub clarity: f64,
    /// Share of attention in the most-attended 10% of the image (0.1..1).
    pub top10_share: f64,
    /// Entropy of the map divided by its maximum (0 = one point, 1 = uniform); a clutter cue.
    pub entropy: f64,
    /// Hotspots in predicted viewing order.
    pub hotspots: Vec<Hotspot>,
    /// Faces found, with their shares.
    pub faces: Vec<RegionShare>,
    /// Text-like regions found, with their shares.
    pub texts: Vec<RegionShare>,
}

/// Share of attention in the most-attended `fraction` of the pixels.
pub fn top_share(map: &Plane, fraction: f64) -> f64 {
    let mut v = map.data.clone();
    v.sort_by(|a, b| b.total_cmp(a));
    let k = ((v.len() as f64 * fraction).round() as usize).clamp(1, v.len());
    let total: f64 = v.iter().map(|&x| x as f64).sum();
    v[..k].iter().map(|&x| x as f64).sum::<f64>() / total.max(1e-300)
}

/// Normalised entropy of the map (0..1).
pub fn entropy(map: &Plane) -> f64 {
    let total = map.sum().max(1e-300);
    let h: f64 = map
        .data
        .iter()
        .map(|&v| v as f64 / total)
        .filter(|&p| p > 0.0)
        .map(|p| -p * p.ln())
        .sum();
    h / (map.data.len() as f64).ln().max(1e-300)
}

/// Computes the full analysis of a map, with the faces and text-like regions found.
pub fn analyse(map: &Plane, faces: &[Face], texts: &[TextRegion]) -> Analysis {
    let top10 = top_share(map, 0.1);
    let focus = ((top10 - 0.1) / 0.9 * 100.0).clamp(0.0, 100.0);
    let hs = hotspots(map);
    let s1: f64 = hs.iter().map(|h| h.share).sum();
    let s2: f64 = hs.iter().map(|h| h.share * h.share).sum();
    let clarity = if s2 > 0.0 {
        (100.0 * s2 / (s1 * s1)).clamp(0.0, 100.0)
    } else {
        0.0
    };
    let region = |rect: Rect, confidence: f32| RegionShare {
        rect,
        confidence,
        attention: rect_share(map, &rect),
    };
    Analysis {
        score: 0.6 * focus + 0.4 * clarity,
        focus,
        clarity,
        top10_share: top10,
        entropy: entropy(map),
        hotspots: hs,
        faces: faces.iter().map(|f| region(f.rect, f.score)).collect(),
        texts: texts.iter().map(|t| region(t.rect, t.score)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_glance_probability_grows_with_the_share_and_stays_a_probability() {
        assert_eq!(first_glance_probability(0.0), 0.0);
        assert_eq!(first_glance_probability(f64::NAN), 0.0);
        let mut last = 0.0;
        for i in 1..=100 {
            let p = first_glance_probability(i as f64 / 100.0);
            assert!(p > last && p < 1.0, "{i}: {p}");
            last = p;
        }
        // A region holding a tenth of the first second's attention is looked at by about a
        // third of viewers (k·0.1^γ ≈ 0.47, p ≈ 0.37).
        let p = first_glance_probability(0.1);
        assert!((0.25..0.45).contains(&p), "{p}");
    }

    fn uniform(w: usize, h: usize) -> Plane {
        Plane::filled(w, h, 1.0 / (w * h) as f32)
    }

    #[test]
    fn peaks_are_kept_by_their_prominence() {
        // A row: a high peak (9), a shoulder on its slope (6 after a dip to 5.5), a valley (1),
        // a lower but distinct peak (4).
        let values = [2.0, 9.0, 5.5, 6.0, 3.0, 1.0, 4.0, 2.0];
        let map = Plane {
            width: values.len(),
            height: 1,
            data: values.to_vec(),
        };
        assert_eq!(prominent_peaks(&map, 0.0), vec![1, 3, 6], "highest first");
        // The shoulder rises 0.5 above its pass, the second peak 3.
        assert_eq!(prominent_peaks(&map, 1.0), vec![1, 6]);
        assert_eq!(prominent_peaks(&map, 3.5), vec![1]);
    }

    #[test]
    fn shares_of_a_partition_sum_to_one() {
        let mut m = uniform(40, 30);
        m.data[5 * 40 + 7] += 0.3;
        m.normalize_sum();
        let left = rect_share(
            &m,
            &Rect {
                x: 0.0,
                y: 0.0,
                width: 0.37,
                height: 1.0,
            },
        );
        let right = rect_share(
            &m,
            &Rect {
                x: 0.37,
                y: 0.0,
                width: 0.63,
                height: 1.0,
            },
        );
        assert!((left.share + right.share - 1.0).abs() < 1e-6);
        assert!((left.area + right.area - 1.0).abs() < 1e-6);
        let whole = rect_share(
            &m,
            &Rect {
                x: 0.0,
                y: 0.0,
                width: 1.0,
                height: 1.0,
            },
        );
        assert!((whole.share - 1.0).abs() < 1e-6 && (whole.relative - 1.0).abs() < 1e-6);
        // Two triangles splitting the image along its diagonal.
        let t1 = polygon_share(&m, &[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]);
        let t2 = polygon_share(&m, &[(0.0, 0.0), (1.0, 1.0), (0.0, 1.0)]);
        assert!((t1.share + t2.share - 1.0).abs() < 1e-6);
        assert!((t1.area - 0.5).abs() < 1e-3);
    }

    #[test]
    fn uniform_map_has_no_focus() {
        let a = analyse(&uniform(20, 10), &[], &[]);
        assert!(a.focus < 1e-6);
        assert!((a.entropy - 1.0).abs() < 1e-6);
    }

    #[test]
    fn hotspots_come_in_order_of_strength() {
        let mut m = Plane::filled(64, 48, 0.0);
        m.data[10 * 64 + 10] = 1.0;
        m.data[30 * 64 + 50] = 2.0;
        crate::blur::gaussian(&mut m, 2.0);
        m.normalize_sum();
        let hs = hotspots(&m);
        assert_eq!(hs.len(), 2);
        assert!(hs[0].x > 0.7 && hs[1].x < 0.3);
        assert!(hs[0].share > hs[1].share);
        let a = analyse(&m, &[], &[]);
        assert!(a.clarity > 50.0 && a.clarity < 100.0);
    }
}
