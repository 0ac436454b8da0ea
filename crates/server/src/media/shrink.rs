//! Shrinking by a whole factor while rows stream in, so that making the variants of a large
//! image never needs it at full size (the idea of libvips' shrink-on-load).
//!
//! Each output pixel is the mean of a `factor × factor` block of input pixels, weighted by
//! alpha (premultiplied, like the Lanczos resize that follows, so transparent pixels lend no
//! colour to their neighbours). The factor is chosen so that the shrunk image still has a long
//! side of at least [`PREVIEW_SIDE`]: the variants are then made from it by the usual Lanczos3
//! resize, and a box prefilter followed by Lanczos looks the same as Lanczos alone.

use image::{DynamicImage, RgbImage, RgbaImage};

use super::PREVIEW_SIDE;

/// The shrink factor for an image of this size: the largest whole number that keeps the long
/// side at or above [`PREVIEW_SIDE`] (1 for images with a long side under twice that).
pub(super) fn factor_for(width: u32, height: u32) -> u32 {
    (width.max(height) / PREVIEW_SIDE).max(1)
}

/// The size of an image of `width × height` shrunk by `factor` (partial blocks at the right
/// and bottom edges make a pixel of their own).
pub(super) fn shrunk_size(width: u32, height: u32, factor: u32) -> (u32, u32) {
    (width.div_ceil(factor), height.div_ceil(factor))
}

/// Accumulates 8-bit rows (grey, grey + alpha, RGB or RGBA) into a smaller RGBA image.
pub(super) struct Shrinker {
    factor: usize,
    width: usize,
    channels: usize,
    out_width: usize,
    /// Per output column of the block row being filled: Σ r·a, Σ g·a, Σ b·a, Σ a.
    sums: Vec<u64>,
    rows_in_block: usize,
    out: Vec<u8>,
    opaque: bool,
}

impl Shrinker {
    /// A shrinker for `width`-pixel rows of `channels` 8-bit channels (1 to 4), by `factor`.
    pub(super) fn new(width: u32, height: u32, channels: usize, factor: u32) -> Self {
        assert!((1..=4).contains(&channels), "1 to 4 channels");
        let (out_width, out_height) = shrunk_size(width, height, factor.max(1));
        let out_width = out_width as usize;
        Self {
            factor: factor.max(1) as usize,
            width: width as usize,
            channels,
            out_width,
            sums: vec![0; out_width * 4],
            rows_in_block: 0,
            out: Vec::with_capacity(out_width * out_height as usize * 4),
            opaque: true,
        }
    }

    /// Adds the next input row (`width × channels` bytes).
    pub(super) fn push_row(&mut self, row: &[u8]) {
        debug_assert_eq!(row.len(), self.width * self.channels);
        let (k, channels) = (self.factor, self.channels);
        for (block, sums) in row.chunks(k * channels).zip(self.sums.chunks_exact_mut(4)) {
            for px in block.chunks_exact(channels) {
                let (r, g, b, a) = match *px {
                    [l] => (l, l, l, u8::MAX),
                    [l, a] => (l, l, l, a),
                    [r, g, b] => (r, g, b, u8::MAX),
                    [r, g, b, a] => (r, g, b, a),
                    _ => unreachable!("1 to 4 channels"),
                };
                let a64 = u64::from(a);
                sums[0] += u64::from(r) * a64;
                sums[1] += u64::from(g) * a64;
                sums[2] += u64::from(b) * a64;
                sums[3] += a64;
            }
        }
        self.rows_in_block += 1;
        if self.rows_in_block == k {
            self.flush();
        }
    }

    /// Writes the block row being filled as one output row.
    fn flush(&mut self) {
        if self.rows_in_block == 0 {
            return;
        }
        for (column, sums) in self.sums.chunks_exact_mut(4).enumerate() {
            let columns = (self.width - column * self.factor).min(self.factor);
            let samples = (columns * self.rows_in_block) as u64;
            let alpha = sums[3];
            // Rounded; a block with no alpha at all has no colour either.
            let colour = |sum: u64| {
                (sum + alpha / 2)
                    .checked_div(alpha)
                    .map_or(0, |value| value as u8)
            };
            let a = ((alpha + samples / 2) / samples) as u8;
            self.opaque &= a == u8::MAX;
            self.out
                .extend_from_slice(&[colour(sums[0]), colour(sums[1]), colour(sums[2]), a]);
            sums.fill(0);
        }
        self.rows_in_block = 0;
    }

