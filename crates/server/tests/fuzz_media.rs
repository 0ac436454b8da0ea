//! Property tests of the ingest: mutated uploads (bytes flipped, files cut short, headers
//! claiming other sizes) never panic, end in `Ok` or a `MediaError`, keep the invariants of
//! what they store, and never hold more memory than the decoding budget allows.
//!
//! The test command runs a bounded number of cases (`PROPTEST_CASES`, default 48 here); for a
//! long run:
//!
//! ```text
//! PROPTEST_CASES=5000 cargo test --release -p regard --test fuzz_media
//! ```

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage, Rgba, RgbaImage};
use proptest::prelude::*;
use regard::media::{self, MediaError, MediaLimits, PREVIEW_SIDE, Upload};

fn encode(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn photo(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        Rgb([(x * 9) as u8, (y * 13) as u8, ((x ^ y) * 5) as u8])
    })
}

/// Valid uploads of every path through the ingest.
fn seeds() -> Vec<Vec<u8>> {
    let rgb = DynamicImage::ImageRgb8(photo(67, 45));
    let rgba = DynamicImage::ImageRgba8(RgbaImage::from_fn(40, 30, |x, y| {
        Rgba([x as u8 * 6, y as u8 * 8, 90, (x * 7) as u8])
    }));
    let mut progressive = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut progressive, 80);
    encoder.set_progressive(true);
    encoder
        .encode(photo(67, 45).as_raw(), 67, 45, jpeg_encoder::ColorType::Rgb)
        .unwrap();
    let mut png16 = Vec::new();
    rgba.to_rgba16()
        .write_to(&mut Cursor::new(&mut png16), ImageFormat::Png)
        .unwrap();
    vec![
        encode(&rgb, ImageFormat::Jpeg),
        progressive,
        encode(&rgba, ImageFormat::Png),
        png16,
        encode(&rgb, ImageFormat::WebP),
        encode(&rgba, ImageFormat::WebP),
    ]
}

/// One change to a file.
#[derive(Debug, Clone)]
enum Mutation {
    /// XOR the byte at this fraction of the file.
    Flip(f64, u8),
    /// Keep this fraction of the file.
    Cut(f64),
    /// Write a 16-bit big-endian value at this fraction (often a width or height field).
    Size(f64, u16),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0, 1u8..=255).prop_map(|(at, x)| Mutation::Flip(at, x)),
        (0.0..1.0).prop_map(Mutation::Cut),
        // Early in the file, where the headers are.
        (0.0..0.15, any::<u16>()).prop_map(|(at, v)| Mutation::Size(at, v)),
    ]
}

fn mutate(mut data: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len.saturating_sub(1));
        match *m {
            Mutation::Flip(f, x) if !data.is_empty() => {
                let i = at(f, data.len());
                data[i] ^= x;
            }
            Mutation::Cut(f) => data.truncate((f * data.len() as f64) as usize),
            Mutation::Size(f, v) if data.len() >= 2 => {
                let i = at(f, data.len() - 1);
                data[i..i + 2].copy_from_slice(&v.to_be_bytes());
            }
            _ => {}
        }
    }
    data
}

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_uploads_end_cleanly_within_the_budget(
        seed in 0usize..6,
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let data = mutate(seeds().swap_remove(seed), &mutations);
        let limits = MediaLimits {
            // A small budget, so that claimed sizes hit it often.
            max_decode_bytes: 96 << 20,
            ..MediaLimits::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let upload = Upload::from_bytes(&data, dir.path()).unwrap();
        // VmHWM from here (Linux ≥ 4.0): the peak of this case alone. One test in this binary,
        // and proptest runs its cases one after another.
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        let before = status_kib("VmRSS:");
        let result = match media::prepare(upload, &limits) {
            Ok(prepared) => {
                prop_assert!(prepared.cost() <= limits.max_decode_bytes);
                prepared.finish(&limits)
            }
            Err(err) => Err(err),
        };
        if reset {
            let grown = status_kib("VmHWM:").saturating_sub(before) << 10;
            prop_assert!(
                grown <= limits.max_decode_bytes + (16 << 20),
                "{grown} bytes for {mutations:?}"
            );
        }
        match result {
            Ok(ingested) => {
                prop_assert!(ingested.width() > 0 && ingested.height() > 0);
                prop_assert!(ingested.preview.width.max(ingested.preview.height) <= PREVIEW_SIDE);
                let stored = ingested.original.read().unwrap();
                prop_assert_eq!(stored.len() as u64, ingested.bytes());
                use sha2::Digest;
                prop_assert_eq!(hex::encode(sha2::Sha256::digest(&stored)), ingested.sha256);
            }
            Err(err) => {
                // A stable code and a client-side status for whatever the bytes were.
                prop_assert!(!matches!(err, MediaError::Internal(_)), "{err:?}");
                prop_assert!((400..500).contains(&err.http_status()), "{err:?}");
            }
        }
        // Nothing left in the staging folder.
        prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
