//! `regard benchmark-reference`: computes the reference distributions that results are placed
//! against (crate::heatmaps::benchmark) over a public image set, and writes them as JSON
//! (the shipped file is crates/server/assets/benchmarks/reference.json).
//!
//! Each image of the set yields one reference image of every kind:
//! - **location**: the photo as it is;
//! - **creative**: the photo cropped at its centre to a portrait poster (120 × 176, the
//!   2 m² format), the nearest a public photo set comes to a poster;
//! - **render**: the next photo's poster crop placed on a panel of this photo by the product's
//!   renderer (a portrait or a 4 × 3 landscape panel, in turn, of random size, place and mild
//!   perspective), the panel's quad measured as a render's area of interest is.
//!
//! Each is predicted with the product's attention model and analysed as a heatmap item is; the
//! score, focus, clarity (and the panel's visibility and first-second probability) are
//! collected, with the share of
//! attention of random rectangles on the item's 64-cell grid, by size band. A fixed seed makes
//! the run repeatable; the result does not depend on `--jobs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regard_vision::composite::{Adjustments, Fit, RenderSpec, Scratch, render_in_place};
use regard_vision::image::working_size;
use regard_vision::{Plane, Rect, RgbImage, analyse, predict};

use super::heatmap::decode;
use super::osie::parallel_map;
use crate::heatmaps::benchmark::{
    AREA_BANDS, AREA_RANGE, KindReference, Provenance, Reference, quantiles,
};
use crate::heatmaps::result::GRID_SIDE;

/// Quantiles kept per distribution (every percent).
const QUANTILES: usize = 101;
/// Random rectangles drawn per reference image and size band.
const AREAS_PER_BAND: usize = 6;
/// Seed of the random panels and rectangles.
const SEED: u64 = 13;
/// The poster crop's aspect (width / height): 120 × 176 cm.
const POSTER_ASPECT: f64 = 120.0 / 176.0;

/// What to describe the set as in the file.
pub struct Options<'a> {
    pub images: &'a Path,
    pub out: &'a Path,
    pub limit: Option<usize>,
    pub jobs: usize,
    pub name: &'a str,
    pub licence: &'a str,
    pub citation: &'a str,
}

/// What one reference image gave.
#[derive(Debug, Clone, Default)]
struct Sample {
    score: f64,
    focus: f64,
    clarity: f64,
    panel: Option<f64>,
    /// The probability of a look at the panel within the first second (as a render's result
    /// says it: from the panel's share of the first-glance map).
    first_second: Option<f64>,
    /// Random areas' shares, by size band.
    areas: Vec<Vec<f64>>,
}

pub fn run(opts: &Options<'_>) -> Result<()> {
    let files = image_files(opts.images, opts.limit)?;
    let n = files.len();
    eprintln!("{n} images, {} thread(s)", opts.jobs);
    let started = std::time::Instant::now();
    let finished = AtomicUsize::new(0);
    let samples = parallel_map(n, opts.jobs, |i| {
        let result = samples_of(&files, i);
        let done = finished.fetch_add(1, Ordering::Relaxed) + 1;
        if done.is_multiple_of(50) {
            eprintln!("  {done} / {n} ({:.0} s)", started.elapsed().as_secs_f64());
        }
        result.with_context(|| files[i].display().to_string())
    })
    .into_iter()
    .collect::<Result<Vec<[Sample; 3]>>>()?;

    let kind = |pick: &dyn Fn(&[Sample; 3]) -> Vec<&Sample>| {
        let chosen: Vec<&Sample> = samples.iter().flat_map(pick).collect();
        distributions(&chosen)
    };
    let reference = Reference {
        version: 1,
        model: "v3".into(),
        source: Provenance {
            name: opts.name.into(),
            images: n,
            licence: opts.licence.into(),
            citation: opts.citation.into(),
            method: "location: each photo as it is; creative: each photo cropped at its centre to \
                     a 120 × 176 poster; render: the next photo's poster crop placed by the \
                     renderer on a random panel (portrait or 4 × 3, mild perspective) of each \
                     photo. Areas: 6 random rectangles per image and size band (2, 6, 15 % of \
                     the surface), shares read off the 64-cell grid. Seed 13."
                .into(),
            command: format!(
                "regard benchmark-reference --images <the {} images>",
                opts.name
            ),
        },
        location: kind(&|s| vec![&s[0]]),
        creative: kind(&|s| vec![&s[1]]),
        render: kind(&|s| vec![&s[2]]),
        all: kind(&|s| s.iter().collect()),
    };
    let mut text = serde_json::to_string_pretty(&rounded(&reference))?;
    text.push('\n');
    if let Some(dir) = opts.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(opts.out, text).with_context(|| format!("writing {}", opts.out.display()))?;
    for (name, k) in [
        ("creative", &reference.creative),
        ("location", &reference.location),
        ("render", &reference.render),
    ] {
        eprintln!(
            "{name:>9}: score p10 {:.1} · median {:.1} · p90 {:.1}",
            k.score[10], k.score[50], k.score[90]
        );
    }
    eprintln!(
        "wrote {} in {:.0} s",
        opts.out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The set's image files (JPEG, PNG, WebP), by name.
fn image_files(dir: &Path, limit: Option<usize>) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().and_then(|e| e.to_str()).is_some_and(|e| {
                matches!(
                    e.to_ascii_lowercase().as_str(),
                    "jpg" | "jpeg" | "png" | "webp"
                )
            })
        })
        .collect();
    files.sort();
    if let Some(limit) = limit {
        files.truncate(limit);
    }
    if files.len() < 2 {
        bail!("{} holds fewer than two images", dir.display());
    }
    Ok(files)
}

