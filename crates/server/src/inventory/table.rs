//! A spreadsheet file as rows of cells, each row with the number a spreadsheet shows it under:
//! CSV (UTF-8 with or without a byte-order mark, UTF-16 with one, else Windows-1252; cells
//! separated by `,`, `;` or a tab, whichever the header line uses most) or the first sheet of
//! an XLSX workbook. Rows with nothing in them are left out (their numbers are not reused).

use std::io::Cursor;

use calamine::{Data, Reader, Xlsx};
use encoding_rs::{UTF_16BE, UTF_16LE, WINDOWS_1252};

use crate::archive::{self, Archive, ArchiveError};

/// A cell as the file holds it; blank cells are `None` in a [`TableRow`].
#[derive(Debug, Clone, PartialEq)]
pub enum Raw {
    /// Text, trimmed, never empty.
    Text(String),
    /// A number cell of a workbook.
    Number(f64),
}

impl Raw {
    /// The cell as text: a whole number without decimals (a postcode typed as a number).
    pub fn text(&self) -> String {
        match self {
            Raw::Text(text) => text.clone(),
            Raw::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
            Raw::Number(n) => n.to_string(),
        }
    }
}

/// One row that has something in it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRow {
    /// The row's number in a spreadsheet (the first line of the file is 1).
    pub number: u32,
    /// The cells by position, from the first column.
    pub cells: Vec<Option<Raw>>,
}

/// Why a file cannot be read as a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// Neither text nor an XLSX workbook (or a broken one).
    #[error("not a CSV or XLSX file")]
    Unreadable,
    /// A workbook that inflates to more than [`WORKBOOK_LIMITS`] allow.
    #[error("the workbook inflates to too much")]
    TooLarge,
    /// More rows than the caller's limit.
    #[error("too many rows")]
    TooManyRows,
}

/// What an XLSX workbook may hold once inflated: far more than 5,000 rows of a few columns
/// need (about 5 MB of sheet XML), far less than would hurt.
pub const WORKBOOK_LIMITS: archive::Limits = archive::Limits {
    max_entries: 10_000,
    max_total: 64 << 20,
    max_ratio: None,
};

/// Reads a CSV or XLSX file (told apart by their first bytes): the first row that has
/// something in it (the header), then at most `max_rows` more.
pub fn read(bytes: &[u8], max_rows: usize) -> Result<Vec<TableRow>, TableError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        read_xlsx(bytes, max_rows)
    } else {
        read_csv(&decode(bytes)?, max_rows)
    }
}

/// The text of a CSV file: UTF-8 (a byte-order mark dropped), UTF-16 when a byte-order mark
/// says so, else Windows-1252, which gives a character to every byte (what Excel writes on a
/// French or English Windows). A NUL character left means a binary file.
pub fn decode(bytes: &[u8]) -> Result<String, TableError> {
    let text = if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        String::from_utf8(rest.to_vec()).map_err(|_| TableError::Unreadable)?
    } else if bytes.starts_with(b"\xFF\xFE") {
        UTF_16LE.decode_with_bom_removal(bytes).0.into_owned()
    } else if bytes.starts_with(b"\xFE\xFF") {
        UTF_16BE.decode_with_bom_removal(bytes).0.into_owned()
    } else {
        match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => WINDOWS_1252
                .decode_without_bom_handling(bytes)
                .0
                .into_owned(),
        }
    };
    if text.contains('\0') {
        return Err(TableError::Unreadable);
    }
    Ok(text)
}

/// The separator the header line (the first line with something on it) uses most, outside
/// quotes: `;` (French Excel), `,` or a tab; `,` when it has none.
pub fn separator(text: &str) -> u8 {
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    let mut started = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '\n' | '\r' if !quoted && started => break,
            c if !quoted => {
                started |= !c.is_whitespace();
                for (separator, count) in &mut counts {
                    if c == char::from(*separator) {
                        *count += 1;
                    }
                }
            }
            _ => {}
        }
    }
    // The first of the most used; `max_by_key` would keep the last of equals.
    let best = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
    counts
        .iter()
        .find(|(_, n)| *n == best && best > 0)
        .map_or(b',', |(separator, _)| *separator)
}

fn cell(text: &str) -> Option<Raw> {
    let text = text.trim();
    (!text.is_empty()).then(|| Raw::Text(text.to_owned()))
}

fn read_csv(text: &str, max_rows: usize) -> Result<Vec<TableRow>, TableError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(separator(text))
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    let mut rows = Vec::new();
    // A record's row is the line it starts on, less the line breaks inside quoted cells
    // before it: a spreadsheet shows a record as one row, however many lines its cells take.
    let (mut scanned, mut breaks, mut inner_breaks) = (0usize, 0u64, 0u64);
    while reader
        .read_record(&mut record)
        .map_err(|_| TableError::Unreadable)?
    {
        let start = record
            .position()
            .map_or(0, |p| usize::try_from(p.byte()).unwrap_or(usize::MAX))
            .min(text.len());
        // The reader skips empty lines but starts the next record's position before them.
        let start = start
            + text.as_bytes()[start..]
                .iter()
                .take_while(|b| matches!(b, b'\r' | b'\n'))
                .count();
        breaks += line_breaks(text.as_bytes().get(scanned..start).unwrap_or_default());
        scanned = start.max(scanned);
        let number = u32::try_from(breaks + 1 - inner_breaks.min(breaks)).unwrap_or(u32::MAX);
        inner_breaks += record
            .iter()
            .map(|field| line_breaks(field.as_bytes()))
            .sum::<u64>();
        let cells: Vec<Option<Raw>> = record.iter().map(cell).collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        if rows.len() > max_rows {
            return Err(TableError::TooManyRows);
        }
        rows.push(TableRow { number, cells });
    }
    Ok(rows)
}

