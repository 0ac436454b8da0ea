//! Perspective rendering: a creative placed on a panel quad of a site photo, filtered without
//! aliasing, adjusted and lit, composited in linear light. The maths are specified in
//! `docs/architecture/rendering.md`, which the browser preview implements as well.
//!
//! Work is limited to the quad's bounding box (plus the bloom's reach at night): the photo is
//! copied once into the output (through three 8-bit tables at night), then each pixel that the
//! quad touches gets its exact coverage, its footprint-filtered creative colour and the
//! adjustments. One thread, no I/O, deterministic.

pub mod adjust;
pub mod bloom;
pub mod colour;
pub mod coverage;
pub mod homography;
pub mod night;
pub mod pyramid;
pub mod stats;
pub mod view;

use serde::{Deserialize, Serialize};
use wide::{f32x8, f64x4};

use crate::image::RgbImage;
use adjust::{Chunk, LANES, PanelParams, grain_bits_lanes, grain_z, grain_z_of};
use bloom::{Bloom, LightRows, light_pixels};
use colour::Srgb;
use coverage::{Edges, HALF_DIAGONAL, polygon_area};
use pyramid::{Footprint, Pyramid};

pub use homography::Homography;
pub use stats::{PhotoStats, photo_stats};
pub use view::{Site, View};

/// How the creative fills the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fit {
    /// The whole creative stretched to the panel's corners.
    Stretch,
    /// Cropped (centred) to the panel's aspect, then filling the panel.
    #[default]
    Cover,
    /// Whole, centred, the background colour around it.
    Contain,
}

/// Night lighting of the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Night {
    /// Backlit paper in a light box.
    Backlit,
    /// An emissive LED screen.
    Led,
}

/// Adjustments of the panel. Every field defaults to "unchanged"; ranges in rendering.md §3.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Adjustments {
    /// −1..1: exposure, ±1.5 stops.
    pub brightness: f32,
    /// −1..1: contrast around linear mid-grey.
    pub contrast: f32,
    /// −1..1: −1 is grey.
    pub saturation: f32,
    /// −1..1: cooler to warmer.
    pub warmth: f32,
    /// −1..1: negative blurs, positive sharpens.
    pub sharpness: f32,
    /// 0..1: grain, 1 = the photo's own noise level.
    pub grain: f32,
    /// 0..1: strength of a soft specular band.
    pub glare: f32,
    /// Match the creative's exposure and colour cast to the light of the photo (its white surfaces).
    pub auto_match: bool,
    /// Night mode, or day when `None`.
    pub night: Option<Night>,
    /// The panel as seen from a distance, passing at a speed (needs [`RenderSpec::site`]).
    pub view: Option<View>,
}

/// Everything that decides a render besides the pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderSpec {
    /// Panel corners in photo pixels (continuous coordinates), clockwise from top-left.
    pub quad: [[f64; 2]; 4],
    /// How the creative fills the panel.
    pub fit: Fit,
    /// Background colour (sRGB) around the creative in `contain` mode.
    pub background: [u8; 3],
    /// The panel's width / height when known (else estimated from the quad).
    pub panel_aspect: Option<f64>,
    /// Colour, sharpness, grain, glare, matching and lighting.
    pub adjustments: Adjustments,
    /// The panel's size and passing distance, which a view needs.
    pub site: Option<Site>,
}

/// A borrowed 8-bit grey occlusion mask (255 = in front of the panel), any size; it is
/// stretched over the whole photo.
#[derive(Debug, Clone, Copy)]
pub struct Mask<'a> {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width * height` bytes, row by row.
    pub data: &'a [u8],
}

/// Why a render cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum RenderError {
    /// The quad is not convex and clockwise (or is self-intersecting).
    NotConvex,
    /// A corner lies outside the photo.
    OutsidePhoto,
    /// The quad covers less than 4 px².
    TooSmall,
    /// A value is not finite or out of its range (the field's name).
    InvalidValue(&'static str),
    /// The mask's buffer does not match its size.
    InvalidMask,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::NotConvex => write!(f, "the quad is not convex and clockwise"),
            RenderError::OutsidePhoto => write!(f, "a corner of the quad is outside the photo"),
            RenderError::TooSmall => write!(f, "the quad covers less than 4 square pixels"),
            RenderError::InvalidValue(field) => write!(f, "{field} is out of range"),
            RenderError::InvalidMask => write!(f, "the mask's buffer does not match its size"),
        }
    }
}

impl std::error::Error for RenderError {}

/// Checks a quad against a `width × height` photo: finite corners inside `[0, W] × [0, H]`,
/// convex and clockwise on screen (y down) from the top-left, at least 4 px² in area.
pub fn check_quad(quad: &[[f64; 2]; 4], width: usize, height: usize) -> Result<(), RenderError> {
    if quad.iter().flatten().any(|v| !v.is_finite()) {
        return Err(RenderError::InvalidValue("quad"));
    }
    let (w, h) = (width as f64, height as f64);
    if quad
        .iter()
        .any(|p| p[0] < 0.0 || p[0] > w || p[1] < 0.0 || p[1] > h)
    {
        return Err(RenderError::OutsidePhoto);
    }
    for i in 0..4 {
        let (a, b, c) = (quad[i], quad[(i + 1) % 4], quad[(i + 2) % 4]);
        let cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        // Four turns of the same sign make a convex, simple quad; positive is clockwise on
        // screen because y grows downwards.
        if cross <= 0.0 {
            return Err(RenderError::NotConvex);
        }
    }
    if polygon_area(quad) < 4.0 {
        return Err(RenderError::TooSmall);
    }
    Ok(())
}

