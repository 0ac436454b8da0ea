//! Out-of-home viewing: the physical formats of panels, who passes them, and the rules that turn
//! a panel's size, a text's letter height, a distance range and a speed into what a planner
//! asks: from how far can it be read, and for how many seconds. No I/O; the numbers and their
//! sources are explained in docs/viewing.md.
//!
//! **Legibility rule.** A letter can be read at a glance when its height subtends
//! [`LEGIBLE_ARCMIN`] (10 minutes of arc) at the eye: twice the 5′ of a letter on the 20/20
//! line of a Snellen chart (normal acuity), the 2:1 "acuity reserve" that reading research
//! gives for reading isolated words rather than just detecting them (Whittaker &
//! Lovie-Kitchin, 1993). That is 2.91 mm of letter height per metre of distance, or 29 ft of
//! distance per inch of letter height: the legibility index that road-sign design uses (the
//! US MUTCD, 2009, §2A.13, sizes sign letters at 1 inch per 30 ft). The often quoted "1 inch
//! per 10 ft" of the sign trade is a rule for impact, three times more demanding; Regard
//! answers whether a text *can* be read.

wire_enum! {
    /// A panel's format: a standard physical size (see `GET /locations/formats`), a screen, or
    /// `other` (the size as given).
    pub enum PanelFormat {
        /// France: 4 × 3 m billboard (12 m²).
        Billboard4x3 = "billboard_4x3";
        /// France: 320 × 240 cm billboard, the trade's "8 m²".
        Billboard320x240 = "billboard_320x240";
        /// France: bus shelter poster, 120 × 176 cm.
        BusShelter = "bus_shelter";
        /// France: 2 m² street furniture (MUPI), 120 × 176 cm.
        Mupi2m2 = "mupi_2m2";
        /// United Kingdom: 48-sheet, 6.096 × 3.048 m.
        Uk48Sheet = "uk_48_sheet";
        /// United Kingdom: 96-sheet, 12.192 × 3.048 m.
        Uk96Sheet = "uk_96_sheet";
        /// United Kingdom: 6-sheet, 1.2 × 1.8 m.
        Uk6Sheet = "uk_6_sheet";
        /// United States: bulletin, 48 × 14 ft.
        UsBulletin = "us_bulletin";
        /// United States: 30-sheet poster, 22 ft 8 in × 10 ft 5 in (the visible area, inside the
        /// frame; the creative's live copy area is 21 ft 7 in × 9 ft 7 in).
        Us30Sheet = "us_30_sheet";
        /// United States: 8-sheet poster, 11 × 5 ft (printed area).
        Us8Sheet = "us_8_sheet";
        /// Germany: Großfläche 18/1, 3.56 × 2.52 m.
        De18Sheet = "de_18_1";
        /// Germany: City-Light-Poster, 1.185 × 1.75 m.
        DeCityLightPoster = "de_city_light_poster";
        /// Digital: 75-inch portrait screen (street furniture), 1080 × 1920 px.
        Digital75inPortrait = "digital_75in_portrait";
        /// Digital: 55-inch portrait screen (malls, stations), 1080 × 1920 px.
        Digital55inPortrait = "digital_55in_portrait";
        /// Digital: US digital bulletin, 48 × 14 ft, 1400 × 400 px.
        DigitalBulletin = "digital_bulletin";
        /// Digital: a screen of another size (size and resolution as given).
        DigitalScreen = "digital_screen";
        ShopWindow = "shop_window";
        /// Any other panel (size as given).
        Other = "other";
    }
}

wire_enum! {
    /// Where a format is standard.
    pub enum FormatRegion {
        France = "fr";
        UnitedKingdom = "uk";
        UnitedStates = "us";
        Germany = "de";
        /// Screens, any country.
        Digital = "digital";
        /// No standard size.
        Custom = "custom";
    }
}

wire_enum! {
    /// Who passes a panel.
    pub enum Audience {
        /// People on foot (5 km/h unless said otherwise).
        Pedestrian = "pedestrian";
        /// Drivers and passengers (50 km/h unless said otherwise).
        Road = "road";
    }
}

impl Audience {
    /// The approach speed assumed when none is given, in km/h: a walking pace, and the urban
    /// speed limit of France, Germany and most of Europe (30 mph in the UK is 48 km/h).
    pub const fn default_speed_kmh(self) -> f64 {
        match self {
            Audience::Pedestrian => 5.0,
            Audience::Road => 50.0,
        }
    }
}

