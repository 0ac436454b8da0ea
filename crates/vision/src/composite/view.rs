//! The view from a distance (rendering.md §2, "View from a distance"): the panel as an eye of
//! normal acuity sees it from the viewer's place, passing at the viewer's speed, made by widening
//! each pixel's footprint with the eye's blur expressed in creative pixels.

use serde::{Deserialize, Serialize};

use super::RenderError;

/// Half the 1′ minimum angle of resolution of a 20/20 eye, as `tan(0.5′)`: the standard
/// deviation of the eye's line spread, in metres per metre of distance.
pub const ACUITY_SIGMA: f64 = 1.454_441e-4;

/// Smooth pursuit follows a predictable target with about this gain, leaving `1 − gain` of its
/// motion on the retina.
pub const PURSUIT_GAIN: f64 = 0.9;

/// The eye sums light over about this long (s): the smear of what slips on the retina.
pub const INTEGRATION_S: f64 = 0.1;

/// The passing distance assumed when a location gives none (m): a kerb-side panel.
pub const DEFAULT_PASSING_M: f64 = 5.0;

/// Where the viewer is: the adjustment `view`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// Distance to the panel, metres (1..=1000).
    pub distance_m: f32,
    /// Speed past the panel, km/h (0..=200).
    pub speed_kmh: f32,
}

/// Distance limits of a view, metres.
pub const DISTANCE_M: std::ops::RangeInclusive<f32> = 1.0..=1000.0;
/// Speed limits of a view, km/h.
pub const SPEED_KMH: std::ops::RangeInclusive<f32> = 0.0..=200.0;

/// What a view needs to know of the site: the panel's size and how far from it the viewers' way
/// passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Site {
    /// Panel width, metres.
    pub width_m: f64,
    /// Panel height, metres.
    pub height_m: f64,
    /// Closest distance of the viewers' way to the panel, metres.
    pub passing_m: f64,
}

/// Checks a view's ranges.
pub fn check_view(view: &View) -> Result<(), RenderError> {
    let ok = |v: f32, range: &std::ops::RangeInclusive<f32>| v.is_finite() && range.contains(&v);
    if ok(view.distance_m, &DISTANCE_M) && ok(view.speed_kmh, &SPEED_KMH) {
        Ok(())
    } else {
        Err(RenderError::InvalidValue("view"))
    }
}

/// Checks a site: finite, positive sizes, a non-negative passing distance.
pub fn check_site(site: &Site) -> Result<(), RenderError> {
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if positive(site.width_m)
        && positive(site.height_m)
        && site.passing_m.is_finite()
        && site.passing_m >= 0.0
    {
        Ok(())
    } else {
        Err(RenderError::InvalidValue("site"))
    }
}

/// The eye's blur on the panel, metres: the acuity's standard deviation and the horizontal
/// smear of the motion.
pub fn blur_m(view: &View, site: &Site) -> (f64, f64) {
    let d = f64::from(view.distance_m);
    let sigma = d * ACUITY_SIGMA;
    let passing = site.passing_m.min(d);
    let v = f64::from(view.speed_kmh) / 3.6;
    let smear = (1.0 - PURSUIT_GAIN) * INTEGRATION_S * v * passing / d;
    (sigma, smear)
}

/// The blur's diagonal `C = (2·σu² + Lu², 2·σv²)` in creative pixels² (rendering.md §2: the
/// acuity's Gaussian as twice its variance, the smear as its length squared), for a fit of `ku`,
/// `kv` creative pixels per panel width and height.
pub fn covariance(view: &View, site: &Site, ku: f64, kv: f64) -> [f32; 2] {
    let (sigma, smear) = blur_m(view, site);
    let (per_u, per_v) = (ku / site.width_m, kv / site.height_m);
    let (su, sv, lu) = (sigma * per_u, sigma * per_v, smear * per_u);
    [(2.0 * su * su + lu * lu) as f32, (2.0 * sv * sv) as f32]
}

