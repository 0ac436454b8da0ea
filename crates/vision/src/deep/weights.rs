//! Parsing the embedded weights file written by `tools/saliency/export.py`: the 8 bytes
//! `RGDATTN3`, a little-endian u32 header length, a JSON header (architecture, the heads, the
//! readouts' constants and the tensor table), then every tensor as little-endian IEEE float16,
//! decoded here to f32 once. Readout `r`'s tensors are named `readout{r}.…`; its last layer has
//! one output per head.

use serde::Deserialize;
use std::collections::HashMap;

/// One MBConv block of the backbone, as described by the header.
#[derive(Debug, Clone, Deserialize)]
pub struct BlockSpec {
    /// Depthwise kernel size (3 or 5).
    pub kernel: usize,
    /// Depthwise stride (1 or 2).
    pub stride: usize,
    /// Whether the block starts with a 1×1 expansion.
    pub expand: bool,
    /// Input channels.
    pub cin: usize,
    /// Channels after the expansion.
    pub cexp: usize,
    /// Output channels.
    pub cout: usize,
    /// Whether the input is added to the output.
    pub skip: bool,
}

/// One head's constants (one output of a readout's last layer), stored in the header.
#[derive(Debug, Clone, Deserialize)]
pub struct HeadSpec {
    /// Standard deviation of the final blur, as a fraction of the grid's longer side.
    pub blur_sigma: f32,
    /// Centre prior weights (u², v², v), u and v the offsets from the centre in units of the
    /// grid's width and height.
    pub centre: [f32; 3],
}

/// One readout's constants, stored in the header.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadoutSpec {
    /// Hidden widths of the readout (first and second layer).
    pub hidden: [usize; 2],
    /// Per head, in the header's `heads` order.
    pub heads: Vec<HeadSpec>,
}

#[derive(Debug, Deserialize)]
struct TensorEntry {
    name: String,
    shape: Vec<usize>,
    offset: usize,
}

#[derive(Debug, Deserialize)]
struct Header {
    blocks: Vec<BlockSpec>,
    taps: Vec<usize>,
    net_long_side: usize,
    heads: Vec<String>,
    readouts: Vec<ReadoutSpec>,
    tensors: Vec<TensorEntry>,
}

/// The decoded file: architecture and named f32 tensors.
#[derive(Debug)]
pub struct Weights {
    /// Backbone blocks in order.
    pub blocks: Vec<BlockSpec>,
    /// Indices of the blocks whose outputs feed the readout.
    pub taps: Vec<usize>,
    /// Longer side of the network input the readout was trained at.
    pub net_long_side: usize,
    /// The heads' names, in the order of each readout's outputs ("full", "glance").
    pub heads: Vec<String>,
    /// The readouts' constants, in file order (`readout{r}.…` tensors).
    pub readouts: Vec<ReadoutSpec>,
    tensors: HashMap<String, (Vec<usize>, Vec<f32>)>,
}

/// IEEE 754 binary16 → f32 (exact: every half value is representable).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: value = man × 2^-24.
            let v = man as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000,
        _ => sign | ((exp + 112) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

impl Weights {
    /// Parses the file; errors name what is wrong (the embedded file is checked by tests).
    pub fn parse(bytes: &[u8]) -> Result<Weights, String> {
        if bytes.len() < 12 || &bytes[..8] != b"RGDATTN3" {
            return Err("not a Regard attention weights file".into());
        }
        let hlen = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        let body = 12 + hlen;
        if bytes.len() < body {
            return Err("truncated header".into());
        }
        let header: Header =
            serde_json::from_slice(&bytes[12..body]).map_err(|e| format!("bad header: {e}"))?;
        let data = &bytes[body..];
        let mut tensors = HashMap::new();
        for t in header.tensors {
            let n: usize = t.shape.iter().product();
            let (a, b) = (2 * t.offset, 2 * (t.offset + n));
            if b > data.len() {
                return Err(format!("tensor {} runs past the end", t.name));
            }
            let v = data[a..b]
                .chunks_exact(2)
                .map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]])))
                .collect();
            tensors.insert(t.name, (t.shape, v));
        }
        Ok(Weights {
            blocks: header.blocks,
            taps: header.taps,
            net_long_side: header.net_long_side,
            heads: header.heads,
            readouts: header.readouts,
            tensors,
        })
    }

    /// The tensor `name`, checked to have `shape`.
    pub fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        match self.tensors.get(name) {
            Some((s, v)) if s == shape => Ok(v.clone()),
            Some((s, _)) => Err(format!("{name}: shape {s:?}, expected {shape:?}")),
            None => Err(format!("{name}: missing")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_decoding() {
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x0400), 2f32.powi(-14));
        assert!(f16_to_f32(0x7c00).is_infinite());
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    #[test]
    fn rejects_bad_files() {
        assert!(Weights::parse(b"nope").is_err());
        let mut b = b"RGDATTN3".to_vec();
        b.extend_from_slice(&100u32.to_le_bytes());
        assert!(Weights::parse(&b).is_err());
    }
}