/// The size of a standard format, in millimetres (width, height), and its pixels for screens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FormatSpec {
    pub format: PanelFormat,
    pub region: FormatRegion,
    /// Millimetres, landscape or portrait as the panel stands; `None` for custom formats.
    pub size_mm: Option<(u32, u32)>,
    /// Pixels of a screen (width, height); `None` for print.
    pub resolution: Option<(u32, u32)>,
}

const fn print(format: PanelFormat, region: FormatRegion, w: u32, h: u32) -> FormatSpec {
    FormatSpec {
        format,
        region,
        size_mm: Some((w, h)),
        resolution: None,
    }
}

const fn screen(format: PanelFormat, w: u32, h: u32, px: (u32, u32)) -> FormatSpec {
    FormatSpec {
        format,
        region: FormatRegion::Digital,
        size_mm: Some((w, h)),
        resolution: Some(px),
    }
}

const fn custom(format: PanelFormat, region: FormatRegion) -> FormatSpec {
    FormatSpec {
        format,
        region,
        size_mm: None,
        resolution: None,
    }
}

const fn feet(feet: u32, inches: u32) -> u32 {
    // Rounded to the millimetre: (12 · feet + inches) · 25.4.
    ((12 * feet + inches) * 254 + 5) / 10
}

/// Every format, in the order the form lists them (by region).
pub const FORMATS: [FormatSpec; 18] = {
    use FormatRegion::*;
    use PanelFormat::*;
    [
        print(Billboard4x3, France, 4000, 3000),
        print(Billboard320x240, France, 3200, 2400),
        print(Mupi2m2, France, 1200, 1760),
        print(BusShelter, France, 1200, 1760),
        print(Uk48Sheet, UnitedKingdom, 6096, 3048),
        print(Uk96Sheet, UnitedKingdom, 12192, 3048),
        print(Uk6Sheet, UnitedKingdom, 1200, 1800),
        print(UsBulletin, UnitedStates, feet(48, 0), feet(14, 0)),
        print(Us30Sheet, UnitedStates, feet(22, 8), feet(10, 5)),
        print(Us8Sheet, UnitedStates, feet(11, 0), feet(5, 0)),
        print(De18Sheet, Germany, 3560, 2520),
        print(DeCityLightPoster, Germany, 1185, 1750),
        // A 16:9 screen of diagonal d inches: d · 25.4 · (9, 16) / √337 mm, standing portrait.
        screen(Digital75inPortrait, 934, 1660, (1080, 1920)),
        screen(Digital55inPortrait, 685, 1218, (1080, 1920)),
        screen(DigitalBulletin, feet(48, 0), feet(14, 0), (1400, 400)),
        custom(DigitalScreen, Digital),
        custom(ShopWindow, Custom),
        custom(Other, Custom),
    ]
};

/// Wire values that older versions wrote and accepted, and the format each one is. A format
/// has one value, so that a filter on it finds every panel of that size: `billboard_12m2` was
/// the 4 × 3 m panel under a second name, and `billboard_8m2` meant 4 × 2 m, a size no French
/// list carries (the trade's 8 m² is the 320 × 240 cm panel). Accepted on input, never
/// answered; the migration `20261206000000_one_value_per_format` rewrote the stored ones.
pub const FORMER_FORMATS: [(&str, PanelFormat); 2] = [
    ("billboard_12m2", PanelFormat::Billboard4x3),
    ("billboard_8m2", PanelFormat::Billboard320x240),
];

/// The table's row of a format.
pub fn spec(format: PanelFormat) -> &'static FormatSpec {
    FORMATS
        .iter()
        .find(|spec| spec.format == format)
        .expect("every format has a row in FORMATS")
}

/// The visual angle at which a letter's height can be read at a glance, in minutes of arc: about
/// where 90 % of viewers read a contrasted sign under ideal, stationary conditions (Smith 1979,
/// *Human Factors* 21:661; the US Sign Council's 1 inch per 29 ft). A threshold, not comfort.
pub const LEGIBLE_ARCMIN: f64 = 10.0;

/// The visual angle at which a letter's height reads comfortably, in minutes of arc: ISO 9241-3
/// asks 16′ at least and prefers 20–22′ for text to be read, not just made out.
pub const COMFORTABLE_ARCMIN: f64 = 20.0;

