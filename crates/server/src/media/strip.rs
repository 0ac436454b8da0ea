//! Lossless metadata removal: the stored original keeps its pixels and compression exactly and
//! loses EXIF, XMP, IPTC, text chunks and comments.
//!
//! JPEG goes through our own marker walk ([`super::jpeg`]); PNG and WebP through `img-parts`,
//! which parses the chunk containers and keeps CRCs and the WebP `VP8X` flags consistent.
//! Both use allow-lists: a chunk kind we do not know is dropped, not kept.

use bytes::Bytes;
use img_parts::ImageEXIF;
use img_parts::png::Png;
use img_parts::webp::WebP;

use super::{MediaError, MediaFormat, jpeg};

/// PNG chunks that affect how the image decodes or looks. Everything else (tEXt, zTXt, iTXt,
/// eXIf, tIME, private chunks) is dropped. Animation chunks are dropped too: Regard keeps the
/// default image of an animated PNG, which is what non-animating viewers show.
const PNG_KEEP: [&[u8; 4]; 12] = [
    b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT",
    b"pHYs", b"bKGD",
];

/// WebP chunks that make up the image (simple or extended, still or animated), and the ICC
/// profile. EXIF and XMP go.
const WEBP_KEEP: [&[u8; 4]; 7] = [
    b"VP8X", b"VP8 ", b"VP8L", b"ALPH", b"ICCP", b"ANIM", b"ANMF",
];

fn invalid(format: MediaFormat, err: impl std::fmt::Display) -> MediaError {
    MediaError::InvalidImage(format!("{}: {err}", format.mime()))
}

/// Returns `data` without metadata.
pub(super) fn strip_metadata(data: &[u8], format: MediaFormat) -> Result<Bytes, MediaError> {
    match format {
        MediaFormat::Jpeg => {
            let mut out = Vec::with_capacity(data.len());
            jpeg::strip_stream(data, &mut out)?;
            Ok(Bytes::from(out))
        }
        MediaFormat::Png => {
            let mut png =
                Png::from_bytes(Bytes::copy_from_slice(data)).map_err(|e| invalid(format, e))?;
            png.chunks_mut()
                .retain(|chunk| PNG_KEEP.contains(&&chunk.kind()));
            Ok(png.encoder().bytes())
        }
        MediaFormat::WebP => {
            let mut webp =
                WebP::from_bytes(Bytes::copy_from_slice(data)).map_err(|e| invalid(format, e))?;
            webp.chunks_mut()
                .retain(|chunk| WEBP_KEEP.contains(&&chunk.id()));
            // Removing EXIF through this call also rewrites the VP8X feature flags to match the
            // chunks that remain (no EXIF, no XMP).
            webp.set_exif(None);
            Ok(webp.encoder().bytes())
        }
    }
}