/// Line breaks in `bytes`: `\n`, `\r\n` and a lone `\r` each count once, as the CSV reader
/// ends records on any of them.
fn line_breaks(bytes: &[u8]) -> u64 {
    let mut count = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
            count += 1;
        }
    }
    count
}

fn read_xlsx(bytes: &[u8], max_rows: usize) -> Result<Vec<TableRow>, TableError> {
    // The workbook is a ZIP: checked whole, as any archive a user sends, before the reader
    // inflates its sheets.
    let refused = |err| match err {
        ArchiveError::Unreadable => TableError::Unreadable,
        ArchiveError::TooManyEntries | ArchiveError::TooLarge => TableError::TooLarge,
    };
    Archive::open(Cursor::new(bytes), &WORKBOOK_LIMITS)
        .map_err(refused)?
        .check_all()
        .map_err(refused)?;
    let mut workbook: Xlsx<_> =
        Xlsx::new(Cursor::new(bytes)).map_err(|_| TableError::Unreadable)?;
    let sheet = workbook
        .worksheet_range_at(0)
        .ok_or(TableError::Unreadable)?
        .map_err(|_| TableError::Unreadable)?;
    let Some((top, _)) = sheet.start() else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    for (i, row) in sheet.rows().enumerate() {
        let cells: Vec<Option<Raw>> = row.iter().map(xlsx_cell).collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        if rows.len() > max_rows {
            return Err(TableError::TooManyRows);
        }
        let number = top
            .saturating_add(u32::try_from(i).unwrap_or(u32::MAX))
            .saturating_add(1);
        rows.push(TableRow { number, cells });
    }
    Ok(rows)
}

fn xlsx_cell(data: &Data) -> Option<Raw> {
    match data {
        Data::Empty => None,
        Data::Int(n) => Some(Raw::Number(*n as f64)),
        Data::Float(n) => Some(Raw::Number(*n)),
        Data::String(text) | Data::DateTimeIso(text) | Data::DurationIso(text) => cell(text),
        Data::Bool(value) => Some(Raw::Text(value.to_string())),
        // A date in a column Regard reads is a mistake; its serial number reads as one.
        Data::DateTime(date) => Some(Raw::Number(date.as_f64())),
        Data::Error(error) => Some(Raw::Text(error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[TableRow]) -> Vec<(u32, Vec<String>)> {
        rows.iter()
            .map(|row| {
                let cells = row
                    .cells
                    .iter()
                    .map(|c| c.as_ref().map(Raw::text).unwrap_or_default())
                    .collect();
                (row.number, cells)
            })
            .collect()
    }

    #[test]
    fn the_separator_is_the_one_the_header_uses_most() {
        for (text, expected) in [
            ("name;city\nA;B", b';'),
            ("name,city\nA,B", b','),
            ("name\tcity", b'\t'),
            ("name", b','),
            ("\"a;b\",c\n", b','),
            ("\n\nnom;ville;code postal\n", b';'),
            ("name,notes;x;y", b';'),
        ] {
            assert_eq!(separator(text), expected, "{text:?}");
        }
    }

    #[test]
    fn text_is_utf8_with_or_without_a_bom_else_windows_1252() {
        assert_eq!(decode("Évry".as_bytes()).unwrap(), "Évry");
        assert_eq!(decode(b"\xEF\xBB\xBF\xC3\x89vry").unwrap(), "Évry");
        // "Évry, Besançon – 4 €" as Windows-1252.
        assert_eq!(
            decode(b"\xC9vry, Besan\xE7on \x96 4 \x80").unwrap(),
            "Évry, Besançon – 4 €"
        );
        assert_eq!(decode(b"\xFF\xFEn\0o\0m\0").unwrap(), "nom");
        assert_eq!(
            decode(b"\x89PNG\r\n\x1a\n\0\0"),
            Err(TableError::Unreadable)
        );
    }

    #[test]
    fn rows_keep_the_numbers_a_spreadsheet_shows() {
        let text = "name;notes\nA;one\n\n;\nB;\"two\nlines\"\n\n\nC;three\n";
        let rows = read(text.as_bytes(), 10).unwrap();
        assert_eq!(
            texts(&rows),
            [
                (1, vec!["name".into(), "notes".into()]),
                (2, vec!["A".into(), "one".into()]),
                // Row 3 is empty, row 4 has only blank cells.
                (5, vec!["B".into(), "two\nlines".into()]),
                (8, vec!["C".into(), "three".into()]),
            ]
        );
        let crlf = "name;notes\r\nA;\"x\r\ny\"\r\n\r\nB\r\n";
        assert_eq!(
            texts(&read(crlf.as_bytes(), 10).unwrap()),
            [
                (1, vec!["name".into(), "notes".into()]),
                (2, vec!["A".into(), "x\r\ny".into()]),
                (4, vec!["B".into()])
            ]
        );
    }

    #[test]
    fn rows_past_the_limit_are_refused() {
        let mut text = String::from("name\n");
        for i in 0..5 {
            text.push_str(&format!("site {i}\n"));
        }
        assert_eq!(read(text.as_bytes(), 5).unwrap().len(), 6);
        assert_eq!(read(text.as_bytes(), 4), Err(TableError::TooManyRows));
    }

    #[test]
    fn broken_workbooks_are_unreadable() {
        assert_eq!(read(b"PK\x03\x04broken", 10), Err(TableError::Unreadable));
    }

    #[test]
    fn numbers_read_as_text_without_needless_decimals() {
        assert_eq!(Raw::Number(91000.0).text(), "91000");
        assert_eq!(Raw::Number(4.5).text(), "4.5");
    }
}
