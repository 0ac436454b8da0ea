//! Test images generated in code, shared by the API, media and process suites: photo-like JPEG
//! and PNG (plain, with a red corner to check orientation, or with a bright square for the
//! attention engine), a JPEG with an EXIF GPS position, a PNG whose header claims huge
//! dimensions, and an incompressible PNG.

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
    let mut t = Vec::new();
    let entry = |t: &mut Vec<u8>, tag: u16, kind: u16, count: u32, value: [u8; 4]| {
        t.extend_from_slice(&tag.to_le_bytes());
        t.extend_from_slice(&kind.to_le_bytes());
        t.extend_from_slice(&count.to_le_bytes());
        t.extend_from_slice(&value);
    };
    t.extend_from_slice(b"II*\0");
    t.extend_from_slice(&8u32.to_le_bytes());
    // IFD0 at 8: orientation 1 and the GPS IFD pointer (at 38).
    t.extend_from_slice(&2u16.to_le_bytes());
    entry(&mut t, 0x0112, 3, 1, [1, 0, 0, 0]);
    entry(&mut t, 0x8825, 4, 1, 38u32.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes());
    // GPS IFD at 38: four entries, rationals at 92 and 116.
    t.extend_from_slice(&4u16.to_le_bytes());
    entry(&mut t, 1, 2, 2, [b'N', 0, 0, 0]);
    entry(&mut t, 2, 5, 3, 92u32.to_le_bytes());
    entry(&mut t, 3, 2, 2, [b'E', 0, 0, 0]);
    entry(&mut t, 4, 5, 3, 116u32.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes());
    assert_eq!(t.len(), 92);
    for dms in [[48u32, 37, 30], [2, 26, 24]] {
        for value in dms {
            t.extend_from_slice(&value.to_le_bytes());
            t.extend_from_slice(&1u32.to_le_bytes());
        }
    }
    let base = jpeg(width, height);
    let payload = [b"Exif\0\0".as_slice(), &t].concat();
    let mut out = base[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&u16::try_from(payload.len() + 2).unwrap().to_be_bytes());
    out.extend_from_slice(&payload);
    out.extend_from_slice(&base[2..]);
    out
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
