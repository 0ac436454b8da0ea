//! Fitting the model's weights to human fixations (pure computation; the command line feeds it).
//!
//! The model is log-linear: on a coarse grid, p(x) = exp(Σ wₖ fₖ(x)) / Z per image. Maximising
//! the log-likelihood of the observed fixations is a convex problem (a softmax regression over
//! pixels); we solve it with damped Newton steps and a small L2 penalty. The final blur and a
//! global temperature are then chosen on a small grid by the same likelihood. Few parameters
//! (ten weights and the blur), so the fit generalises.

use crate::image::Plane;
use crate::model::{NF, score_to_map};

/// Longer side of the grid the fit works on.
pub const FIT_LONG_SIDE: usize = 64;

/// One training image: its features on the fit grid and the fixated cells (one entry per
/// fixation, so a cell fixated twice counts twice).
#[derive(Debug, Clone)]
pub struct Sample {
    /// [`NF`] feature planes on the fit grid.
    pub maps: Vec<Plane>,
    /// Indices of fixated cells (row-major).
    pub fixations: Vec<usize>,
}

fn softmax(maps: &[Plane], w: &[f64]) -> Vec<f64> {
    let n = maps[0].data.len();
    let mut s = vec![0.0f64; n];
    for (m, &wk) in maps.iter().zip(w) {
        for (o, &v) in s.iter_mut().zip(&m.data) {
            *o += wk * v as f64;
        }
    }
    let mx = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut z = 0.0;
    for v in s.iter_mut() {
        *v = (*v - mx).exp();
        z += *v;
    }
    s.iter_mut().for_each(|v| *v /= z);
    s
}

/// Mean log-likelihood per fixation (nats), with the unblurred log-linear model.
pub fn log_likelihood(samples: &[&Sample], w: &[f64]) -> f64 {
    let (mut ll, mut n) = (0.0, 0usize);
    for s in samples {
        let p = softmax(&s.maps, w);
        for &f in &s.fixations {
            ll += p[f].max(1e-300).ln();
        }
        n += s.fixations.len();
    }
    ll / n.max(1) as f64
}

/// Mean log-likelihood per fixation of the full model (temperature `t` on the weights, then the
/// final blur), measured in bits above a uniform map (information gain).
pub fn info_gain(samples: &[&Sample], w: &[f64], final_blur: f64) -> f64 {
    let (mut ll, mut n) = (0.0, 0usize);
    for s in samples {
        let lin = crate::model::linear_score(&s.maps, w);
        let map = score_to_map(lin, final_blur);
        let cells = map.data.len() as f64;
        for &f in &s.fixations {
            ll += ((map.data[f] as f64).max(1e-12) * cells).log2();
        }
        n += s.fixations.len();
    }
    ll / n.max(1) as f64
}

/// Fits the weights by penalised maximum likelihood (L2 weight `l2` per fixation), with the
/// image-feature weights kept non-negative (a feature can only attract attention): fit, drop the
/// most negative image-feature weight (fix it at 0), refit, until none is negative. The centre
/// terms are free.
pub fn fit_weights(samples: &[&Sample], l2: f64) -> Vec<f64> {
    let mut active = [true; NF];
    loop {
        let w = fit_weights_active(samples, l2, &active);
        let worst = (0..NF - CENTRE_TERMS)
            .filter(|&k| active[k] && w[k] < 0.0)
            .min_by(|&a, &b| w[a].total_cmp(&w[b]));
        match worst {
            Some(k) => active[k] = false,
            None => return w,
        }
    }
}

/// The last inputs of the model are the centre-prior terms (u², v², v).
pub const CENTRE_TERMS: usize = 3;

