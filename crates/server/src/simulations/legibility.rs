//! Legibility of a creative's texts on a location's panel (docs/viewing.md): the lines of text
//! found in the creative (once, from its preview variant, kept in `media_text_lines`), their
//! letter height on the panel through the simulation's fit, and from how far and for how long
//! each can be read under the location's viewing conditions.

use serde::{Deserialize, Serialize};

use crate::db::{self, Db, media::MediaRow};
use crate::ooh::{self, Conditions, Fit, Reading};
use crate::storage::{Storage, StorageKey};

/// The version of what [`regard_vision::text::lines`] finds: lines stored by an older one are
/// found again.
pub const DETECTOR_VERSION: i64 = 1;

/// A line of text of a creative, relative to it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StoredLine {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    /// Letter height relative to the creative's height.
    pub letter_height: f32,
    pub score: f32,
}

/// Why a creative's lines could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LinesError {
    #[error("database: {0}")]
    Db(#[from] db::DbError),
    #[error("storage: {0}")]
    Storage(String),
    #[error("the preview cannot be decoded: {0}")]
    Decode(String),
}

/// The lines of text of an image: the stored ones, or found now in its preview variant and
/// stored.
pub async fn lines_of(
    db: &Db,
    storage: &dyn Storage,
    media: &MediaRow,
) -> Result<Vec<StoredLine>, LinesError> {
    if let Some((json, version)) = db::media::text_lines(db, &media.id).await?
        && version == DETECTOR_VERSION
        && let Ok(lines) = serde_json::from_str(&json)
    {
        return Ok(lines);
    }
    let key =
        StorageKey::new(&media.preview_key).map_err(|e| LinesError::Storage(e.to_string()))?;
    let bytes = storage
        .get_bytes(&key)
        .await
        .map_err(|e| LinesError::Storage(e.to_string()))?;
    let lines = tokio::task::spawn_blocking(move || find_lines(&bytes))
        .await
        .map_err(|e| LinesError::Decode(e.to_string()))??;
    let json = serde_json::to_string(&lines).expect("lines serialise");
    if let Err(err) = db::media::save_text_lines(db, &media.id, &json, DETECTOR_VERSION).await {
        // The image may have been deleted meanwhile; the lines are still the answer.
        tracing::warn!(media_id = %media.id, error = %err, "could not keep the lines of text");
    }
    Ok(lines)
}

/// Decodes an encoded image and finds its lines of text.
fn find_lines(encoded: &[u8]) -> Result<Vec<StoredLine>, LinesError> {
    let image = image::load_from_memory(encoded)
        .map_err(|e| LinesError::Decode(e.to_string()))?
        .into_rgb8();
    let (w, h) = (image.width() as usize, image.height() as usize);
    let rgb = regard_vision::RgbImage::new(w, h, image.as_raw())
        .map_err(|e| LinesError::Decode(e.to_string()))?;
    Ok(regard_vision::text::lines(&rgb)
        .into_iter()
        .map(|line| StoredLine {
            x: line.rect.x,
            y: line.rect.y,
            width: line.rect.width,
            height: line.rect.height,
            letter_height: line.letter_height,
            score: line.score,
        })
        .collect())
}

/// One text of a creative on a panel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextOnPanel {
    pub line: StoredLine,
    /// Letter height on the panel, in millimetres.
    pub letter_mm: f64,
    /// The farthest distance from which it can be read, in metres.
    pub legible_m: f64,
    /// How much of it the panel shows (the fit may crop it), 0..1.
    pub shown: f64,
    /// Over which part of the approach it can be read (with a distance range).
    pub reading: Option<Reading>,
    /// The letter height it would need to be read from the farthest viewing distance.
    pub needed_mm: Option<f64>,
}

/// A creative's texts on a panel, and the main text's time in view.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// Largest letters first.
    pub texts: Vec<TextOnPanel>,
    /// The main text (the largest shown at least half) and its legibility, when the viewing
    /// conditions give a distance range and a speed.
    pub viewing: Option<ooh::Viewing>,
}