/// Checks the adjustments' ranges (rendering.md §3); the error names the first bad field.
pub fn check_adjustments(a: &Adjustments) -> Result<(), RenderError> {
    let signed = [
        ("brightness", a.brightness),
        ("contrast", a.contrast),
        ("saturation", a.saturation),
        ("warmth", a.warmth),
        ("sharpness", a.sharpness),
    ];
    for (name, v) in signed {
        if !v.is_finite() || !(-1.0..=1.0).contains(&v) {
            return Err(RenderError::InvalidValue(name));
        }
    }
    for (name, v) in [("grain", a.grain), ("glare", a.glare)] {
        if !v.is_finite() || !(0.0..=1.0).contains(&v) {
            return Err(RenderError::InvalidValue(name));
        }
    }
    if let Some(v) = &a.view {
        view::check_view(v)?;
    }
    Ok(())
}

/// Checks a whole spec and mask for a photo of `width × height`.
pub fn check_spec(
    spec: &RenderSpec,
    mask: Option<&Mask<'_>>,
    width: usize,
    height: usize,
) -> Result<(), RenderError> {
    check_quad(&spec.quad, width, height)?;
    check_adjustments(&spec.adjustments)?;
    match (&spec.adjustments.view, &spec.site) {
        (Some(_), None) => return Err(RenderError::InvalidValue("view")),
        (_, Some(site)) => view::check_site(site)?,
        (None, None) => {}
    }
    if let Some(a) = spec.panel_aspect
        && !(a.is_finite() && a > 0.0)
    {
        return Err(RenderError::InvalidValue("panel_aspect"));
    }
    if let Some(m) = mask
        && (m.width == 0 || m.height == 0 || m.data.len() != m.width * m.height)
    {
        return Err(RenderError::InvalidMask);
    }
    Ok(())
}

/// The panel's width / height: the given one, or the quad's mean side lengths (§1).
pub fn panel_aspect(quad: &[[f64; 2]; 4], given: Option<f64>) -> f64 {
    given.unwrap_or_else(|| {
        let d = |a: [f64; 2], b: [f64; 2]| (b[0] - a[0]).hypot(b[1] - a[1]);
        (d(quad[0], quad[1]) + d(quad[3], quad[2])) / (d(quad[0], quad[3]) + d(quad[1], quad[2]))
    })
}

/// The fit's affine map from panel coordinates to creative pixels: `u = ou + ku·s`,
/// `v = ov + kv·t` (rendering.md §1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitMap {
    /// Offset along u, creative pixels.
    pub ou: f64,
    /// Creative pixels per unit of s.
    pub ku: f64,
    /// Offset along v, creative pixels.
    pub ov: f64,
    /// Creative pixels per unit of t.
    pub kv: f64,
}

impl FitMap {
    /// The map for a creative of `wc × hc` on a panel of aspect `aspect`.
    pub fn new(fit: Fit, wc: f64, hc: f64, aspect: f64) -> FitMap {
        let a = wc / hc;
        match fit {
            Fit::Stretch => FitMap {
                ou: 0.0,
                ku: wc,
                ov: 0.0,
                kv: hc,
            },
            Fit::Cover if a > aspect => {
                let w = hc * aspect;
                FitMap {
                    ou: (wc - w) / 2.0,
                    ku: w,
                    ov: 0.0,
                    kv: hc,
                }
            }
            Fit::Cover => {
                let h = wc / aspect;
                FitMap {
                    ou: 0.0,
                    ku: wc,
                    ov: (hc - h) / 2.0,
                    kv: h,
                }
            }
            Fit::Contain if a > aspect => {
                let t0 = (1.0 - aspect / a) / 2.0;
                let kv = hc / (1.0 - 2.0 * t0);
                FitMap {
                    ou: 0.0,
                    ku: wc,
                    ov: -t0 * kv,
                    kv,
                }
            }
            Fit::Contain => {
                let s0 = (1.0 - a / aspect) / 2.0;
                let ku = wc / (1.0 - 2.0 * s0);
                FitMap {
                    ou: -s0 * ku,
                    ku,
                    ov: 0.0,
                    kv: hc,
                }
            }
        }
    }
}

/// `cov(p, size, r)` of the contain background (§2).
#[inline(always)]
fn contain_cov(p: f32, size: f32, r: f32) -> f32 {
    (0.5 + p.min(size - p) / r).clamp(0.0, 1.0)
}