/// The footprint `jx`, `jy` widened by the diagonal `c`: the principal axes of
/// `jx·jxᵀ + jy·jyᵀ + C`, scaled by the square roots of their eigenvalues.
#[inline]
pub fn widen(jx: [f32; 2], jy: [f32; 2], c: [f32; 2]) -> ([f32; 2], [f32; 2]) {
    let a = jx[0] * jx[0] + jy[0] * jy[0] + c[0];
    let b = jx[0] * jx[1] + jy[0] * jy[1];
    let d = jx[1] * jx[1] + jy[1] * jy[1] + c[1];
    let m = 0.5 * (a + d);
    let h = 0.5 * (a - d);
    let r = (h * h + b * b).sqrt();
    let (l1, l2) = (m + r, (m - r).max(0.0));
    let theta = 0.5 * (2.0 * b).atan2(a - d);
    let (sin, cos) = theta.sin_cos();
    let (s1, s2) = (l1.sqrt(), l2.sqrt());
    ([s1 * cos, s1 * sin], [-s2 * sin, s2 * cos])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gram(jx: [f32; 2], jy: [f32; 2]) -> [f32; 3] {
        [
            jx[0] * jx[0] + jy[0] * jy[0],
            jx[0] * jx[1] + jy[0] * jy[1],
            jx[1] * jx[1] + jy[1] * jy[1],
        ]
    }

    #[test]
    fn the_blur_follows_the_distance_and_the_speed_by_hand() {
        let site = Site {
            width_m: 1.2,
            height_m: 1.76,
            passing_m: 10.0,
        };
        let view = View {
            distance_m: 30.0,
            speed_kmh: 50.0,
        };
        let (sigma, smear) = blur_m(&view, &site);
        assert!((sigma - 4.363e-3).abs() < 1e-6, "{sigma}");
        // 0.1 · 0.1 · 13.889 m/s · 10 m / 30 m = 46.3 mm.
        assert!((smear - 0.046_30).abs() < 1e-5, "{smear}");
        // Standing still: no smear; passing closer than the distance is capped at the distance.
        let still = View {
            speed_kmh: 0.0,
            ..view
        };
        assert_eq!(blur_m(&still, &site).1, 0.0);
        let near = View {
            distance_m: 4.0,
            ..view
        };
        let capped = blur_m(&near, &site).1;
        assert!((capped - 0.01 * 50.0 / 3.6).abs() < 1e-9, "{capped}");
    }

    #[test]
    fn widening_adds_the_blur_to_the_footprints_second_moments() {
        let cases = [
            ([1.0, 0.0], [0.0, 1.0], [0.0, 0.0]),
            ([2.0, 0.3], [-0.4, 0.7], [5.0, 1.0]),
            ([0.5, 0.5], [0.5, -0.5], [9.0, 9.0]),
            ([0.0, 0.0], [0.0, 0.0], [4.0, 1.0]),
        ];
        for (jx, jy, c) in cases {
            let (wx, wy) = widen(jx, jy, c);
            let want = gram(jx, jy);
            let got = gram(wx, wy);
            let want = [want[0] + c[0], want[1], want[2] + c[1]];
            for k in 0..3 {
                assert!(
                    (got[k] - want[k]).abs() < 1e-4,
                    "{jx:?} {jy:?} {c:?}: {got:?}"
                );
            }
            // Principal axes: orthogonal.
            assert!((wx[0] * wy[0] + wx[1] * wy[1]).abs() < 1e-4);
        }
        // A horizontal smear on a square footprint makes the major axis horizontal, of length
        // sqrt(1 + 24) = 5.
        let (wx, wy) = widen([1.0, 0.0], [0.0, 1.0], [24.0, 0.0]);
        assert!((wx[0] - 5.0).abs() < 1e-5 && wx[1].abs() < 1e-6, "{wx:?}");
        assert!((wy[1].abs() - 1.0).abs() < 1e-6, "{wy:?}");
    }

    #[test]
    fn views_and_sites_out_of_range_are_refused() {
        let good = View {
            distance_m: 30.0,
            speed_kmh: 50.0,
        };
        assert!(check_view(&good).is_ok());
        for bad in [
            View {
                distance_m: 0.5,
                ..good
            },
            View {
                distance_m: f32::NAN,
                ..good
            },
            View {
                speed_kmh: -1.0,
                ..good
            },
            View {
                speed_kmh: 201.0,
                ..good
            },
        ] {
            assert_eq!(check_view(&bad), Err(RenderError::InvalidValue("view")));
        }
        let site = Site {
            width_m: 4.0,
            height_m: 3.0,
            passing_m: 0.0,
        };
        assert!(check_site(&site).is_ok());
        assert!(
            check_site(&Site {
                width_m: 0.0,
                ..site
            })
            .is_err()
        );
    }
}
