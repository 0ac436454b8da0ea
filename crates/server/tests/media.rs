//! Media ingest: validation before decoding, orientation, GPS, metadata stripping, variants,
//! hashing and content-addressed storage. Every fixture is generated in code: images are encoded
//! with `image`, EXIF blocks are built by hand (support/fixtures.rs) and spliced into the files.

use std::io::Cursor;

#[path = "support/fixtures.rs"]
mod fixtures;
use fixtures::{exif, insert_segment, with_exif};

use bytes::Bytes;
use futures::stream;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Rgb, RgbImage, Rgba, RgbaImage};
use img_parts::ImageEXIF;
use img_parts::png::{Png, PngChunk};
use img_parts::webp::WebP;
use regard::media::{
    self, IngestedMedia, MediaError, MediaFormat, MediaLimits, PREVIEW_SIDE, THUMBNAIL_SIDE,
    Upload, VariantKind,
};
use regard::storage::{ByteStream, ObjectStorage, Storage};
use sha2::{Digest, Sha256};

// ---------------------------------------------------------------------------------------------
// Fixtures

fn photo(width: u32, height: u32) -> RgbImage {
    fixtures::marked_photo(width, height)
}

fn encode(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn jpeg(width: u32, height: u32) -> Vec<u8> {
    fixtures::encode(photo(width, height), ImageFormat::Jpeg)
}

/// Times Square, 40°45'29.28" N 73°59'8.52" W.
const NYC: ([u32; 3], u8, [u32; 3], u8) = ([40, 45, 2928], b'N', [73, 59, 852], b'W');

/// A JPEG full of private metadata: EXIF with GPS, XMP, a comment, and an MPF-style trailer
/// (a second JPEG with its own EXIF after the end-of-image marker).
fn jpeg_with_everything(width: u32, height: u32, orientation: u16) -> Vec<u8> {
    let base = jpeg(width, height);
    let mut file = with_exif(&base, &exif(orientation, Some(NYC)));
    file = insert_segment(
        &file,
        0xE1,
        b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>secret-xmp</x:xmpmeta>",
    );
    file = insert_segment(&file, 0xFE, b"secret-comment");
    file.extend_from_slice(&with_exif(&jpeg(16, 16), &exif(1, Some(NYC))));
    file.extend_from_slice(b"secret-trailer");
    file
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn decode(data: &[u8]) -> DynamicImage {
    image::load_from_memory(data).unwrap()
}

/// EXIF as the `image` decoders see it (JPEG APP1, PNG eXIf, WebP EXIF).
fn exif_of(data: &[u8]) -> Option<Vec<u8>> {
    let mut decoder = ImageReader::new(Cursor::new(data))
        .with_guessed_format()
        .unwrap()
        .into_decoder()
        .unwrap();
    decoder.exif_metadata().unwrap()
}

/// Ingests `data` through a temporary file, as the upload handler does.
fn ingest(data: &[u8], limits: &MediaLimits) -> Result<IngestedMedia, MediaError> {
    media::ingest(
        Upload::from_bytes(data, &std::env::temp_dir()).unwrap(),
        limits,
    )
}

fn limits() -> MediaLimits {
    MediaLimits::default()
}

// ---------------------------------------------------------------------------------------------
// Validation

#[test]
fn formats_are_detected_from_the_bytes() {
    let img = DynamicImage::ImageRgb8(photo(64, 48));
    for (format, expected) in [
        (ImageFormat::Jpeg, MediaFormat::Jpeg),
        (ImageFormat::Png, MediaFormat::Png),
        (ImageFormat::WebP, MediaFormat::WebP),
    ] {
        let data = encode(&img, format);
        let probe = media::probe(&data, &limits()).unwrap();
        assert_eq!(
            (probe.format, probe.width, probe.height),
            (expected, 64, 48)
        );
        let ingested = ingest(&data, &limits()).unwrap();
        assert_eq!(ingested.mime(), expected.mime());
        assert_eq!((ingested.width(), ingested.height()), (64, 48));
    }
}

#[test]
fn other_formats_are_unsupported() {
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec();
    let bmp = b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0\x28\0\0\0".to_vec();
    let tiff = b"II*\0\x08\0\0\0\0\0".to_vec();
    let heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec();
    let text = b"<svg xmlns='http://www.w3.org/2000/svg'/>".to_vec();
    // A JPEG file name or Content-Type would not help: only the bytes count.
    for data in [gif, bmp, tiff, heic, text, Vec::new()] {
        let err = ingest(&data, &limits()).unwrap_err();
        assert!(matches!(err, MediaError::UnsupportedMediaType), "{err:?}");
        assert_eq!(
            (err.code(), err.http_status()),
            ("unsupported_media_type", 415)
        );
    }
}

#[test]
fn files_over_the_size_limit_are_refused() {
    let data = jpeg(200, 200);
    let tight = MediaLimits {
        max_bytes: data.len() as u64 - 1,
        ..limits()
    };
    let err = ingest(&data, &tight).unwrap_err();
    assert!(matches!(err, MediaError::FileTooLarge { .. }), "{err:?}");
    assert_eq!((err.code(), err.http_status()), ("file_too_large", 413));
    let exact = MediaLimits {
        max_bytes: data.len() as u64,
        ..limits()
    };
    assert!(ingest(&data, &exact).is_ok());
}

#[tokio::test]
async fn uploads_are_cut_off_at_the_size_limit() {
    let chunks: Vec<std::io::Result<Bytes>> =
        (0..100).map(|_| Ok(Bytes::from(vec![0u8; 1024]))).collect();
    let upload: ByteStream = Box::pin(stream::iter(chunks));
    let small = MediaLimits {
        max_bytes: 10 * 1024,
        ..limits()
    };
    let tmp = tempfile::tempdir().unwrap();
    let files = || std::fs::read_dir(tmp.path()).unwrap().count();
    let err = media::collect_upload(upload, &small, tmp.path())
        .await
        .unwrap_err();
    assert!(
        matches!(err, MediaError::FileTooLarge { bytes, .. } if bytes <= 11 * 1024),
        "{err:?}"
    );
    // The partial temporary file is gone.
    assert_eq!(files(), 0);

    let data = jpeg(32, 32);
    let upload: ByteStream = Box::pin(stream::iter(vec![Ok(Bytes::from(data.clone()))]));
    let collected = media::collect_upload(upload, &limits(), tmp.path())
        .await
        .unwrap();
    assert_eq!(collected.len(), data.len() as u64);
    assert_eq!(collected.read().unwrap(), data);
    assert_eq!(files(), 1);
    // Ingesting consumes the upload and removes its file; the original's file lives as long as
    // the ingested media, in the same folder.
    let ingested = media::ingest(collected, &limits()).unwrap();
    assert_eq!(files(), 1);
    assert!(ingested.original.path().starts_with(tmp.path()));
    drop(ingested);
    assert_eq!(files(), 0);

    let broken: ByteStream = Box::pin(stream::iter(vec![Err(std::io::Error::other("reset"))]));
    let err = media::collect_upload(broken, &limits(), tmp.path())
        .await
        .unwrap_err();
    assert_eq!((err.code(), err.http_status()), ("upload_failed", 400));
    assert_eq!(files(), 0);

    // A refused image leaves nothing behind either.
    let upload: ByteStream = Box::pin(stream::iter(vec![Ok(Bytes::from_static(b"not an image"))]));
    let collected = media::collect_upload(upload, &limits(), tmp.path())
        .await
        .unwrap();
    let err = media::ingest(collected, &limits()).unwrap_err();
    assert_eq!(err.code(), "unsupported_media_type");
    let mut truncated = jpeg(64, 64);
    truncated.truncate(truncated.len() - 20);
    let upload = Upload::from_bytes(&truncated, tmp.path()).unwrap();
    assert_eq!(
        media::ingest(upload, &limits()).unwrap_err().code(),
        "invalid_image"
    );
    assert_eq!(files(), 0);
}

#[test]
fn huge_dimensions_are_refused_before_decoding() {
    // 60000 × 60000 would be 10.8 GB of RGB: refused from the header alone.
    let bomb = fixtures::png_claiming(60_000, 60_000);
    let err = media::probe(&bomb, &limits()).unwrap_err();
    assert!(
        matches!(
            err,
            MediaError::ImageTooLarge {
                width: 60_000,
                height: 60_000,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!((err.code(), err.http_status()), ("image_too_large", 422));
    assert!(matches!(
        ingest(&bomb, &limits()),
        Err(MediaError::ImageTooLarge { .. })
    ));

    // Area and side limits apply separately.
    let data = jpeg(400, 300);
    let area = MediaLimits {
        max_pixels: 400 * 300 - 1,
        ..limits()
    };
    assert!(matches!(
        ingest(&data, &area),
        Err(MediaError::ImageTooLarge { .. })
    ));
    let side = MediaLimits {
        max_side: 399,
        ..limits()
    };
    assert!(matches!(
        ingest(&data, &side),
        Err(MediaError::ImageTooLarge { .. })
    ));
    // A long strip within the area limit but over the side limit.
    assert!(matches!(
        media::probe(&fixtures::png_claiming(40_000, 10), &limits()),
        Err(MediaError::ImageTooLarge { .. })
    ));
}

#[test]
fn truncated_or_corrupt_images_are_invalid() {
    let jpg = jpeg(300, 200);
    let png = encode(&DynamicImage::ImageRgb8(photo(300, 200)), ImageFormat::Png);
    let webp = encode(&DynamicImage::ImageRgb8(photo(300, 200)), ImageFormat::WebP);
    let mut corrupt_png = png.clone();
    let mid = corrupt_png.len() / 2;
    corrupt_png[mid..mid + 64].fill(0x55);
    let mut cases = vec![
        ("jpeg half", jpg[..jpg.len() / 2].to_vec()),
        ("jpeg without end marker", jpg[..jpg.len() - 2].to_vec()),
        ("jpeg header only", jpg[..200].to_vec()),
        ("png half", png[..png.len() / 2].to_vec()),
        ("png corrupt", corrupt_png),
        ("webp half", webp[..webp.len() / 2].to_vec()),
    ];
    // A PNG claiming zero width.
    cases.push(("png zero width", fixtures::png_claiming(0, 10)));
    for (name, data) in cases {
        let err = ingest(&data, &limits()).unwrap_err();
        assert!(
            matches!(err, MediaError::InvalidImage(_)),
            "{name}: {err:?}"
        );
        assert_eq!(
            (err.code(), err.http_status()),
            ("invalid_image", 422),
            "{name}"
        );
    }
}

#[test]
fn error_codes_are_stable() {
    let table = [
        (
            MediaError::UnsupportedMediaType,
            "unsupported_media_type",
            415,
        ),
        (
            MediaError::FileTooLarge {
                bytes: 2,
                max_bytes: 1,
            },
            "file_too_large",
            413,
        ),
        (
            MediaError::ImageTooLarge {
                width: 1,
                height: 1,
                max_pixels: 0,
                max_side: 0,
            },
            "image_too_large",
            422,
        ),
        (
            MediaError::TooLargeToDecode {
                width: 1,
                height: 1,
                bytes: 2,
                max_bytes: 1,
            },
            "image_too_large",
            422,
        ),
        (
            MediaError::InvalidImage(String::new()),
            "invalid_image",
            422,
        ),
        (
            MediaError::Upload(std::io::Error::other("x")),
            "upload_failed",
            400,
        ),
        (MediaError::Internal(String::new()), "internal", 500),
    ];
    for (err, code, status) in table {
        assert_eq!((err.code(), err.http_status()), (code, status));
    }
}

// ---------------------------------------------------------------------------------------------
// Orientation, GPS, metadata

#[test]
fn orientation_6_is_applied() {
    // Orientation 6: the camera was turned 90° clockwise; viewers rotate the pixels 90° CW.
    let data = with_exif(&jpeg(300, 200), &exif(6, None));
    let ingested = ingest(&data, &limits()).unwrap();
    assert_eq!((ingested.width(), ingested.height()), (200, 300));
    assert!(ingested.reencoded);
    let stored = decode(&ingested.original.read().unwrap()).to_rgb8();
    assert_eq!(stored.dimensions(), (200, 300));
    // The red top-left corner of the stored pixels is now at the top right.
    let red = |p: &Rgb<u8>| p.0[0] > 200 && p.0[1] < 60 && p.0[2] < 60;
    assert!(
        red(stored.get_pixel(200 - 5, 5)),
        "{:?}",
        stored.get_pixel(195, 5)
    );
    assert!(!red(stored.get_pixel(5, 5)));
    // Variants follow the upright image.
    assert_eq!(
        (ingested.preview.width, ingested.preview.height),
        (200, 300)
    );
    assert!(exif_of(&ingested.original.read().unwrap()).is_none());
}

#[test]
fn every_orientation_gives_upright_dimensions() {
    for orientation in 1..=8u16 {
        let data = with_exif(&jpeg(120, 80), &exif(orientation, None));
        let ingested = ingest(&data, &limits()).unwrap();
        let swapped = orientation >= 5;
        let expected = if swapped { (80, 120) } else { (120, 80) };
        assert_eq!(
            (ingested.width(), ingested.height()),
            expected,
            "orientation {orientation}"
        );
        assert_eq!(
            ingested.reencoded,
            orientation != 1,
            "orientation {orientation}"
        );
    }
}

#[test]
fn gps_is_read_from_exif() {
    let data = with_exif(&jpeg(100, 100), &exif(1, Some(NYC)));
    let gps = ingest(&data, &limits()).unwrap().gps.unwrap();
    assert!((gps.latitude - 40.7581333).abs() < 1e-6, "{gps:?}");
    assert!((gps.longitude + 73.9857).abs() < 1e-6, "{gps:?}");

    let south_east = ([33, 51, 5496], b'S', [151, 12, 5040], b'E'); // Sydney Opera House
    let data = with_exif(&jpeg(100, 100), &exif(1, Some(south_east)));
    let gps = ingest(&data, &limits()).unwrap().gps.unwrap();
    assert!((gps.latitude + 33.8652667).abs() < 1e-6, "{gps:?}");
    assert!((gps.longitude - 151.2140).abs() < 1e-6, "{gps:?}");

    // No GPS, and a position out of range, give none.
    let data = with_exif(&jpeg(100, 100), &exif(1, None));
    assert!(ingest(&data, &limits()).unwrap().gps.is_none());
    let bogus = ([95, 0, 0], b'N', [10, 0, 0], b'E');
    let data = with_exif(&jpeg(100, 100), &exif(1, Some(bogus)));
    assert!(ingest(&data, &limits()).unwrap().gps.is_none());
    assert!(ingest(&jpeg(100, 100), &limits()).unwrap().gps.is_none());
}

#[test]
fn stored_jpeg_has_no_metadata() {
    for orientation in [1, 6] {
        let data = jpeg_with_everything(320, 240, orientation);
        assert!(contains(&data, b"Exif\0\0") && contains(&data, b"secret-xmp"));
        let ingested = ingest(&data, &limits()).unwrap();
        assert!(ingested.gps.is_some());
        assert_eq!(ingested.reencoded, orientation != 1);
        let original = Bytes::from(ingested.original.read().unwrap());
        for (name, stored) in [
            ("original", &original),
            ("preview", &ingested.preview.data),
            ("thumbnail", &ingested.thumbnail.data),
        ] {
            for secret in [
                b"Exif".as_slice(),
                b"http://ns.adobe.com/xap",
                b"secret-xmp",
                b"secret-comment",
                b"secret-trailer",
            ] {
                assert!(
                    !contains(stored, secret),
                    "orientation {orientation}, {name} contains {:?}",
                    String::from_utf8_lossy(secret)
                );
            }
            assert!(exif_of(stored).is_none(), "{name}");
            // It still ends at its (only) end-of-image marker.
            assert!(stored.ends_with(&[0xFF, 0xD9]), "{name}");
        }
    }
}

#[test]
fn upright_jpeg_is_stripped_losslessly() {
    let data = jpeg_with_everything(320, 240, 1);
    let ingested = ingest(&data, &limits()).unwrap();
    assert!(!ingested.reencoded);
    // Same pixels, bit for bit: only metadata segments were removed.
    assert_eq!(
        decode(&ingested.original.read().unwrap()).to_rgb8(),
        decode(&jpeg(320, 240)).to_rgb8()
    );
    assert!(ingested.original.read().unwrap().len() < data.len());
}

#[test]
fn png_and_webp_metadata_is_stripped() {
    let tiff = exif(1, Some(NYC));

    // PNG with eXIf and a text chunk.
    let png = encode(&DynamicImage::ImageRgb8(photo(120, 90)), ImageFormat::Png);
    let mut parts = Png::from_bytes(Bytes::from(png)).unwrap();
    parts.set_exif(Some(Bytes::from(tiff.clone())));
    let text = PngChunk::new(*b"tEXt", Bytes::from_static(b"Comment\0secret-text"));
    let at = parts.chunks().len() - 1;
    parts.chunks_mut().insert(at, text);
    let png = parts.encoder().bytes().to_vec();
    assert!(exif_of(&png).is_some());

    // WebP (extended format) with EXIF.
    let webp = encode(&DynamicImage::ImageRgb8(photo(120, 90)), ImageFormat::WebP);
    let mut parts = WebP::from_bytes(Bytes::from(webp)).unwrap();
    parts.set_exif(Some(Bytes::from(tiff)));
    let webp = parts.encoder().bytes().to_vec();
    assert!(exif_of(&webp).is_some());

    for (name, data) in [("png", png), ("webp", webp)] {
        let ingested = ingest(&data, &limits()).unwrap();
        assert!(!ingested.reencoded, "{name}");
        assert!(ingested.gps.is_some(), "{name}: GPS read from its EXIF");
        let stored = &ingested.original.read().unwrap();
        assert!(exif_of(stored).is_none(), "{name}");
        assert!(!contains(stored, b"secret-text"), "{name}");
        assert!(
            !contains(stored, b"eXIf") && !contains(stored, b"EXIF"),
            "{name}"
        );
        // Lossless: the same pixels.
        assert_eq!(decode(stored).to_rgb8(), photo(120, 90), "{name}");
    }
}

#[test]
fn png_orientation_is_applied_losslessly() {
    let png = encode(&DynamicImage::ImageRgb8(photo(120, 90)), ImageFormat::Png);
    let mut parts = Png::from_bytes(Bytes::from(png)).unwrap();
    parts.set_exif(Some(Bytes::from(exif(6, None))));
    let png = parts.encoder().bytes().to_vec();
    let ingested = ingest(&png, &limits()).unwrap();
    assert!(ingested.reencoded);
    assert_eq!(ingested.mime(), "image/png");
    let stored = decode(&ingested.original.read().unwrap()).to_rgb8();
    let expected = image::imageops::rotate90(&photo(120, 90));
    assert_eq!(stored, expected);
    assert!(exif_of(&ingested.original.read().unwrap()).is_none());
}

// ---------------------------------------------------------------------------------------------
// Variants, hash, storage

#[test]
fn variants_have_the_expected_sizes() {
    let ingested = ingest(&jpeg(3000, 2000), &limits()).unwrap();
    assert_eq!(PREVIEW_SIDE, 2048);
    assert_eq!(THUMBNAIL_SIDE, 400);
    for (variant, expected) in [
        (&ingested.preview, (2048, 1365)),
        (&ingested.thumbnail, (400, 267)),
    ] {
        assert_eq!((variant.width, variant.height), expected);
        assert_eq!(variant.format, MediaFormat::Jpeg);
        assert_eq!(decode(&variant.data).to_rgb8().dimensions(), expected);
    }

    // Small images are not upscaled.
    let small = ingest(&jpeg(300, 200), &limits()).unwrap();
    assert_eq!((small.preview.width, small.preview.height), (300, 200));
    assert_eq!((small.thumbnail.width, small.thumbnail.height), (300, 200));

    // Portrait.
    let tall = ingest(&jpeg(1000, 3000), &limits()).unwrap();
    assert_eq!((tall.preview.width, tall.preview.height), (683, 2048));
    assert_eq!((tall.thumbnail.width, tall.thumbnail.height), (133, 400));
}

#[test]
fn transparent_images_get_webp_variants() {
    let rgba = RgbaImage::from_fn(900, 600, |x, _| Rgba([200, 30, 30, (x % 256) as u8]));
    let png = encode(&DynamicImage::ImageRgba8(rgba), ImageFormat::Png);
    let ingested = ingest(&png, &limits()).unwrap();
    assert_eq!(ingested.thumbnail.format, MediaFormat::WebP);
    assert_eq!(ingested.thumbnail.mime(), "image/webp");
    let thumb = decode(&ingested.thumbnail.data);
    assert!(thumb.color().has_alpha());
    assert_eq!((thumb.width(), thumb.height()), (400, 267));

    // An alpha channel that is fully opaque gives JPEG variants.
    let opaque = RgbaImage::from_pixel(50, 50, Rgba([1, 2, 3, 255]));
    let png = encode(&DynamicImage::ImageRgba8(opaque), ImageFormat::Png);
    let ingested = ingest(&png, &limits()).unwrap();
    assert_eq!(ingested.thumbnail.format, MediaFormat::Jpeg);
}

#[test]
fn downscaling_does_not_alias() {
    // A one-pixel checkerboard is the worst case for moiré: sampling without a proper low-pass
    // filter gives stripes of black and white; a correct filter gives even grey.
    let board = RgbImage::from_fn(1600, 1600, |x, y| {
        if (x + y).is_multiple_of(2) {
            Rgb([0, 0, 0])
        } else {
            Rgb([255, 255, 255])
        }
    });
    let png = encode(&DynamicImage::ImageRgb8(board), ImageFormat::Png);
    let ingested = ingest(&png, &limits()).unwrap();
    let thumb = decode(&ingested.thumbnail.data).to_luma8();
    assert_eq!(thumb.dimensions(), (400, 400));
    let (min, max) = thumb
        .pixels()
        .fold((255u8, 0u8), |(lo, hi), p| (lo.min(p.0[0]), hi.max(p.0[0])));
    assert!(min >= 110 && max <= 145, "grey range {min}..={max}");
}

#[test]
fn hash_is_the_sha256_of_the_stored_original_and_stable() {
    let data = jpeg_with_everything(200, 150, 1);
    let a = ingest(&data, &limits()).unwrap();
    let b = ingest(&data, &limits()).unwrap();
    assert_eq!(a.sha256, b.sha256);
    assert_eq!(
        a.sha256,
        hex::encode(Sha256::digest(a.original.read().unwrap()))
    );
    assert_eq!(a.sha256.len(), 64);
    assert_eq!(a.bytes(), a.original.read().unwrap().len() as u64);
    // The same picture with different metadata is the same stored original.
    let plain = ingest(&jpeg(200, 150), &limits()).unwrap();
    assert_eq!(plain.sha256, a.sha256);
    // A different picture is not.
    let other = ingest(&jpeg(201, 150), &limits()).unwrap();
    assert_ne!(other.sha256, a.sha256);
}

#[tokio::test]
async fn stored_once_by_content_hash() {
    let dir = tempfile::tempdir().unwrap();
    let storage = ObjectStorage::local(dir.path()).unwrap();
    let ingested = ingest(&jpeg_with_everything(640, 480, 1), &limits()).unwrap();

    let stored = media::store(&storage, &ingested).await.unwrap();
    assert!(!stored.deduplicated);
    let sha = &ingested.sha256;
    assert_eq!(
        stored.original.as_str(),
        format!("{}/{sha}/original.jpg", &sha[..2])
    );
    assert_eq!(
        stored.original,
        media::object_key(sha, VariantKind::Original, MediaFormat::Jpeg).unwrap()
    );
    let original = Bytes::from(ingested.original.read().unwrap());
    for (key, data) in [
        (&stored.original, &original),
        (&stored.preview, &ingested.preview.data),
        (&stored.thumbnail, &ingested.thumbnail.data),
    ] {
        assert_eq!(&storage.get_bytes(key).await.unwrap(), data);
    }
    let on_disk = std::fs::read(dir.path().join(stored.original.as_str())).unwrap();
    assert!(!contains(&on_disk, b"Exif") && !contains(&on_disk, b"secret"));

    let again = media::store(&storage, &ingested).await.unwrap();
    assert!(again.deduplicated);
    assert_eq!(again.keys(), stored.keys());

    assert!(media::object_key("not-a-hash", VariantKind::Preview, MediaFormat::Jpeg).is_err());
}

// ---------------------------------------------------------------------------------------------
// The streaming JPEG strip against the in-memory one it replaced

/// The in-memory marker walk that stripped JPEGs before uploads were streamed to files, kept
/// verbatim as a reference.
mod reference {
    const SOI: u8 = 0xD8;
    const EOI: u8 = 0xD9;
    const SOS: u8 = 0xDA;
    const APP0: u8 = 0xE0;
    const APP2: u8 = 0xE2;
    const APP14: u8 = 0xEE;
    const APP15: u8 = 0xEF;
    const COM: u8 = 0xFE;

    /// One piece of the file, in order.
    enum Piece {
        /// A marker segment with a length: `start..end` covers marker, length and payload.
        Segment {
            marker: u8,
            start: usize,
            end: usize,
        },
        /// Entropy-coded data after a start-of-scan, including RSTn markers.
        Entropy { start: usize, end: usize },
    }

    fn invalid(msg: &str) -> String {
        msg.to_owned()
    }

    /// Walks the file from SOI to the first EOI, calling `visit` for each piece.
    /// Returns the offset just past the EOI marker.
    fn walk(data: &[u8], mut visit: impl FnMut(Piece)) -> Result<usize, String> {
        if data.len() < 4 || data[0] != 0xFF || data[1] != SOI {
            return Err(invalid("missing start-of-image marker"));
        }
        let mut pos = 2;
        loop {
            // A marker: 0xFF, optional 0xFF fill bytes, then the marker code.
            if data.get(pos) != Some(&0xFF) {
                return Err(invalid("expected a marker"));
            }
            while data.get(pos + 1) == Some(&0xFF) {
                pos += 1;
            }
            let marker = *data
                .get(pos + 1)
                .ok_or_else(|| invalid("truncated (no end-of-image marker)"))?;
            match marker {
                EOI => return Ok(pos + 2),
                // Standalone markers (TEM, RSTn) carry no length.
                0x01 | 0xD0..=0xD7 => {
                    pos += 2;
                    continue;
                }
                0x00 | SOI => return Err(invalid("unexpected marker")),
                _ => {}
            }
            let len_bytes = data
                .get(pos + 2..pos + 4)
                .ok_or_else(|| invalid("truncated (no end-of-image marker)"))?;
            let len = usize::from(u16::from_be_bytes([len_bytes[0], len_bytes[1]]));
            if len < 2 {
                return Err(invalid("segment length below 2"));
            }
            let end = pos + 2 + len;
            if end > data.len() {
                return Err(invalid("truncated segment"));
            }
            visit(Piece::Segment {
                marker,
                start: pos,
                end,
            });
            pos = end;
            if marker == SOS {
                // Entropy-coded data: 0xFF appears only as 0xFF00 (stuffing) or 0xFFD0..D7 (RSTn).
                let start = pos;
                loop {
                    let Some(off) = data[pos..].iter().position(|&b| b == 0xFF) else {
                        return Err(invalid("truncated (no end-of-image marker)"));
                    };
                    pos += off;
                    match data.get(pos + 1) {
                        None => return Err(invalid("truncated (no end-of-image marker)")),
                        Some(0x00 | 0xD0..=0xD7) => pos += 2,
                        Some(_) => break,
                    }
                }
                visit(Piece::Entropy { start, end: pos });
            }
        }
    }

    /// Whether a segment is kept in the stored original: everything that affects decoding or
    /// colour (tables, frame, scans, JFIF header, ICC profile, Adobe colour transform), and no
    /// metadata (EXIF, XMP, IPTC, MPF, comments, maker segments).
    fn keep(marker: u8, payload: &[u8]) -> bool {
        match marker {
            APP0 => payload.starts_with(b"JFIF\0"),
            APP2 => payload.starts_with(b"ICC_PROFILE\0"),
            APP14 => payload.starts_with(b"Adobe"),
            APP0..=APP15 | COM => false,
            _ => true,
        }
    }

    /// The same JPEG without metadata segments and without anything after the end-of-image marker.
    pub fn strip(data: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(data.len());
        out.extend_from_slice(&[0xFF, SOI]);
        walk(data, |piece| match piece {
            Piece::Segment { marker, start, end } => {
                if keep(marker, &data[start + 4..end]) {
                    out.extend_from_slice(&data[start..end]);
                }
            }
            Piece::Entropy { start, end } => out.extend_from_slice(&data[start..end]),
        })?;
        out.extend_from_slice(&[0xFF, EOI]);
        Ok(out)
    }
}

#[test]
fn streamed_jpeg_strip_matches_the_in_memory_one() {
    let plain = jpeg(320, 240);
    let with_trailer = {
        // APPn segments and a comment between the header and the scan, a trailer after EOI.
        let mut data = insert_segment(&plain, 0xFE, b"secret-comment");
        data.extend_from_slice(b"trailer");
        data
    };
    for (name, data) in [
        ("plain", plain.clone()),
        ("everything", jpeg_with_everything(320, 240, 1)),
        ("comment and trailer", with_trailer),
    ] {
        let ingested = ingest(&data, &limits()).unwrap();
        assert!(!ingested.reencoded, "{name}");
        let stored = ingested.original.read().unwrap();
        assert_eq!(stored, reference::strip(&data).unwrap(), "{name}");
        assert_eq!(ingested.bytes(), stored.len() as u64, "{name}");
        assert_eq!(
            ingested.sha256,
            hex::encode(Sha256::digest(&stored)),
            "{name}"
        );
        assert!(exif_of(&stored).is_none(), "{name}");
        assert_eq!(
            decode(&stored).to_rgb8(),
            decode(&plain).to_rgb8(),
            "{name}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding memory (issue 14, review item 1: a 778 KB PNG of 10000 × 10000 RGBA at 16 bits once
// took 1.27 GB)

/// A valid PNG whose header claims `width × height` at `depth` bits in colour type `color`
/// (6 = RGBA), interlaced or not. Its data is for 8 × 8: only headers can be read.
fn png_header_claiming(width: u32, height: u32, depth: u8, color: u8, interlaced: bool) -> Vec<u8> {
    let small = encode(&DynamicImage::ImageRgb8(photo(8, 8)), ImageFormat::Png);
    let mut png = Png::from_bytes(Bytes::from(small)).unwrap();
    let mut contents = png.chunks()[0].contents().to_vec();
    contents[0..4].copy_from_slice(&width.to_be_bytes());
    contents[4..8].copy_from_slice(&height.to_be_bytes());
    contents[8] = depth;
    contents[9] = color;
    contents[12] = u8::from(interlaced);
    png.chunks_mut()[0] = PngChunk::new(*b"IHDR", Bytes::from(contents));
    png.encoder().bytes().to_vec()
}

/// `image` as an Adam7-interlaced PNG (no encoder we use writes them): the seven passes,
/// each row with filter type 0, in a zlib stream of stored blocks; img-parts writes the CRCs.
fn interlaced_png(image: &RgbaImage) -> Vec<u8> {
    let (w, h) = image.dimensions();
    let mut raw = Vec::new();
    for (x0, y0, dx, dy) in [
        (0, 0, 8, 8),
        (4, 0, 8, 8),
        (0, 4, 4, 8),
        (2, 0, 4, 4),
        (0, 2, 2, 4),
        (1, 0, 2, 2),
        (0, 1, 1, 2),
    ] {
        if x0 >= w || y0 >= h {
            continue; // an empty pass has no rows at all
        }
        for y in (y0..h).step_by(dy) {
            raw.push(0);
            for x in (x0..w).step_by(dx) {
                raw.extend_from_slice(&image.get_pixel(x, y).0);
            }
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        let len = block.len() as u16;
        zlib.push(u8::from(i + 1 == blocks.len()));
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    zlib.extend_from_slice(&((b << 16) | a).to_be_bytes());

    let plain = encode(&DynamicImage::ImageRgba8(image.clone()), ImageFormat::Png);
    let mut png = Png::from_bytes(Bytes::from(plain)).unwrap();
    let mut ihdr = png.chunks()[0].contents().to_vec();
    ihdr[12] = 1;
    png.chunks_mut()[0] = PngChunk::new(*b"IHDR", Bytes::from(ihdr));
    png.chunks_mut().retain(|c| &c.kind() != b"IDAT");
    let iend = png.chunks().len() - 1;
    png.chunks_mut()
        .insert(iend, PngChunk::new(*b"IDAT", Bytes::from(zlib)));
    png.encoder().bytes().to_vec()
}

/// `image` as a 16-bit RGBA PNG, written row by row with `png`.
fn png16(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u16; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Sixteen);
    let mut writer = encoder.write_header().unwrap();
    let mut data = Vec::with_capacity((width * height * 8) as usize);
    for y in 0..height {
        for x in 0..width {
            for v in pixel(x, y) {
                data.extend_from_slice(&v.to_be_bytes());
            }
        }
    }
    writer.write_image_data(&data).unwrap();
    writer.finish().unwrap();
    out
}

fn prepare(data: &[u8], limits: &MediaLimits) -> Result<media::PreparedUpload, MediaError> {
    media::prepare(
        Upload::from_bytes(data, &std::env::temp_dir()).unwrap(),
        limits,
    )
}

#[test]
fn the_reviewed_png_needs_a_few_rows_not_a_gigabyte() {
    // The review's file, by its header: 10000 × 10000 RGBA at 16 bits is 800 MB decoded whole.
    // Decoded row by row and shrunk by 4 as it streams, it needs a few rows and the 2500 ×
    // 2500 copy the variants are made from (with room for making them).
    let header = png_header_claiming(10_000, 10_000, 16, 6, false);
    let cost = prepare(&header, &limits()).unwrap().cost();
    assert!(cost < 100 << 20, "cost {} MiB", cost >> 20);

    // Interlaced, the whole frame must be held (at 8 bits per channel): 400 MB, refused from
    // the header with the same code as too many pixels.
    let interlaced = png_header_claiming(10_000, 10_000, 16, 6, true);
    let err = prepare(&interlaced, &limits()).unwrap_err();
    let MediaError::TooLargeToDecode {
        width,
        height,
        bytes,
        max_bytes,
    } = err
    else {
        panic!("{err:?}");
    };
    assert_eq!((width, height), (10_000, 10_000));
    assert!(
        bytes >= 400_000_000 && bytes > max_bytes,
        "{bytes} > {max_bytes}"
    );
    assert_eq!((err.code(), err.http_status()), ("image_too_large", 422));
    // A smaller interlaced one fits.
    assert!(prepare(&png_header_claiming(3000, 2000, 16, 6, true), &limits()).is_ok());
}

#[test]
fn a_sixteen_bit_png_is_shrunk_while_it_streams_and_keeps_its_depth() {
    // 4100 wide: shrunk by 2 while decoding. Left half red, right half blue, the bottom rows
    // transparent.
    let data = png16(4100, 300, |x, y| {
        let alpha = if y >= 280 { 0 } else { u16::MAX };
        if x < 2050 {
            [u16::MAX, 0, 0, alpha]
        } else {
            [0, 0, u16::MAX, alpha]
        }
    });
    let ingested = ingest(&data, &limits()).unwrap();
    assert_eq!((ingested.width(), ingested.height()), (4100, 300));
    assert!(!ingested.reencoded);
    // The variants have the sizes the full image gives, whatever the shrunk copy's.
    assert_eq!(
        (ingested.preview.width, ingested.preview.height),
        (2048, 150)
    );
    assert_eq!(
        (ingested.thumbnail.width, ingested.thumbnail.height),
        (400, 29)
    );
    assert_eq!(
        ingested.preview.format,
        MediaFormat::WebP,
        "transparent rows"
    );
    let preview = decode(&ingested.preview.data).to_rgba8();
    assert_eq!(preview.get_pixel(500, 60).0, [255, 0, 0, 255]);
    assert_eq!(preview.get_pixel(1500, 60).0, [0, 0, 255, 255]);
    assert_eq!(preview.get_pixel(500, 149).0[3], 0);
    // The stored original is the upload without metadata: still 16 bits per channel.
    let original = decode(&ingested.original.read().unwrap());
    assert_eq!(original.color(), image::ColorType::Rgba16);
}

#[test]
fn an_interlaced_png_gives_the_same_variants_as_a_plain_one() {
    let image = RgbaImage::from_fn(37, 23, |x, y| {
        Rgba([
            (x * 7) as u8,
            (y * 11) as u8,
            ((x + y) * 3) as u8,
            (x * 6 + 30) as u8,
        ])
    });
    let interlaced = interlaced_png(&image);
    // The hand-made file is what it claims: `image` decodes it to the same pixels.
    assert_eq!(decode(&interlaced).to_rgba8(), image);
    let plain = encode(&DynamicImage::ImageRgba8(image), ImageFormat::Png);
    let (a, b) = (
        ingest(&interlaced, &limits()).unwrap(),
        ingest(&plain, &limits()).unwrap(),
    );
    assert_eq!(a.preview.format, MediaFormat::WebP);
    assert_eq!(
        decode(&a.preview.data).to_rgba8(),
        decode(&b.preview.data).to_rgba8()
    );
    // A truncated interlaced file is refused like any other.
    let cut = &interlaced[..interlaced.len() - 40];
    assert!(matches!(
        ingest(cut, &limits()),
        Err(MediaError::InvalidImage(_))
    ));
}

/// A small JPEG whose frame header claims `width × height`: headers read, pixels never.
fn jpeg_claiming(small: &[u8], width: u16, height: u16) -> Vec<u8> {
    let mut data = small.to_vec();
    let sof = data
        .windows(2)
        .position(|w| w[0] == 0xFF && matches!(w[1], 0xC0 | 0xC2))
        .expect("a frame header");
    data[sof + 5..sof + 7].copy_from_slice(&height.to_be_bytes());
    data[sof + 7..sof + 9].copy_from_slice(&width.to_be_bytes());
    data
}

#[test]
fn decoding_cost_is_known_before_decoding_and_bounded() {
    let upright = jpeg(200, 150);
    let mut progressive = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut progressive, 85);
    encoder.set_progressive(true);
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::F_2_2);
    encoder
        .encode(
            photo(200, 150).as_raw(),
            200,
            150,
            jpeg_encoder::ColorType::Rgb,
        )
        .unwrap();
    // At 8000 × 6000 the pixels outweigh everything else.
    let (w, h) = (8000u16, 6000u16);
    let pixels = u64::from(w) * u64::from(h);
    let big = jpeg_claiming(&upright, w, h);
    let turned = with_exif(&big, &exif(6, None));
    // Decoded RGB; a quarter turn writes a second buffer; a progressive frame also holds its
    // coefficients (4:2:0: 1.5 samples a pixel, 2 bytes each).
    let unbounded = MediaLimits {
        max_decode_bytes: u64::MAX,
        ..limits()
    };
    let cost = |data: &[u8]| prepare(data, &unbounded).unwrap().cost();
    assert!(
        (3 * pixels..5 * pixels).contains(&cost(&big)),
        "{}",
        cost(&big)
    );
    assert!(cost(&turned) >= 6 * pixels);
    assert!(cost(&jpeg_claiming(&progressive, w, h)) >= 6 * pixels);

    let upright = jpeg(2000, 1500);
    // Over the budget: refused before any pixel is decoded, nothing left behind.
    let tight = MediaLimits {
        max_decode_bytes: cost(&upright) - 1,
        ..limits()
    };
    assert!(matches!(
        ingest(&upright, &tight),
        Err(MediaError::TooLargeToDecode {
            width: 2000,
            height: 1500,
            ..
        })
    ));
    let exact = MediaLimits {
        max_decode_bytes: cost(&upright),
        ..limits()
    };
    let ingested = ingest(&upright, &exact).unwrap();
    assert_eq!((ingested.width(), ingested.height()), (2000, 1500));
}
