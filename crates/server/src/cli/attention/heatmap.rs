//! `regard heatmap`: decode each image (refusing bad or huge files with one clear line), predict
//! its attention map, write the grey PNG, the JSON analysis and optionally the overlay and fog.
//! One failing file does not stop the others; the exit status says whether any failed.

use anyhow::{Context, Result, anyhow, bail};
use regard_vision::image::MAX_PIXELS;
use regard_vision::{RgbImage, analyse, predict_model, render};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Decodes an image file to RGB bytes, checking its header's dimensions before decoding.
pub fn decode(path: &Path) -> Result<(usize, usize, Vec<u8>)> {
    // Identify the format from the content, never from the extension.
    let mut head = [0u8; 64];
    let n = {
        use std::io::Read;
        let mut f = std::fs::File::open(path).context("cannot open file")?;
        let mut n = 0;
        while n < head.len() {
            match f.read(&mut head[n..]).context("cannot read file")? {
                0 => break,
                k => n += k,
            }
        }
        n
    };
    if n == 0 {
        bail!("file is empty");
    }
    let format = match image::guess_format(&head[..n]) {
        Ok(f @ (image::ImageFormat::Jpeg | image::ImageFormat::Png | image::ImageFormat::WebP)) => {
            f
        }
        _ => bail!("not a supported image (JPEG, PNG or WebP expected)"),
    };
    let open = || -> Result<image::ImageReader<std::io::BufReader<std::fs::File>>> {
        let mut r = image::ImageReader::open(path).context("cannot open file")?;
        r.set_format(format);
        Ok(r)
    };
    let reader = open()?;
    let (w, h) = reader
        .into_dimensions()
        .map_err(|e| anyhow!("unreadable image header: {e}"))?;
    if w == 0 || h == 0 {
        bail!("image has zero width or height ({w}×{h})");
    }
    let pixels = w as u64 * h as u64;
    if pixels > MAX_PIXELS {
        bail!(
            "image is {w}×{h} ({:.0} megapixels), above the limit of {} megapixels",
            pixels as f64 / 1e6,
            MAX_PIXELS / 1_000_000
        );
    }
    let mut reader = open()?;
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(w);
    limits.max_image_height = Some(h);
    // Room for the decoded image at up to 16 bits × 4 channels, plus the RGB copy.
    limits.max_alloc = Some(pixels * 8 + pixels * 3 + (64 << 20));
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| anyhow!("cannot decode image (truncated or corrupt?): {e}"))?;
    let rgb = img.into_rgb8();
    Ok((rgb.width() as usize, rgb.height() as usize, rgb.into_raw()))
}

/// Which attention model predicts the maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Model {
    /// Attention model v3 (the default): EfficientNet-Lite1 features and readouts learned from
    /// eye fixations, with a first-second head.
    V3,
    /// The classical model (hand-made features with fitted weights), kept for comparison.
    Classical,
}

impl From<Model> for regard_vision::Model {
    fn from(m: Model) -> Self {
        match m {
            Model::V3 => regard_vision::Model::V3,
            Model::Classical => regard_vision::Model::Classical,
        }
    }
}

fn process(path: &Path, out: &Path, name: &str, opts: &Options) -> Result<()> {
    let (w, h, data) = decode(path)?;
    let img = RgbImage::new(w, h, &data)?;
    let pred = predict_model(&img, opts.model.into(), opts.threads);
    let analysis = analyse(&pred.map, &pred.faces, &pred.texts);
    let glance = analyse(&pred.glance, &pred.faces, &pred.texts);
    let save_grey = |map: &regard_vision::image::Plane, file: &Path| -> Result<()> {
        image::ImageBuffer::<image::Luma<u16>, Vec<u16>>::from_raw(
            w as u32,
            h as u32,
            render::grey16(map, w, h),
        )
        .context("map buffer size")?
        .save(file)
        .with_context(|| format!("writing {}", file.display()))
    };
    let png = out.join(format!("{name}.png"));
    save_grey(&pred.map, &png)?;
    save_grey(&pred.glance, &out.join(format!("{name}.glance.png")))?;
    let (overlay, fog, opacity) = (opts.overlay, opts.fog, opts.opacity);
    if overlay {
        let o = render::overlay(&img, &pred.map, opacity);
        let p = out.join(format!("{name}.overlay.png"));
        image::save_buffer(&p, &o, w as u32, h as u32, image::ExtendedColorType::Rgb8)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    if fog {
        let o = render::fog(&img, &pred.map, opacity);
        let p = out.join(format!("{name}.fog.png"));
        image::save_buffer(&p, &o, w as u32, h as u32, image::ExtendedColorType::Rgb8)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    let mut doc = serde_json::json!({
        "file": path.display().to_string(),
        "width": w,
        "height": h,
        "map": format!("{name}.png"),
        "glance_map": format!("{name}.glance.png"),
        "coordinates": "relative to the image: x, y, width, height in 0..1",
    });
    let a = serde_json::to_value(&analysis)?;
    if let (Some(d), Some(a)) = (doc.as_object_mut(), a.as_object()) {
        d.extend(a.clone());
        // The same analysis of the first-second map (score, hotspots in viewing order, …).
        d.insert("glance".into(), serde_json::to_value(&glance)?);
    }
    let j = out.join(format!("{name}.json"));
    std::fs::write(&j, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("writing {}", j.display()))?;
    println!(
        "{}: score {:.0}, focus {:.0}, clarity {:.0}, {} hotspots, {} faces, {} text regions → {}",
        path.display(),
        analysis.score,
        analysis.focus,
        analysis.clarity,
        analysis.hotspots.len(),
        analysis.faces.len(),
        analysis.texts.len(),
        png.display()
    );
    Ok(())
}

/// Options of `regard heatmap`.
pub struct Options {
    /// Also write the colour overlay.
    pub overlay: bool,
    /// Also write the fog view.
    pub fog: bool,
    /// Opacity of overlay and fog.
    pub opacity: f32,
    /// The model.
    pub model: Model,
    /// Threads for one image (v3; the maps do not depend on it).
    pub threads: usize,
}

/// Runs the command; fails (non-zero exit) if any image failed.
pub fn run(out: &Path, images: &[PathBuf], opts: &Options) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut used = HashSet::new();
    let mut failed = 0usize;
    for path in images {
        let stem = path
            .file_stem()
            .map_or("image".into(), |s| s.to_string_lossy().into_owned());
        // Two inputs with the same stem (a.jpg, a.png) get distinct outputs.
        let mut name = stem.clone();
        let mut k = 2;
        while !used.insert(name.clone()) {
            name = format!("{stem}-{k}");
            k += 1;
        }
        if let Err(e) = process(path, out, &name, opts) {
            eprintln!("error: {}: {e:#}", path.display());
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {} images failed", images.len());
    }
    Ok(())
}
