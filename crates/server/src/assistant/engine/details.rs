//! Details answers: what the assistant knows of one named item ("Bellecour", "tell me about
//! Winter Promo"): a creative's brand, campaign, date, score and simulations; a location's
//! city, format, size, lighting and simulations; a simulation's or a heatmap's state.

use super::Ctx;
use super::help::help_answer;
use super::shared::{format_single, href, link, reply};
use super::states::{heatmap_status_text, simulation_status_text};
use crate::assistant::data::{Creative, Heatmap, Kind, Location, Simulation};
use crate::assistant::format::{self, quoted};
use crate::assistant::intent::Intent;
use crate::assistant::{Locale, Reply};
use crate::db::DbError;
use crate::ooh::{self, Audience, Conditions};

/// Describes the first item the question names.
pub(super) async fn details(ctx: &Ctx<'_, '_>) -> Result<Reply, DbError> {
    let locale = ctx.locale;
    let Some((kind, i)) = ctx.items().next() else {
        return Ok(help_answer(&ctx.parsed.words.join(" "), locale, false));
    };
    let data = ctx.data;
    let (name, id, text) = match kind {
        Kind::Creative => {
            let c = &data.creatives().await?[i];
            let score = data.scores().await?.get(&c.media_id).map(|s| s.score);
            let sims = data
                .simulations()
                .await?
                .iter()
                .filter(|s| s.creative_id == c.id)
                .count();
            let text = creative_text(c, score, sims, locale);
            (c.name.clone(), c.id.clone(), text)
        }
        Kind::Location => {
            let l = &data.locations().await?[i];
            let sims = data
                .simulations()
                .await?
                .iter()
                .filter(|s| s.location_id == l.id)
                .count();
            (l.name.clone(), l.id.clone(), location_text(l, sims, locale))
        }
        Kind::Simulation => {
            let s = &data.simulations().await?[i];
            (s.name.clone(), s.id.clone(), simulation_text(s, locale))
        }
        Kind::Heatmap => {
            let h = &data.heatmaps().await?[i];
            (h.name.clone(), h.id.clone(), heatmap_text(h, locale))
        }
    };
    reply(Intent::Details, text, vec![link(name, href(kind, &id))])
}

/// "Simulations" with their count, as the end of a creative's or a location's description.
fn simulations(n: usize, locale: Locale) -> String {
    format::count(n, "simulation", "simulations", locale)
}

/// A creative: its brand and campaign, when it was added, its attention `score` and how many
/// simulations (`sims`) use it.
fn creative_text(c: &Creative, score: Option<f64>, sims: usize, locale: Locale) -> String {
    let l = |fr, en| locale.pick(fr, en);
    let mut facts = Vec::new();
    if let Some(b) = &c.brand {
        facts.push(format!("{}{b}", l("marque ", "brand ")));
    }
    if let Some(k) = &c.campaign {
        facts.push(format!("{}{k}", l("campagne ", "campaign ")));
    }
    let mut text = match locale {
        Locale::Fr => format!("{} est une création", quoted(&c.name, locale)),
        Locale::En => format!("{} is a creative", quoted(&c.name, locale)),
    };
    if !facts.is_empty() {
        text.push_str(&format!(" ({})", facts.join(", ")));
    }
    text.push_str(&format!(
        "{}{}",
        l(", ajoutée le ", ", added on "),
        format::date(c.created_at, locale)
    ));
    match score {
        Some(s) => text.push_str(&format!(
            "{}{}",
            l(" ; score d'attention ", "; attention score "),
            format::score(s, locale)
        )),
        None => text.push_str(l(
            " ; pas encore de score d'attention",
            "; no attention score yet",
        )),
    }
    let used = match locale {
        Locale::Fr => format!("{} avec elle", simulations(sims, locale)),
        Locale::En => format!("used in {}", simulations(sims, locale)),
    };
    text.push_str(&format!(", {used}."));
    text
}

