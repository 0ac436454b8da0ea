//! `regard fit-saliency` and `regard eval-saliency`: fitting the classical model on an
//! eye-tracking set, and scoring both models with k-fold cross-validation split by image (the
//! classical one refitted per fold here; model v3 with the readout its training left fold k out
//! of), against a centre-only baseline, spectral residual × centre, and the leave-one-viewer-out
//! human baseline; with `--glance`, against the fixations that start within the first second,
//! where model v3 is scored with its first-glance head (and its full map beside it).

use super::osie::{Dataset, GLANCE_MS, fit_samples, parallel_map};
use anyhow::{Result, bail};
use regard_vision::deep::{DeepModel, Head};
use regard_vision::features::centre_gaussian;
use regard_vision::fit::{self, Sample};
use regard_vision::image::{Plane, working_size};
use regard_vision::metrics::{Scores, fixation_density, score_all};
use regard_vision::model::{self, FEATURE_NAMES, Params};
use std::path::Path;

/// Fits on the given samples and packs the result as [`Params`].
fn fit_params(samples: &[&Sample], provenance: String) -> (Params, f64) {
    let f = fit::fit(samples);
    (
        Params {
            features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
            weights: f.weights.iter().map(|w| (w * 1e4).round() / 1e4).collect(),
            final_blur: f.final_blur,
            provenance,
        },
        f.train_info_gain,
    )
}

/// `regard fit-saliency`: fits on every image of the set and writes the parameters file.
pub fn fit_saliency(dataset: &Path, out: &Path, cache: &Path, jobs: usize) -> Result<()> {
    let ds = Dataset::open(dataset, None)?;
    let samples = fit_samples(&ds, cache, jobs)?;
    let refs: Vec<&Sample> = samples.iter().collect();
    let t0 = std::time::Instant::now();
    let (params, ig) = fit_params(
        &refs,
        format!(
            "fitted by `regard fit-saliency` on {} images of {} (log-likelihood of all fixations)",
            ds.images.len(),
            dataset
                .file_name()
                .map_or("dataset".into(), |s| s.to_string_lossy().into_owned())
        ),
    );
    eprintln!(
        "fit: {:.1} s, training information gain {ig:.3} bits/fixation",
        t0.elapsed().as_secs_f64()
    );
    for (n, w) in FEATURE_NAMES.iter().zip(&params.weights) {
        println!("{n:>20} {w:>9.4}");
    }
    println!("{:>20} {:>9.4}", "final_blur", params.final_blur);
    let json = serde_json::to_string_pretty(&params)? + "\n";
    std::fs::write(out, json)?;
    println!("wrote {}", out.display());
    Ok(())
}

/// Options of `regard eval-saliency`.
pub struct EvalOptions<'a> {
    /// Data set directory.
    pub dataset: &'a Path,
    /// Number of folds.
    pub folds: usize,
    /// Only the first images (quick runs).
    pub limit: Option<usize>,
    /// Longer side at which maps are scored (at most 1024 by our protocol).
    pub eval_long_side: usize,
    /// Worker threads.
    pub jobs: usize,
    /// Feature cache file.
    pub cache: &'a Path,
    /// Skip the (slow) human baseline.
    pub no_human: bool,
    /// Score against the fixations that start within the first second, model v3 with its
    /// first-glance head.
    pub glance: bool,
}

struct Row {
    /// Model v3 with the readout trained without this image's fold (when the folds match the
    /// training's).
    v3_cv: Option<Scores>,
    /// Model v3 as shipped: the mean of every readout (in-sample on the training sets).
    v3: Scores,
    /// With `--glance`: model v3's full map (not its glance head), cross-validated.
    v3_full_cv: Option<Scores>,
    model: Scores,
    centre: Scores,
    sr_centre: Scores,
    shipped: Scores,
    human: Option<Scores>,
}

