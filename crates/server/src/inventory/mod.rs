//! Inventory files: a spreadsheet of locations (CSV or XLSX) read into typed rows, one per
//! location, for `POST /api/v1/locations/import` (docs/architecture/api.md, Import). No I/O:
//! the handler gives the file's bytes and turns each row into the body `POST /locations`
//! takes, so a row is checked by exactly the same rules.
//!
//! - [`table`]: bytes → rows of cells, with the row numbers a spreadsheet shows (the header is
//!   row 1 in a file that starts with it);
//! - [`ImportColumn`]: which column a header names, in French or English, ignoring case, accents,
//!   surrounding spaces, and `-` or spaces for `_`;
//! - [`cells`]: numbers with a decimal comma, distance ranges, formats and audiences by name.

pub mod cells;
pub mod table;

use cells::Distance;
pub use table::TableError;
use table::{Raw, TableRow};

use crate::ooh::{Audience, PanelFormat};

/// Most data rows in one file (the header aside): a large network's inventory, imported
/// within seconds in one transaction.
pub const MAX_ROWS: usize = 5_000;

/// Largest file (CSV or XLSX) accepted, in bytes: 5,000 rows of every column take about
/// 1 MB of CSV.
pub const MAX_FILE_BYTES: u64 = 10 << 20;

wire_enum! {
    /// A column of an inventory file, by its English name (what import errors call `field`).
    /// Headers may also be French (`nom`, `adresse`, `ville`, `code_postal`, `pays`,
    /// `largeur_m`, `hauteur_m`, `vitesse_kmh`, `contacts_jour`, `source_audience`), in any case, with accents, `-` or spaces for
    /// `_`.
    pub enum ImportColumn {
        /// The location's name (required).
        Name = "name";
        Address = "address";
        City = "city";
        /// The postal code (`postal_code` of a location).
        Postcode = "postcode";
        Country = "country";
        Latitude = "latitude";
        Longitude = "longitude";
        /// A panel format, by wire value or label.
        Format = "format";
        /// The panel's width in metres (`panel_width_cm` of a location).
        WidthM = "width_m";
        /// The panel's height in metres (`panel_height_cm` of a location).
        HeightM = "height_m";
        /// `pedestrian` or `road`.
        Audience = "audience";
        /// The farthest viewing distance in metres, or a range `min-max`.
        DistanceM = "distance_m";
        SpeedKmh = "speed_kmh";
        /// Contacts a day (a whole number, grouped as planners write it).
        DailyContacts = "daily_contacts";
        /// Where the contacts come from ("Affimétrie 2026", "Route", "comptage").
        AudienceSource = "audience_source";
        /// The file name of the location's photo in the ZIP archive sent with the file.
        Photo = "photo";
        Notes = "notes";
    }
}

impl ImportColumn {
    /// The other names a header may give the column (French, and the API's own name).
    fn aliases(self) -> &'static [&'static str] {
        match self {
            ImportColumn::Name => &["nom"],
            ImportColumn::Address => &["adresse"],
            ImportColumn::City => &["ville"],
            ImportColumn::Postcode => &["code_postal", "postal_code"],
            ImportColumn::Country => &["pays"],
            ImportColumn::WidthM => &["largeur_m"],
            ImportColumn::HeightM => &["hauteur_m"],
            ImportColumn::SpeedKmh => &["vitesse_kmh"],
            ImportColumn::DailyContacts => &["contacts_jour", "contacts_par_jour", "contacts"],
            ImportColumn::AudienceSource => &["source_audience", "source_des_contacts"],
            _ => &[],
        }
    }

    /// The column a header names, if any (see [`header_key`]).
    pub fn from_header(header: &str) -> Option<ImportColumn> {
        let key = header_key(header);
        ImportColumn::ALL
            .iter()
            .copied()
            .find(|column| column.as_str() == key || column.aliases().contains(&key.as_str()))
    }
}

/// A header reduced to what names it: lowercase, without accents or surrounding spaces,
/// spaces and `-` as `_`, brackets, dots and slashes dropped (`Largeur (m)` → `largeur_m`,
/// `Code Postal` → `code_postal`, `Vitesse km/h` → `vitesse_kmh`).
pub fn header_key(header: &str) -> String {
    let mut key = String::with_capacity(header.len());
    for c in crate::db::search::normalize(header).chars() {
        match c {
            ' ' | '-' | '_' => {
                if !key.is_empty() && !key.ends_with('_') {
                    key.push('_');
                }
            }
            '(' | ')' | '[' | ']' | '.' | '/' | '\u{feff}' => {}
            c => key.push(c),
        }
    }
    while key.ends_with('_') {
        key.pop();
    }
    key
}

/// A cell of a typed column: its value, or the text as written when it cannot be read as one
/// (the import then sends that text to the field, which refuses it with the code
/// `POST /locations` gives: `invalid_type` for a number, `invalid_value` for a choice).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<T> {
    Value(T),
    Unreadable(String),
}

