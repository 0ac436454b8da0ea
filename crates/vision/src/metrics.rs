//! Saliency metrics after the MIT/Tübingen saliency benchmark (Bylinskii et al. 2019), for one
//! map and one image's fixations. Fixations are pixel positions at the map's size; a pixel
//! fixated several times counts once for the location-based metrics (AUC, sAUC, NSS), as in the
//! benchmark's binary fixation maps.

use crate::blur::gaussian;
use crate::image::Plane;

/// The six metrics for one image.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Scores {
    /// AUC-Judd (higher is better, 0.5 = chance).
    pub auc_judd: f64,
    /// Shuffled AUC (higher is better, 0.5 = no better than centre bias).
    pub sauc: f64,
    /// Normalised scanpath saliency (higher is better).
    pub nss: f64,
    /// Pearson correlation with the fixation density map (higher is better).
    pub cc: f64,
    /// KL divergence of the map from the fixation density (lower is better).
    pub kld: f64,
    /// Similarity (histogram intersection) with the fixation density (higher is better).
    pub sim: f64,
    /// Information gain over a uniform map, bits per fixation (higher is better; see
    /// [`information_gain`]).
    pub ig: f64,
}

impl Scores {
    /// Component-wise sum (for averaging).
    pub fn add(&mut self, o: &Scores) {
        self.auc_judd += o.auc_judd;
        self.sauc += o.sauc;
        self.nss += o.nss;
        self.cc += o.cc;
        self.kld += o.kld;
        self.sim += o.sim;
        self.ig += o.ig;
    }

    /// Component-wise scaling.
    pub fn scaled(&self, k: f64) -> Scores {
        Scores {
            auc_judd: self.auc_judd * k,
            sauc: self.sauc * k,
            nss: self.nss * k,
            cc: self.cc * k,
            kld: self.kld * k,
            sim: self.sim * k,
            ig: self.ig * k,
        }
    }
}