/// A location: its city, format, panel size and lighting, how many simulations (`sims`) use
/// it, and what it lacks to be simulated.
fn location_text(l: &Location, sims: usize, locale: Locale) -> String {
    let t = |fr, en| locale.pick(fr, en);
    let mut text = match locale {
        Locale::Fr => format!("{} est un emplacement", quoted(&l.name, locale)),
        Locale::En => format!("{} is a location", quoted(&l.name, locale)),
    };
    if let Some(city) = &l.city {
        text.push_str(&format!("{}{city}", t(" à ", " in ")));
    }
    let mut facts = vec![format_single(&l.format, locale).to_owned()];
    if let (Some(w), Some(h)) = (l.panel_width_cm, l.panel_height_cm) {
        facts.push(format!("{w} × {h} cm"));
    }
    let lit = match l.illumination.as_str() {
        "front" => Some(t("éclairé par l'avant", "front-lit")),
        "back" => Some(t("rétroéclairé", "backlit")),
        "digital" => Some(t("numérique", "digital")),
        _ => None,
    };
    facts.extend(lit.map(str::to_owned));
    text.push_str(&format!(" ({})", facts.join(", ")));
    let used = match locale {
        Locale::Fr => format!("{} sur cet emplacement", simulations(sims, locale)),
        Locale::En => format!("with {}", simulations(sims, locale)),
    };
    text.push_str(&format!(", {used}."));
    text.push_str(&viewing_text(l, locale));
    if l.photo_media_id.is_none() || !l.has_quad {
        text.push_str(t(
            " Placez une photo et les coins du panneau pour y simuler une création.",
            " Add a photo and the panel's corners to simulate a creative there.",
        ));
    }
    text
}

/// Who sees a location, from how far and how fast, and for how long its main text can be read
/// (docs/viewing.md); empty when its audience is unknown.
fn viewing_text(l: &Location, locale: Locale) -> String {
    let Some(audience) = l.audience.as_deref().and_then(Audience::parse) else {
        return String::new();
    };
    let who = match audience {
        Audience::Pedestrian => locale.pick("des piétons", "pedestrians"),
        Audience::Road => locale.pick("des automobilistes", "drivers"),
    };
    let conditions = Conditions {
        audience: Some(audience),
        distance_min_m: l.viewing_distance_min_m,
        distance_max_m: l.viewing_distance_max_m,
        speed_kmh: l.speed_kmh,
    };
    let n = |v: f64| format::number(v, usize::from(v.fract() != 0.0), locale);
    let mut text = match locale {
        Locale::Fr => format!(" Vu par {who}"),
        Locale::En => format!(" Seen by {who}"),
    };
    let (Some(min), Some(max)) = (l.viewing_distance_min_m, l.viewing_distance_max_m) else {
        text.push('.');
        return text;
    };
    let speed = conditions.speed().unwrap_or(audience.default_speed_kmh());
    text.push_str(&match locale {
        Locale::Fr => format!(" de {} à {} m, à {} km/h", n(min), n(max), n(speed)),
        Locale::En => format!(" from {} to {} m, at {} km/h", n(min), n(max), n(speed)),
    });
    let height = l.panel_height_cm.map(ooh::cm_to_mm);
    match height.and_then(|h| conditions.viewing(ooh::reference_letter_mm(h))) {
        Some(v) => {
            let seconds = format::number(v.time_in_view_s, 1, locale);
            text.push_str(&match locale {
                Locale::Fr => format!(
                    " : un titre d'un dixième de sa hauteur s'y lit pendant {seconds}\u{a0}s."
                ),
                Locale::En => {
                    format!(": a headline a tenth of its height can be read for {seconds} s.")
                }
            });
        }
        None => text.push('.'),
    }
    text
}

/// A simulation: the creative and location it shows, and its state.
fn simulation_text(s: &Simulation, locale: Locale) -> String {
    let mut text = match locale {
        Locale::Fr => format!("La simulation {} montre", quoted(&s.name, locale)),
        Locale::En => format!("The simulation {} shows", quoted(&s.name, locale)),
    };
    if let Some(c) = &s.creative_name {
        text.push_str(&format!(" {}", quoted(c, locale)));
    }
    if let Some(l) = &s.location_name {
        text.push_str(&format!(
            "{}{}",
            locale.pick(" sur ", " on "),
            quoted(l, locale)
        ));
    }
    text.push_str(&format!(
        "{}{}.",
        locale.pick(" : ", ": "),
        simulation_status_text(s, locale)
    ));
    text
}