/// Half the field ahead in which a panel is seen while travelling (Route's visibility cone is
/// 120° wide): past 60° from the direction of travel a panel is no longer looked at.
pub const VISIBLE_HALF_ANGLE_DEG: f64 = 60.0;

/// Letter height needed per metre of distance, in millimetres (2.91).
pub fn mm_per_metre() -> f64 {
    1000.0 * (LEGIBLE_ARCMIN / 60.0).to_radians().tan()
}

/// The greatest distance, in metres, from which a letter `letter_mm` high can be read.
pub fn legible_distance_m(letter_mm: f64) -> f64 {
    letter_mm.max(0.0) / mm_per_metre()
}

/// Letter height per metre of distance that reads comfortably, in millimetres (5.82).
pub fn comfortable_mm_per_metre() -> f64 {
    1000.0 * (COMFORTABLE_ARCMIN / 60.0).to_radians().tan()
}

/// The greatest distance, in metres, from which a letter `letter_mm` high reads comfortably.
pub fn comfortable_distance_m(letter_mm: f64) -> f64 {
    letter_mm.max(0.0) / comfortable_mm_per_metre()
}

/// The letter height, in millimetres, needed to be read from `distance_m`.
pub fn required_letter_mm(distance_m: f64) -> f64 {
    distance_m.max(0.0) * mm_per_metre()
}

/// The letter height assumed for a panel's main text when no creative is known: a tenth of the
/// panel's height (a headline of one line set in about the top fifth of the layout).
pub fn reference_letter_mm(panel_height_mm: f64) -> f64 {
    panel_height_mm / 10.0
}

/// Seconds during which a viewer can read a text legible from `legible_m`: the viewer moves
/// at `speed_kmh` on a straight path that passes the panel at `nearest_m` (the nearest viewing
/// distance, sideways), and reads while within `min(legible_m, max_m)` of the panel *and* while
/// the panel is within [`VISIBLE_HALF_ANGLE_DEG`] of the direction of travel:
///
/// `t = (√(min(L, d_max)² − p²) − p / tan 60°) / v`, and 0 when that is negative.
///
/// Along the path, at `x` metres before the point nearest the panel, the panel is `√(x² + p²)`
/// away and `atan(p / x)` off the direction of travel, so the window runs from `x = √(R² − p²)`
/// down to `x = p / tan 60°` (docs/viewing.md).
pub fn time_in_view_s(nearest_m: f64, max_m: f64, legible_m: f64, speed_kmh: f64) -> f64 {
    if speed_kmh <= 0.0 || max_m < nearest_m || nearest_m < 0.0 {
        return 0.0;
    }
    let reach = legible_m.min(max_m);
    if reach <= nearest_m {
        return 0.0;
    }
    let start = (reach * reach - nearest_m * nearest_m).sqrt();
    let end = nearest_m / VISIBLE_HALF_ANGLE_DEG.to_radians().tan();
    ((start - end).max(0.0) / (speed_kmh / 3.6)).max(0.0)
}

/// What a location's viewing conditions give, when its distances are known.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewing {
    /// The speed used: the one given, or the audience's default.
    pub speed_kmh: f64,
    /// The main text's letter height, in millimetres.
    pub letter_mm: f64,
    /// The distance from which it can be read (10′: the threshold).
    pub legible_distance_m: f64,
    /// The distance from which it reads comfortably (20′).
    pub comfortable_distance_m: f64,
    /// Seconds during which it can be read on the approach.
    pub time_in_view_s: f64,
}

/// The conditions a location records (all optional).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Conditions {
    pub audience: Option<Audience>,
    pub distance_min_m: Option<f64>,
    pub distance_max_m: Option<f64>,
    pub speed_kmh: Option<f64>,
}

impl Conditions {
    /// The speed to use: the one given, else the audience's default.
    pub fn speed(&self) -> Option<f64> {
        self.speed_kmh
            .or_else(|| self.audience.map(Audience::default_speed_kmh))
    }

    /// Legibility and time in view of a main text `letter_mm` high; `None` without a distance
    /// range or a speed.
    pub fn viewing(&self, letter_mm: f64) -> Option<Viewing> {
        let (min, max) = (self.distance_min_m?, self.distance_max_m?);
        let speed = self.speed()?;
        let legible = legible_distance_m(letter_mm);
        Some(Viewing {
            speed_kmh: speed,
            letter_mm,
            legible_distance_m: legible,
            comfortable_distance_m: comfortable_distance_m(letter_mm),
            time_in_view_s: time_in_view_s(min, max, legible, speed),
        })
    }
}

