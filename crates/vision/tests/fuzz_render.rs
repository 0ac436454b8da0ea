//! Property tests of the renderer's inputs: any quad (outside the photo, crossed, degenerate,
//! NaN), any adjustments (out of range, NaN; a view from a distance, with or without a site),
//! any fit, background, panel aspect and mask, on photos and creatives of any small size, give
//! either a render of the photo's size or an error, never a panic. `PROPTEST_CASES` sets the number of cases (256 by default; the test
//! command's bounded run); `PROPTEST_CASES=5000 cargo test -p regard-vision --release --test
//! fuzz_render` is the longer run.

use proptest::prelude::*;
use regard_vision::RgbImage;
use regard_vision::composite::{Adjustments, Fit, Mask, Night, RenderSpec, Site, View, render};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Mostly ordinary numbers, sometimes the edges and the non-finite ones.
fn number(range: std::ops::Range<f64>) -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => range,
        1 => Just(0.0),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-1e12),
    ]
}

/// An adjustment within `range` (its valid one) 19 times in 20, otherwise out of range or
/// not finite.
fn adjustment(range: std::ops::RangeInclusive<f32>) -> impl Strategy<Value = f32> {
    prop_oneof![
        57 => range,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => -3.0f32..3.0,
    ]
}

fn adjustments() -> impl Strategy<Value = Adjustments> {
    let signed = || adjustment(-1.0..=1.0);
    let unsigned = || adjustment(0.0..=1.0);
    (
        (signed(), signed(), signed(), signed()),
        (signed(), unsigned(), unsigned()),
        any::<bool>(),
        prop_oneof![
            Just(None),
            Just(Some(Night::Backlit)),
            Just(Some(Night::Led))
        ],
        prop::option::of(
            (adjustment(1.0..=1000.0), adjustment(0.0..=200.0)).prop_map(
                |(distance_m, speed_kmh)| View {
                    distance_m,
                    speed_kmh,
                },
            ),
        ),
    )
        .prop_map(
            |(
                (brightness, contrast, saturation, warmth),
                (sharpness, grain, glare),
                auto_match,
                night,
                view,
            )| {
                Adjustments {
                    brightness,
                    contrast,
                    saturation,
                    warmth,
                    sharpness,
                    grain,
                    glare,
                    auto_match,
                    night,
                    view,
                }
            },
        )
}

/// A quad: often a plausible panel (a rectangle inside the photo with its corners moved a
/// little, in clockwise order), otherwise anything at all.
fn quad(width: usize, height: usize) -> impl Strategy<Value = [[f64; 2]; 4]> {
    let (w, h) = (width as f64, height as f64);
    let jitter = move || (-0.1 * w..0.1 * w, -0.1 * h..0.1 * h);
    let plausible = (
        (0.05..0.45f64, 0.05..0.45f64, 0.55..0.95f64, 0.55..0.95f64),
        prop::array::uniform4(jitter()),
    )
        .prop_map(move |((x0, y0, x1, y1), j)| {
            let corners = [
                [x0 * w, y0 * h],
                [x1 * w, y0 * h],
                [x1 * w, y1 * h],
                [x0 * w, y1 * h],
            ];
            std::array::from_fn(|i| [corners[i][0] + j[i].0, corners[i][1] + j[i].1])
        });
    let anything = prop::array::uniform4((number(-20.0..70.0), number(-20.0..70.0)))
        .prop_map(|q| q.map(|(x, y)| [x, y]));
    prop_oneof![3 => plausible, 1 => anything]
}

fn pixels(width: usize, height: usize, seed: u8) -> Vec<u8> {
    (0..width * height * 3)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn any_input_renders_or_is_refused(
        ((pw, ph), quad) in (1usize..48, 1usize..48)
            .prop_flat_map(|(w, h)| (Just((w, h)), quad(w, h))),
        (cw, ch) in (1usize..40, 1usize..40),
        fit in prop_oneof![Just(Fit::Stretch), Just(Fit::Cover), Just(Fit::Contain)],
        background in any::<[u8; 3]>(),
        panel_aspect in prop::option::of(prop_oneof![9 => 0.05..20.0f64, 1 => number(-1.0..1.0)]),
        adjustments in adjustments(),
        site in prop::option::of((number(0.1..20.0), number(0.1..20.0), number(0.0..50.0)).prop_map(
            |(width_m, height_m, passing_m)| Site { width_m, height_m, passing_m },
        )),
        mask in prop::option::of(prop_oneof![
            3 => (1usize..20, 1usize..20).prop_map(|(w, h)| (w, h, w * h)),
            1 => (0usize..20, 0usize..20, 0usize..500),
        ]),
        seed in any::<u8>(),
    ) {
        let photo_data = pixels(pw, ph, seed);
        let creative_data = pixels(cw, ch, seed.wrapping_add(7));
        let photo = RgbImage::new(pw, ph, &photo_data).unwrap();
        let creative = RgbImage::new(cw, ch, &creative_data).unwrap();
        let mask_data: Vec<u8>;
        let mask = match mask {
            Some((width, height, len)) => {
                mask_data = (0..len).map(|i| (i * 37) as u8).collect();
                Some(Mask { width, height, data: &mask_data })
            }
            None => None,
        };
        let spec = RenderSpec {
            quad,
            fit,
            background,
            panel_aspect,
            adjustments,
            site,
        };
        if let Ok(out) = render(&photo, &creative, mask.as_ref(), &spec) {
            prop_assert_eq!(out.len(), pw * ph * 3);
        }
    }
}
