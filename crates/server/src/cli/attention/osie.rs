//! Reading an eye-tracking set in the OSIE layout (`fixations.json` + `stimuli/`), decoding its
//! images, and the per-image feature cache the fit works from (kept in /tmp, never in the repo).

use anyhow::{Context, Result, bail};
use regard_vision::fit::{FIT_LONG_SIDE, Sample};
use regard_vision::image::{Plane, working_size};
use regard_vision::model::{self, NF};
use serde::Deserialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
struct FixationsFile {
    images: Vec<ImageEntry>,
}

/// One image of the set and its viewers' fixations.
#[derive(Debug, Clone, Deserialize)]
pub struct ImageEntry {
    /// File name under `stimuli/`.
    pub file: String,
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Per viewer, the fixations as `[x, y, duration_ms]` (1-based pixel coordinates).
    pub subjects: Vec<Vec<Vec<f64>>>,
}

/// Milliseconds counted for each saccade between two fixations when onsets are computed from
/// durations (the main sequence gives about 30 ms for the 4–6° saccades of free viewing).
pub const SACCADE_MS: f64 = 30.0;

/// The first glance: fixations that start within this many milliseconds of the image's onset.
pub const GLANCE_MS: f64 = 1000.0;

impl ImageEntry {
    /// Fixations of one viewer as 0-based pixel positions at `w × h` (rescaled from the
    /// recorded size); with `within_ms`, only those that start before it.
    /// A fixation's onset is its fourth value where the set records one, else the sum of the
    /// earlier fixations' durations plus [`SACCADE_MS`] for each saccade (the first starts at 0).
    pub fn viewer_points_within(
        &self,
        v: usize,
        w: usize,
        h: usize,
        within_ms: Option<f64>,
    ) -> Vec<(usize, usize)> {
        let mut t = 0.0;
        self.subjects[v]
            .iter()
            .filter(|f| f.len() >= 2 && f[0].is_finite() && f[1].is_finite())
            .filter_map(|f| {
                let onset = f.get(3).copied().filter(|o| o.is_finite()).unwrap_or(t);
                t += f.get(2).copied().filter(|d| d.is_finite()).unwrap_or(0.0) + SACCADE_MS;
                if within_ms.is_some_and(|ms| onset >= ms) {
                    return None;
                }
                let x = (f[0] - 0.5) / self.width as f64 * w as f64;
                let y = (f[1] - 0.5) / self.height as f64 * h as f64;
                Some((
                    (x.floor().max(0.0) as usize).min(w - 1),
                    (y.floor().max(0.0) as usize).min(h - 1),
                ))
            })
            .collect()
    }

    /// Fixations of all viewers at `w × h`.
    pub fn all_points(&self, w: usize, h: usize) -> Vec<(usize, usize)> {
        self.all_points_within(w, h, None)
    }

    /// Fixations of all viewers at `w × h`, only those starting before `within_ms` if given.
    pub fn all_points_within(
        &self,
        w: usize,
        h: usize,
        within_ms: Option<f64>,
    ) -> Vec<(usize, usize)> {
        (0..self.subjects.len())
            .flat_map(|v| self.viewer_points_within(v, w, h, within_ms))
            .collect()
    }
}

/// The data set: its directory and images (in file order, which fixes the folds).
pub struct Dataset {
    /// Root directory.
    pub dir: PathBuf,
    /// Images with fixations.
    pub images: Vec<ImageEntry>,
}

impl Dataset {
    /// Reads `fixations.json` under `dir`; `limit` keeps only the first images (for quick runs).
    pub fn open(dir: &Path, limit: Option<usize>) -> Result<Dataset> {
        let path = dir.join("fixations.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let mut f: FixationsFile =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        f.images.sort_by(|a, b| a.file.cmp(&b.file));
        if let Some(n) = limit {
            f.images.truncate(n);
        }
        if f.images.is_empty() {
            bail!("{} lists no images", path.display());
        }
        Ok(Dataset {
            dir: dir.to_path_buf(),
            images: f.images,
        })
    }

    /// Decodes image `i` to RGB bytes.
    pub fn decode(&self, i: usize) -> Result<(usize, usize, Vec<u8>)> {
        let p = self.dir.join("stimuli").join(&self.images[i].file);
        let img = image::open(&p).with_context(|| format!("decoding {}", p.display()))?;
        let rgb = img.to_rgb8();
        Ok((rgb.width() as usize, rgb.height() as usize, rgb.into_raw()))
    }

    /// Fold of image `i` among `k` (image index modulo k, in file order).
    pub fn fold(&self, i: usize, k: usize) -> usize {
        i % k
    }
}

/// Builds (or loads from the cache file) one fit sample per image: the model's features
/// area-averaged onto the fit grid, and all viewers' fixations as grid cells.
pub fn fit_samples(ds: &Dataset, cache: &Path, jobs: usize) -> Result<Vec<Sample>> {
    if let Ok(s) = read_cache(cache, ds) {
        eprintln!(
            "features: loaded {} images from {}",
            s.len(),
            cache.display()
        );
        return Ok(s);
    }
    eprintln!("features: computing for {} images ...", ds.images.len());
    let t0 = std::time::Instant::now();
    let samples = parallel_map(ds.images.len(), jobs, |i| -> Result<Sample> {
        let (w, h, data) = ds.decode(i)?;
        let img = regard_vision::RgbImage::new(w, h, &data)?;
        let fs = model::compute_features(&img);
        let (gw, gh) = working_size(w, h, FIT_LONG_SIDE);
        let maps: Vec<Plane> = fs.maps.iter().map(|m| m.resize_area(gw, gh)).collect();
        let fixations = ds.images[i]
            .all_points(gw, gh)
            .into_iter()
            .map(|(x, y)| y * gw + x)
            .collect();
        Ok(Sample { maps, fixations })
    })
    .into_iter()
    .collect::<Result<Vec<_>>>()?;
    eprintln!(
        "features: {} images in {:.1} s",
        samples.len(),
        t0.elapsed().as_secs_f64()
    );
    if let Err(e) = write_cache(cache, ds, &samples) {
        eprintln!("features: cache not written ({e:#})");
    }
    Ok(samples)
}

/// Runs `f(0..n)` on `jobs` threads; results come back in index order, so they do not depend
/// on the number of threads.
pub fn parallel_map<T: Send>(n: usize, jobs: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let jobs = jobs.clamp(1, n.max(1));
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let chunk = n.div_ceil(jobs);
    std::thread::scope(|s| {
        for (c, part) in slots.chunks_mut(chunk.max(1)).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (j, slot) in part.iter_mut().enumerate() {
                    *slot = Some(f(c * chunk + j));
                }
            });
        }
    });
    slots.into_iter().map(|s| s.expect("filled")).collect()
}

