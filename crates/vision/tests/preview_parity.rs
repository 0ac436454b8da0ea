//! The renders the browser preview is compared with (rendering.md: the preview agrees with the
//! server's render within 3/255 mean absolute difference): small scenes of fine patterns in
//! perspective, each rendered here and stored with its description in
//! `web/src/features/simulation/lib/preview/fixtures/render-parity.json`, which the web suite
//! (`parity.test.ts`) renders with the preview's CPU path and compares. This test fails when the
//! stored renders are not what the renderer makes now; after a deliberate change to the maths,
//! rewrite them with `REGARD_WRITE_PREVIEW_FIXTURES=1 cargo test -p regard-vision --test
//! preview_parity` (and change the preview to match, in the same commit).

use regard_vision::RgbImage;
use regard_vision::composite::{
    Adjustments, Fit, Night, RenderSpec, Site, View, photo_stats, render,
};
use serde_json::{Value, json};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../web/src/features/simulation/lib/preview/fixtures/render-parity.json"
);

/// Photo size of every scene (a preview-sized crop around the panel).
const PHOTO: (usize, usize) = (48, 36);

struct Scene {
    name: &'static str,
    pattern: &'static str,
    creative: (usize, usize),
    quad: [[f64; 2]; 4],
    fit: Fit,
    adjustments: Adjustments,
    site: Option<Site>,
}

/// The creative of a scene, from its pattern's name (the web test draws the same ones).
fn pattern(name: &str, w: usize, h: usize) -> Vec<u8> {
    (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            match name {
                "stripes-v" => [if (x / 2) % 2 == 0 { 255 } else { 0 }; 3],
                "stripes-h" => [if (y / 2) % 2 == 0 { 255 } else { 0 }; 3],
                "checker" => [if (x / 2 + y / 2) % 2 == 0 { 255 } else { 0 }; 3],
                "noise" => {
                    let v =
                        (x as u32).wrapping_mul(0x9e37_79b1) ^ (y as u32).wrapping_mul(0x85eb_ca6b);
                    let h = (v ^ (v >> 15)).wrapping_mul(0x2c1b_3c6d);
                    [h as u8, (h >> 8) as u8, (h >> 16) as u8]
                }
                _ => panic!("unknown pattern {name}"),
            }
        })
        .collect()
}

/// A statistics photo: the pattern with its channels scaled by `percent`, and with `sign`
/// (a colour) over its top-left eighth, if any.
fn stats_photo(
    name: &str,
    w: usize,
    h: usize,
    percent: [u32; 3],
    sign: Option<[u8; 3]>,
) -> Vec<u8> {
    let p = pattern(name, w, h);
    (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            match sign {
                Some(c) if x < w / 8 && y < h / 8 => c,
                _ => [0, 1, 2].map(|k| (p[i * 3 + k] as u32 * percent[k] / 100) as u8),
            }
        })
        .collect()
}

/// The photo of every scene: a gradient, so that partly covered pixels blend two colours.
fn photo() -> Vec<u8> {
    let (w, h) = PHOTO;
    (0..w * h)
        .flat_map(|i| {
            let (x, y) = (i % w, i / w);
            [(x * 4) as u8, (y * 5) as u8, 100]
        })
        .collect()
}

/// A panel of about 39 × 27 px in mild perspective; `s` sizes a creative to show at scale s.
const QUAD: [[f64; 2]; 4] = [[4.0, 3.8], [43.5, 4.9], [42.9, 31.5], [4.6, 30.9]];

fn sized(s: f64) -> (usize, usize) {
    ((39.0 / s).round() as usize, (27.0 / s).round() as usize)
}

fn scenes() -> Vec<Scene> {
    let plain = Adjustments {
        auto_match: false,
        ..Adjustments::default()
    };
    let scene = |name, pattern, s: f64| Scene {
        name,
        pattern,
        creative: sized(s),
        quad: QUAD,
        fit: Fit::Stretch,
        adjustments: plain,
        site: None,
    };
    let site = Site {
        width_m: 1.2,
        height_m: 0.9,
        passing_m: 20.0,
    };
    vec![
        scene("stripes 0.65×", "stripes-v", 0.65),
        scene("stripes 0.5×", "stripes-v", 0.5),
        scene("stripes 0.42×", "stripes-h", 0.42),
        scene("stripes 0.35×", "stripes-v", 0.35),
        scene("checker 0.3×", "checker", 0.3),
        scene("noise 0.8×", "noise", 0.8),
        scene("noise 1.6× magnified", "noise", 1.6),
        Scene {
            // Steep: four anisotropic taps.
            quad: [[1.5, 15.0], [46.5, 13.9], [45.7, 20.2], [2.2, 21.0]],
            ..scene("checker steep", "checker", 0.5)
        },
        Scene {
            adjustments: Adjustments {
                sharpness: 0.6,
                ..plain
            },
            ..scene("noise 0.6× sharpened", "noise", 0.6)
        },
        Scene {
            adjustments: Adjustments {
                sharpness: -0.3,
                ..plain
            },
            ..scene("noise 0.9× blurred", "noise", 0.9)
        },
        Scene {
            fit: Fit::Contain,
            creative: (60, 15),
            ..scene("noise contained", "noise", 1.0)
        },
        Scene {
            adjustments: Adjustments {
                auto_match: true,
                ..plain
            },
            ..scene("noise 0.7× auto match", "noise", 0.7)
        },
        Scene {
            // The acuity's blur alone: σ = 3.3 creative px.
            adjustments: Adjustments {
                view: Some(View {
                    distance_m: 300.0,
                    speed_kmh: 0.0,
                }),
                ..plain
            },
            site: Some(site),
            ..scene("stripes 0.5× from 300 m", "stripes-v", 0.5)
        },
        Scene {
            // Mostly the motion's smear: 6.2 creative px along u, σ = 0.7 px.
            adjustments: Adjustments {
                view: Some(View {
                    distance_m: 60.0,
                    speed_kmh: 90.0,
                }),
                ..plain
            },
            site: Some(site),
            ..scene("checker 0.5× from a car", "checker", 0.5)
        },
        Scene {
            fit: Fit::Contain,
            creative: (60, 15),
            adjustments: Adjustments {
                view: Some(View {
                    distance_m: 120.0,
                    speed_kmh: 50.0,
                }),
                ..plain
            },
            site: Some(site),
            ..scene("noise contained from 120 m", "noise", 1.0)
        },
        Scene {
            // The darkened photo, the panel and its light around it, each in one encode.
            adjustments: Adjustments {
                night: Some(Night::Led),
                ..plain
            },
            ..scene("checker 0.5× at night (LED)", "checker", 0.5)
        },
        Scene {
            adjustments: Adjustments {
                night: Some(Night::Backlit),
                contrast: 0.3,
                ..plain
            },
            ..scene("noise 0.8× at night (backlit)", "noise", 0.8)
        },
    ]
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            s.push(if k <= c.len() {
                B64[(n >> (18 - 6 * k)) as usize & 63] as char
            } else {
                '='
            });
        }
    }
    s
}