/// Unconstrained fit of the weights flagged `active`; the others stay 0.
pub fn fit_weights_active(samples: &[&Sample], l2: f64, active: &[bool; NF]) -> Vec<f64> {
    let total: usize = samples.iter().map(|s| s.fixations.len()).sum();
    let lam = l2 * total as f64;
    let mut w = vec![0.0f64; NF];
    let objective = |w: &[f64]| {
        log_likelihood(samples, w) * total as f64 - 0.5 * lam * w.iter().map(|v| v * v).sum::<f64>()
    };
    let mut obj = objective(&w);
    for _iter in 0..40 {
        let mut g = vec![0.0f64; NF];
        let mut hm = vec![0.0f64; NF * NF];
        for s in samples {
            let p = softmax(&s.maps, &w);
            let nfix = s.fixations.len() as f64;
            let mut e = [0.0f64; NF];
            let mut e2 = [0.0f64; NF * NF];
            for (i, &pi) in p.iter().enumerate() {
                if pi < 1e-14 {
                    continue;
                }
                let mut f = [0.0f64; NF];
                for k in 0..NF {
                    f[k] = s.maps[k].data[i] as f64;
                    e[k] += pi * f[k];
                }
                for k in 0..NF {
                    let a = pi * f[k];
                    for l in k..NF {
                        e2[k * NF + l] += a * f[l];
                    }
                }
            }
            for &fx in &s.fixations {
                for k in 0..NF {
                    g[k] += s.maps[k].data[fx] as f64;
                }
            }
            for k in 0..NF {
                g[k] -= nfix * e[k];
                for l in k..NF {
                    let c = nfix * (e2[k * NF + l] - e[k] * e[l]);
                    hm[k * NF + l] += c;
                    if l != k {
                        hm[l * NF + k] += c;
                    }
                }
            }
        }
        for k in 0..NF {
            g[k] -= lam * w[k];
            hm[k * NF + k] += lam + 1e-9;
            if !active[k] {
                // Pin inactive weights at zero: no gradient, decoupled Hessian row.
                g[k] = 0.0;
                for l in 0..NF {
                    hm[k * NF + l] = 0.0;
                    hm[l * NF + k] = 0.0;
                }
                hm[k * NF + k] = 1.0;
            }
        }
        let step = solve(&hm, &g);
        // Backtracking keeps every step an improvement.
        let mut t = 1.0;
        let mut improved = false;
        while t > 1e-4 {
            let cand: Vec<f64> = w.iter().zip(&step).map(|(a, b)| a + t * b).collect();
            let o = objective(&cand);
            if o > obj {
                let gain = o - obj;
                w = cand;
                obj = o;
                improved = gain > 1e-6 * total as f64;
                break;
            }
            t *= 0.5;
        }
        if !improved {
            break;
        }
    }
    w
}

/// Solves `a x = b` for a small symmetric positive-definite `a` (Gaussian elimination with
/// partial pivoting).
fn solve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut m: Vec<f64> = Vec::with_capacity(n * (n + 1));
    for r in 0..n {
        m.extend_from_slice(&a[r * n..(r + 1) * n]);
        m.push(b[r]);
    }
    let c = n + 1;
    for col in 0..n {
        let piv = (col..n)
            .max_by(|&i, &j| m[i * c + col].abs().total_cmp(&m[j * c + col].abs()))
            .unwrap_or(col);
        for k in 0..c {
            m.swap(col * c + k, piv * c + k);
        }
        let d = m[col * c + col];
        if d.abs() < 1e-300 {
            continue;
        }
        for r in 0..n {
            if r != col {
                let f = m[r * c + col] / d;
                for k in col..c {
                    m[r * c + k] -= f * m[col * c + k];
                }
            }
        }
    }
    (0..n)
        .map(|r| {
            let d = m[r * c + r];
            if d.abs() < 1e-300 {
                0.0
            } else {
                m[r * c + n] / d
            }
        })
        .collect()
}

/// Result of a full fit.
#[derive(Debug, Clone)]
pub struct Fit {
    /// Fitted weights (temperature applied).
    pub weights: Vec<f64>,
    /// Fitted final blur (fraction of the longer side).
    pub final_blur: f64,
    /// Information gain on the training images (bits per fixation over a uniform map).
    pub train_info_gain: f64,
}

/// Fits weights, then the final blur and a temperature on a small grid.
pub fn fit(samples: &[&Sample]) -> Fit {
    let w = fit_weights(samples, 1e-4);
    let mut best = Fit {
        weights: w.clone(),
        final_blur: 0.0,
        train_info_gain: f64::NEG_INFINITY,
    };
    for &blur in &[0.0, 0.01, 0.02, 0.03, 0.045, 0.06] {
        for &t in &[0.8, 0.9, 1.0, 1.1, 1.2, 1.35, 1.5] {
            let wt: Vec<f64> = w.iter().map(|v| v * t).collect();
            let ig = info_gain(samples, &wt, blur);
            if ig > best.train_info_gain {
                best = Fit {
                    weights: wt,
                    final_blur: blur,
                    train_info_gain: ig,
                };
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_small_system() {
        let a = [4.0, 1.0, 1.0, 3.0];
        let x = solve(&a, &[1.0, 2.0]);
        assert!((4.0 * x[0] + x[1] - 1.0).abs() < 1e-12);
        assert!((x[0] + 3.0 * x[1] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn fit_recovers_a_useful_feature() {
        // Feature 0 marks the fixated cell; the fit must give it a large positive weight.
        let (w, h) = (8, 6);
        let mut maps: Vec<Plane> = (0..NF).map(|_| Plane::filled(w, h, 0.0)).collect();
        maps[0].data[10] = 1.0;
        maps[1].data[30] = 1.0;
        let s = Sample {
            maps,
            fixations: vec![10, 10, 10, 3],
        };
        let wts = fit_weights(&[&s], 1e-3);
        assert!(wts[0] > 2.0, "{wts:?}");
        // Feature 1 marks a cell never fixated: it would get a negative weight, so it is dropped.
        assert_eq!(wts[1], 0.0, "{wts:?}");
        let free = fit_weights_active(&[&s], 1e-3, &[true; NF]);
        assert!(free[1] < 0.0, "{free:?}");
    }
}