/// The x-range `[lo, hi]` of the convex quad within the horizontal strip `[y0, y1]`, if any.
fn strip_span(q: &[[f64; 2]; 4], y0: f64, y1: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        if a[1].max(b[1]) < y0 || a[1].min(b[1]) > y1 {
            continue;
        }
        let dy = b[1] - a[1];
        let (t0, t1) = if dy == 0.0 {
            (0.0, 1.0)
        } else {
            let ta = (y0 - a[1]) / dy;
            let tb = (y1 - a[1]) / dy;
            (ta.min(tb).max(0.0), ta.max(tb).min(1.0))
        };
        for t in [t0, t1] {
            let x = a[0] + (b[0] - a[0]) * t;
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// Is the pixel whose centre is `(px, py)` wholly inside the quad (the coverage test's first case)?
#[inline(always)]
fn wholly_inside(edges: &Edges, px: f64, py: f64) -> bool {
    let d = edges.distances(px, py);
    d[0].min(d[1]).min(d[2]).min(d[3]) >= HALF_DIAGONAL
}

/// The run `[ia, ib)` within `[xa, xb)` of the pixels of the row at `py` that are wholly inside
/// the quad by the per-pixel test: solved from the edge lines, then its ends settled with the
/// per-pixel test itself, so that rounding cannot move a pixel between the two paths.
fn interior_run(edges: &Edges, py: f64, xa: usize, xb: usize) -> (usize, usize) {
    // Pixel centres px with n·(px, py) + c ≥ HALF_DIAGONAL for every edge.
    let (mut lo, mut hi) = (xa as f64 + 0.5, xb as f64 - 0.5);
    for &[nx, ny, c] in &edges.lines {
        let rest = HALF_DIAGONAL - ny * py - c;
        if nx > 0.0 {
            lo = lo.max(rest / nx);
        } else if nx < 0.0 {
            hi = hi.min(rest / nx);
        } else if rest > 0.0 {
            return (xa, xa);
        }
    }
    // Also empty when a bound is NaN.
    if lo.is_nan() || hi.is_nan() || lo > hi {
        return (xa, xa);
    }
    let mut ia = ((lo - 0.5).ceil().max(xa as f64) as usize).min(xb);
    let mut ib = (((hi - 0.5).floor() + 1.0).max(ia as f64) as usize).min(xb);
    let inside = |x: usize| wholly_inside(edges, x as f64 + 0.5, py);
    while ia < ib && !inside(ia) {
        ia += 1;
    }
    while ib > ia && !inside(ib - 1) {
        ib -= 1;
    }
    if ia == ib {
        return (xa, xa);
    }
    while ia > xa && inside(ia - 1) {
        ia -= 1;
    }
    while ib < xb && inside(ib) {
        ib += 1;
    }
    (ia, ib)
}

/// Renders `creative` onto `photo` (see rendering.md). Returns RGB8 pixels of the photo's size.
pub fn render(
    photo: &RgbImage<'_>,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
) -> Result<Vec<u8>, RenderError> {
    let mut out = vec![0u8; photo.data().len()];
    render_into(photo, creative, mask, spec, &mut out)?;
    Ok(out)
}

/// [`render`] into a caller's buffer of the photo's size (`width · height · 3` bytes), so that
/// repeated renders (benchmarks, previews of several creatives) reuse one allocation.
pub fn render_into(
    photo: &RgbImage<'_>,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
    out: &mut [u8],
) -> Result<(), RenderError> {
    let stats = needed_stats(photo, spec);
    render_with_stats(photo, creative, mask, spec, &stats, out)
}

/// The photo statistics `spec` needs (auto match by day, grain), defaults otherwise.
pub fn needed_stats(photo: &RgbImage<'_>, spec: &RenderSpec) -> PhotoStats {
    let a = &spec.adjustments;
    let mut s = PhotoStats::default();
    // Statistics of an invalid quad are meaningless; render refuses it anyway.
    if check_quad(&spec.quad, photo.width(), photo.height()).is_err() {
        return s;
    }
    if a.auto_match && a.night.is_none() {
        (s.exposure, s.cast) = stats::exposure_and_cast(photo, &spec.quad);
    }
    if a.grain > 0.0 {
        s.noise = stats::noise_sigma(photo, &spec.quad);
    }
    s
}

/// [`render_into`] with photo statistics computed beforehand (e.g. cached for a location).
pub fn render_with_stats(
    photo: &RgbImage<'_>,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
    stats: &PhotoStats,
    out: &mut [u8],
) -> Result<(), RenderError> {
    let (pw, ph) = (photo.width(), photo.height());
    check_spec(spec, mask, pw, ph)?;
    if out.len() != photo.data().len() {
        return Err(RenderError::InvalidValue("output"));
    }
    render_over(
        Some(photo.data()),
        out,
        pw,
        ph,
        creative,
        mask,
        spec,
        stats,
        &mut Scratch::default(),
    )
}

/// Storage a render needs besides its output (the creative's pyramid, a row's chunks between
/// the passes of the shading), kept between renders by a caller that makes several (a CLI
/// benchmark, a worker thread), so that it is neither allocated nor faulted in again. It holds
/// no result: a render with a used scratch is the same as with a new one.
#[derive(Debug, Default)]
pub struct Scratch {
    pyramid: Pyramid,
    /// A run's chunks between the passes of the shading.
    chunks: Vec<Chunk>,
}

/// [`render`] in the photo's own buffer (`width · height · 3` bytes of RGB8, replaced by the
/// render), with its statistics computed first: no copy of the photo, and `scratch`'s storage
/// reused.
pub fn render_in_place(
    photo: &mut [u8],
    width: usize,
    height: usize,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
    scratch: &mut Scratch,
) -> Result<(), RenderError> {
    let view =
        RgbImage::new(width, height, photo).map_err(|_| RenderError::InvalidValue("photo"))?;
    let stats = needed_stats(&view, spec);
    render_in_place_with_stats(photo, width, height, creative, mask, spec, &stats, scratch)
}

/// [`render_in_place`] with photo statistics computed beforehand.
#[allow(clippy::too_many_arguments)]
pub fn render_in_place_with_stats(
    photo: &mut [u8],
    pw: usize,
    ph: usize,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
    stats: &PhotoStats,
    scratch: &mut Scratch,
) -> Result<(), RenderError> {
    check_spec(spec, mask, pw, ph)?;
    if photo.len() != pw * ph * 3 {
        return Err(RenderError::InvalidValue("photo"));
    }
    render_over(None, photo, pw, ph, creative, mask, spec, stats, scratch)
}

/// The render into `out`, which holds the photo already when `source` is `None` and is
/// otherwise first filled from `source` (the photo, of `out`'s size), in the same pass that
/// darkens it at night: one pass over the photo instead of a copy and then the darkening.
/// The spec and the sizes are checked by the caller.
#[allow(clippy::too_many_arguments)]
fn render_over(
    source: Option<&[u8]>,
    out: &mut [u8],
    pw: usize,
    ph: usize,
    creative: &RgbImage<'_>,
    mask: Option<&Mask<'_>>,
    spec: &RenderSpec,
    stats: &PhotoStats,
    scratch: &mut Scratch,
) -> Result<(), RenderError> {
    let Scratch { pyramid, chunks } = scratch;
    let params = PanelParams::new(&spec.adjustments, stats);
    let srgb = Srgb::get();
    let lut = &srgb.decode;
    let q = &spec.quad;

    let bx0 = q
        .iter()
        .map(|p| p[0])
        .fold(f64::INFINITY, f64::min)
        .floor()
        .max(0.0) as usize;
    let bx1 = (q.iter().map(|p| p[0]).fold(0.0, f64::max).ceil() as usize).min(pw);
    let by0 = q
        .iter()
        .map(|p| p[1])
        .fold(f64::INFINITY, f64::min)
        .floor()
        .max(0.0) as usize;
    let by1 = (q.iter().map(|p| p[1]).fold(0.0, f64::max).ceil() as usize).min(ph);

    // The pixels of row `y` that the shading visits: the quad's span, within the box.
    let row_span = |y: usize| -> Option<(usize, usize)> {
        if !(by0..by1).contains(&y) {
            return None;
        }
        let (lo, hi) = strip_span(q, y as f64, y as f64 + 1.0)?;
        let xa = (lo.floor().max(0.0) as usize).max(bx0);
        let xb = (hi.ceil().max(0.0) as usize).min(bx1);
        Some((xa, xb.max(xa)))
    };

    let (wc, hc) = (creative.width(), creative.height());
    pyramid.rebuild(wc, hc, creative.data());
    let pyramid = &*pyramid;
    let fit = FitMap::new(
        spec.fit,
        wc as f64,
        hc as f64,
        panel_aspect(q, spec.panel_aspect),
    );
    let inv = Homography::square_to_quad(q).inverse().0;
    let edges = Edges::new(q);
    let contain = spec.fit == Fit::Contain;
    let bg = spec.background.map(|b| lut[b as usize]);
    let second_bias = (params.sharpen > 0.0).then_some(params.bias + 1.5);
    let (wcf, hcf) = (wc as f32, hc as f32);
    // The view's blur in creative pixels (§2), added to every footprint.
    let widening = match (&spec.adjustments.view, &spec.site) {
        (Some(v), Some(site)) => Some(view::covariance(v, site, fit.ku, fit.kv)),
        _ => None,
    };

    // The panel's linear colour (§3) at photo point `(px, py)` for a footprint `scale` photo
    // pixels wide (1 for a pixel, the bloom's factor for one of its cells), with its panel
    // coordinates `(s, t)`. Scaling by 1 is exact, so a pixel's colour does not depend on it.
    let panel_at = |px: f64, py: f64, scale: f32| -> [f32; 3] {
        // Panel coordinates and the Jacobian of the photo → creative map.
        // One division per pixel: divisions are slow and not vectorised.
        let rw = 1.0 / (inv[6] * px + inv[7] * py + inv[8]);
        let s = (inv[0] * px + inv[1] * py + inv[2]) * rw;
        let t = (inv[3] * px + inv[4] * py + inv[5]) * rw;
        let (kur, kvr) = (fit.ku * rw, fit.kv * rw);
        let mut fp = Footprint {
            u: (fit.ou + fit.ku * s) as f32,
            v: (fit.ov + fit.kv * t) as f32,
            jx: [
                (kur * (inv[0] - s * inv[6])) as f32 * scale,
                (kvr * (inv[3] - t * inv[6])) as f32 * scale,
            ],
            jy: [
                (kur * (inv[1] - s * inv[7])) as f32 * scale,
                (kvr * (inv[4] - t * inv[7])) as f32 * scale,
            ],
        };
        if let Some(w) = widening {
            (fp.jx, fp.jy) = view::widen(fp.jx, fp.jy, w);
        }
        let (mut c, mut cb) = pyramid.sample(&fp, params.bias, second_bias);
        if contain {
            let ru = (fp.jx[0].abs() + fp.jy[0].abs()).max(1e-6);
            let rv = (fp.jx[1].abs() + fp.jy[1].abs()).max(1e-6);
            let ac = contain_cov(fp.u, wcf, ru) * contain_cov(fp.v, hcf, rv);
            for k in 0..3 {
                c[k] = bg[k] + (c[k] - bg[k]) * ac;
                cb[k] = bg[k] + (cb[k] - bg[k]) * ac;
            }
        }
        params.apply(c, cb, s as f32, t as f32)
    };

    // At night the panel's light (§4) is emitted per cell before anything is shaded, so that
    // every pixel it reaches takes it before its one encode.
    let bloom = (params.bloom > 0.0).then(|| {
        let d = |a: [f64; 2], b: [f64; 2]| (b[0] - a[0]).hypot(b[1] - a[1]);
        let diagonal = d(q[0], q[2]).max(d(q[1], q[3]));
        let (x0, y0, x1, y1) = (bx0 as i64, by0 as i64, bx1 as i64, by1 as i64);
        let mut b = Bloom::new(x0, y0, x1, y1, adjust::BLOOM_SIGMA * diagonal);
        b.emit(&edges, panel_at);
        b.blur();
        let reach = b.reach(pw, ph);
        (b, reach)
    });
    // The pixels of row `y` that the night's darkening leaves to the pass below: the light's
    // reach (which holds the quad's box), else the quad's span.
    let skipped = |y: usize| -> (usize, usize) {
        match &bloom {
            Some((_, r)) if r.ys.contains(&y) => (r.xs.start, r.xs.end),
            _ => row_span(y).unwrap_or((0, 0)),
        }
    };

    // At night the photo is darkened and cooled through three 8-bit tables (the night's
    // `photo_gain` is always `NIGHT_PHOTO`): here everywhere but where the light can reach
    // and where the shading goes, which read the photo as it was, apply the night gain
    // themselves, the light with it.
    let dark = spec
        .adjustments
        .night
        .is_some()
        .then(night::Darkening::night);
    debug_assert!(dark.is_none() || params.photo_gain == adjust::NIGHT_PHOTO);
    match (dark, source) {
        (None, Some(src)) => out.copy_from_slice(src),
        (None, None) => {}
        (Some(t), src) => {
            for (y, row) in out.chunks_exact_mut(pw * 3).enumerate() {
                let (xa, xb) = skipped(y);
                let (left, rest) = row.split_at_mut(xa * 3);
                let (span, right) = rest.split_at_mut((xb - xa) * 3);
                match src {
                    Some(src) => {
                        let src = &src[y * pw * 3..(y + 1) * pw * 3];
                        let (src_left, rest) = src.split_at(xa * 3);
                        let (src_span, src_right) = rest.split_at((xb - xa) * 3);
                        t.copy(src_left, left);
                        span.copy_from_slice(src_span);
                        t.copy(src_right, right);
                    }
                    None => {
                        t.in_place(left);
                        t.in_place(right);
                    }
                }
            }
        }
    }

    // The bloom's strength, and the light of pixel `x` from a row's light that starts at
    // photo column `x0`.
    let strength = params.bloom;
    let lit = |light: Option<(&[Vec<f32>; 3], usize)>, x: usize| -> Option<[f32; 3]> {
        light.map(|(l, x0)| [l[0][x - x0], l[1][x - x0], l[2][x - x0]])
    };

    // A pixel the panel leaves to the photo (outside the quad, or hidden by the mask): at
    // night darkened, with its light in the same encode when it has some (as `light_pixels`).
    let uncovered = |o: &mut [u8], light: Option<[f32; 3]>| match (dark, light) {
        (Some(_), Some(l)) => {
            light_pixels(o, [&[l[0]], &[l[1]], &[l[2]]], params.photo_gain, strength)
        }
        (Some(t), None) => t.in_place(o),
        (None, _) => {}
    };

    // Everything from the panel coordinates to the written pixel, for pixel `x` of the row at
    // `py` with edge coverage `a_edge`, and the light of that pixel at night.
    let shade = |out: &mut [u8],
                 x: usize,
                 y: usize,
                 a_edge: f32,
                 mask_row: Option<(&Mask<'_>, usize, usize, f32)>,
                 light: Option<[f32; 3]>| {
        let px = x as f64 + 0.5;
        let py = y as f64 + 0.5;
        let panel = panel_at(px, py, 1.0);
        let m = match mask_row {
            Some((m, y0, y1, fy)) => {
                let mx = (px / pw as f64 * m.width as f64 - 0.5).clamp(0.0, (m.width - 1) as f64);
                let x0 = mx as usize;
                let x1 = (x0 + 1).min(m.width - 1);
                let fx = (mx - x0 as f64) as f32;
                let at = |xx: usize, yy: usize| m.data[yy * m.width + xx] as f32;
                let top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * fx;
                let bot = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * fx;
                (top + (bot - top) * fy) * (1.0 / 255.0)
            }
            None => 0.0,
        };
        let alpha = a_edge * (1.0 - m);
        let i = (y * pw + x) * 3;
        if alpha <= 0.0 {
            uncovered(&mut out[i..i + 3], light);
            return;
        }
        // The photo as it is (at night not yet darkened: the gain below does it).
        let src: [u8; 3] = [out[i], out[i + 1], out[i + 2]];
        let o = &mut out[i..i + 3];
        let grain = if params.grain > 0.0 {
            alpha * params.grain * grain_z(x as u32, y as u32)
        } else {
            0.0
        };
        for k in 0..3 {
            let mut lin = if alpha >= 1.0 {
                panel[k]
            } else {
                let p = lut[src[k] as usize] * params.photo_gain[k];
                p + (panel[k] - p) * alpha
            };
            if let Some(l) = light {
                lin += strength * l[k];
            }
            let v = srgb.encode(lin);
            o[k] = if grain != 0.0 {
                // Rounded by truncation after +0.5; negative values saturate to 0.
                (v as f32 + grain + 0.5).clamp(0.0, 255.0) as u8
            } else {
                v
            };
        }
    };

    // `shade` for the pixels of a run wholly inside the quad, without mask or contain
    // background, [`LANES`] at a time: the same arithmetic lane by lane, so that all but the
    // texture and table look-ups vectorise. It goes in passes over the run's chunks (the
    // footprints, the texture samples, each adjustment, the light and the encode), each a
    // short loop whose chunks are independent: one chunk's whole chain of dependent operations
    // is far longer than the processor's reorder window, so that, shaded in one piece, a chunk
    // waits on its own latencies, while a pass's iterations overlap.
    //
    // The footprints of the chunk of `n ≤ LANES` pixels from `x0`, and its panel coordinates.
    let footprint_chunk = |chunk: &mut Chunk, x0: usize, n: usize, y: usize| {
        let py = y as f64 + 0.5;
        let fps = &mut chunk.fps;
        // The operations of `shade`, four lanes at once (the products with `py` are the same
        // in every lane; `x0 + i` and the half are exact in f64).
        let sp = f64x4::splat;
        let (ry, sy, ty) = (inv[7] * py, inv[1] * py, inv[4] * py);
        let x0f = x0 as f64;
        let st = &mut chunk.st;
        for h in 0..LANES / 4 {
            let j = 4 * h;
            let px = sp(x0f) + f64x4::from([0.5, 1.5, 2.5, 3.5]) + sp(j as f64);
            let rw = sp(1.0) / (sp(inv[6]) * px + sp(ry) + sp(inv[8]));
            let s = (sp(inv[0]) * px + sp(sy) + sp(inv[2])) * rw;
            let t = (sp(inv[3]) * px + sp(ty) + sp(inv[5])) * rw;
            let (kur, kvr) = (sp(fit.ku) * rw, sp(fit.kv) * rw);
            let put = |dst: &mut [f32; LANES], v: f64x4| {
                let a = v.to_array();
                dst[j..j + 4].copy_from_slice(&[
                    a[0] as f32,
                    a[1] as f32,
                    a[2] as f32,
                    a[3] as f32,
                ]);
            };
            put(&mut st[0], s);
            put(&mut st[1], t);
            put(&mut fps[0], sp(fit.ou) + sp(fit.ku) * s);
            put(&mut fps[1], sp(fit.ov) + sp(fit.kv) * t);
            put(&mut fps[2], kur * (sp(inv[0]) - s * sp(inv[6])));
            put(&mut fps[3], kvr * (sp(inv[3]) - t * sp(inv[6])));
            put(&mut fps[4], kur * (sp(inv[1]) - s * sp(inv[7])));
            put(&mut fps[5], kvr * (sp(inv[4]) - t * sp(inv[7])));
        }
        if let Some(w) = widening {
            for i in 0..n {
                let (jx, jy) = view::widen([fps[2][i], fps[3][i]], [fps[4][i], fps[5][i]], w);
                [fps[2][i], fps[3][i], fps[4][i], fps[5][i]] = [jx[0], jx[1], jy[0], jy[1]];
            }
        }
    };
    // The chunk's filtered samples (and their blurred twins when sharpening).
    let sample_chunk = |chunk: &mut Chunk, n: usize| {
        pyramid.sample_lanes(
            &chunk.fps,
            n,
            params.bias,
            second_bias,
            &mut chunk.c,
            &mut chunk.cb,
        );
    };

    // The chunk's panel colour `c` (the adjustments applied) to its pixels; `light`: the row's
    // light from column `x0` on, at night.
    let write_chunk = |out: &mut [u8],
                       c: &mut [[f32; LANES]; 3],
                       x0: usize,
                       n: usize,
                       y: usize,
                       light: Option<[&[f32]; 3]>| {
        if let Some(light) = light {
            // `lin += strength · light` as in `shade` (lanes past `n` are never written).
            let sp = f32x8::splat(strength);
            for (ch, l) in c.iter_mut().zip(light) {
                // A whole chunk as one fixed-size load (a copy of `n` values is a call).
                let v = match l.first_chunk::<LANES>() {
                    Some(&v) if n == LANES => v,
                    _ => {
                        let mut v = [0f32; LANES];
                        v[..n].copy_from_slice(&l[..n]);
                        v
                    }
                };
                *ch = (f32x8::from(*ch) + sp * f32x8::from(v)).to_array();
            }
        }
        let mut codes = [[0u8; LANES]; 3];
        if params.grain > 0.0 {
            // `(v + grain + 0.5).clamp(0, 255) as u8` as in `shade`, on the codes still in f32
            // (whole numbers, so the same sums); with a grain of exactly 0 it gives `v` back,
            // so the lanes need no test.
            let bits = grain_bits_lanes(x0 as u32, y as u32);
            let g = f32x8::splat(params.grain) * grain_z_of(bits.round_float());
            for (ch, lin) in codes.iter_mut().zip(c.iter()) {
                let v = srgb.encode_lanes_f32(lin) + g + f32x8::splat(0.5);
                let v = v
                    .max(f32x8::splat(0.0))
                    .min(f32x8::splat(255.0))
                    .trunc_int()
                    .to_array();
                for i in 0..LANES {
                    ch[i] = v[i] as u8;
                }
            }
        } else {
            for k in 0..3 {
                codes[k] = srgb.encode_lanes(&c[k]);
            }
        }
        let start = (y * pw + x0) * 3;
        let row = &mut out[start..start + 3 * n];
        for (i, o) in row.chunks_exact_mut(3).enumerate() {
            o.copy_from_slice(&[codes[0][i], codes[1][i], codes[2][i]]);
        }
    };

    // The run `[ia, ib)` of row `y` in its passes, its chunks kept in `chunks`; `light` as for
    // `shade_row`.
    let shade_run = |out: &mut [u8],
                     chunks: &mut Vec<Chunk>,
                     y: usize,
                     (ia, ib): (usize, usize),
                     light: Option<(&[Vec<f32>; 3], usize)>| {
        let count = (ib - ia).div_ceil(LANES);
        if chunks.len() < count {
            chunks.resize(count, Chunk::default());
        }
        let chunks = &mut chunks[..count];
        let part = |k: usize| {
            let x = ia + k * LANES;
            (x, (ib - x).min(LANES))
        };
        for (k, chunk) in chunks.iter_mut().enumerate() {
            let (x, n) = part(k);
            footprint_chunk(chunk, x, n, y);
        }
        for (k, chunk) in chunks.iter_mut().enumerate() {
            sample_chunk(chunk, part(k).1);
        }
        params.apply_lanes(chunks);
        for (k, chunk) in chunks.iter_mut().enumerate() {
            let (x, n) = part(k);
            let l = light.map(|(l, x0)| [&l[0][x - x0..], &l[1][x - x0..], &l[2][x - x0..]]);
            write_chunk(out, &mut chunk.c, x, n, y, l);
        }
    };

    // Shades row `y` within the quad's span `(xa, xb)`; `light`: the row's light and the
    // photo column of its first value, at night.
    let shade_row = |out: &mut [u8],
                     chunks: &mut Vec<Chunk>,
                     y: usize,
                     (xa, xb): (usize, usize),
                     light: Option<(&[Vec<f32>; 3], usize)>| {
        let py = y as f64 + 0.5;
        // Mask row coordinates (texel centres), constant along the row.
        let mask_row = mask.map(|m| {
            let my = (py / ph as f64 * m.height as f64 - 0.5).clamp(0.0, (m.height - 1) as f64);
            let y0 = my as usize;
            (m, y0, (y0 + 1).min(m.height - 1), (my - y0 as f64) as f32)
        });
        // Pixels wholly inside the quad form one run [ia, ib): they skip the coverage test.
        let (ia, ib) = interior_run(&edges, py, xa, xb);
        // The coverage of a pixel near an edge (None when it is outside).
        let edge_cover = |x: usize| {
            let d = edges.distances(x as f64 + 0.5, py);
            let dmin = d[0].min(d[1]).min(d[2]).min(d[3]);
            if dmin >= HALF_DIAGONAL {
                Some(1.0)
            } else if dmin <= -HALF_DIAGONAL {
                None
            } else {
                let a = edges.clipped_area(x as f64, y as f64) as f32;
                (a > 0.0).then_some(a)
            }
        };
        // A pixel of the span that the quad does not touch is the photo (darkened at night).
        let edge = |out: &mut [u8], x: usize| match edge_cover(x) {
            Some(a_edge) => shade(out, x, y, a_edge, mask_row, lit(light, x)),
            None => {
                let i = (y * pw + x) * 3;
                uncovered(&mut out[i..i + 3], lit(light, x));
            }
        };
        for x in xa..ia {
            edge(out, x);
        }
        if mask.is_none() && !contain {
            shade_run(out, chunks, y, (ia, ib), light);
        } else {
            for x in ia..ib {
                shade(out, x, y, 1.0, mask_row, lit(light, x));
            }
        }
        for x in ib..xb {
            edge(out, x);
        }
    };

    match &bloom {
        None => {
            for y in by0..by1 {
                if let Some(span) = row_span(y) {
                    shade_row(out, chunks, y, span, None);
                }
            }
        }
        Some((b, reach)) => {
            // Row by row over the light's reach: the row's light, the quad's span shaded with
            // it, and the rest of the reach (the photo as it is) darkened with it.
            let (x0, x1) = (reach.xs.start, reach.xs.end);
            let mut rows = LightRows::new(b, reach.xs.clone());
            for y in reach.ys.clone() {
                let span = row_span(y);
                let need = span.map_or(0..0, |(xa, xb)| xa - x0..xb - x0);
                let on = rows.row(y, need);
                if let Some(span) = span {
                    shade_row(out, chunks, y, span, Some((&rows.light, x0)));
                }
                let (xa, xb) = span.unwrap_or((x1, x1));
                let t = dark.expect("a bloom only at night");
                let row = &mut out[y * pw * 3..(y + 1) * pw * 3];
                for part in [x0..xa, xb..x1] {
                    // The lit columns of the part, and the dark ones on either side.
                    let a = part.start.max(on.start + x0).min(part.end);
                    let b = part.end.min(on.end + x0).max(a);
                    t.in_place(&mut row[part.start * 3..a * 3]);
                    let (la, lb) = (a - x0, b - x0);
                    let l = [
                        &rows.light[0][la..lb],
                        &rows.light[1][la..lb],
                        &rows.light[2][la..lb],
                    ];
                    light_pixels(&mut row[a * 3..b * 3], l, params.photo_gain, strength);
                    t.in_place(&mut row[b * 3..part.end * 3]);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lane_path_matches_the_per_pixel_path() {
        // An all-zero mask changes nothing but sends every pixel through the per-pixel path.
        let (pw, ph, cw, ch) = (240, 160, 97, 61);
        let photo: Vec<u8> = (0..pw * ph * 3).map(|i| (i * 31 % 253) as u8).collect();
        let creative: Vec<u8> = (0..cw * ch * 3).map(|i| (i * 7919 % 251) as u8).collect();
        let photo = RgbImage::new(pw, ph, &photo).unwrap();
        let creative = RgbImage::new(cw, ch, &creative).unwrap();
        let zeros = vec![0u8; 60 * 40];
        let mask = Mask {
            width: 60,
            height: 40,
            data: &zeros,
        };
        let all = Adjustments {
            brightness: 0.1,
            contrast: 0.2,
            saturation: 0.15,
            warmth: 0.2,
            sharpness: 0.3,
            grain: 0.5,
            glare: 0.3,
            auto_match: true,
            night: None,
            view: None,
        };
        for adjustments in [
            Adjustments::default(),
            all,
            Adjustments {
                night: Some(Night::Led),
                ..all
            },
        ] {
            for quad in [
                [[30.2, 20.7], [200.5, 31.0], [190.0, 150.3], [25.0, 140.0]],
                [[120.0, 5.0], [235.0, 80.0], [120.0, 155.0], [5.0, 80.0]],
                // Shrunk about 1.6×: one tap between levels 0 and 1.
                [[30.3, 20.2], [90.1, 24.6], [88.4, 70.7], [28.2, 66.1]],
            ] {
                let spec = RenderSpec {
                    quad,
                    fit: Fit::Cover,
                    background: [0; 3],
                    panel_aspect: None,
                    adjustments,
                    site: None,
                };
                let lanes = render(&photo, &creative, None, &spec).unwrap();
                let pixels = render(&photo, &creative, Some(&mask), &spec).unwrap();
                assert!(lanes == pixels, "{adjustments:?} {quad:?}");
            }
        }
    }

    #[test]
    fn the_interior_run_is_the_per_pixel_test() {
        let quads = [
            [
                [1200.0, 1000.0],
                [2820.0, 1050.0],
                [2800.0, 1960.0],
                [1210.0, 1990.0],
            ],
            [[13.37, 7.21], [91.6, 19.05], [84.2, 71.93], [6.4, 55.5]],
            [[10.5, 3.0], [30.0, 3.0], [30.0, 20.0], [10.5, 20.0]],
            [[50.0, 0.5], [99.0, 50.0], [50.0, 99.5], [0.5, 50.0]],
            [[2.0, 2.0], [6.0, 2.3], [5.0, 4.0], [2.5, 3.9]],
        ];
        for q in &quads {
            let e = Edges::new(q);
            for y in 0..2100 {
                let py = y as f64 + 0.5;
                let Some((lo, hi)) = strip_span(q, y as f64, y as f64 + 1.0) else {
                    continue;
                };
                let (xa, xb) = (lo.floor() as usize, hi.ceil() as usize);
                let (ia, ib) = interior_run(&e, py, xa, xb);
                for x in xa..xb {
                    let inside = wholly_inside(&e, x as f64 + 0.5, py);
                    assert_eq!(inside, (ia..ib).contains(&x), "{q:?} ({x}, {y})");
                }
            }
        }
    }
}
