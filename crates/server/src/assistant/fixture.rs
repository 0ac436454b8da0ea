//! Seeded accounts for the assistant's question set, its benchmark and its tests: a small
//! demo account whose every figure the question set knows ([`seed_demo`]), and a large one
//! ([`seed_bulk`]). Rows are written through the `db` functions the API and the workers use
//! (media rows without stored objects: the assistant never reads pixels).

use crate::db::heatmaps::{self, HeatmapRow, ItemOutputs, NewItem};
use crate::db::locations::LocationRow;
use crate::db::media::MediaRow;
use crate::db::simulations::{NewSimulation, SimulationRow};
use crate::db::users::UserRow;
use crate::db::{self, Db, DbError};

/// 1 March 2026, 09:00 UTC: the demo account's first row; each later row is an hour later.
pub const BASE_MS: i64 = 1_772_355_600_000;
const HOUR_MS: i64 = 3_600_000;

fn id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Creates a user (no password can sign in with it) and returns its id.
pub async fn user(db: &Db, email: &str) -> Result<String, DbError> {
    let now = db::now_ms();
    let row = UserRow {
        email: email.to_owned(),
        email_confirmed_at: Some(now),
        app_metadata: r#"{"provider":"email","providers":["email"]}"#.to_owned(),
        ..UserRow::new(now)
    };
    db::users::insert(db, &row).await?;
    Ok(row.id)
}

/// A media row with no stored object.
async fn media(db: &Db, owner: &str, kind: &str, name: &str, at: i64) -> Result<MediaRow, DbError> {
    let row = media_row(owner, kind, name, at);
    db::media::insert(db, &row).await?;
    Ok(row)
}

fn media_row(owner: &str, kind: &str, name: &str, at: i64) -> MediaRow {
    let sha = format!("{:0>64}", uuid::Uuid::new_v4().simple());
    MediaRow {
        id: id(),
        owner_id: owner.to_owned(),
        kind: kind.to_owned(),
        mime: "image/jpeg".to_owned(),
        width: 1600,
        height: 1200,
        bytes: 100_000,
        sha256: sha.clone(),
        original_name: Some(format!("{name}.jpg")),
        original_key: format!("media/{sha}/original"),
        preview_key: format!("media/{sha}/preview"),
        preview_mime: "image/jpeg".to_owned(),
        thumbnail_key: format!("media/{sha}/thumbnail"),
        thumbnail_mime: "image/jpeg".to_owned(),
        gps_latitude: None,
        gps_longitude: None,
        created_at: at,
    }
}

/// A creative; returns `(id, media id)`.
pub async fn creative(
    db: &Db,
    owner: &str,
    name: &str,
    brand: Option<&str>,
    campaign: Option<&str>,
    at: i64,
) -> Result<(String, String), DbError> {
    let m = media(db, owner, "upload", name, at).await?;
    let row = db::creatives::CreativeRow {
        id: id(),
        owner_id: owner.to_owned(),
        media_id: m.id.clone(),
        name: name.to_owned(),
        brand: brand.map(str::to_owned),
        campaign: campaign.map(str::to_owned),
        notes: None,
        created_at: at,
        updated_at: at,
    };
    db::creatives::insert(db, &row).await?;
    Ok((row.id, m.id))
}

/// A location with a photo and a panel quad; returns its id.
pub async fn location(
    db: &Db,
    owner: &str,
    name: &str,
    city: &str,
    format: &str,
    illumination: &str,
    at: i64,
) -> Result<String, DbError> {
    let photo = media(db, owner, "upload", name, at).await?;
    let row = LocationRow {
        id: id(),
        owner_id: owner.to_owned(),
        name: name.to_owned(),
        address: Some(format!("1 rue {name}")),
        city: Some(city.to_owned()),
        postal_code: None,
        country: Some("France".to_owned()),
        format: format.to_owned(),
        panel_width_cm: Some(400),
        panel_height_cm: Some(300),
        illumination: illumination.to_owned(),
        photo_media_id: Some(photo.id),
        panel_quad: Some(
            r#"[{"x":0.3,"y":0.3},{"x":0.6,"y":0.3},{"x":0.6,"y":0.55},{"x":0.3,"y":0.55}]"#
                .to_owned(),
        ),
        created_at: at,
        updated_at: at,
        ..LocationRow::default()
    };
    db::locations::insert(db, &row).await?;
    Ok(row.id)
}

/// How a seeded heatmap image ends.
#[derive(Debug, Clone, Copy)]
pub enum Outcome {
    Queued,
    Processing,
    Done(f64),
    /// Done, with the panel's `(share, area_share)`.
    DonePanel(f64, f64, f64),
    Failed,
}

