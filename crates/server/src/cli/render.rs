//! `regard render`: decode a creative and a site photo (EXIF orientation applied), place the
//! creative on the panel quad with `regard_vision::composite`, and write the composite as PNG or
//! JPEG. Every bad input gets one clear line and a non-zero exit; nothing is written on error
//! (the file is written beside the target and renamed). `--bench N` times the render alone.

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use regard_vision::RgbImage;
use regard_vision::composite::{
    Adjustments, Fit, Mask, Night, RenderError, RenderSpec, Scratch, check_quad, render_in_place,
};
use regard_vision::image::MAX_PIXELS;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// JPEG quality of `.jpg` outputs: visually lossless, as the server's re-encoded originals.
const JPEG_QUALITY: u8 = 92;

/// How the creative fills the panel (command-line spelling of [`Fit`]).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FitArg {
    /// The creative's corners on the quad's corners.
    Stretch,
    /// Cropped (centred) to the panel's aspect.
    Cover,
    /// Whole and centred, the background colour around it.
    Contain,
}

/// Night lighting (command-line spelling of [`Night`]).
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum NightArg {
    /// Backlit paper in a light box.
    Backlit,
    /// An emissive LED screen.
    Led,
}

/// Arguments of `regard render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The creative (JPEG, PNG or WebP).
    #[arg(long)]
    creative: PathBuf,
    /// The site photo (JPEG, PNG or WebP); the output has its size.
    #[arg(long)]
    photo: PathBuf,
    /// Panel corners in photo pixels (continuous coordinates, (0,0) = top-left corner of the
    /// top-left pixel), clockwise from the top-left: x1,y1,x2,y2,x3,y3,x4,y4.
    #[arg(long, allow_hyphen_values = true)]
    quad: String,
    /// Output file: .png (lossless) or .jpg/.jpeg (quality 92).
    #[arg(long)]
    out: PathBuf,
    /// How the creative fills the panel. Default `stretch` here (the creative's corners on the
    /// quad's corners); the API's default is `cover`.
    #[arg(long, value_enum, default_value = "stretch")]
    fit: FitArg,
    /// Background colour around the creative with `--fit contain`, '#rrggbb'.
    #[arg(long, default_value = "#000000")]
    background: String,
    /// The panel's width / height, as a number or W/H (e.g. 4/3); estimated from the quad if absent.
    #[arg(long)]
    panel_aspect: Option<String>,
    /// Occlusion mask (any size, grey or colour; luma used; 255 = in front of the panel).
    #[arg(long)]
    mask: Option<PathBuf>,
    /// Night scene with a backlit box or an LED screen.
    #[arg(long, value_enum)]
    night: Option<NightArg>,
    /// Match the creative's exposure and colour cast to the light of the photo (its white surfaces).
    #[arg(long = "match")]
    auto_match: bool,
    /// Brightness, −1..1 (±1.5 stops).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    brightness: f32,
    /// Contrast, −1..1.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    contrast: f32,
    /// Saturation, −1..1 (−1 is grey).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    saturation: f32,
    /// Warmth, −1..1 (cooler to warmer).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    warmth: f32,
    /// Sharpness, −1..1 (negative blurs, positive sharpens).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    sharpness: f32,
    /// Grain, 0..1 (1 = the photo's own noise level).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    grain: f32,
    /// Glare, 0..1 (a soft specular band).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    glare: f32,
    /// Render N times (one thread) and print, as the last line, {"median_ms","p10_ms","p90_ms"}
    /// of decoded pixels → composited pixels (decoding and encoding excluded).
    #[arg(long)]
    bench: Option<usize>,
}

