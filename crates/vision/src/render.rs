//! Pictures made from a map, at any output size: the 8-bit grey map (linear in predicted
//! fixation density, brightest = 255), the colour overlay (warm = more attention) and the fog view
//! (little-seen areas dimmed). The map is upsampled bilinearly one row at a time, so no
//! full-resolution float copy is ever held.

use crate::image::{Plane, RgbImage};

/// Calls `f(y, row)` for each output row of the map bilinearly upsampled to `width × height`.
fn for_each_row(map: &Plane, width: usize, height: usize, mut f: impl FnMut(usize, &[f32])) {
    let taps = |n_out: usize, n_in: usize| -> Vec<(usize, usize, f32)> {
        let s = n_in as f32 / n_out as f32;
        (0..n_out)
            .map(|i| {
                let p = ((i as f32 + 0.5) * s - 0.5).clamp(0.0, (n_in - 1) as f32);
                let i0 = p.floor() as usize;
                (i0, (i0 + 1).min(n_in - 1), p - i0 as f32)
            })
            .collect()
    };
    let tx = taps(width, map.width);
    let ty = taps(height, map.height);
    let mut row = vec![0.0f32; width];
    for (y, &(y0, y1, fy)) in ty.iter().enumerate() {
        let r0 = &map.data[y0 * map.width..(y0 + 1) * map.width];
        let r1 = &map.data[y1 * map.width..(y1 + 1) * map.width];
        for (o, &(x0, x1, fx)) in row.iter_mut().zip(&tx) {
            let a = r0[x0] + (r0[x1] - r0[x0]) * fx;
            let b = r1[x0] + (r1[x1] - r1[x0]) * fx;
            *o = a + (b - a) * fy;
        }
        f(y, &row);
    }
}

/// The map as 8-bit grey at `width × height`: linear in density, the brightest output pixel
/// mapped to 255.
pub fn grey8(map: &Plane, width: usize, height: usize) -> Vec<u8> {
    // The upsampled maximum can be below the map's own when the output is small; find it first.
    let mut mx = 0.0f32;
    for_each_row(map, width, height, |_, row| {
        mx = row.iter().copied().fold(mx, f32::max);
    });
    let k = 255.0 / mx.max(f32::MIN_POSITIVE);
    let mut out = vec![0u8; width * height];
    for_each_row(map, width, height, |y, row| {
        for (o, &v) in out[y * width..(y + 1) * width].iter_mut().zip(row) {
            *o = (v * k).round().clamp(0.0, 255.0) as u8;
        }
    });
    out
}

/// The map as 16-bit grey at `width × height`: linear in density, the brightest output pixel
/// mapped to 65535 (so low densities keep distinct levels instead of flattening to 0).
pub fn grey16(map: &Plane, width: usize, height: usize) -> Vec<u16> {
    let mut mx = 0.0f32;
    for_each_row(map, width, height, |_, row| {
        mx = row.iter().copied().fold(mx, f32::max);
    });
    let k = 65535.0 / mx.max(f32::MIN_POSITIVE);
    let mut out = vec![0u16; width * height];
    for_each_row(map, width, height, |y, row| {
        for (o, &v) in out[y * width..(y + 1) * width].iter_mut().zip(row) {
            *o = (v * k).round().clamp(0.0, 65535.0) as u16;
        }
    });
    out
}

/// Colour ramp for t in 0..1: blue → cyan → green → yellow → red (warm = more attention).
pub fn ramp(t: f32) -> [f32; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [0.0, 0.0, 255.0],
        [0.0, 255.0, 255.0],
        [0.0, 255.0, 0.0],
        [255.0, 255.0, 0.0],
        [255.0, 0.0, 0.0],
    ];
    let p = t.clamp(0.0, 1.0) * 4.0;
    let i = (p.floor() as usize).min(3);
    let f = p - i as f32;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
    ]
}

/// Display level of a map value: t = √(value / max), in 0..1. The square root spreads the
/// colours over the strongly skewed densities so secondary areas stay visible.
#[inline]
fn level(v: f32, inv_max: f32) -> f32 {
    (v * inv_max).clamp(0.0, 1.0).sqrt()
}

