//! A JPEG marker walker: finds where the primary image ends and rewrites a JPEG without its
//! metadata segments, byte for byte otherwise (no re-encoding, no quality loss).
//!
//! Why our own walker rather than `img-parts` (used for PNG and WebP): `img-parts` keeps
//! everything after the first start-of-scan verbatim — later scans of progressive files, the
//! end marker and any trailer. Trailers are where phones put MPF secondary images, gain maps and
//! depth maps, each with its own EXIF (and GPS), and APPn segments can sit between progressive
//! scans. Privacy needs every segment of the file visited, which this walk does.

use super::MediaError;

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

fn invalid(msg: &str) -> MediaError {
    MediaError::InvalidImage(format!("JPEG: {msg}"))
}

/// Walks the file from SOI to the first EOI, calling `visit` for each piece.
/// Returns the offset just past the EOI marker.
fn walk(data: &[u8], mut visit: impl FnMut(Piece)) -> Result<usize, MediaError> {
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

/// Offset just past the primary image's end-of-image marker. Fails on truncated or malformed
/// files, so it doubles as a structural check.
pub(super) fn image_end(data: &[u8]) -> Result<usize, MediaError> {
    walk(data, |_| {})
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
pub(super) fn strip(data: &[u8]) -> Result<Vec<u8>, MediaError> {
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