/// A heatmap over `sources` (media ids), each ending as given; returns its id.
pub async fn heatmap(
    db: &Db,
    owner: &str,
    name: &str,
    sources: &[(&str, Outcome)],
    at: i64,
) -> Result<String, DbError> {
    let row = HeatmapRow {
        id: id(),
        owner_id: owner.to_owned(),
        name: name.to_owned(),
        created_at: at,
        updated_at: at,
    };
    let items: Vec<NewItem> = sources
        .iter()
        .map(|(media_id, outcome)| NewItem {
            id: id(),
            source_media_id: (*media_id).to_owned(),
            job_id: id(),
            aoi: matches!(outcome, Outcome::DonePanel(..)).then(|| {
                r#"[{"x":0.3,"y":0.3},{"x":0.6,"y":0.3},{"x":0.6,"y":0.55},{"x":0.3,"y":0.55}]"#
                    .to_owned()
            }),
        })
        .collect();
    heatmaps::create(db, &row, &items, 5).await?;
    for (item, (_, outcome)) in items.iter().zip(sources) {
        if matches!(outcome, Outcome::Queued) {
            continue;
        }
        heatmaps::start_item(db, &item.id, 1, at).await?;
        let (score, panel) = match *outcome {
            Outcome::Done(score) => (score, None),
            Outcome::DonePanel(score, share, area) => (
                score,
                Some({
                    // The first glance is more concentrated than three seconds of viewing.
                    let glance = (share * 1.5).min(1.0);
                    serde_json::json!({
                        "share": share, "area_share": area, "visibility": share / area,
                        "glance_share": glance,
                        "first_second_probability":
                            regard_vision::analysis::first_glance_probability(glance),
                    })
                    .to_string()
                }),
            ),
            Outcome::Failed => {
                heatmaps::fail_item(db, &item.id, "invalid_image", "seeded failure", at).await?;
                continue;
            }
            Outcome::Queued | Outcome::Processing => continue,
        };
        // A well-formed result (the assistant reads the score; the rest is a flat map).
        let result = serde_json::json!({
            "score": score, "focus": score, "clarity": score, "top10_share": 0.3,
            "entropy": 0.8, "hotspots": [], "faces": [], "texts": [],
            "grid": {"width": 1, "height": 1, "values": [65535]},
            "width": 1600, "height": 1200, "model": "v3", "glance": null,
        })
        .to_string();
        let outputs = [
            media_row(owner, "heatmap", "map", at),
            media_row(owner, "heatmap", "overlay", at),
            media_row(owner, "heatmap", "fog", at),
            media_row(owner, "heatmap", "glance-map", at),
            media_row(owner, "heatmap", "glance-overlay", at),
            media_row(owner, "heatmap", "glance-fog", at),
        ];
        heatmaps::complete_item(
            db,
            &item.id,
            &ItemOutputs {
                result: &result,
                score,
                panel: panel.as_deref(),
                map: &outputs[0],
                overlay: &outputs[1],
                fog: &outputs[2],
                glance_map: &outputs[3],
                glance_overlay: &outputs[4],
                glance_fog: &outputs[5],
            },
            at,
        )
        .await?;
    }
    Ok(row.id)
}

/// A simulation; a `done` one gets a render, and with `attention` an analysed render
/// `(score, panel share, panel area share)`. Returns its id.
#[allow(clippy::too_many_arguments)]
pub async fn simulation(
    db: &Db,
    owner: &str,
    name: &str,
    creative_id: &str,
    location_id: &str,
    status: &str,
    night: Option<&str>,
    attention: Option<(f64, f64, f64)>,
    at: i64,
) -> Result<String, DbError> {
    let output = if status == "done" {
        Some(media(db, owner, "render", name, at).await?)
    } else {
        None
    };
    let adjustments = match night {
        Some(mode) => serde_json::json!({ "night": mode }).to_string(),
        None => "{}".to_owned(),
    };
    let row = SimulationRow {
        id: id(),
        owner_id: owner.to_owned(),
        name: name.to_owned(),
        creative_id: creative_id.to_owned(),
        location_id: location_id.to_owned(),
        quad: None,
        fit: "cover".to_owned(),
        background: "#000000".to_owned(),
        adjustments,
        status: status.to_owned(),
        output_media_id: output.as_ref().map(|m| m.id.clone()),
        rendered_at: output.as_ref().map(|_| at),
        created_at: at,
        updated_at: at,
        ..SimulationRow::default()
    };
    db::simulations::create(
        db,
        &[NewSimulation {
            row: row.clone(),
            job_id: None,
        }],
        5,
    )
    .await?;
    if let (Some(output), Some((score, share, area))) = (output, attention) {
        heatmap(
            db,
            owner,
            name,
            &[(&output.id, Outcome::DonePanel(score, share, area))],
            at + 60_000,
        )
        .await?;
    }
    Ok(row.id)
}