/// Runs the command. An error is printed as one line on stderr, exit status 1: `main`'s
/// report would add a backtrace when `RUST_BACKTRACE` is set.
pub fn run(args: RenderArgs) -> Result<()> {
    if let Err(e) = execute(args) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Format {
    Png,
    Jpeg,
}

fn execute(args: RenderArgs) -> Result<()> {
    let format = match args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => Format::Png,
        Some("jpg" | "jpeg") => Format::Jpeg,
        _ => bail!(
            "--out {}: unsupported extension (use .png or .jpg)",
            args.out.display()
        ),
    };
    let quad = parse_quad(&args.quad)?;
    let adjustments = Adjustments {
        brightness: signed("brightness", args.brightness)?,
        contrast: signed("contrast", args.contrast)?,
        saturation: signed("saturation", args.saturation)?,
        warmth: signed("warmth", args.warmth)?,
        sharpness: signed("sharpness", args.sharpness)?,
        grain: unit("grain", args.grain)?,
        glare: unit("glare", args.glare)?,
        auto_match: args.auto_match,
        night: args.night.map(|n| match n {
            NightArg::Backlit => Night::Backlit,
            NightArg::Led => Night::Led,
        }),
        view: None,
    };
    let background = parse_colour(&args.background)?;
    let panel_aspect = args.panel_aspect.as_deref().map(parse_aspect).transpose()?;
    if args.bench == Some(0) {
        bail!("--bench must be at least 1");
    }

    let photo = decode(&args.photo, "--photo")?.into_rgb8();
    let (pw, ph) = (photo.width() as usize, photo.height() as usize);
    check_quad(&quad, pw, ph).map_err(|e| match e {
        RenderError::OutsidePhoto => {
            anyhow!("--quad: a corner is outside the photo ({pw}×{ph} pixels)")
        }
        RenderError::NotConvex => {
            anyhow!("--quad: the corners are not a convex quad listed clockwise from the top-left")
        }
        RenderError::TooSmall => anyhow!("--quad: the quad covers less than 4 square pixels"),
        other => anyhow!("--quad: {other}"),
    })?;
    let creative = decode(&args.creative, "--creative")?.into_rgb8();
    let mask = args
        .mask
        .as_deref()
        .map(|p| decode(p, "--mask").map(|m| m.into_luma8()))
        .transpose()?;

    let spec = RenderSpec {
        quad,
        fit: match args.fit {
            FitArg::Stretch => Fit::Stretch,
            FitArg::Cover => Fit::Cover,
            FitArg::Contain => Fit::Contain,
        },
        background,
        panel_aspect,
        adjustments,
        site: None,
    };
    let creative_view = RgbImage::new(
        creative.width() as usize,
        creative.height() as usize,
        creative.as_raw(),
    )?;
    let mask_view = mask.as_ref().map(|m| Mask {
        width: m.width() as usize,
        height: m.height() as usize,
        data: m.as_raw(),
    });
    // Rendered in the decoded photo's buffer, as the server does; a benchmark restores the
    // photo before each run (untimed) and keeps the renderer's scratch storage between runs, as
    // a server thread does between jobs. Timed: statistics, pyramid, compositing.
    let mut out = photo.into_raw();
    let pristine = args.bench.map(|_| out.clone());
    let mut scratch = Scratch::default();
    let runs = args.bench.unwrap_or(1);
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        if let (true, Some(p)) = (run > 0, &pristine) {
            out.copy_from_slice(p);
        }
        let start = Instant::now();
        render_in_place(
            &mut out,
            pw,
            ph,
            &creative_view,
            mask_view.as_ref(),
            &spec,
            &mut scratch,
        )
        .map_err(|e| anyhow!("cannot render: {e}"))?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    write_output(&args.out, format, &out, pw, ph)?;
    if args.bench.is_some() {
        times.sort_by(f64::total_cmp);
        let pick =
            |q: f64| times[((q * (times.len() - 1) as f64).round() as usize).min(times.len() - 1)];
        println!(
            "{} renders of {}×{} (panel {:.0} px², one thread)",
            runs,
            pw,
            ph,
            regard_vision::composite::coverage::polygon_area(&quad)
        );
        println!(
            "{}",
            serde_json::json!({
                "median_ms": round3(pick(0.5)),
                "p10_ms": round3(pick(0.1)),
                "p90_ms": round3(pick(0.9)),
            })
        );
    } else {
        println!("wrote {} ({pw}×{ph})", args.out.display());
    }
    Ok(())
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

fn parse_quad(s: &str) -> Result<[[f64; 2]; 4]> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .ok()
        .filter(|v: &Vec<f64>| v.len() == 8 && v.iter().all(|x| x.is_finite()))
        .ok_or_else(|| {
            anyhow!("--quad {s:?}: expected 8 comma-separated numbers x1,y1,x2,y2,x3,y3,x4,y4")
        })?;
    Ok([[v[0], v[1]], [v[2], v[3]], [v[4], v[5]], [v[6], v[7]]])
}