/// The three reference images made from image `i`: location, creative, render.
fn samples_of(files: &[PathBuf], i: usize) -> Result<[Sample; 3]> {
    let mut rng = StdRng::seed_from_u64(SEED ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let (w, h, photo) = decode(&files[i])?;
    let location = measure(w, h, &photo, None, &mut rng)?;

    let (cw, ch, poster) = poster_crop(w, h, &photo);
    let creative = measure(cw, ch, &poster, None, &mut rng)?;

    let (nw, nh, next) = decode(&files[(i + 1) % files.len()])?;
    let (pw, ph, next_poster) = poster_crop(nw, nh, &next);
    let landscape = i % 2 == 1;
    let quad = random_panel(w, h, landscape, &mut rng);
    let spec = RenderSpec {
        quad,
        fit: Fit::Cover,
        background: [255, 255, 255],
        panel_aspect: Some(if landscape { 4.0 / 3.0 } else { POSTER_ASPECT }),
        adjustments: Adjustments {
            auto_match: true,
            ..Adjustments::default()
        },
        site: None,
    };
    let mut render = photo;
    let creative_view = RgbImage::new(pw, ph, &next_poster)?;
    render_in_place(
        &mut render,
        w,
        h,
        &creative_view,
        None,
        &spec,
        &mut Scratch::default(),
    )
    .map_err(|e| anyhow::anyhow!("cannot render: {e}"))?;
    let relative = quad.map(|[x, y]| ((x / w as f64) as f32, (y / h as f64) as f32));
    let render = measure(w, h, &render, Some(&relative), &mut rng)?;
    Ok([location, creative, render])
}

/// Predicts and analyses one image as a heatmap item is, and draws the random areas.
fn measure(
    w: usize,
    h: usize,
    rgb: &[u8],
    panel: Option<&[(f32, f32); 4]>,
    rng: &mut StdRng,
) -> Result<Sample> {
    let img = RgbImage::new(w, h, rgb)?;
    let prediction = predict(&img);
    let analysis = analyse(&prediction.map, &prediction.faces, &prediction.texts);
    let (gw, gh) = working_size(prediction.map.width, prediction.map.height, GRID_SIDE);
    let grid = prediction.map.resize_area(gw, gh);
    let first_second = panel.map(|quad| {
        let share = regard_vision::analysis::polygon_share(&prediction.glance, quad).share;
        regard_vision::analysis::first_glance_probability(share)
    });
    let panel = panel.and_then(|quad| {
        let share = regard_vision::analysis::polygon_share(&grid, quad);
        (share.area > 0.0).then(|| share.share / share.area)
    });
    Ok(Sample {
        score: analysis.score,
        focus: analysis.focus,
        clarity: analysis.clarity,
        panel,
        first_second,
        areas: random_areas(&grid, w as f64 / h as f64, rng),
    })
}

/// [`AREAS_PER_BAND`] random rectangles per size band, inside the image, with aspects (in
/// pixels) from 1:4 to 4:1; their shares of attention.
fn random_areas(grid: &Plane, image_aspect: f64, rng: &mut StdRng) -> Vec<Vec<f64>> {
    let mut edges = vec![AREA_RANGE.0];
    edges.extend(AREA_BANDS);
    edges.push(AREA_RANGE.1);
    edges
        .windows(2)
        .map(|band| {
            (0..AREAS_PER_BAND)
                .map(|_| {
                    // Area uniform in log between the band's edges.
                    let area =
                        (band[0].ln() + rng.random::<f64>() * (band[1] / band[0]).ln()).exp();
                    let aspect = (rng.random::<f64>() * 2.0 - 1.0) * 4f64.ln();
                    // Relative width × height = area; pixel aspect = (w · W) / (h · H).
                    let rel_aspect = aspect.exp() / image_aspect;
                    let width = (area * rel_aspect).sqrt().min(1.0);
                    let height = (area / width).min(1.0);
                    let x = rng.random::<f64>() * (1.0 - width);
                    let y = rng.random::<f64>() * (1.0 - height);
                    let rect = Rect {
                        x: x as f32,
                        y: y as f32,
                        width: width as f32,
                        height: height as f32,
                    };
                    regard_vision::analysis::rect_share(grid, &rect).share
                })
                .collect()
        })
        .collect()
}

/// The largest centred crop of a poster's aspect.
fn poster_crop(w: usize, h: usize, rgb: &[u8]) -> (usize, usize, Vec<u8>) {
    let (cw, ch) = if (w as f64 / h as f64) > POSTER_ASPECT {
        (((h as f64) * POSTER_ASPECT).round() as usize, h)
    } else {
        (w, ((w as f64) / POSTER_ASPECT).round() as usize)
    };
    let (x0, y0) = ((w - cw) / 2, (h - ch) / 2);
    let mut out = Vec::with_capacity(cw * ch * 3);
    for y in y0..y0 + ch {
        let row = (y * w + x0) * 3;
        out.extend_from_slice(&rgb[row..row + cw * 3]);
    }
    (cw, ch, out)
}

/// A panel quad (pixels, clockwise from top-left) of random size and place, with one side
/// shorter than the other as a panel seen at an angle.
fn random_panel(w: usize, h: usize, landscape: bool, rng: &mut StdRng) -> [[f64; 2]; 4] {
    let (w, h) = (w as f64, h as f64);
    let aspect = if landscape { 4.0 / 3.0 } else { POSTER_ASPECT };
    // The panel's height: 25 to 60 % of the photo's, narrower than 70 % of its width.
    let ph = (0.25 + rng.random::<f64>() * 0.35) * h;
    let ph = ph.min(0.7 * w / aspect);
    let pw = ph * aspect;
    let x = rng.random::<f64>() * (w - pw);
    let y = rng.random::<f64>() * (h - ph);
    // Perspective: the far side up to 20 % shorter, on the left or the right.
    let shrink = rng.random::<f64>() * 0.2 * ph / 2.0;
    let (left, right) = if rng.random::<bool>() {
        (shrink, 0.0)
    } else {
        (0.0, shrink)
    };
    [
        [x, y + left],
        [x + pw, y + right],
        [x + pw, y + ph - right],
        [x, y + ph - left],
    ]
}

/// Quantiles of every measure over the chosen samples.
fn distributions(samples: &[&Sample]) -> KindReference {
    let of = |f: &dyn Fn(&Sample) -> Option<f64>| {
        let values: Vec<f64> = samples.iter().filter_map(|s| f(s)).collect();
        quantiles(&values, QUANTILES)
    };
    let panel = of(&|s| s.panel);
    let first_second = of(&|s| s.first_second);
    let bands = AREA_BANDS.len() + 1;
    KindReference {
        images: samples.len(),
        score: of(&|s| Some(s.score)),
        focus: of(&|s| Some(s.focus)),
        clarity: of(&|s| Some(s.clarity)),
        panel: (!panel.is_empty()).then_some(panel),
        first_second: (!first_second.is_empty()).then_some(first_second),
        areas: (0..bands)
            .map(|b| {
                let values: Vec<f64> = samples
                    .iter()
                    .flat_map(|s| s.areas[b].iter().copied())
                    .collect();
                quantiles(&values, QUANTILES)
            })
            .collect(),
        area_samples: samples.len() * AREAS_PER_BAND,
    }
}

/// The reference with its numbers rounded (scores to 0.01, shares to 1e-5): the file stays
/// small and readable, far below what a percentile can resolve.
fn rounded(reference: &Reference) -> Reference {
    let round = |values: &mut Vec<f64>, step: f64| {
        for v in values.iter_mut() {
            *v = (*v / step).round() * step;
            // Keep the printed form short (no 0.30000000000000004).
            *v = format!("{v:.5}").parse().unwrap_or(*v);
        }
    };
    let mut r = reference.clone();
    for k in [&mut r.creative, &mut r.location, &mut r.render, &mut r.all] {
        round(&mut k.score, 0.01);
        round(&mut k.focus, 0.01);
        round(&mut k.clarity, 0.01);
        if let Some(panel) = k.panel.as_mut() {
            round(panel, 0.001);
        }
        if let Some(first) = k.first_second.as_mut() {
            round(first, 0.0001);
        }
        for band in &mut k.areas {
            round(band, 0.00001);
        }
    }
    r
}
