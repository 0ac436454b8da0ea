//! Pixel containers and resampling: the borrowed RGB input view, the float plane used for every
//! map, the one-pass area-average downscale from full resolution, and bilinear upsampling.

use crate::VisionError;

/// Largest accepted input, in pixels (width × height). Callers should refuse bigger images
/// before decoding; the engine refuses them too.
pub const MAX_PIXELS: u64 = 120_000_000;

/// A borrowed, decoded 8-bit RGB image: `data` holds `width * height * 3` bytes, row by row,
/// with no padding.
#[derive(Debug, Clone, Copy)]
pub struct RgbImage<'a> {
    width: usize,
    height: usize,
    data: &'a [u8],
}

impl<'a> RgbImage<'a> {
    /// Checks the dimensions against the buffer and wraps it.
    pub fn new(width: usize, height: usize, data: &'a [u8]) -> Result<Self, VisionError> {
        if width == 0 || height == 0 {
            return Err(VisionError::Empty);
        }
        if (width as u64) * (height as u64) > MAX_PIXELS {
            return Err(VisionError::TooLarge { width, height });
        }
        if data.len() != width * height * 3 {
            return Err(VisionError::BufferSize {
                expected: width * height * 3,
                actual: data.len(),
            });
        }
        Ok(Self {
            width,
            height,
            data,
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The raw RGB bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
}

/// A single-channel `f32` image, row-major. Attention maps are planes whose values sum to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width * height` values, row by row.
    pub data: Vec<f32>,
}

impl Plane {
    /// A plane filled with `value`.
    pub fn filled(width: usize, height: usize, value: f32) -> Self {
        Self {
            width,
            height,
            data: vec![value; width * height],
        }
    }

    /// Value at (x, y).
    #[inline]
    pub fn at(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width + x]
    }

    /// Sum of all values.
    pub fn sum(&self) -> f64 {
        self.data.iter().map(|&v| v as f64).sum()
    }

    /// Largest value (0 for an empty plane).
    pub fn max(&self) -> f32 {
        self.data.iter().copied().fold(0.0, f32::max)
    }

    /// Scales the values so they sum to 1 (a uniform plane if they sum to 0).
    pub fn normalize_sum(&mut self) {
        let s = self.sum();
        if s > 0.0 && s.is_finite() {
            let k = (1.0 / s) as f32;
            self.data.iter_mut().for_each(|v| *v *= k);
        } else {
            let u = 1.0 / self.data.len().max(1) as f32;
            self.data.iter_mut().for_each(|v| *v = u);
        }
    }

    /// Scales the values into [0, 1] by dividing by the maximum (no-op for an all-zero plane).
    pub fn normalize_max(&mut self) {
        let m = self.max();
        if m > 0.0 {
            let k = 1.0 / m;
            self.data.iter_mut().for_each(|v| *v *= k);
        }
    }

    /// Bilinear resampling to `width × height` (pixel centres aligned, edges clamped).
    pub fn resize_bilinear(&self, width: usize, height: usize) -> Plane {
        let mut out = Vec::with_capacity(width * height);
        let sx = self.width as f32 / width as f32;
        let sy = self.height as f32 / height as f32;
        // Precompute the horizontal taps once; they are the same for every row.
        let taps: Vec<(usize, usize, f32)> = (0..width)
            .map(|x| tap((x as f32 + 0.5) * sx - 0.5, self.width))
            .collect();
        for y in 0..height {
            let (y0, y1, fy) = tap((y as f32 + 0.5) * sy - 0.5, self.height);
            let r0 = &self.data[y0 * self.width..(y0 + 1) * self.width];
            let r1 = &self.data[y1 * self.width..(y1 + 1) * self.width];
            for &(x0, x1, fx) in &taps {
                let a = r0[x0] + (r0[x1] - r0[x0]) * fx;
                let b = r1[x0] + (r1[x1] - r1[x0]) * fx;
                out.push(a + (b - a) * fy);
            }
        }
        Plane {
            width,
            height,
            data: out,
        }
    }

    /// Area-average downscale by an integer-free box mapping (used for the fitting grid).
    pub fn resize_area(&self, width: usize, height: usize) -> Plane {
        let xs = boxes(self.width, width);
        let ys = boxes(self.height, height);
        let mut out = Vec::with_capacity(width * height);
        for &(y0, y1) in &ys {
            for &(x0, x1) in &xs {
                let mut s = 0.0f32;
                for yy in y0..y1 {
                    s += self.data[yy * self.width + x0..yy * self.width + x1]
                        .iter()
                        .sum::<f32>();
                }
                out.push(s / ((y1 - y0) * (x1 - x0)) as f32);
            }
        }
        Plane {
            width,
            height,
            data: out,
        }
    }
}

fn tap(pos: f32, n: usize) -> (usize, usize, f32) {
    let p = pos.clamp(0.0, (n - 1) as f32);
    let i0 = p.floor() as usize;
    let i1 = (i0 + 1).min(n - 1);
    (i0, i1, p - i0 as f32)
}

/// Source intervals `[a, b)` for each of `dst` output cells spanning `src` input cells; every
/// interval holds at least one cell, so this also works when upsampling.
fn boxes(src: usize, dst: usize) -> Vec<(usize, usize)> {
    (0..dst)
        .map(|i| {
            let a = (i * src / dst).min(src - 1);
            let b = ((i + 1) * src / dst).clamp(a + 1, src);
            (a, b)
        })
        .collect()
}

/// The working size for an image: longer side `long`, aspect ratio kept, each side ≥ 1.
pub fn working_size(width: usize, height: usize, long: usize) -> (usize, usize) {
    if width >= height {
        let h = ((height as f64 * long as f64 / width as f64).round() as usize).max(1);
        (long, h)
    } else {
        let w = ((width as f64 * long as f64 / height as f64).round() as usize).max(1);
        (w, long)
    }
}

/// Area-average downscale of an RGB image straight from its bytes, in one pass over the rows,
/// into three float planes (R, G, B in 0..=255). Memory is O(output), whatever the input size.
pub fn downscale_rgb(img: &RgbImage<'_>, width: usize, height: usize) -> [Plane; 3] {
    let (sw, sh) = (img.width, img.height);
    let xs = boxes(sw, width);
    let ys = boxes(sh, height);
    // Column → output cell; when upsampling a column may feed several cells, handled by the
    // per-cell loop below instead.
    let mut planes = [
        Plane::filled(width, height, 0.0),
        Plane::filled(width, height, 0.0),
        Plane::filled(width, height, 0.0),
    ];
    let mut acc = vec![[0u32; 3]; width];
    for (oy, &(y0, y1)) in ys.iter().enumerate() {
        acc.iter_mut().for_each(|a| *a = [0; 3]);
        for yy in y0..y1 {
            let row = &img.data[yy * sw * 3..(yy + 1) * sw * 3];
            for (a, &(x0, x1)) in acc.iter_mut().zip(&xs) {
                let mut s = [0u32; 3];
                for px in row[x0 * 3..x1 * 3].chunks_exact(3) {
                    s[0] += px[0] as u32;
                    s[1] += px[1] as u32;
                    s[2] += px[2] as u32;
                }
                a[0] += s[0];
                a[1] += s[1];
                a[2] += s[2];
            }
        }
        for (ox, (a, &(x0, x1))) in acc.iter().zip(&xs).enumerate() {
            let n = ((y1 - y0) * (x1 - x0)) as f32;
            for c in 0..3 {
                planes[c].data[oy * width + ox] = a[c] as f32 / n;
            }
        }
    }
    planes
}