/// One location of an inventory file, as typed as its cells allow. Blank cells are `None`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportRow {
    /// The row's number in the spreadsheet (the header is row 1).
    pub row: u32,
    pub name: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub postcode: Option<String>,
    pub country: Option<String>,
    pub latitude: Option<Cell<f64>>,
    pub longitude: Option<Cell<f64>>,
    pub format: Option<Cell<PanelFormat>>,
    pub width_m: Option<Cell<f64>>,
    pub height_m: Option<Cell<f64>>,
    pub audience: Option<Cell<Audience>>,
    pub distance_m: Option<Cell<Distance>>,
    pub speed_kmh: Option<Cell<f64>>,
    pub daily_contacts: Option<Cell<f64>>,
    pub audience_source: Option<String>,
    /// A file name in the photos' archive.
    pub photo: Option<String>,
    pub notes: Option<String>,
}

/// Why a file cannot be imported at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// Nothing in it.
    #[error("the file is empty")]
    Empty,
    /// Not a CSV or XLSX file.
    #[error(transparent)]
    Table(#[from] TableError),
    /// No header names the `name` column.
    #[error("no name column")]
    NoNameColumn,
    /// A header, but no row under it.
    #[error("no rows")]
    NoRows,
}

/// Reads an inventory file: its header, then each row with something in the columns Regard
/// reads (rows with only unknown columns filled are left out), at most [`MAX_ROWS`].
pub fn read(bytes: &[u8]) -> Result<Vec<ImportRow>, FileError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(FileError::Empty);
    }
    let mut table = table::read(bytes, MAX_ROWS)?.into_iter();
    let header = table.next().ok_or(FileError::Empty)?;
    // The first column a header names wins; a second one of the same name is ignored.
    let mut columns: Vec<Option<ImportColumn>> = Vec::with_capacity(header.cells.len());
    for cell in &header.cells {
        let column = cell
            .as_ref()
            .and_then(|raw| ImportColumn::from_header(&raw.text()))
            .filter(|column| !columns.contains(&Some(*column)));
        columns.push(column);
    }
    if !columns.contains(&Some(ImportColumn::Name)) {
        return Err(FileError::NoNameColumn);
    }
    let rows: Vec<ImportRow> = table.filter_map(|row| typed_row(&columns, row)).collect();
    if rows.is_empty() {
        return Err(FileError::NoRows);
    }
    Ok(rows)
}

fn number(raw: Raw, unit: &str) -> Cell<f64> {
    match raw {
        Raw::Number(n) => Cell::Value(n),
        Raw::Text(text) => match cells::number(&text, unit) {
            Some(n) => Cell::Value(n),
            None => Cell::Unreadable(text),
        },
    }
}

fn parsed<T>(raw: Raw, read: impl Fn(&str) -> Option<T>) -> Cell<T> {
    let text = raw.text();
    match read(&text) {
        Some(value) => Cell::Value(value),
        None => Cell::Unreadable(text),
    }
}