/// `regard eval-saliency`: cross-validated model scores and the baselines, as a table.
pub fn eval_saliency(o: &EvalOptions<'_>) -> Result<()> {
    if o.folds < 2 {
        bail!("--folds must be at least 2");
    }
    if o.eval_long_side == 0 || o.eval_long_side > 1024 {
        bail!("--eval-long-side must be within 1..=1024");
    }
    let ds = Dataset::open(o.dataset, o.limit)?;
    let samples = fit_samples(&ds, o.cache, o.jobs)?;
    let mut fold_params = Vec::new();
    for f in 0..o.folds {
        let train: Vec<&Sample> = samples
            .iter()
            .enumerate()
            .filter(|(i, _)| ds.fold(*i, o.folds) != f)
            .map(|(_, s)| s)
            .collect();
        let test: Vec<&Sample> = samples
            .iter()
            .enumerate()
            .filter(|(i, _)| ds.fold(*i, o.folds) == f)
            .map(|(_, s)| s)
            .collect();
        let (p, ig) = fit_params(&train, format!("fold {f}"));
        let test_ig = fit::info_gain(&test, &p.weights, p.final_blur);
        eprintln!(
            "fold {f}: train IG {ig:.3}, test IG {test_ig:.3} bits/fixation, blur {}",
            p.final_blur
        );
        fold_params.push(p);
    }
    let shipped = Params::fitted();
    let deep = DeepModel::embedded();
    // Readout k of v3 was trained without the images i ≡ k (mod 5) of each set, the split used
    // here.
    let v3_folds = o.folds == deep.readout_count();
    if !v3_folds {
        eprintln!(
            "model v3 has {} cross-validation readouts: its cross-validated row needs --folds {}",
            deep.readout_count(),
            deep.readout_count()
        );
    }
    // The fixations scored: all, or those starting within the first second.
    let within = o.glance.then_some(GLANCE_MS);
    let head = if o.glance { Head::Glance } else { Head::Full };

    // Every scored fixation of every image, relative to its image, for the shuffled-AUC
    // negatives.
    let rel: Vec<Vec<(f64, f64)>> = ds
        .images
        .iter()
        .map(|im| {
            let (w, h) = (im.width, im.height);
            im.all_points_within(w, h, within)
                .into_iter()
                .map(|(x, y)| ((x as f64 + 0.5) / w as f64, (y as f64 + 0.5) / h as f64))
                .collect()
        })
        .collect();

    let t0 = std::time::Instant::now();
    let rows = parallel_map(ds.images.len(), o.jobs, |i| -> Result<Option<Row>> {
        let (w, h, data) = ds.decode(i)?;
        let img = regard_vision::RgbImage::new(w, h, &data)?;
        let fs = model::compute_features(&img);
        let (ew, eh) = working_size(w, h, w.max(h).min(o.eval_long_side));
        let sigma = 0.03 * ew.max(eh) as f32;
        let im = &ds.images[i];
        let fix = im.all_points_within(ew, eh, within);
        if fix.is_empty() {
            return Ok(None);
        }
        let others: Vec<(usize, usize)> = rel
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, pts)| pts.iter())
            .map(|&(x, y)| {
                (
                    ((x * ew as f64) as usize).min(ew - 1),
                    ((y * eh as f64) as usize).min(eh - 1),
                )
            })
            .collect();
        let up = |p: &Plane| p.resize_bilinear(ew, eh);
        // v3 maps take the product's path: grid → working size → scoring size.
        let (ww, wh) = working_size(w, h, model::WORK_LONG_SIDE);
        let deep_up = |p: &Plane| up(&p.resize_bilinear(ww, wh));
        let feats = deep.features(&deep.input(&img), 1);
        let v3_map = deep_up(deep.mean_densities(&feats).get(head));
        let v3_cv = v3_folds.then(|| deep.readout_densities(&feats, ds.fold(i, o.folds)));
        let v3_cv_map = v3_cv.as_ref().map(|m| deep_up(m.get(head)));
        let v3_full_cv_map = v3_cv
            .as_ref()
            .filter(|_| o.glance)
            .map(|m| deep_up(m.get(Head::Full)));
        drop(feats);
        let model_map = up(&model::combine(&fs, &fold_params[ds.fold(i, o.folds)]));
        let shipped_map = up(&model::combine(&fs, &shipped));
        let centre = centre_gaussian(ew, eh, 0.25, 0.25);
        let mut sr = up(&fs.maps[4]);
        for (a, c) in sr.data.iter_mut().zip(&centre.data) {
            *a *= c;
        }
        let human = if o.no_human {
            None
        } else {
            let mut acc = Scores::default();
            let mut n = 0usize;
            for v in 0..im.subjects.len() {
                let mine = im.viewer_points_within(v, ew, eh, within);
                if mine.is_empty() {
                    continue;
                }
                let rest: Vec<(usize, usize)> = (0..im.subjects.len())
                    .filter(|&u| u != v)
                    .flat_map(|u| im.viewer_points_within(u, ew, eh, within))
                    .collect();
                let map = fixation_density(ew, eh, &rest, sigma);
                acc.add(&score_all(&map, &mine, &others, sigma));
                n += 1;
            }
            (n > 0).then(|| acc.scaled(1.0 / n as f64))
        };
        Ok(Some(Row {
            v3_cv: v3_cv_map.map(|m| score_all(&m, &fix, &others, sigma)),
            v3: score_all(&v3_map, &fix, &others, sigma),
            v3_full_cv: v3_full_cv_map.map(|m| score_all(&m, &fix, &others, sigma)),
            model: score_all(&model_map, &fix, &others, sigma),
            centre: score_all(&centre, &fix, &others, sigma),
            sr_centre: score_all(&sr, &fix, &others, sigma),
            shipped: score_all(&shipped_map, &fix, &others, sigma),
            human,
        }))
    });
    // Images without a scored fixation (no viewer's first second on record) are left out.
    let rows: Vec<Row> = rows
        .into_iter()
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    eprintln!(
        "scored {} images in {:.1} s",
        rows.len(),
        t0.elapsed().as_secs_f64()
    );
    let mean = |get: &dyn Fn(&Row) -> Option<Scores>| -> Option<Scores> {
        let v: Vec<Scores> = rows.iter().filter_map(get).collect();
        if v.is_empty() {
            return None;
        }
        let mut acc = Scores::default();
        v.iter().for_each(|s| acc.add(s));
        Some(acc.scaled(1.0 / v.len() as f64))
    };
    println!(
        "Saliency on {} ({} images, scored at longer side ≤ {} px, density sigma 0.03 × longer side; {})\n",
        o.dataset.display(),
        rows.len(),
        o.eval_long_side,
        if o.glance {
            "fixations starting within the first second"
        } else {
            "all fixations"
        }
    );
    println!("| Model | AUC-Judd | sAUC | NSS | CC | KLD ↓ | SIM | IG (bits/fix.) |");
    println!("|---|---|---|---|---|---|---|---|");
    let line = |name: &str, s: Option<Scores>, note: &str| {
        if let Some(s) = s {
            println!(
                "| {name} | {:.3} | {:.3} | {:.2} | {:.3} | {:.3} | {:.3} | {:.2} |{note}",
                s.auc_judd, s.sauc, s.nss, s.cc, s.kld, s.sim, s.ig
            );
        }
    };
    line(
        "centre only (σ = 0.25 w, 0.25 h)",
        mean(&|r| Some(r.centre)),
        "",
    );
    line(
        "spectral residual × centre",
        mean(&|r| Some(r.sr_centre)),
        "",
    );
    line(
        &format!("classical model, {}-fold CV by image", o.folds),
        mean(&|r| Some(r.model)),
        "",
    );
    line(
        "classical model, shipped params (in-sample)",
        mean(&|r| Some(r.shipped)),
        "",
    );
    let which = if o.glance {
        "first-glance head"
    } else {
        "full map"
    };
    line(
        &format!(
            "**model v3, {which}**, {}-fold CV by image (readout k on fold k)",
            o.folds
        ),
        mean(&|r| r.v3_cv),
        "",
    );
    line(
        &format!("model v3, {which} as shipped (mean of the readouts; in-sample)"),
        mean(&|r| Some(r.v3)),
        "",
    );
    line(
        &format!(
            "model v3, full map, {}-fold CV by image (readout k on fold k)",
            o.folds
        ),
        mean(&|r| r.v3_full_cv),
        "",
    );
    line(
        "humans, leave one viewer out",
        mean(&|r| r.human),
        " (CC/KLD/SIM vs the left-out viewer's own density)",
    );
    Ok(())
}