/// What `lines` of a creative of `creative_px` pixels become on a panel of `panel_mm`
/// millimetres with `fit`, seen under `conditions`.
pub fn assess(
    lines: &[StoredLine],
    creative_px: (f64, f64),
    panel_mm: (f64, f64),
    fit: Fit,
    conditions: &Conditions,
) -> Assessment {
    let placement = ooh::placement(creative_px, panel_mm, fit);
    let range = conditions.distance_min_m.zip(conditions.distance_max_m);
    let mut texts: Vec<TextOnPanel> = lines
        .iter()
        .map(|&line| {
            let letter_mm = f64::from(line.letter_height) * creative_px.1 * placement.mm_per_px.1;
            let legible_m = ooh::legible_distance_m(letter_mm);
            let b = [line.x, line.y, line.x + line.width, line.y + line.height].map(f64::from);
            TextOnPanel {
                line,
                letter_mm,
                legible_m,
                shown: placement.shown(b),
                reading: range.map(|(min, max)| ooh::reading(legible_m, min, max)),
                needed_mm: range.map(|(_, max)| ooh::required_letter_mm(max)),
            }
        })
        .collect();
    texts.sort_by(|a, b| b.letter_mm.total_cmp(&a.letter_mm));
    let viewing = texts
        .iter()
        .find(|t| t.shown >= 0.5)
        .and_then(|main| conditions.viewing(main.letter_mm));
    Assessment { texts, viewing }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ooh::Audience;

    fn line(y: f32, letter_height: f32, x: f32, width: f32) -> StoredLine {
        StoredLine {
            x,
            y,
            width,
            height: letter_height * 1.2,
            letter_height,
            score: 0.5,
        }
    }

    #[test]
    fn a_legal_line_on_a_mupi_from_the_pavement() {
        // A 1080 × 1920 creative on a MUPI (1200 × 1760 mm), stretched: a headline 96 px high
        // (1/20 of the height: 88 mm), a legal line 16 px (14.7 mm).
        let lines = [
            line(0.1, 96.0 / 1920.0, 0.1, 0.8),
            line(0.95, 16.0 / 1920.0, 0.1, 0.8),
        ];
        let conditions = Conditions {
            audience: Some(Audience::Pedestrian),
            distance_min_m: Some(3.0),
            distance_max_m: Some(13.0),
            speed_kmh: None,
        };
        let a = assess(
            &lines,
            (1080.0, 1920.0),
            (1200.0, 1760.0),
            Fit::Stretch,
            &conditions,
        );
        let (headline, legal) = (&a.texts[0], &a.texts[1]);
        assert!((headline.letter_mm - 88.0).abs() < 1e-3);
        assert!((legal.letter_mm - 14.6667).abs() < 1e-3);
        // 88 mm reads from 30.3 m: the whole approach. 14.7 mm from 5.0 m: part of it.
        assert_eq!(headline.reading, Some(Reading::Whole));
        assert_eq!(legal.reading, Some(Reading::Part));
        assert!((legal.legible_m - 14.6667 / 2.9089).abs() < 1e-3);
        // From 13 m a text needs 37.8 mm.
        assert!((legal.needed_mm.unwrap() - 37.816).abs() < 1e-2);
        // The main text is the headline, read over the whole 13 m range, passed 3 m away:
        // from 12.65 m before the nearest point to 1.73 m before it (the 60° cone), at 5 km/h.
        let v = a.viewing.unwrap();
        let window = (13f64.powi(2) - 9.0).sqrt() - 3.0 / 3f64.sqrt();
        assert!((v.time_in_view_s - window / (5.0 / 3.6)).abs() < 1e-9);
        assert!((v.time_in_view_s - 7.86).abs() < 0.01);
    }

    #[test]
    fn a_cropped_headline_is_not_the_main_text() {
        // A 16:9 creative covering a 4:3 panel: a line in the left eighth is cut off.
        let lines = [line(0.1, 0.1, 0.0, 0.1), line(0.5, 0.05, 0.3, 0.4)];
        let a = assess(
            &lines,
            (1920.0, 1080.0),
            (4000.0, 3000.0),
            Fit::Cover,
            &Conditions {
                audience: Some(Audience::Road),
                distance_min_m: Some(20.0),
                distance_max_m: Some(120.0),
                speed_kmh: None,
            },
        );
        assert_eq!(a.texts[0].shown, 0.0);
        // The visible line: 5 % of 3000 mm = 150 mm, legible from 51.6 m; passed 20 m away,
        // from 47.5 m before the nearest point to 11.5 m before it: 36 m at 50 km/h.
        let v = a.viewing.unwrap();
        assert!((v.letter_mm - 150.0).abs() < 1e-3);
        let legible = 150.0 / 2.9089;
        let window = (legible * legible - 400.0_f64).sqrt() - 20.0 / 3f64.sqrt();
        assert!((v.time_in_view_s - window / (50.0 / 3.6)).abs() < 0.01);
    }

    #[test]
    fn without_distances_the_texts_still_have_their_size() {
        let a = assess(
            &[line(0.1, 0.1, 0.1, 0.5)],
            (1000.0, 1000.0),
            (3000.0, 3000.0),
            Fit::Contain,
            &Conditions::default(),
        );
        assert!((a.texts[0].letter_mm - 300.0).abs() < 1e-3);
        assert_eq!(a.texts[0].reading, None);
        assert_eq!(a.viewing, None);
    }
}
