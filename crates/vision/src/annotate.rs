//! Drawing on RGB8 images for exports: a view blended over its image at an opacity, outlines of
//! areas of interest, and numbered markers (the viewing order). Buffers are `width · height · 3`
//! bytes, row-major; coordinates are pixels (continuous: pixel (x, y) covers x..x+1); anything
//! outside the image is clipped. Digits come from a 3 × 5 bitmap font scaled to the marker, so
//! no font file or text shaping is needed for numbers.

/// Blends `view` over `base` at `opacity` (0: `base` unchanged, 1: `view`), in place. Both are
/// RGB8 of the same size; views made at full strength are linear in opacity, so this gives the
/// page's CSS `opacity` exactly.
pub fn blend_over(base: &mut [u8], view: &[u8], opacity: f32) {
    let a = opacity.clamp(0.0, 1.0);
    for (b, &v) in base.iter_mut().zip(view) {
        *b = (f32::from(*b) * (1.0 - a) + f32::from(v) * a).round() as u8;
    }
}

/// An RGB8 image being drawn on.
pub struct Canvas<'a> {
    pub data: &'a mut [u8],
    pub width: usize,
    pub height: usize,
}

impl Canvas<'_> {
    /// Mixes `colour` into pixel (x, y) with coverage `alpha` (0..1); outside: nothing.
    fn mix(&mut self, x: i64, y: i64, colour: [u8; 3], alpha: f32) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 || alpha <= 0.0 {
            return;
        }
        let a = alpha.min(1.0);
        let i = (y as usize * self.width + x as usize) * 3;
        for c in 0..3 {
            let p = &mut self.data[i + c];
            *p = (f32::from(*p) * (1.0 - a) + f32::from(colour[c]) * a).round() as u8;
        }
    }

    /// A line `thickness` pixels wide from `a` to `b`, its edges anti-aliased.
    pub fn line(&mut self, a: (f32, f32), b: (f32, f32), thickness: f32, colour: [u8; 3]) {
        let half = thickness.max(0.5) / 2.0;
        let (x0, x1) = (a.0.min(b.0) - half - 1.0, a.0.max(b.0) + half + 1.0);
        let (y0, y1) = (a.1.min(b.1) - half - 1.0, a.1.max(b.1) + half + 1.0);
        let (x0, x1) = (x0.max(0.0) as i64, x1.min(self.width as f32) as i64);
        let (y0, y1) = (y0.max(0.0) as i64, y1.min(self.height as f32) as i64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = segment_distance((x as f32 + 0.5, y as f32 + 0.5), a, b);
                self.mix(x, y, colour, half + 0.5 - d);
            }
        }
    }

    /// The outline of a closed polygon: a dark line under a light one, visible on any image.
    pub fn outline(&mut self, points: &[(f32, f32)], thickness: f32, colour: [u8; 3]) {
        if points.len() < 2 {
            return;
        }
        let edges = points.iter().zip(points.iter().cycle().skip(1));
        for (&a, &b) in edges.clone() {
            self.line(a, b, thickness + 2.0, [17, 24, 39]);
        }
        for (&a, &b) in edges {
            self.line(a, b, thickness, colour);
        }
    }

    /// A filled disc of `radius` around (cx, cy), its edge anti-aliased.
    pub fn disc(&mut self, (cx, cy): (f32, f32), radius: f32, colour: [u8; 3]) {
        let (x0, x1) = ((cx - radius - 1.0) as i64, (cx + radius + 1.0) as i64);
        let (y0, y1) = ((cy - radius - 1.0) as i64, (cy + radius + 1.0) as i64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
                self.mix(x, y, colour, radius + 0.5 - d);
            }
        }
    }

    /// A filled rectangle (pixels, clipped).
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, colour: [u8; 3]) {
        for py in y.max(0.0) as i64..(y + h).ceil() as i64 {
            for px in x.max(0.0) as i64..(x + w).ceil() as i64 {
                self.mix(px, py, colour, 1.0);
            }
        }
    }

    /// `number` in digits `height` pixels tall, its centre at (cx, cy).
    pub fn number(&mut self, number: u32, (cx, cy): (f32, f32), height: f32, colour: [u8; 3]) {
        let digits: Vec<usize> = number
            .to_string()
            .bytes()
            .map(|d| usize::from(d - b'0'))
            .collect();
        let cell = (height / 5.0).max(1.0);
        // Three cells a digit and one between digits.
        let width = cell * (4 * digits.len() - 1) as f32;
        let (left, top) = (cx - width / 2.0, cy - cell * 2.5);
        for (k, &digit) in digits.iter().enumerate() {
            let x0 = left + (4 * k) as f32 * cell;
            for (row, bits) in DIGITS[digit].iter().enumerate() {
                for col in 0..3 {
                    if bits & (0b100 >> col) != 0 {
                        self.rect(
                            x0 + col as f32 * cell,
                            top + row as f32 * cell,
                            cell,
                            cell,
                            colour,
                        );
                    }
                }
            }
        }
    }

    /// A numbered marker: a disc of `colour` with a white ring and the number in white.
    pub fn marker(&mut self, number: u32, centre: (f32, f32), radius: f32, colour: [u8; 3]) {
        self.disc(centre, radius + radius * 0.18, [255, 255, 255]);
        self.disc(centre, radius, colour);
        let height = if number >= 10 {
            radius * 0.8
        } else {
            radius * 1.05
        };
        self.number(number, centre, height, [255, 255, 255]);
    }
}