/// Colour overlay blended on the image (RGB bytes, the image's size): each pixel mixes the ramp
/// colour of its display level t (√(value / max)) in with weight `opacity × min(1, 2t)`, so areas
/// with little attention keep the photo visible. `opacity` is 0..1.
pub fn overlay(img: &RgbImage<'_>, map: &Plane, opacity: f32) -> Vec<u8> {
    let (w, h) = (img.width(), img.height());
    let src = img.data();
    let inv = 1.0 / map.max().max(f32::MIN_POSITIVE);
    let op = opacity.clamp(0.0, 1.0);
    let mut out = vec![0u8; w * h * 3];
    for_each_row(map, w, h, |y, row| {
        for (x, &v) in row.iter().enumerate() {
            let t = level(v, inv);
            let a = op * (2.0 * t).min(1.0);
            let c = ramp(t);
            let i = (y * w + x) * 3;
            for k in 0..3 {
                out[i + k] = (src[i + k] as f32 * (1.0 - a) + c[k] * a).round() as u8;
            }
        }
    });
    out
}

/// Fog view (RGB bytes, the image's size): each pixel is darkened towards black by
/// `opacity × (1 − min(1, 2t))`, t its display level (√(value / max)), so the most-seen areas
/// stay clear.
pub fn fog(img: &RgbImage<'_>, map: &Plane, opacity: f32) -> Vec<u8> {
    let (w, h) = (img.width(), img.height());
    let src = img.data();
    let inv = 1.0 / map.max().max(f32::MIN_POSITIVE);
    let op = opacity.clamp(0.0, 1.0);
    let mut out = vec![0u8; w * h * 3];
    for_each_row(map, w, h, |y, row| {
        for (x, &v) in row.iter().enumerate() {
            let keep = 1.0 - op * (1.0 - (2.0 * level(v, inv)).min(1.0));
            let i = (y * w + x) * 3;
            for k in 0..3 {
                out[i + k] = (src[i + k] as f32 * keep).round() as u8;
            }
        }
    });
    out
}

/// The colour overlay and the fog view at full strength (opacity 1) in one pass over the map:
/// the same bytes as [`overlay`] and [`fog`] at opacity 1, with the upsampling and each pixel's
/// display level computed once for both (the heatmap job makes both views of two maps).
pub fn overlay_and_fog(img: &RgbImage<'_>, map: &Plane) -> (Vec<u8>, Vec<u8>) {
    let (w, h) = (img.width(), img.height());
    let src = img.data();
    let inv = 1.0 / map.max().max(f32::MIN_POSITIVE);
    let mut overlay = vec![0u8; w * h * 3];
    let mut fog = vec![0u8; w * h * 3];
    for_each_row(map, w, h, |y, row| {
        for (x, &v) in row.iter().enumerate() {
            let t = level(v, inv);
            let a = (2.0 * t).min(1.0);
            let c = ramp(t);
            let i = (y * w + x) * 3;
            for k in 0..3 {
                let s = src[i + k] as f32;
                overlay[i + k] = (s * (1.0 - a) + c[k] * a).round() as u8;
                fog[i + k] = (s * (1.0 - (1.0 - a))).round() as u8;
            }
        }
    });
    (overlay, fog)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_and_fog_in_one_pass_are_the_two_views_at_full_strength() {
        let (w, h) = (37, 23);
        let data: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
        let img = RgbImage::new(w, h, &data).unwrap();
        let map = Plane {
            width: 9,
            height: 5,
            data: (0..45).map(|i| ((i * 13) % 17) as f32).collect(),
        };
        let (overlay_bytes, fog_bytes) = overlay_and_fog(&img, &map);
        assert_eq!(overlay_bytes, overlay(&img, &map, 1.0));
        assert_eq!(fog_bytes, fog(&img, &map, 1.0));
    }

    #[test]
    fn grey16_is_linear_with_the_peak_at_65535() {
        // Same-size output: no resampling, so levels are the values scaled by 65535 / max.
        let map = Plane {
            width: 4,
            height: 1,
            data: vec![0.0, 0.001, 0.25, 0.5],
        };
        assert_eq!(grey16(&map, 4, 1), vec![0, 131, 32768, 65535]);
        // A density 1/1000 of the peak: 0 in 8 bits, 66 in 16 bits.
        let faint = Plane {
            width: 2,
            height: 1,
            data: vec![0.0005, 0.5],
        };
        assert_eq!(grey8(&faint, 2, 1)[0], 0);
        assert_eq!(grey16(&faint, 2, 1)[0], 66);
    }
}