/// The fixture's JSON as the renderer makes it now.
fn fixture() -> Value {
    let (pw, ph) = PHOTO;
    let photo = photo();
    let photo = RgbImage::new(pw, ph, &photo).unwrap();
    let scenes: Vec<Value> = scenes()
        .iter()
        .map(|s| {
            let (cw, ch) = s.creative;
            let c = pattern(s.pattern, cw, ch);
            let spec = RenderSpec {
                quad: s.quad,
                fit: s.fit,
                background: [32, 64, 96],
                panel_aspect: None,
                adjustments: s.adjustments,
                site: s.site,
            };
            let out = render(&photo, &RgbImage::new(cw, ch, &c).unwrap(), None, &spec).unwrap();
            // At night the two blur the light differently (rendering.md §4): the preview with
            // a Gaussian kernel renormalised at the photo's borders, the server with three box
            // blurs on a grid that extends beyond them. Both stay far within the bound of 3.
            let tolerance = s
                .adjustments
                .night
                .map(|_| json!({ "mad": 0.5, "worst": 8 }));
            json!({
                "tolerance": tolerance,
                "name": s.name,
                "creative": { "pattern": s.pattern, "width": cw, "height": ch },
                "quad": s.quad,
                "fit": s.fit,
                "background": "#204060",
                "adjustments": s.adjustments,
                "site": s.site.map(|t| json!({
                    "width_m": t.width_m, "height_m": t.height_m, "passing_m": t.passing_m,
                })),
                "pixels": base64(&out),
            })
        })
        .collect();
    // Photo statistics (§5) of larger photos drawn from the patterns, tinted, one with a sign.
    type Case = (
        &'static str,
        (usize, usize),
        [u32; 3],
        Option<[u8; 3]>,
        [[f64; 2]; 4],
    );
    let cases: [Case; 2] = [
        (
            "noise",
            (160, 120),
            [90, 75, 60],
            Some([230, 210, 170]),
            [[50.3, 30.2], [120.0, 35.5], [118.0, 90.1], [48.0, 86.0]],
        ),
        (
            "checker",
            (200, 90),
            [80, 80, 95],
            None,
            [[10.0, 10.0], [60.0, 12.0], [58.0, 70.0], [12.0, 66.0]],
        ),
    ];
    let stats: Vec<Value> = cases
        .iter()
        .map(|&(name, (w, h), percent, sign, quad)| {
            let data = stats_photo(name, w, h, percent, sign);
            let s = photo_stats(&RgbImage::new(w, h, &data).unwrap(), &quad);
            json!({
                "photo": { "pattern": name, "width": w, "height": h, "percent": percent, "sign": sign },
                "quad": quad,
                "exposure": s.exposure,
                "cast": s.cast,
                "noise": s.noise,
            })
        })
        .collect();
    json!({
        "about": "Written by crates/vision/tests/preview_parity.rs (REGARD_WRITE_PREVIEW_FIXTURES=1); compared with the preview by parity.test.ts. Photo: 48 × 36, pixel (x, y) = (4x, 5y, 100); renders: RGB8, base64. Statistics: a pattern, channels scaled by percent, a sign (if any) over its top-left eighth.",
        "photo": { "width": pw, "height": ph },
        "scenes": scenes,
        "stats": stats,
    })
}

#[test]
fn the_stored_preview_fixtures_are_the_renderers_output() {
    let now = serde_json::to_string_pretty(&fixture()).unwrap() + "\n";
    if std::env::var_os("REGARD_WRITE_PREVIEW_FIXTURES").is_some() {
        std::fs::write(FIXTURE, &now).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(FIXTURE).expect("the fixture file");
    assert!(
        stored == now,
        "the renders in {FIXTURE} are not the renderer's: after a deliberate change, rewrite \
         them with REGARD_WRITE_PREVIEW_FIXTURES=1 and make the preview agree"
    );
}
