//! A JPEG marker walker: finds where the primary image ends and rewrites a JPEG without its
//! metadata segments, byte for byte otherwise (no re-encoding, no quality loss).
//!
//! Why our own walker rather than `img-parts` (used for PNG and WebP): `img-parts` keeps
//! everything after the first start-of-scan verbatim — later scans of progressive files, the
//! end marker and any trailer. Trailers are where phones put MPF secondary images, gain maps and
//! depth maps, each with its own EXIF (and GPS), and APPn segments can sit between progressive
//! scans. Privacy needs every segment of the file visited, which this walk does.

use std::io::{BufRead, Write};

use super::MediaError;

const SOI: u8 = 0xD8;
const EOI: u8 = 0xD9;
const SOS: u8 = 0xDA;
const APP0: u8 = 0xE0;
const APP1: u8 = 0xE1;
const APP2: u8 = 0xE2;
const APP14: u8 = 0xEE;
const APP15: u8 = 0xEF;
const COM: u8 = 0xFE;

fn invalid(msg: &str) -> MediaError {
    MediaError::InvalidImage(format!("JPEG: {msg}"))
}

fn truncated() -> MediaError {
    invalid("truncated (no end-of-image marker)")
}

fn io_error(err: std::io::Error) -> MediaError {
    MediaError::Internal(format!("reading or writing a temporary file: {err}"))
}

/// A buffered reader that counts the bytes consumed.
struct Input<R> {
    inner: R,
    pos: u64,
}

impl<R: BufRead> Input<R> {
    fn peek(&mut self) -> Result<Option<u8>, MediaError> {
        Ok(self.inner.fill_buf().map_err(io_error)?.first().copied())
    }

    fn next(&mut self) -> Result<Option<u8>, MediaError> {
        let byte = self.peek()?;
        if byte.is_some() {
            self.inner.consume(1);
            self.pos += 1;
        }
        Ok(byte)
    }

    /// Fills `buf` completely, or returns `Ok(false)` when the input ends first.
    fn fill(&mut self, buf: &mut [u8]) -> Result<bool, MediaError> {
        match self.inner.read_exact(buf) {
            Ok(()) => {
                self.pos += buf.len() as u64;
                Ok(true)
            }
            Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => Ok(false),
            Err(err) => Err(io_error(err)),
        }
    }
}