/// A row's cells under their columns; `None` when none of them has anything.
fn typed_row(columns: &[Option<ImportColumn>], row: TableRow) -> Option<ImportRow> {
    let mut typed = ImportRow {
        row: row.number,
        ..ImportRow::default()
    };
    let mut filled = false;
    for (column, raw) in columns.iter().zip(row.cells) {
        let (Some(column), Some(raw)) = (column, raw) else {
            continue;
        };
        filled = true;
        match column {
            ImportColumn::Name => typed.name = Some(raw.text()),
            ImportColumn::Address => typed.address = Some(raw.text()),
            ImportColumn::City => typed.city = Some(raw.text()),
            ImportColumn::Postcode => typed.postcode = Some(raw.text()),
            ImportColumn::Country => typed.country = Some(raw.text()),
            ImportColumn::Latitude => typed.latitude = Some(number(raw, "")),
            ImportColumn::Longitude => typed.longitude = Some(number(raw, "")),
            ImportColumn::Format => typed.format = Some(parsed(raw, cells::format)),
            ImportColumn::WidthM => typed.width_m = Some(number(raw, "m")),
            ImportColumn::HeightM => typed.height_m = Some(number(raw, "m")),
            ImportColumn::Audience => typed.audience = Some(parsed(raw, cells::audience)),
            ImportColumn::DistanceM => {
                typed.distance_m = Some(match raw {
                    Raw::Number(max_m) => Cell::Value(Distance { min_m: None, max_m }),
                    Raw::Text(text) => match cells::distance(&text) {
                        Some(distance) => Cell::Value(distance),
                        None => Cell::Unreadable(text),
                    },
                })
            }
            ImportColumn::SpeedKmh => typed.speed_kmh = Some(number(raw, "km/h")),
            ImportColumn::DailyContacts => {
                typed.daily_contacts = Some(match raw {
                    Raw::Number(n) => Cell::Value(n),
                    Raw::Text(text) => match cells::count(&text) {
                        Some(n) => Cell::Value(n),
                        None => Cell::Unreadable(text),
                    },
                })
            }
            ImportColumn::AudienceSource => typed.audience_source = Some(raw.text()),
            ImportColumn::Photo => typed.photo = Some(raw.text()),
            ImportColumn::Notes => typed.notes = Some(raw.text()),
        }
    }
    filled.then_some(typed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_matched_in_either_language_whatever_their_case_and_accents() {
        for (header, expected) in [
            ("name", Some(ImportColumn::Name)),
            ("  Nom ", Some(ImportColumn::Name)),
            ("NAME", Some(ImportColumn::Name)),
            ("Code Postal", Some(ImportColumn::Postcode)),
            ("code-postal", Some(ImportColumn::Postcode)),
            ("postcode", Some(ImportColumn::Postcode)),
            ("postal_code", Some(ImportColumn::Postcode)),
            ("Largeur_m", Some(ImportColumn::WidthM)),
            ("largeur (m)", Some(ImportColumn::WidthM)),
            ("HAUTEUR M", Some(ImportColumn::HeightM)),
            ("width_m", Some(ImportColumn::WidthM)),
            ("VILLE", Some(ImportColumn::City)),
            ("Pays", Some(ImportColumn::Country)),
            ("Vitesse km/h", Some(ImportColumn::SpeedKmh)),
            ("Vitesse_KMH", Some(ImportColumn::SpeedKmh)),
            ("distance_m", Some(ImportColumn::DistanceM)),
            ("Distance (m)", Some(ImportColumn::DistanceM)),
            ("Adresse", Some(ImportColumn::Address)),
            ("\u{feff}name", Some(ImportColumn::Name)),
            ("Latitude", Some(ImportColumn::Latitude)),
            ("Audience", Some(ImportColumn::Audience)),
            ("Photo", Some(ImportColumn::Photo)),
            ("Notes", Some(ImportColumn::Notes)),
            ("Format", Some(ImportColumn::Format)),
            ("Prénom", None),
            ("width", None),
            ("", None),
        ] {
            assert_eq!(ImportColumn::from_header(header), expected, "{header:?}");
        }
        // Accents in a header are ignored as well as case.
        assert_eq!(
            header_key("Électricité  Éclairage"),
            "electricite_eclairage"
        );
    }

    #[test]
    fn a_file_is_read_into_typed_rows() {
        let csv = "Nom;Ville;Code Postal;Largeur_m;Hauteur_m;Format;Audience;distance_m;Photo;Other\n\
                   Gare;Évry;91000;4,5;3;Panneau 4 × 3 m;Automobilistes;10 à 150;gare.jpg;x\n\
                   Mairie;;;abc;;poster;cyclists;far;;\n\
                   ;;;;;;;;;only an unknown column\n";
        let rows = read(csv.as_bytes()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0],
            ImportRow {
                row: 2,
                name: Some("Gare".into()),
                city: Some("Évry".into()),
                postcode: Some("91000".into()),
                width_m: Some(Cell::Value(4.5)),
                height_m: Some(Cell::Value(3.0)),
                format: Some(Cell::Value(PanelFormat::Billboard4x3)),
                audience: Some(Cell::Value(Audience::Road)),
                distance_m: Some(Cell::Value(Distance {
                    min_m: Some(10.0),
                    max_m: 150.0
                })),
                photo: Some("gare.jpg".into()),
                ..ImportRow::default()
            }
        );
        assert_eq!(rows[1].row, 3);
        assert_eq!(rows[1].width_m, Some(Cell::Unreadable("abc".into())));
        assert_eq!(rows[1].format, Some(Cell::Unreadable("poster".into())));
        assert_eq!(rows[1].audience, Some(Cell::Unreadable("cyclists".into())));
        assert_eq!(rows[1].distance_m, Some(Cell::Unreadable("far".into())));
    }

    #[test]
    fn files_that_cannot_be_imported_say_why() {
        assert_eq!(read(b""), Err(FileError::Empty));
        assert_eq!(read(b" \n\n"), Err(FileError::Empty));
        assert_eq!(
            read(b"city,country\nParis,France\n"),
            Err(FileError::NoNameColumn)
        );
        assert_eq!(read(b"name,city\n"), Err(FileError::NoRows));
        assert_eq!(
            read(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Err(FileError::Table(TableError::Unreadable))
        );
        let mut many = String::from("name\n");
        for i in 0..=MAX_ROWS {
            many.push_str(&format!("site {i}\n"));
        }
        assert_eq!(
            read(many.as_bytes()),
            Err(FileError::Table(TableError::TooManyRows))
        );
        // The first of two columns of the same name is read.
        let rows = read(b"name,nom\nfirst,second\n").unwrap();
        assert_eq!(rows[0].name.as_deref(), Some("first"));
    }
}