    /// The shrunk image: RGB when every pixel came out opaque, RGBA otherwise.
    pub(super) fn finish(mut self) -> DynamicImage {
        self.flush();
        let width = self.out_width as u32;
        let height = (self.out.len() / (self.out_width * 4)) as u32;
        if self.opaque {
            let rgb: Vec<u8> = self
                .out
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
            DynamicImage::ImageRgb8(RgbImage::from_raw(width, height, rgb).expect("sized"))
        } else {
            DynamicImage::ImageRgba8(RgbaImage::from_raw(width, height, self.out).expect("sized"))
        }
    }
}

/// `image` ready for the variants, no larger than needed: shrunk by [`factor_for`] when that
/// is above 1, and as 8-bit RGB or RGBA. An 8-bit RGB or RGBA image small enough already is
/// returned as it is, without a copy.
pub(super) fn for_variants(image: DynamicImage) -> DynamicImage {
    let (width, height) = (image.width(), image.height());
    let factor = factor_for(width, height);
    if factor == 1
        && matches!(
            image,
            DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_)
        )
    {
        return image;
    }
    let channels = usize::from(image.color().channel_count());
    let mut shrinker = Shrinker::new(width, height, channels, factor);
    let row_len = width as usize * channels;
    let push_u8 = |shrinker: &mut Shrinker, raw: &[u8]| {
        for row in raw.chunks_exact(row_len) {
            shrinker.push_row(row);
        }
    };
    let push_u16 = |shrinker: &mut Shrinker, raw: &[u16]| {
        let mut row8 = vec![0u8; row_len];
        for row in raw.chunks_exact(row_len) {
            for (out, &v) in row8.iter_mut().zip(row) {
                // The nearest 8-bit value: v × 255 / 65535, rounded.
                *out = ((u32::from(v) + 128) / 257) as u8;
            }
            shrinker.push_row(&row8);
        }
    };
    match &image {
        DynamicImage::ImageLuma8(b) => push_u8(&mut shrinker, b.as_raw()),
        DynamicImage::ImageLumaA8(b) => push_u8(&mut shrinker, b.as_raw()),
        DynamicImage::ImageRgb8(b) => push_u8(&mut shrinker, b.as_raw()),
        DynamicImage::ImageRgba8(b) => push_u8(&mut shrinker, b.as_raw()),
        DynamicImage::ImageLuma16(b) => push_u16(&mut shrinker, b.as_raw()),
        DynamicImage::ImageLumaA16(b) => push_u16(&mut shrinker, b.as_raw()),
        DynamicImage::ImageRgb16(b) => push_u16(&mut shrinker, b.as_raw()),
        DynamicImage::ImageRgba16(b) => push_u16(&mut shrinker, b.as_raw()),
        // No decoder of ours makes float images; convert rather than fail if one ever does.
        other => {
            let mut shrinker = Shrinker::new(width, height, 4, factor);
            push_u8(&mut shrinker, other.to_rgba8().as_raw());
            return shrinker.finish();
        }
    }
    drop(image);
    shrinker.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_keeps_the_long_side_at_or_above_the_preview() {
        assert_eq!(factor_for(4095, 100), 1);
        assert_eq!(factor_for(4096, 100), 2);
        assert_eq!(factor_for(100, 10_000), 4);
        let (w, h) = shrunk_size(10_000, 7_000, factor_for(10_000, 7_000));
        assert!(w.max(h) >= PREVIEW_SIDE, "{w}×{h}");
        assert_eq!(shrunk_size(5, 3, 2), (3, 2));
    }

    #[test]
    fn blocks_average_and_partial_edges_count_their_own_pixels() {
        // 3×3 grey by 2: blocks of 4, 2 (right edge), 2 (bottom) and 1 pixel.
        let mut s = Shrinker::new(3, 3, 1, 2);
        s.push_row(&[0, 100, 50]);
        s.push_row(&[200, 100, 51]);
        s.push_row(&[10, 20, 7]);
        let out = s.finish().into_rgb8();
        assert_eq!(out.dimensions(), (2, 2));
        let grey = |x, y| out.get_pixel(x, y).0[0];
        assert_eq!(grey(0, 0), 100);
        assert_eq!(grey(1, 0), 51); // (50 + 51) / 2 = 50.5, rounded up
        assert_eq!(grey(0, 1), 15);
        assert_eq!(grey(1, 1), 7);
    }

    #[test]
    fn transparent_pixels_lend_no_colour_and_alpha_is_kept() {
        // A red opaque pixel beside a transparent green one: the colour stays red, alpha halves.
        let mut s = Shrinker::new(2, 1, 4, 2);
        s.push_row(&[255, 0, 0, 255, 0, 255, 0, 0]);
        let DynamicImage::ImageRgba8(out) = s.finish() else {
            panic!("a translucent result stays RGBA");
        };
        assert_eq!(out.get_pixel(0, 0).0, [255, 0, 0, 128]);
    }

    #[test]
    fn opaque_input_gives_rgb_and_sixteen_bits_round_to_the_nearest() {
        let image = DynamicImage::ImageRgba16(image::ImageBuffer::from_pixel(
            5000,
            10,
            image::Rgba([65535u16, 32896, 257, 65535]),
        ));
        let DynamicImage::ImageRgb8(out) = for_variants(image) else {
            panic!("opaque RGBA becomes RGB");
        };
        assert_eq!(out.dimensions(), (2500, 5));
        assert_eq!(out.get_pixel(0, 0).0, [255, 128, 1]);
    }

    proptest::proptest! {
        /// Any size, channel count and factor: the output has the shrunk size, and each
        /// opaque output value lies between the smallest and largest input value of its block.
        #[test]
        fn blocks_stay_within_their_inputs(
            width in 1u32..70,
            height in 1u32..70,
            channels in 1usize..=4,
            factor in 1u32..9,
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mut state = seed | 1;
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 56) as u8
            };
            let opaque = channels % 2 == 1;
            let rows: Vec<Vec<u8>> = (0..height)
                .map(|_| (0..width as usize * channels).map(|_| next()).collect())
                .collect();
            let mut shrinker = Shrinker::new(width, height, channels, factor);
            for row in &rows {
                shrinker.push_row(row);
            }
            let out = shrinker.finish();
            proptest::prop_assert_eq!((out.width(), out.height()), shrunk_size(width, height, factor));
            if opaque {
                let DynamicImage::ImageRgb8(out) = out else {
                    panic!("opaque input gives RGB");
                };
                let k = factor as usize;
                for (x, y, pixel) in out.enumerate_pixels() {
                    let (x0, y0) = (x as usize * k, y as usize * k);
                    let block = rows[y0..(y0 + k).min(height as usize)].iter().flat_map(|row| {
                        row[x0 * channels..((x0 + k).min(width as usize)) * channels].to_vec()
                    });
                    // The first channel of every input pixel (grey, or red).
                    let firsts: Vec<u8> = block.step_by(channels).collect();
                    let (lo, hi) = (*firsts.iter().min().unwrap(), *firsts.iter().max().unwrap());
                    proptest::prop_assert!((lo..=hi).contains(&pixel.0[0]));
                }
            }
        }
    }

    #[test]
    fn small_eight_bit_images_pass_through_untouched() {
        let image = DynamicImage::ImageRgb8(RgbImage::from_pixel(300, 200, image::Rgb([1, 2, 3])));
        let ptr = image.as_bytes().as_ptr();
        let out = for_variants(image);
        assert_eq!(out.as_bytes().as_ptr(), ptr, "no copy");
    }
}