/// How a creative is fitted to its panel (rendering.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Stretch,
    Cover,
    Contain,
}

/// Where a creative's content lands on a panel: millimetres of panel per creative pixel along
/// each axis, and the part of the creative the panel shows (relative, `[x0, y0, x1, y1]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Millimetres of panel per creative pixel, across and down.
    pub mm_per_px: (f64, f64),
    /// The creative's visible part, relative to it.
    pub visible: [f64; 4],
}

/// The placement of a `creative` (pixels) on a `panel` (millimetres) with `fit`.
pub fn placement(creative: (f64, f64), panel: (f64, f64), fit: Fit) -> Placement {
    let ((w, h), (pw, ph)) = (creative, panel);
    let (a, aspect) = (w / h, pw / ph);
    match fit {
        Fit::Stretch => Placement {
            mm_per_px: (pw / w, ph / h),
            visible: [0.0, 0.0, 1.0, 1.0],
        },
        // Cropped to the panel's aspect, centred: the kept side fills the panel.
        Fit::Cover if a > aspect => {
            let kept = aspect / a;
            Placement {
                mm_per_px: (ph / h, ph / h),
                visible: [(1.0 - kept) / 2.0, 0.0, (1.0 + kept) / 2.0, 1.0],
            }
        }
        Fit::Cover => {
            let kept = a / aspect;
            Placement {
                mm_per_px: (pw / w, pw / w),
                visible: [0.0, (1.0 - kept) / 2.0, 1.0, (1.0 + kept) / 2.0],
            }
        }
        // Whole, centred: the longer side (relative to the panel) fills it.
        Fit::Contain if a > aspect => Placement {
            mm_per_px: (pw / w, pw / w),
            visible: [0.0, 0.0, 1.0, 1.0],
        },
        Fit::Contain => Placement {
            mm_per_px: (ph / h, ph / h),
            visible: [0.0, 0.0, 1.0, 1.0],
        },
    }
}

impl Placement {
    /// How much of a box (relative to the creative, `[x0, y0, x1, y1]`) the panel shows, 0..1.
    pub fn shown(&self, b: [f64; 4]) -> f64 {
        let v = self.visible;
        let iw = (b[2].min(v[2]) - b[0].max(v[0])).max(0.0);
        let ih = (b[3].min(v[3]) - b[1].max(v[1])).max(0.0);
        let area = (b[2] - b[0]) * (b[3] - b[1]);
        if area <= 0.0 { 0.0 } else { iw * ih / area }
    }
}

/// Whether a text can be read along the approach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// From the farthest viewing distance on: over the whole approach.
    Whole,
    /// Only nearer than the farthest distance: over part of the approach.
    Part,
    /// Not even from the nearest distance.
    Never,
}

/// How a text `legible_m` reads over a viewing range.
pub fn reading(legible_m: f64, min_m: f64, max_m: f64) -> Reading {
    if legible_m >= max_m {
        Reading::Whole
    } else if legible_m >= min_m {
        Reading::Part
    } else {
        Reading::Never
    }
}

/// Millimetres of a panel side stored in centimetres.
pub fn cm_to_mm(cm: i64) -> f64 {
    cm as f64 * 10.0
}