/// Walks a JPEG from SOI to the first EOI in one pass, copying to `out` every segment that
/// [`keep`] accepts and all entropy-coded data, bracketed by SOI and EOI: the same file without
/// metadata segments and without anything after the end-of-image marker. Nothing before the
/// first EOI is held in memory beyond one segment (at most 64 KiB).
///
/// Fails on truncated or malformed files, so it doubles as a structural check. Returns the
/// offset in the input just past the EOI marker (where a trailer, if any, begins) and what the
/// frame header says about decoding cost.
pub(super) fn strip_stream<R: BufRead, W: Write>(
    input: R,
    out: &mut W,
) -> Result<JpegLayout, MediaError> {
    let mut input = Input {
        inner: input,
        pos: 0,
    };
    let mut soi = [0u8; 2];
    if !input.fill(&mut soi)? || soi != [0xFF, SOI] {
        return Err(invalid("missing start-of-image marker"));
    }
    out.write_all(&[0xFF, SOI]).map_err(io_error)?;
    // Whether the 0xFF of the next marker was already consumed (by the entropy-data scan).
    let mut have_ff = false;
    let mut segment = Vec::new();
    let mut frame = None;
    let mut exif = None;
    loop {
        // A marker: 0xFF, optional 0xFF fill bytes, then the marker code.
        if !have_ff {
            match input.next()? {
                Some(0xFF) => {}
                None => return Err(truncated()),
                Some(_) => return Err(invalid("expected a marker")),
            }
        }
        have_ff = false;
        while input.peek()? == Some(0xFF) {
            input.next()?;
        }
        let marker = input.next()?.ok_or_else(truncated)?;
        match marker {
            EOI => {
                out.write_all(&[0xFF, EOI]).map_err(io_error)?;
                let (progressive, components, samples_x64) =
                    frame.ok_or_else(|| invalid("no frame header"))?;
                return Ok(JpegLayout {
                    end: input.pos,
                    progressive,
                    components,
                    samples_x64,
                    exif,
                });
            }
            // Standalone markers (TEM, RSTn) carry no length.
            0x01 | 0xD0..=0xD7 => continue,
            0x00 | SOI => return Err(invalid("unexpected marker")),
            _ => {}
        }
        let mut len_bytes = [0u8; 2];
        if !input.fill(&mut len_bytes)? {
            return Err(truncated());
        }
        let len = usize::from(u16::from_be_bytes(len_bytes));
        if len < 2 {
            return Err(invalid("segment length below 2"));
        }
        segment.clear();
        segment.extend_from_slice(&[0xFF, marker, len_bytes[0], len_bytes[1]]);
        segment.resize(2 + len, 0);
        if !input.fill(&mut segment[4..])? {
            return Err(invalid("truncated segment"));
        }
        // SOFn, n ≠ 4 (DHT), 8 (reserved), 12 (DAC): the frame header. The first one counts.
        if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) && frame.is_none()
        {
            let components = *segment
                .get(9)
                .ok_or_else(|| invalid("short frame header"))?;
            // Each component: id, sampling factors (H << 4 | V), quantisation table.
            let factors: Vec<(u32, u32)> = segment[10..]
                .chunks_exact(3)
                .take(usize::from(components))
                .map(|c| (u32::from(c[1] >> 4).max(1), u32::from(c[1] & 0x0F).max(1)))
                .collect();
            let (h_max, v_max) = factors
                .iter()
                .fold((1, 1), |(h, v), &(ch, cv)| (h.max(ch), v.max(cv)));
            let samples_x64 = factors
                .iter()
                .map(|&(h, v)| 64 * h * v / (h_max * v_max))
                .sum();
            // SOF2, 6, 10 and 14 are progressive: the decoder keeps every coefficient.
            frame = Some((
                matches!(marker, 0xC2 | 0xC6 | 0xCA | 0xCE),
                components,
                samples_x64,
            ));
        }
        // EXIF, as the decoder reads it: the last APP1 "Exif" segment, without its prefix.
        if marker == APP1 && segment[4..].starts_with(b"Exif\0\0") {
            exif = Some(segment[10..].to_vec());
        }
        if keep(marker, &segment[4..]) {
            out.write_all(&segment).map_err(io_error)?;
        }
        if marker == SOS {
            // Entropy-coded data: 0xFF appears only as 0xFF00 (stuffing) or 0xFFD0..D7 (RSTn).
            loop {
                let buf = input.inner.fill_buf().map_err(io_error)?;
                if buf.is_empty() {
                    return Err(truncated());
                }
                let run = buf.iter().position(|&b| b == 0xFF).unwrap_or(buf.len());
                out.write_all(&buf[..run]).map_err(io_error)?;
                input.inner.consume(run);
                input.pos += run as u64;
                if input.peek()? != Some(0xFF) {
                    continue;
                }
                input.next()?;
                match input.peek()? {
                    None => return Err(truncated()),
                    Some(b @ (0x00 | 0xD0..=0xD7)) => {
                        input.next()?;
                        out.write_all(&[0xFF, b]).map_err(io_error)?;
                    }
                    Some(_) => {
                        have_ff = true;
                        break;
                    }
                }
            }
        }
    }
}

/// What [`strip_stream`] learnt about a JPEG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct JpegLayout {
    /// The offset just past the end-of-image marker.
    pub end: u64,
    /// Whether the frame is progressive (SOF2, 6, 10, 14): its decoder holds all the DCT
    /// coefficients, two bytes per sample, until the last scan.
    pub progressive: bool,
    /// Colour components: 1 grey, 3 YCbCr or RGB, 4 CMYK or YCCK.
    pub components: u8,
    /// Samples per pixel over all components, times 64, after chroma subsampling (192 for
    /// 4:4:4, 96 for 4:2:0, 64 for grey).
    pub samples_x64: u32,
    /// The EXIF block (TIFF data after `Exif\0\0`), when there is one.
    pub exif: Option<Vec<u8>>,
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
