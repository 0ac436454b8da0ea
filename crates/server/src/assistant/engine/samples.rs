//! Items for the engine's unit tests: plain values with the fields an answer reads, so that
//! the texts can be checked without a database.

use crate::assistant::data::{Creative, Heatmap, Location, Panel, Simulation};

/// A heatmap of `total` images, `done` of them analysed and `failed` failed.
pub(super) fn heatmap(status: &'static str, total: i64, done: i64, failed: i64) -> Heatmap {
    Heatmap {
        id: "h1".into(),
        name: "Printemps".into(),
        status,
        total,
        done,
        failed,
        score: None,
        created_at: 0,
    }
}

/// A panel with a share of attention, of the area, and the first-second figures.
pub(super) fn panel(share: f64, area_share: f64, first_second: Option<f64>) -> Panel {
    Panel {
        share,
        area_share,
        visibility: share / area_share,
        first_second,
        glance_share: first_second.map(|f| f / 2.0),
    }
}

/// A simulation of "Summer Sale" on "Part-Dieu".
pub(super) fn simulation(status: &str, panel: Option<Panel>) -> Simulation {
    Simulation {
        id: "s1".into(),
        name: "Summer Sale à Part-Dieu".into(),
        creative_id: "c1".into(),
        creative_name: Some("Summer Sale".into()),
        location_id: "l1".into(),
        location_name: Some("Part-Dieu".into()),
        city: Some("Lyon".into()),
        status: status.into(),
        night: None,
        attention_score: None,
        attention_heatmap: None,
        attention_status: None,
        panel,
        created_at: 0,
    }
}

/// A creative of the brand Moka, created on 12 March 2026.
pub(super) fn creative() -> Creative {
    Creative {
        id: "c1".into(),
        name: "Moka Intense".into(),
        brand: Some("Moka".into()),
        campaign: Some("Lancement".into()),
        media_id: "m1".into(),
        created_at: 1_773_316_800_000,
    }
}

/// A bus shelter in Lyon, with a photo and its panel's corners.
pub(super) fn location() -> Location {
    Location {
        id: "l1".into(),
        name: "Bellecour".into(),
        address: None,
        city: Some("Lyon".into()),
        postal_code: None,
        country: None,
        format: "bus_shelter".into(),
        illumination: "back".into(),
        panel_width_cm: Some(120),
        panel_height_cm: Some(176),
        photo_media_id: Some("m2".into()),
        has_quad: true,
        audience: Some("pedestrian".into()),
        viewing_distance_min_m: Some(2.0),
        viewing_distance_max_m: Some(20.0),
        speed_kmh: None,
        created_at: 0,
    }
}