fn signed(name: &str, v: f32) -> Result<f32> {
    if v.is_finite() && (-1.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        bail!("--{name} must be between -1 and 1 (got {v})")
    }
}

fn unit(name: &str, v: f32) -> Result<f32> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        bail!("--{name} must be between 0 and 1 (got {v})")
    }
}

fn parse_colour(s: &str) -> Result<[u8; 3]> {
    let hex = s.strip_prefix('#').unwrap_or(s);
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("--background {s:?}: expected a colour like '#1a2b3c'");
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0);
    Ok([byte(0), byte(2), byte(4)])
}

fn parse_aspect(s: &str) -> Result<f64> {
    let v = match s.split_once('/') {
        Some((w, h)) => w
            .trim()
            .parse::<f64>()
            .ok()
            .zip(h.trim().parse::<f64>().ok())
            .map(|(w, h)| w / h),
        None => s.trim().parse::<f64>().ok(),
    };
    v.filter(|a| a.is_finite() && *a > 0.0)
        .ok_or_else(|| anyhow!("--panel-aspect {s:?}: expected a positive number or W/H like 4/3"))
}

/// Decodes an image, checking its format from the content and its size from the header before
/// decoding, and applies its EXIF orientation.
fn decode(path: &Path, what: &str) -> Result<image::DynamicImage> {
    let fail = |msg: String| anyhow!("{what} {}: {msg}", path.display());
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read file ({e})")))?;
    // The format comes from the content, never from the extension.
    let format = match image::guess_format(&bytes) {
        Ok(f @ (image::ImageFormat::Jpeg | image::ImageFormat::Png | image::ImageFormat::WebP)) => {
            f
        }
        _ => {
            return Err(fail(
                "not a supported image (JPEG, PNG or WebP expected)".into(),
            ));
        }
    };
    let reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| fail(format!("cannot decode image ({e})")))?;
    let (w, h) = image::ImageDecoder::dimensions(&decoder);
    if w == 0 || h == 0 {
        return Err(fail(format!("image has zero width or height ({w}×{h})")));
    }
    if w as u64 * h as u64 > MAX_PIXELS {
        return Err(fail(format!(
            "image is {w}×{h}, above the limit of {} megapixels",
            MAX_PIXELS / 1_000_000
        )));
    }
    // A broken EXIF block only costs the orientation, not the image.
    let orientation = image::ImageDecoder::orientation(&mut decoder)
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut img = image::DynamicImage::from_decoder(decoder)
        .map_err(|e| fail(format!("cannot decode image (truncated or corrupt?): {e}")))?;
    img.apply_orientation(orientation);
    Ok(img)
}

/// Encodes and writes the output atomically: a temporary file in the same folder, renamed.
fn write_output(path: &Path, format: Format, rgb: &[u8], w: usize, h: usize) -> Result<()> {
    let bytes = match format {
        Format::Png => {
            let mut buf = Vec::new();
            image::ImageEncoder::write_image(
                image::codecs::png::PngEncoder::new(&mut buf),
                rgb,
                w as u32,
                h as u32,
                image::ExtendedColorType::Rgb8,
            )
            .context("cannot encode PNG")?;
            buf
        }
        Format::Jpeg => {
            let (w16, h16) = (
                u16::try_from(w).map_err(|_| anyhow!("the photo is too wide for JPEG"))?,
                u16::try_from(h).map_err(|_| anyhow!("the photo is too tall for JPEG"))?,
            );
            let mut buf = Vec::new();
            let mut enc = jpeg_encoder::Encoder::new(&mut buf, JPEG_QUALITY);
            // 4:2:0 as the server's re-encoded originals.
            enc.set_sampling_factor(jpeg_encoder::SamplingFactor::F_2_2);
            enc.encode(rgb, w16, h16, jpeg_encoder::ColorType::Rgb)
                .map_err(|e| anyhow!("cannot encode JPEG: {e}"))?;
            buf
        }
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| anyhow!("--out {}: cannot write ({e})", path.display());
    let mut tmp = tempfile::Builder::new()
        .prefix(".regard-render-")
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(&bytes).map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