/// Distinct fixated pixel indices (row-major), sorted.
fn unique_indices(width: usize, fix: &[(usize, usize)]) -> Vec<usize> {
    let mut v: Vec<usize> = fix.iter().map(|&(x, y)| y * width + x).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Fixation density map: a 1 at each fixation (counted as often as it occurs), blurred by a
/// Gaussian of `sigma` pixels (three-box approximation).
pub fn fixation_density(width: usize, height: usize, fix: &[(usize, usize)], sigma: f32) -> Plane {
    let mut p = Plane::filled(width, height, 0.0);
    for &(x, y) in fix {
        p.data[y * width + x] += 1.0;
    }
    gaussian(&mut p, sigma);
    p
}

/// AUC-Judd: the fixated pixels are the positives, every pixel a negative; thresholds are the
/// map's values at the fixated pixels; the true-positive rate at threshold t is the share of
/// fixated pixels with value ≥ t, the false-positive rate the share of the other pixels with
/// value ≥ t; the area under that curve (trapezoids, from (0,0) to (1,1)).
pub fn auc_judd(map: &Plane, fix: &[(usize, usize)]) -> f64 {
    let idx = unique_indices(map.width, fix);
    let n_fix = idx.len();
    let n_pix = map.data.len();
    if n_fix == 0 || n_fix >= n_pix {
        return f64::NAN;
    }
    let mut th: Vec<f32> = idx.iter().map(|&i| map.data[i]).collect();
    th.sort_by(|a, b| b.total_cmp(a)); // descending
    // above[i] = number of pixels with value ≥ th[i]: bucket each pixel at the first threshold
    // it reaches, then accumulate.
    let mut hist = vec![0usize; n_fix + 1];
    for &v in &map.data {
        // First index i with th[i] <= v (th descending).
        let j = th.partition_point(|&t| t > v);
        hist[j] += 1;
    }
    let mut above = 0usize;
    let (mut prev_tp, mut prev_fp, mut area) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..n_fix {
        above += hist[i];
        let tp = (i + 1) as f64 / n_fix as f64;
        let fp = (above as f64 - (i + 1) as f64) / (n_pix - n_fix) as f64;
        area += (fp - prev_fp) * (tp + prev_tp) / 2.0;
        prev_tp = tp;
        prev_fp = fp;
    }
    area + (1.0 - prev_fp) * (1.0 + prev_tp) / 2.0
}

/// Shuffled AUC: positives are the map's values at this image's fixated pixels, negatives its
/// values at the fixation locations of *other* images (so a centre bias earns nothing). Computed
/// exactly as the probability that a positive outranks a negative, ties counting one half
/// (the benchmark averages random draws of negatives, which estimates the same quantity).
pub fn auc_shuffled(map: &Plane, fix: &[(usize, usize)], others: &[(usize, usize)]) -> f64 {
    let pos: Vec<f32> = unique_indices(map.width, fix)
        .iter()
        .map(|&i| map.data[i])
        .collect();
    let mut neg: Vec<f32> = others
        .iter()
        .map(|&(x, y)| map.data[y * map.width + x])
        .collect();
    if pos.is_empty() || neg.is_empty() {
        return f64::NAN;
    }
    neg.sort_by(|a, b| a.total_cmp(b));
    let mut s = 0.0f64;
    for &p in &pos {
        let below = neg.partition_point(|&n| n < p);
        let upto = neg.partition_point(|&n| n <= p);
        s += below as f64 + 0.5 * (upto - below) as f64;
    }
    s / (pos.len() as f64 * neg.len() as f64)
}

fn mean_std(d: &[f32]) -> (f64, f64) {
    let n = d.len() as f64;
    let m = d.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = d.iter().map(|&v| (v as f64 - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, var.sqrt())
}

/// NSS: the map standardised to mean 0 and standard deviation 1 (sample standard deviation),
/// averaged over the fixated pixels.
pub fn nss(map: &Plane, fix: &[(usize, usize)]) -> f64 {
    let (m, s) = mean_std(&map.data);
    if s == 0.0 {
        return 0.0;
    }
    let idx = unique_indices(map.width, fix);
    idx.iter()
        .map(|&i| (map.data[i] as f64 - m) / s)
        .sum::<f64>()
        / idx.len() as f64
}

/// CC: Pearson's linear correlation between the map and the fixation density map.
pub fn cc(map: &Plane, density: &Plane) -> f64 {
    let (ma, sa) = mean_std(&map.data);
    let (mb, sb) = mean_std(&density.data);
    if sa == 0.0 || sb == 0.0 {
        return 0.0;
    }
    let n = map.data.len() as f64;
    map.data
        .iter()
        .zip(&density.data)
        .map(|(&a, &b)| (a as f64 - ma) * (b as f64 - mb))
        .sum::<f64>()
        / ((n - 1.0) * sa * sb)
}

/// KLD: Σ P·ln(ε + P / (Q + ε)) with P the fixation density and Q the map, each scaled to sum 1,
/// and ε = 2.2204e-16 (MATLAB's eps, as in the benchmark code). Lower is better.
pub fn kld(map: &Plane, density: &Plane) -> f64 {
    const EPS: f64 = 2.2204e-16;
    let sq = map.sum();
    let sp = density.sum();
    map.data
        .iter()
        .zip(&density.data)
        .map(|(&q, &p)| {
            let (p, q) = (p as f64 / sp, q as f64 / sq);
            p * (EPS + p / (q + EPS)).ln()
        })
        .sum()
}

/// SIM: each map is rescaled to 0..1 (min–max), then to sum 1; SIM = Σ min(map, density).
pub fn sim(map: &Plane, density: &Plane) -> f64 {
    let prep = |d: &[f32]| -> Vec<f64> {
        let mn = d.iter().copied().fold(f32::INFINITY, f32::min) as f64;
        let mx = d.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let r = (mx - mn).max(1e-300);
        let v: Vec<f64> = d.iter().map(|&x| (x as f64 - mn) / r).collect();
        let s: f64 = v.iter().sum();
        v.iter().map(|x| x / s.max(1e-300)).collect()
    };
    let a = prep(&map.data);
    let b = prep(&density.data);
    a.iter().zip(&b).map(|(x, y)| x.min(*y)).sum()
}

/// All six metrics for one image. `sigma` is the density blur in pixels (our protocol:
/// 0.03 × the longer side).
pub fn score_all(
    map: &Plane,
    fix: &[(usize, usize)],
    others: &[(usize, usize)],
    sigma: f32,
) -> Scores {
    let density = fixation_density(map.width, map.height, fix, sigma);
    Scores {
        auc_judd: auc_judd(map, fix),
        sauc: auc_shuffled(map, fix, others),
        nss: nss(map, fix),
        cc: cc(map, &density),
        kld: kld(map, &density),
        sim: sim(map, &density),
        ig: information_gain(map, fix),
    }
}

/// Share of a uniform map mixed into a map read as a density by [`information_gain`], so a pixel
/// the map gives nothing costs a finite penalty.
pub const IG_UNIFORM_MIX: f64 = 1e-3;

/// Information gain of the map over a uniform map, in bits per fixation, at the map's
/// resolution (Kümmerer et al. 2015): the mean over fixations of log₂(p(x) · N), where p is the
/// map scaled to sum to 1, mixed with [`IG_UNIFORM_MIX`] of the uniform density, and N the
/// number of pixels. It rewards a map for being a good probability model of where people look,
/// which none of the other metrics measures directly.
pub fn information_gain(map: &Plane, fix: &[(usize, usize)]) -> f64 {
    if fix.is_empty() {
        return 0.0;
    }
    let n = map.data.len() as f64;
    let total: f64 = map.data.iter().map(|&v| v.max(0.0) as f64).sum();
    let s: f64 = fix
        .iter()
        .map(|&(x, y)| {
            let v = map.data[y * map.width + x].max(0.0) as f64;
            let p = if total > 0.0 { v / total } else { 1.0 / n };
            ((1.0 - IG_UNIFORM_MIX) * p * n + IG_UNIFORM_MIX).log2()
        })
        .sum();
    s / fix.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(w: usize, h: usize, d: &[f32]) -> Plane {
        Plane {
            width: w,
            height: h,
            data: d.to_vec(),
        }
    }

    #[test]
    fn information_gain_hand_computed() {
        // Uniform map: no gain. All mass on the fixated pixel of four: log2(0.999·4 + 0.001).
        let fix = [(1, 0)];
        assert!(information_gain(&plane(2, 2, &[1.0; 4]), &fix).abs() < 1e-12);
        let g = information_gain(&plane(2, 2, &[0.0, 5.0, 0.0, 0.0]), &fix);
        assert!((g - (0.999f64 * 4.0 + 0.001).log2()).abs() < 1e-12);
        // Missing the fixation entirely costs log2(0.001), not −∞.
        let g = information_gain(&plane(2, 2, &[5.0, 0.0, 0.0, 0.0]), &fix);
        assert!((g - 0.001f64.log2()).abs() < 1e-12);
    }

    #[test]
    fn auc_judd_hand_computed() {
        // Values 0.1 0.2 0.3 0.4; fixations on 0.4 and 0.2.
        // Thresholds 0.4: tp 1/2, pixels ≥ 0.4 = 1 → fp 0/2.
        // Threshold 0.2: tp 1, pixels ≥ 0.2 = 3 → fp (3−2)/2 = 0.5.
        // Curve (0,0) (0,.5) (.5,1) (1,1): area 0 + .5·.75 + .5·1 = 0.875.
        let m = plane(4, 1, &[0.1, 0.2, 0.3, 0.4]);
        let a = auc_judd(&m, &[(3, 0), (1, 0), (3, 0)]);
        assert!((a - 0.875).abs() < 1e-12, "{a}");
        // A perfect map.
        let a = auc_judd(&m, &[(3, 0)]);
        assert!((a - 1.0).abs() < 1e-12);
    }

    #[test]
    fn shuffled_auc_hand_computed() {
        let m = plane(4, 1, &[0.1, 0.2, 0.3, 0.4]);
        // Positive 0.3; negatives 0.1, 0.3, 0.4 → (1 + 0.5 + 0) / 3.
        let a = auc_shuffled(&m, &[(2, 0)], &[(0, 0), (2, 0), (3, 0)]);
        assert!((a - 0.5).abs() < 1e-12, "{a}");
        let a = auc_shuffled(&m, &[(3, 0)], &[(0, 0), (1, 0)]);
        assert!((a - 1.0).abs() < 1e-12);
    }

    #[test]
    fn nss_hand_computed() {
        // Values 0, 0, 0, 4: mean 1, sample std sqrt((1+1+1+9)/3) = 2. At the 4: (4−1)/2 = 1.5.
        let m = plane(2, 2, &[0.0, 0.0, 0.0, 4.0]);
        assert!((nss(&m, &[(1, 1)]) - 1.5).abs() < 1e-12);
        // Both the 4 and one 0: (1.5 + (−0.5)) / 2 = 0.5.
        assert!((nss(&m, &[(1, 1), (0, 0)]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn cc_kld_sim_hand_computed() {
        let a = plane(2, 1, &[1.0, 3.0]);
        let b = plane(2, 1, &[2.0, 6.0]);
        assert!((cc(&a, &b) - 1.0).abs() < 1e-12);
        assert!(kld(&a, &b).abs() < 1e-12);
        assert!((sim(&a, &b) - 1.0).abs() < 1e-12);
        // P = (0.5, 0.5), Q = (0.25, 0.75): KLD = 0.5 ln 2 + 0.5 ln(2/3).
        let q = plane(2, 1, &[1.0, 3.0]);
        let p = plane(2, 1, &[1.0, 1.0]);
        let want = 0.5 * 2f64.ln() + 0.5 * (2.0f64 / 3.0).ln();
        assert!((kld(&q, &p) - want).abs() < 1e-9);
        // SIM after min–max: map → (0, 1) → (0, 1); density (1, 1) is flat → (0, 0) → guarded.
        let d = plane(3, 1, &[0.0, 1.0, 1.0]);
        let m = plane(3, 1, &[0.0, 0.0, 2.0]);
        // d → (0, .5, .5), m → (0, 0, 1): SIM = 0.5.
        assert!((sim(&m, &d) - 0.5).abs() < 1e-12);
        assert!((cc(&a, &plane(2, 1, &[3.0, 1.0])) + 1.0).abs() < 1e-12);
    }
}
