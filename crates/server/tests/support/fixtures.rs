//! Test images generated in code, shared by the API, media and process suites: photo-like JPEG
//! and PNG (plain, with a red corner to check orientation, or with a bright square for the
//! attention engine), EXIF blocks built by hand (orientation, GPS) and spliced into JPEGs, a
//! PNG whose header claims huge dimensions, and an incompressible PNG.

// Each suite uses part of this module.
#![allow(dead_code)]

use std::io::Cursor;

use bytes::Bytes;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use img_parts::png::{Png, PngChunk};

/// Gradients plus texture, so it compresses like a photo.
pub fn photo(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        let t = ((x * 7 + y * 13) % 31) as u8;
        Rgb([
            (x * 255 / width) as u8 / 2 + t,
            (y * 255 / height) as u8 / 2 + t,
            128 + t,
        ])
    })
}

/// [`photo`] with a red square in its top-left corner, to check orientation.
pub fn marked_photo(width: u32, height: u32) -> RgbImage {
    let mut image = photo(width, height);
    for y in 0..height / 8 {
        for x in 0..width / 8 {
            image.put_pixel(x, y, Rgb([255, 0, 0]));
        }
    }
    image
}

/// A JPEG of [`photo`] with a bright red square right of the centre: something for the
/// attention engine to look at.
pub fn salient_jpeg(width: u32, height: u32) -> Vec<u8> {
    let mut image = photo(width, height);
    for y in height / 4 + 1..height / 2 {
        for x in width / 2 + 1..3 * width / 4 {
            image.put_pixel(x, y, Rgb([240, 30, 30]));
        }
    }
    encode(image, ImageFormat::Jpeg)
}

/// Encodes an image (for suites that draw their own).
pub fn encode(image: RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(image)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

pub fn png(width: u32, height: u32) -> Vec<u8> {
    encode(photo(width, height), ImageFormat::Png)
}

pub fn jpeg(width: u32, height: u32) -> Vec<u8> {
    encode(photo(width, height), ImageFormat::Jpeg)
}

/// A JPEG with EXIF GPS 48°37'30" N 2°26'24" E (Évry), i.e. 48.625, 2.44.
pub fn jpeg_with_gps(width: u32, height: u32) -> Vec<u8> {
    let evry = ([48, 37, 3000], b'N', [2, 26, 2400], b'E');
    with_exif(&jpeg(width, height), &exif(1, Some(evry)))
}

/// A raw EXIF block (little-endian TIFF) with an orientation and, optionally, a GPS position
/// given as (degrees, minutes, seconds×100, hemisphere) for latitude and longitude.
pub fn exif(orientation: u16, gps: Option<([u32; 3], u8, [u32; 3], u8)>) -> Vec<u8> {
    let mut t = Vec::new();
    let entry = |t: &mut Vec<u8>, tag: u16, kind: u16, count: u32, value: [u8; 4]| {
        t.extend_from_slice(&tag.to_le_bytes());
        t.extend_from_slice(&kind.to_le_bytes());
        t.extend_from_slice(&count.to_le_bytes());
        t.extend_from_slice(&value);
    };
    const ASCII: u16 = 2;
    const SHORT: u16 = 3;
    const LONG: u16 = 4;
    const RATIONAL: u16 = 5;
    t.extend_from_slice(b"II*\0");
    t.extend_from_slice(&8u32.to_le_bytes());
    // IFD0 at 8: orientation and, with GPS, a pointer to the GPS IFD at 38.
    let count: u16 = if gps.is_some() { 2 } else { 1 };
    t.extend_from_slice(&count.to_le_bytes());
    let o = orientation.to_le_bytes();
    entry(&mut t, 0x0112, SHORT, 1, [o[0], o[1], 0, 0]);
    if gps.is_some() {
        entry(&mut t, 0x8825, LONG, 1, 38u32.to_le_bytes());
    }
    t.extend_from_slice(&0u32.to_le_bytes());
    if let Some((lat, lat_ref, lon, lon_ref)) = gps {
        assert_eq!(t.len(), 38);
        // GPS IFD at 38: four entries (2 + 48 + 4 bytes), then the rationals at 92 and 116.
        t.extend_from_slice(&4u16.to_le_bytes());
        entry(&mut t, 1, ASCII, 2, [lat_ref, 0, 0, 0]);
        entry(&mut t, 2, RATIONAL, 3, 92u32.to_le_bytes());
        entry(&mut t, 3, ASCII, 2, [lon_ref, 0, 0, 0]);
        entry(&mut t, 4, RATIONAL, 3, 116u32.to_le_bytes());
        t.extend_from_slice(&0u32.to_le_bytes());
        assert_eq!(t.len(), 92);
        for dms in [lat, lon] {
            for (value, denom) in dms.iter().zip([1u32, 1, 100]) {
                t.extend_from_slice(&value.to_le_bytes());
                t.extend_from_slice(&denom.to_le_bytes());
            }
        }
    }
    t
}

/// Inserts an APPn (or COM) segment right after SOI.
pub fn insert_segment(jpeg: &[u8], marker: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, marker]);
    out.extend_from_slice(&u16::try_from(payload.len() + 2).unwrap().to_be_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&jpeg[2..]);
    out
}

pub fn with_exif(jpeg: &[u8], tiff: &[u8]) -> Vec<u8> {
    insert_segment(jpeg, 0xE1, &[b"Exif\0\0".as_slice(), tiff].concat())
}

/// A valid PNG whose header claims `width × height` (CRC recomputed).
pub fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut png = Png::from_bytes(Bytes::from(png(8, 8))).unwrap();
    let mut contents = png.chunks()[0].contents().to_vec();
    contents[0..4].copy_from_slice(&width.to_be_bytes());
    contents[4..8].copy_from_slice(&height.to_be_bytes());
    png.chunks_mut()[0] = PngChunk::new(*b"IHDR", Bytes::from(contents));
    png.encoder().bytes().to_vec()
}

/// An incompressible PNG (noise), larger than the JSON body limit of 1 MiB.
pub fn noise_png(width: u32, height: u32) -> Vec<u8> {
    let mut x: u32 = 0x9E37_79B9;
    let image = RgbImage::from_fn(width, height, |_, _| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let [a, b, c, _] = x.to_le_bytes();
        Rgb([a, b, c])
    });
    encode(image, ImageFormat::Png)
}

/// A white poster `width × height` with lines of black capitals, (top row, letter height) each:
/// alternating an H and an E with strokes an eighth of the height thick (a bold sans-serif),
/// from an eighth to seven eighths of the width. PNG.
pub fn poster_with_lines(width: u32, height: u32, lines: &[(u32, u32)]) -> Vec<u8> {
    let mut image = RgbImage::from_pixel(width, height, Rgb([255, 255, 255]));
    for &(top, g) in lines {
        let (t, glyph, gap) = ((g / 8).max(2), g * 6 / 10, g / 4);
        let (mut x, mut e) = (width / 8, false);
        while x + glyph < 7 * width / 8 {
            for y in top..top + g {
                for dx in 0..glyph {
                    let (left, right) = (dx < t, dx >= glyph - t);
                    let (upper, lower) = (y < top + t, y >= top + g - t);
                    let middle = y >= top + g / 2 - t / 2 && y < top + g / 2 + t - t / 2;
                    let ink = if e {
                        left || upper || middle || lower
                    } else {
                        left || right || middle
                    };
                    if ink {
                        image.put_pixel(x + dx, y, Rgb([0, 0, 0]));
                    }
                }
            }
            x += glyph + gap;
            e = !e;
        }
    }
    encode(image, ImageFormat::Png)
}