const MAGIC: &[u8; 8] = b"RGFIT003";

fn cache_key(ds: &Dataset) -> u64 {
    // Invalidate when the feature set or the image list changes.
    let mut h: u64 = 1469598103934665603;
    let mut eat = |b: &[u8]| {
        for &x in b {
            h = (h ^ x as u64).wrapping_mul(1099511628211);
        }
    };
    for n in model::FEATURE_NAMES {
        eat(n.as_bytes());
    }
    for im in &ds.images {
        eat(im.file.as_bytes());
    }
    eat(&(FIT_LONG_SIDE as u64).to_le_bytes());
    h
}

fn write_cache(path: &Path, ds: &Dataset, samples: &[Sample]) -> Result<()> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&cache_key(ds).to_le_bytes());
    out.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    for s in samples {
        let (w, h) = (s.maps[0].width, s.maps[0].height);
        out.extend_from_slice(&(w as u32).to_le_bytes());
        out.extend_from_slice(&(h as u32).to_le_bytes());
        for m in &s.maps {
            for v in &m.data {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out.extend_from_slice(&(s.fixations.len() as u32).to_le_bytes());
        for &f in &s.fixations {
            out.extend_from_slice(&(f as u32).to_le_bytes());
        }
    }
    let mut f = std::fs::File::create(path)?;
    f.write_all(&out)?;
    Ok(())
}

fn read_cache(path: &Path, ds: &Dataset) -> Result<Vec<Sample>> {
    let mut buf = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut buf)?;
    let mut pos = 0usize;
    let mut take = |n: usize| -> Result<&[u8]> {
        let s = buf.get(pos..pos + n).context("truncated cache")?;
        pos += n;
        Ok(s)
    };
    if take(8)? != MAGIC {
        bail!("bad magic");
    }
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
    if u64_at(take(8)?) != cache_key(ds) {
        bail!("stale cache");
    }
    let n = u64_at(take(8)?) as usize;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let w = u32_at(take(4)?) as usize;
        let h = u32_at(take(4)?) as usize;
        let mut maps = Vec::with_capacity(NF);
        for _ in 0..NF {
            let raw = take(w * h * 4)?;
            let data = raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            maps.push(Plane {
                width: w,
                height: h,
                data,
            });
        }
        let nf = u32_at(take(4)?) as usize;
        let fixations = take(nf * 4)?
            .chunks_exact(4)
            .map(|c| u32_at(c) as usize)
            .collect();
        out.push(Sample { maps, fixations });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(subjects: Vec<Vec<Vec<f64>>>) -> ImageEntry {
        ImageEntry {
            file: "a.jpg".into(),
            width: 100,
            height: 100,
            subjects,
        }
    }

    #[test]
    fn the_first_glance_keeps_fixations_starting_within_a_second() {
        // Onsets: 0, 430 (400 + 30), 960 (430 + 500 + 30), 1290: the last one is out.
        let e = entry(vec![vec![
            vec![11.0, 11.0, 400.0],
            vec![21.0, 21.0, 500.0],
            vec![31.0, 31.0, 300.0],
            vec![41.0, 41.0, 100.0],
        ]]);
        assert_eq!(e.viewer_points_within(0, 100, 100, None).len(), 4);
        assert_eq!(
            e.viewer_points_within(0, 100, 100, Some(GLANCE_MS)),
            vec![(10, 10), (20, 20), (30, 30)]
        );
        // A recorded onset (fourth value) wins over the sum of durations.
        let e = entry(vec![vec![
            vec![11.0, 11.0, 100.0, 0.0],
            vec![21.0, 21.0, 100.0, 1500.0],
        ]]);
        assert_eq!(
            e.all_points_within(100, 100, Some(GLANCE_MS)),
            vec![(10, 10)]
        );
        // Invalid positions neither count nor advance the clock.
        let e = entry(vec![vec![
            vec![f64::NAN, 11.0, 5000.0],
            vec![21.0, 21.0, 100.0],
        ]]);
        assert_eq!(
            e.viewer_points_within(0, 100, 100, Some(GLANCE_MS)),
            vec![(20, 20)]
        );
    }
}