/// A heatmap: its state.
fn heatmap_text(h: &Heatmap, locale: Locale) -> String {
    match locale {
        Locale::Fr => format!(
            "La heatmap {} est {}.",
            quoted(&h.name, locale),
            heatmap_status_text(h, locale)
        ),
        Locale::En => format!(
            "The heatmap {} is {}.",
            quoted(&h.name, locale),
            heatmap_status_text(h, locale)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::samples;
    use super::*;
    use Locale::{En, Fr};

    #[test]
    fn creatives_give_their_brand_date_score_and_use() {
        let c = samples::creative();
        assert_eq!(
            creative_text(&c, Some(71.6), 2, En),
            "“Moka Intense” is a creative (brand Moka, campaign Lancement), added on 12 March 2026; attention score 72/100, used in 2 simulations."
        );
        assert_eq!(
            creative_text(&c, None, 0, Fr),
            "«\u{a0}Moka Intense\u{a0}» est une création (marque Moka, campagne Lancement), ajoutée le 12 mars 2026 ; pas encore de score d'attention, 0 simulation avec elle."
        );
        // No brand nor campaign: no brackets.
        let bare = Creative {
            brand: None,
            campaign: None,
            ..samples::creative()
        };
        assert_eq!(
            creative_text(&bare, None, 1, En),
            "“Moka Intense” is a creative, added on 12 March 2026; no attention score yet, used in 1 simulation."
        );
    }

    #[test]
    fn locations_give_their_panel_and_what_they_lack() {
        let l = samples::location();
        assert_eq!(
            location_text(&l, 3, Fr),
            "«\u{a0}Bellecour\u{a0}» est un emplacement à Lyon (abribus, 120 × 176 cm, rétroéclairé), 3 simulations sur cet emplacement. Vu par des piétons de 2 à 20 m, à 5 km/h : un titre d'un dixième de sa hauteur s'y lit pendant 13,5\u{a0}s."
        );
        // 176 mm legible from 60.5 m: the whole 20 m range, passed 2 m away, at 5 km/h
        // (1.39 m/s): 19.9 m before the nearest point to 1.15 m before it, 13.5 s.
        assert_eq!(
            location_text(&l, 1, En),
            "“Bellecour” is a location in Lyon (bus shelter, 120 × 176 cm, backlit), with 1 simulation. Seen by pedestrians from 2 to 20 m, at 5 km/h: a headline a tenth of its height can be read for 13.5 s."
        );
        let drivers = Location {
            audience: Some("road".into()),
            viewing_distance_min_m: Some(10.0),
            viewing_distance_max_m: Some(150.0),
            speed_kmh: Some(70.0),
            panel_height_cm: Some(300),
            ..samples::location()
        };
        // 300 mm legible from 103.1 m, passed 10 m away: 96.9 m at 70 km/h (19.4 m/s), 5.0 s
        // (said as 5 s).
        assert!(
            location_text(&drivers, 1, En)
                .ends_with("Seen by drivers from 10 to 150 m, at 70 km/h: a headline a tenth of its height can be read for 5 s."),
            "{}",
            location_text(&drivers, 1, En)
        );
        // Without its panel's corners, a location cannot be simulated yet; an unknown lighting
        // and a missing size are left out.
        let unfinished = Location {
            city: None,
            format: "billboard_4x3".into(),
            illumination: "none".into(),
            panel_width_cm: Some(400),
            panel_height_cm: None,
            has_quad: false,
            audience: None,
            ..samples::location()
        };
        assert_eq!(
            location_text(&unfinished, 0, En),
            "“Bellecour” is a location (4 × 3 billboard), with 0 simulations. Add a photo and the panel's corners to simulate a creative there."
        );
    }

    #[test]
    fn simulations_and_heatmaps_give_their_state() {
        let s = samples::simulation("queued", None);
        assert_eq!(
            simulation_text(&s, En),
            "The simulation “Summer Sale à Part-Dieu” shows “Summer Sale” on “Part-Dieu”: waiting to render."
        );
        let alone = Simulation {
            creative_name: None,
            location_name: None,
            ..samples::simulation("draft", None)
        };
        assert_eq!(
            simulation_text(&alone, Fr),
            "La simulation «\u{a0}Summer Sale à Part-Dieu\u{a0}» montre : brouillon, pas encore rendue."
        );
        let h = samples::heatmap("queued", 2, 0, 0);
        assert_eq!(
            heatmap_text(&h, Fr),
            "La heatmap «\u{a0}Printemps\u{a0}» est en attente, 2 images à analyser."
        );
    }
}