/// The demo account of the question set (`crates/server/assistant/questions.json`); every
/// figure its answers must contain is here.
pub async fn seed_demo(db: &Db, owner: &str) -> Result<(), DbError> {
    let t = |hours: i64| BASE_MS + hours * HOUR_MS;
    let (moka_ete, moka_ete_m) = creative(
        db,
        owner,
        "Café Moka Été",
        Some("Moka"),
        Some("Été 2026"),
        t(0),
    )
    .await?;
    let (moka_intense, moka_intense_m) = creative(
        db,
        owner,
        "Moka Intense",
        Some("Moka"),
        Some("Lancement"),
        t(1),
    )
    .await?;
    let (_, moka_deca_m) =
        creative(db, owner, "Moka Déca", Some("Moka"), Some("Été 2026"), t(2)).await?;
    let (summer, summer_m) = creative(
        db,
        owner,
        "Summer Sale",
        Some("Nordwind"),
        Some("Summer 2026"),
        t(3),
    )
    .await?;
    let (winter, winter_m) = creative(
        db,
        owner,
        "Winter Promo",
        Some("Nordwind"),
        Some("Winter 2026"),
        t(4),
    )
    .await?;
    let (bio, bio_m) = creative(
        db,
        owner,
        "Bio Fraîcheur",
        Some("Verdure"),
        Some("Printemps"),
        t(5),
    )
    .await?;
    let (pain, pain_m) = creative(
        db,
        owner,
        "Pain d'épices",
        Some("Maison Lenoir"),
        None,
        t(6),
    )
    .await?;
    let (citadine, citadine_m) = creative(
        db,
        owner,
        "Citadine électrique",
        Some("Voltis"),
        Some("Ville propre"),
        t(7),
    )
    .await?;

    let part_dieu = location(
        db,
        owner,
        "Lyon Part-Dieu",
        "Lyon",
        "billboard_4x3",
        "back",
        t(8),
    )
    .await?;
    let bellecour = location(db, owner, "Bellecour", "Lyon", "bus_shelter", "back", t(9)).await?;
    let confluence = location(
        db,
        owner,
        "Confluence",
        "Lyon",
        "digital_screen",
        "digital",
        t(10),
    )
    .await?;
    let republique = location(
        db,
        owner,
        "République",
        "Paris",
        "billboard_4x3",
        "front",
        t(11),
    )
    .await?;
    let bastille = location(db, owner, "Bastille", "Paris", "mupi_2m2", "back", t(12)).await?;
    let opera = location(db, owner, "Opéra", "Paris", "bus_shelter", "back", t(13)).await?;
    let evry = location(
        db,
        owner,
        "Évry Centre",
        "Évry",
        "billboard_4x3",
        "none",
        t(14),
    )
    .await?;
    location(
        db,
        owner,
        "Quai des Chartrons",
        "Bordeaux",
        "shop_window",
        "none",
        t(15),
    )
    .await?;

    heatmap(
        db,
        owner,
        "Tests Moka",
        &[
            (&moka_ete_m, Outcome::Done(78.4)),
            (&moka_intense_m, Outcome::Done(61.2)),
            (&moka_deca_m, Outcome::Done(55.0)),
        ],
        t(16),
    )
    .await?;
    heatmap(
        db,
        owner,
        "Soldes comparatif",
        &[
            (&summer_m, Outcome::Done(82.6)),
            (&winter_m, Outcome::Done(47.9)),
        ],
        t(17),
    )
    .await?;

    simulation(
        db,
        owner,
        "Summer Sale à Part-Dieu",
        &summer,
        &part_dieu,
        "done",
        None,
        Some((72.0, 0.231, 0.061)),
        t(18),
    )
    .await?;
    simulation(
        db,
        owner,
        "Moka Intense à Bellecour",
        &moka_intense,
        &bellecour,
        "done",
        None,
        Some((66.0, 0.124, 0.052)),
        t(19),
    )
    .await?;
    simulation(
        db,
        owner,
        "Winter Promo à République",
        &winter,
        &republique,
        "done",
        None,
        Some((58.0, 0.087, 0.049)),
        t(20),
    )
    .await?;
    simulation(
        db,
        owner,
        "Moka de nuit à Confluence",
        &moka_ete,
        &confluence,
        "done",
        Some("led"),
        Some((75.0, 0.312, 0.070)),
        t(21),
    )
    .await?;
    simulation(
        db,
        owner,
        "Bio Fraîcheur à Opéra",
        &bio,
        &opera,
        "rendering",
        None,
        None,
        t(22),
    )
    .await?;
    simulation(
        db,
        owner,
        "Citadine à Évry",
        &citadine,
        &evry,
        "failed",
        None,
        None,
        t(23),
    )
    .await?;
    simulation(
        db,
        owner,
        "Pain d'épices à Bastille",
        &pain,
        &bastille,
        "draft",
        None,
        None,
        t(24),
    )
    .await?;

    heatmap(
        db,
        owner,
        "Campagne printemps",
        &[
            (&bio_m, Outcome::Done(69.5)),
            (&pain_m, Outcome::Processing),
        ],
        t(25),
    )
    .await?;
    heatmap(
        db,
        owner,
        "Essai citadine",
        &[(&citadine_m, Outcome::Failed)],
        t(26),
    )
    .await?;
    heatmap(
        db,
        owner,
        "Essai nocturne",
        &[(&moka_ete_m, Outcome::Queued)],
        t(27),
    )
    .await?;
    Ok(())
}