/// Distance from `p` to the segment `a`–`b`.
fn segment_distance(p: (f32, f32), a: (f32, f32), b: (f32, f32)) -> f32 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (qx, qy) = (a.0 + t * dx, a.1 + t * dy);
    ((p.0 - qx).powi(2) + (p.1 - qy).powi(2)).sqrt()
}

/// 3 × 5 bitmaps of the digits 0–9, one row a byte (bit 2 = left column).
const DIGITS: [[u8; 5]; 10] = [
    [0b111, 0b101, 0b101, 0b101, 0b111],
    [0b010, 0b110, 0b010, 0b010, 0b111],
    [0b111, 0b001, 0b111, 0b100, 0b111],
    [0b111, 0b001, 0b111, 0b001, 0b111],
    [0b101, 0b101, 0b111, 0b001, 0b001],
    [0b111, 0b100, 0b111, 0b001, 0b111],
    [0b111, 0b100, 0b111, 0b101, 0b111],
    [0b111, 0b001, 0b010, 0b010, 0b010],
    [0b111, 0b101, 0b111, 0b101, 0b111],
    [0b111, 0b101, 0b111, 0b001, 0b111],
];

#[cfg(test)]
mod tests {
    use super::*;

    fn grey(width: usize, height: usize) -> Vec<u8> {
        vec![128; width * height * 3]
    }

    fn pixel(data: &[u8], width: usize, x: usize, y: usize) -> [u8; 3] {
        let i = (y * width + x) * 3;
        [data[i], data[i + 1], data[i + 2]]
    }

    #[test]
    fn blending_is_linear_in_opacity() {
        let mut base = vec![0, 100, 200];
        blend_over(&mut base, &[200, 100, 0], 0.25);
        assert_eq!(base, vec![50, 100, 150]);
        let mut base = vec![10, 20, 30];
        blend_over(&mut base, &[200, 100, 0], 0.0);
        assert_eq!(base, vec![10, 20, 30]);
        blend_over(&mut base, &[200, 100, 0], 1.0);
        assert_eq!(base, vec![200, 100, 0]);
    }

    #[test]
    fn an_outline_marks_the_edges_and_leaves_the_inside() {
        let (w, h) = (100, 80);
        let mut data = grey(w, h);
        let mut canvas = Canvas {
            data: &mut data,
            width: w,
            height: h,
        };
        let square = [(20.0, 20.0), (80.0, 20.0), (80.0, 60.0), (20.0, 60.0)];
        canvas.outline(&square, 3.0, [255, 255, 0]);
        assert_eq!(pixel(&data, w, 50, 20), [255, 255, 0], "on the top edge");
        assert_eq!(pixel(&data, w, 20, 40), [255, 255, 0], "on the left edge");
        assert_eq!(pixel(&data, w, 50, 40), [128, 128, 128], "inside");
        assert_eq!(pixel(&data, w, 5, 5), [128, 128, 128], "outside");
    }

    #[test]
    fn drawing_past_the_edges_is_clipped() {
        let (w, h) = (20, 10);
        let mut data = grey(w, h);
        let mut canvas = Canvas {
            data: &mut data,
            width: w,
            height: h,
        };
        canvas.line((-50.0, 5.0), (70.0, 5.0), 2.0, [0, 0, 0]);
        canvas.marker(12, (19.0, 0.0), 8.0, [0, 0, 255]);
        canvas.rect(-5.0, -5.0, 100.0, 2.0, [1, 2, 3]);
        assert_eq!(pixel(&data, w, 10, 5), [0, 0, 0]);
        assert_eq!(data.len(), w * h * 3);
    }

    #[test]
    fn markers_write_their_digits() {
        let (w, h) = (60, 60);
        let (mut one, mut seven) = (grey(w, h), grey(w, h));
        Canvas {
            data: &mut one,
            width: w,
            height: h,
        }
        .marker(1, (30.0, 30.0), 12.0, [0, 0, 255]);
        Canvas {
            data: &mut seven,
            width: w,
            height: h,
        }
        .marker(7, (30.0, 30.0), 12.0, [0, 0, 255]);
        let white = |data: &[u8]| {
            (0..w * h)
                .filter(|&i| data[i * 3..i * 3 + 3] == [255, 255, 255])
                .count()
        };
        assert!(white(&one) > 0 && white(&seven) > 0);
        assert_ne!(one, seven, "different digits draw differently");
        // The marker's body is the colour given, around its digit.
        assert_eq!(pixel(&one, w, 22, 30), [0, 0, 255]);
    }
}