/// A format's size in whole centimetres (how locations store it).
pub fn size_cm(format: PanelFormat) -> Option<(i64, i64)> {
    let (w, h) = spec(format).size_mm?;
    let cm = |mm: u32| i64::from((mm + 5) / 10);
    Some((cm(w), cm(h)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_exactly_one_row() {
        for format in PanelFormat::ALL {
            assert_eq!(
                FORMATS.iter().filter(|s| s.format == *format).count(),
                1,
                "{format}"
            );
        }
        assert_eq!(FORMATS.len(), PanelFormat::ALL.len());
    }

    #[test]
    fn the_french_8_m2_is_the_320_by_240_panel_and_12_m2_the_4_by_3() {
        assert_eq!(size_cm(PanelFormat::Billboard320x240), Some((320, 240)));
        assert_eq!(size_cm(PanelFormat::Billboard4x3), Some((400, 300)));
        for (former, now) in FORMER_FORMATS {
            assert!(
                PanelFormat::parse(former).is_none(),
                "{former} is no wire value now"
            );
            let (w, h) = size_cm(now).unwrap();
            let m2 = (w * h) as f64 / 10_000.0;
            let named: f64 = former
                .trim_start_matches("billboard_")
                .trim_end_matches("m2")
                .parse()
                .unwrap();
            // 7.68 m² is the trade's "8 m²"; 12 m² exactly.
            assert!((m2 - named).abs() < 0.5, "{former}: {m2} m²");
        }
    }

    #[test]
    fn imperial_sizes_are_converted_to_the_millimetre() {
        assert_eq!(spec(PanelFormat::UsBulletin).size_mm, Some((14630, 4267)));
        // The 30-sheet's visible area (OAAA): 22 ft 8 in × 10 ft 5 in.
        assert_eq!(spec(PanelFormat::Us30Sheet).size_mm, Some((6909, 3175)));
        assert_eq!(feet(48, 0), 14630);
        assert_eq!(size_cm(PanelFormat::Uk48Sheet), Some((610, 305)));
        assert_eq!(size_cm(PanelFormat::Other), None);
    }

    #[test]
    fn screens_match_their_diagonal() {
        for format in [
            PanelFormat::Digital75inPortrait,
            PanelFormat::Digital55inPortrait,
        ] {
            let (w, h) = spec(format).size_mm.unwrap();
            let diagonal_in = f64::from(w).hypot(f64::from(h)) / 25.4;
            let named: f64 = format.as_str()[8..10].parse().unwrap();
            assert!((diagonal_in - named).abs() < 0.1, "{format}: {diagonal_in}");
        }
    }

    #[test]
    fn the_legibility_rule_is_ten_minutes_of_arc() {
        // tan(10′) = 0.0029089: 2.909 mm per metre.
        assert!((mm_per_metre() - 2.9089).abs() < 1e-3);
        // A 300 mm headline (a tenth of a 4 × 3 m panel) reads from 103 m.
        assert!((legible_distance_m(300.0) - 103.13).abs() < 0.01);
        // About 1 inch per 29 ft: within the road-sign practice of 1 inch per 30 ft.
        let ft_per_inch = legible_distance_m(25.4) / 0.3048;
        assert!((ft_per_inch - 28.65).abs() < 0.01, "{ft_per_inch}");
        // A legal line seen from 13 m needs 38 mm.
        assert!((required_letter_mm(13.0) - 37.8).abs() < 0.1);
    }

    #[test]
    fn comfortable_reading_is_twenty_minutes_of_arc() {
        // ISO 9241-3: 20′ preferred (16′ at least): 5.82 mm of letter per metre.
        assert!((comfortable_mm_per_metre() - 5.818).abs() < 1e-3);
        assert!((comfortable_distance_m(300.0) - 51.57).abs() < 0.01);
        // Twice the threshold's angle: about half its distance.
        let ratio = legible_distance_m(100.0) / comfortable_distance_m(100.0);
        assert!((ratio - 2.0).abs() < 0.01, "{ratio}");
        // Smith (1979): 90 % of viewers read at 10′; the US Sign Council's chart puts a 1-inch
        // letter at 29 ft (8.84 m): the threshold distance, within 2 %.
        assert!((legible_distance_m(25.4) - 8.84).abs() / 8.84 < 0.02);
    }

    /// The reading window walked along the path, step by step: the formula's reference.
    fn walked(p: f64, d_max: f64, legible: f64, v_kmh: f64) -> f64 {
        let reach = legible.min(d_max);
        let step = 0.001;
        let mut seen = 0.0;
        let mut x = reach + 1.0;
        while x > -reach {
            let distance = x.hypot(p);
            let off_axis = p.atan2(x).to_degrees();
            if distance <= reach && off_axis <= 60.0 {
                seen += step;
            }
            x -= step;
        }
        seen / (v_kmh / 3.6)
    }

    #[test]
    fn time_in_view_is_the_readable_part_of_a_straight_path_past_the_panel() {
        for (p, d_max, legible, v) in [
            // A road panel passed 10 m away, seen from 150 m, headline legible from 103 m.
            (10.0, 150.0, 103.13, 50.0),
            // A MUPI passed 3 m away on foot, 2–40 m.
            (3.0, 40.0, 30.0, 5.0),
            // Legible from barely beyond the nearest point: a short window, not 0.
            (10.0, 150.0, 12.0, 50.0),
        ] {
            let t = time_in_view_s(p, d_max, legible, v);
            let reference = walked(p, d_max, legible, v);
            assert!(
                (t - reference).abs() < 0.01,
                "{p} {d_max} {legible} {v}: {t} vs {reference}"
            );
        }
        // The first case by hand: (√(103.13² − 10²) − 10/√3) / 13.89 = 6.97 s.
        let t = time_in_view_s(10.0, 150.0, 103.13, 50.0);
        let by_hand = ((103.13f64.powi(2) - 100.0).sqrt() - 10.0 / 3f64.sqrt()) / (50.0 / 3.6);
        assert!((t - by_hand).abs() < 1e-9 && (t - 6.97).abs() < 0.01, "{t}");
        // Legible only nearer than the point where the panel leaves the 60° cone: nothing.
        assert_eq!(time_in_view_s(10.0, 150.0, 11.0, 50.0), 0.0);
        // Not legible even at the nearest point.
        assert_eq!(time_in_view_s(20.0, 80.0, 12.0, 50.0), 0.0);
        // Nonsense in, nothing out.
        assert_eq!(time_in_view_s(10.0, 5.0, 100.0, 50.0), 0.0);
        assert_eq!(time_in_view_s(1.0, 5.0, 100.0, 0.0), 0.0);
    }

    #[test]
    fn placement_follows_the_fit() {
        // A 1920 × 1080 creative (16:9) on a 4 × 3 m panel (4:3).
        let (c, p) = ((1920.0, 1080.0), (4000.0, 3000.0));
        let stretch = placement(c, p, Fit::Stretch);
        assert_eq!(stretch.mm_per_px, (4000.0 / 1920.0, 3000.0 / 1080.0));
        // Cover keeps the full height, crops the sides: 1440 of the 1920 px are shown.
        let cover = placement(c, p, Fit::Cover);
        assert_eq!(cover.mm_per_px, (3000.0 / 1080.0, 3000.0 / 1080.0));
        assert!(
            (cover.visible[0] - 0.125).abs() < 1e-12 && (cover.visible[2] - 0.875).abs() < 1e-12
        );
        // A box in the left eighth is cut off; one across the middle is whole.
        assert_eq!(cover.shown([0.0, 0.5, 0.1, 0.6]), 0.0);
        assert!((cover.shown([0.3, 0.5, 0.7, 0.6]) - 1.0).abs() < 1e-12);
        assert!((cover.shown([0.0, 0.5, 0.25, 0.6]) - 0.5).abs() < 1e-12);
        // Contain fills the width: 4000 mm for 1920 px, bands above and below.
        let contain = placement(c, p, Fit::Contain);
        assert_eq!(contain.mm_per_px, (4000.0 / 1920.0, 4000.0 / 1920.0));
        assert_eq!(contain.shown([0.0, 0.0, 0.1, 0.1]), 1.0);
        // A portrait creative on a landscape panel: cover keeps the width.
        let tall = placement((1000.0, 2000.0), p, Fit::Cover);
        assert_eq!(tall.mm_per_px, (4.0, 4.0));
        assert!((tall.visible[1] - (1.0 - 0.375) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn reading_says_over_which_part_of_the_approach() {
        assert_eq!(reading(120.0, 10.0, 100.0), Reading::Whole);
        assert_eq!(reading(40.0, 10.0, 100.0), Reading::Part);
        assert_eq!(reading(4.0, 10.0, 100.0), Reading::Never);
    }

    #[test]
    fn conditions_default_the_speed_by_audience() {
        let road = Conditions {
            audience: Some(Audience::Road),
            distance_min_m: Some(10.0),
            distance_max_m: Some(150.0),
            speed_kmh: None,
        };
        let viewing = road.viewing(300.0).unwrap();
        assert_eq!(viewing.speed_kmh, 50.0);
        // 300 mm reads from 103.1 m, comfortably from 51.6 m; passed 10 m away: 6.97 s.
        assert!((viewing.time_in_view_s - 6.975).abs() < 0.01);
        assert!((viewing.comfortable_distance_m - 51.57).abs() < 0.01);
        let given = Conditions {
            speed_kmh: Some(90.0),
            ..road
        };
        assert_eq!(given.viewing(300.0).unwrap().speed_kmh, 90.0);
        // No distances, or no speed and no audience: nothing to say.
        assert_eq!(Conditions::default().viewing(300.0), None);
        let no_speed = Conditions {
            audience: None,
            ..road
        };
        assert_eq!(no_speed.viewing(300.0), None);
    }
}