/// A large account for the benchmark: `creatives` creatives over 20 brands, `locations`
/// locations over 30 cities, a simulation with an analysed render for one pair in ten, and a
/// heatmap per 10 creatives.
pub async fn seed_bulk(
    db: &Db,
    owner: &str,
    creatives: usize,
    locations: usize,
) -> Result<(), DbError> {
    const CITIES: [&str; 30] = [
        "Paris",
        "Lyon",
        "Marseille",
        "Toulouse",
        "Nice",
        "Nantes",
        "Strasbourg",
        "Montpellier",
        "Bordeaux",
        "Lille",
        "Rennes",
        "Reims",
        "Toulon",
        "Grenoble",
        "Dijon",
        "Angers",
        "Nîmes",
        "Villeurbanne",
        "Clermont-Ferrand",
        "Le Mans",
        "Aix-en-Provence",
        "Brest",
        "Tours",
        "Amiens",
        "Limoges",
        "Annecy",
        "Perpignan",
        "Metz",
        "Besançon",
        "Orléans",
    ];
    // The formats the question set was written against (the API accepts more since).
    let formats = [
        "billboard_4x3",
        "bus_shelter",
        "mupi_2m2",
        "digital_screen",
        "shop_window",
    ];
    let mut creative_ids = Vec::with_capacity(creatives);
    let mut media_ids = Vec::with_capacity(creatives);
    for i in 0..creatives {
        let brand = format!("Marque {}", i % 20);
        let campaign = format!("Campagne {}", i % 50);
        let (id, media) = creative(
            db,
            owner,
            &format!(
                "Visuel {i:04} {}",
                ["été", "hiver", "printemps", "automne"][i % 4]
            ),
            Some(&brand),
            Some(&campaign),
            BASE_MS + i as i64 * 1000,
        )
        .await?;
        creative_ids.push(id);
        media_ids.push(media);
    }
    let mut location_ids = Vec::with_capacity(locations);
    for i in 0..locations {
        let city = CITIES[i % CITIES.len()];
        location_ids.push(
            location(
                db,
                owner,
                &format!("Site {i:04} {city}"),
                city,
                formats[i % formats.len()],
                "back",
                BASE_MS + (creatives + i) as i64 * 1000,
            )
            .await?,
        );
    }
    let base = BASE_MS + (creatives + locations) as i64 * 1000;
    for (n, chunk) in media_ids.chunks(10).enumerate() {
        let sources: Vec<(&str, Outcome)> = chunk
            .iter()
            .enumerate()
            .map(|(j, m)| {
                (
                    m.as_str(),
                    Outcome::Done(30.0 + ((n * 7 + j * 13) % 60) as f64),
                )
            })
            .collect();
        heatmap(
            db,
            owner,
            &format!("Série {n:03}"),
            &sources,
            base + n as i64 * 1000,
        )
        .await?;
    }
    let pairs = creatives.min(locations) / 10;
    for i in 0..pairs {
        let share = 0.05 + (i % 17) as f64 / 100.0;
        simulation(
            db,
            owner,
            &format!("Simulation {i:03}"),
            &creative_ids[i * 10],
            &location_ids[i * 10],
            "done",
            None,
            Some((50.0 + (i % 40) as f64, share, 0.06)),
            base + (1000 + i) as i64 * 1000,
        )
        .await?;
    }
    Ok(())
}
