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
    /// A workbook that inflates to more than [`WORKBOOK_LIMITS`] allow, a part other than a
    /// sheet past its own limit, or cells holding more than [`MAX_TEXT_BYTES`] of text.
    #[error("the workbook inflates to too much")]
    TooLarge,
    /// More rows than the caller's limit, or used cells spread over far more rows.
    #[error("too many rows")]
    TooManyRows,
    /// Something in a column past [`MAX_COLUMNS`], or a CSV line with more than
    /// [`MAX_CSV_FIELDS`] cells.
    #[error("too many columns")]
    TooManyColumns,
}

/// What the XML parts of a workbook other than its sheets may inflate to. The reader holds them
/// whole in memory, object by object, from the moment it opens the file (a style per `<xf>`,
/// a string per `<si>`), so each is bounded on its own, far above what a real inventory has
/// (its styles take kilobytes; 5,000 rows of unique texts, a few megabytes of strings).
pub const MAX_PART_BYTES: u64 = 2 << 20;
/// The same for the shared strings (`xl/sharedStrings.xml`).
pub const MAX_SHARED_STRINGS_BYTES: u64 = 16 << 20;
/// The text a workbook's kept cells may hold in all: one shared string may be named by every
/// cell, and each cell keeps its own copy.
pub const MAX_TEXT_BYTES: usize = 32 << 20;

/// The columns a row may use: far more than an inventory has (Regard reads about twenty),
/// few enough that `MAX_ROWS` full rows stay small in memory.
pub const MAX_COLUMNS: u32 = 128;

/// The cells, empty ones included, a CSV line may have: trailing separators are common (a
/// spreadsheet writes one per column of its used range), millions of them are not, and each
/// costs the CSV reader memory before it is looked at.
pub const MAX_CSV_FIELDS: usize = 1024;

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

/// The most cells any line of `text` has, separated by `separator` outside quotes (a quoted
/// cell may span lines, as the CSV reader reads it).
fn widest_record(text: &str, separator: u8) -> usize {
    let (mut widest, mut fields, mut quoted) = (0, 1, false);
    for &b in text.as_bytes() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' | b'\r' if !quoted => {
                widest = widest.max(fields);
                fields = 1;
            }
            b if b == separator && !quoted => fields += 1,
            _ => {}
        }
    }
    widest.max(fields)
}

fn read_csv(text: &str, max_rows: usize) -> Result<Vec<TableRow>, TableError> {
    let separator = separator(text);
    // Before the reader sees a line: it keeps a bound per cell, empty or not.
    if widest_record(text, separator) > MAX_CSV_FIELDS {
        return Err(TableError::TooManyColumns);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(separator)
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
        let mut cells: Vec<Option<Raw>> = record.iter().map(cell).collect();
        if cells.iter().all(Option::is_none) {
            continue;
        }
        // Trailing blank cells are dropped; something past the last column refuses the file.
        let used = cells
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |last| last + 1);
        if used > MAX_COLUMNS as usize {
            return Err(TableError::TooManyColumns);
        }
        cells.truncate(used);
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
    let mut archive = Archive::open(Cursor::new(bytes), &WORKBOOK_LIMITS).map_err(refused)?;
    archive.check_all().map_err(refused)?;
    for (path, size) in archive.files() {
        let name = archive::file_name(path).to_lowercase();
        let limit = if name == "sharedstrings.xml" {
            MAX_SHARED_STRINGS_BYTES
        } else if path.contains("worksheets/")
            || !(name.ends_with(".xml") || name.ends_with(".rels"))
        {
            // A sheet is read cell by cell (below), never held whole; pictures and other
            // binary parts (a photo pasted into the sheet) are never read.
            continue;
        } else {
            MAX_PART_BYTES
        };
        if size > limit {
            return Err(TableError::TooLarge);
        }
    }
    let mut workbook: Xlsx<_> =
        Xlsx::new(Cursor::new(bytes)).map_err(|_| TableError::Unreadable)?;
    let name = workbook
        .sheet_names()
        .first()
        .cloned()
        .ok_or(TableError::Unreadable)?;
    // Cell by cell, never as a range: a range is a dense grid from the first used cell to the
    // last, so one cell at XFD1048576 would ask for 17 billion of them. Each cell is judged
    // on its position before it is kept, and only rows with something in them are kept.
    let mut reader = workbook
        .worksheet_cells_reader(&name)
        .map_err(|_| TableError::Unreadable)?;
    let mut sheet = SparseSheet::new(max_rows);
    while let Some(found) = reader.next_cell().map_err(|_| TableError::Unreadable)? {
        let (row, column) = found.get_position();
        if let Some(raw) = xlsx_cell(&Data::from(found.get_value().clone())) {
            sheet.put(row, column, raw)?;
        }
    }
    Ok(sheet.rows())
}

/// The cells of a worksheet with something in them, by row, as they are read: never more
/// than `max_rows + 1` rows of at most [`MAX_COLUMNS`] cells, and refused (before anything
/// is kept) as soon as a cell lies past those limits.
struct SparseSheet {
    max_rows: usize,
    rows: std::collections::BTreeMap<u32, Vec<Option<Raw>>>,
    first_column: u32,
    /// Bytes of text kept so far (at most [`MAX_TEXT_BYTES`]).
    text_bytes: usize,
}

impl SparseSheet {
    fn new(max_rows: usize) -> Self {
        Self {
            max_rows,
            rows: std::collections::BTreeMap::new(),
            first_column: u32::MAX,
            text_bytes: 0,
        }
    }

    /// Keeps `raw` at (`row`, `column`), both from 0; a cell given twice keeps the last.
    fn put(&mut self, row: u32, column: u32, raw: Raw) -> Result<(), TableError> {
        if column >= MAX_COLUMNS {
            return Err(TableError::TooManyColumns);
        }
        let rows = self.rows.len();
        let (first, last) = match (self.rows.first_key_value(), self.rows.last_key_value()) {
            (Some((first, _)), Some((last, _))) => ((*first).min(row), (*last).max(row)),
            _ => (row, row),
        };
        // The header and `max_rows` rows, with as many blank rows again between them.
        let span = usize::try_from(last - first).unwrap_or(usize::MAX);
        if span >= 2 * (self.max_rows + 1) {
            return Err(TableError::TooManyRows);
        }
        let cells = match self.rows.entry(row) {
            std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::btree_map::Entry::Vacant(entry) => {
                if rows > self.max_rows {
                    return Err(TableError::TooManyRows);
                }
                entry.insert(Vec::new())
            }
        };
        if let Raw::Text(text) = &raw {
            self.text_bytes += text.len();
            if self.text_bytes > MAX_TEXT_BYTES {
                return Err(TableError::TooLarge);
            }
        }
        let at = column as usize;
        if cells.len() <= at {
            cells.resize(at + 1, None);
        }
        cells[at] = Some(raw);
        self.first_column = self.first_column.min(column);
        Ok(())
    }

    /// The rows in order, their cells from the first column any row uses (as a spreadsheet
    /// range starts there), numbered as a spreadsheet shows them.
    fn rows(self) -> Vec<TableRow> {
        let skip = self.first_column as usize;
        self.rows
            .into_iter()
            .map(|(row, cells)| TableRow {
                number: row.saturating_add(1),
                cells: cells.into_iter().skip(skip).collect(),
            })
            .collect()
    }
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

    /// A workbook of one sheet holding `cells` (reference, text) as inline strings, written
    /// by hand as the smallest file Excel opens (the 1.6 KB attack file is one of these).
    fn workbook(cells: &[(&str, &str)]) -> Vec<u8> {
        workbook_with(cells, &[])
    }

    /// [`workbook`] with more parts (`(path, text)`).
    fn workbook_with(cells: &[(&str, &str)], parts: &[(&str, String)]) -> Vec<u8> {
        use std::io::Write;
        let sheet: String = cells
            .iter()
            .map(|(at, text)| {
                format!(
                    r#"<row r="{}"><c r="{at}" t="inlineStr"><is><t>{text}</t></is></c></row>"#,
                    at.trim_start_matches(|c: char| c.is_ascii_alphabetic())
                )
            })
            .collect();
        let files = [
            ("[Content_Types].xml", r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#.to_owned()),
            ("_rels/.rels", r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.to_owned()),
            ("xl/workbook.xml", r#"<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_owned()),
            ("xl/_rels/workbook.xml.rels", r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#.to_owned()),
            ("xl/worksheets/sheet1.xml", format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{sheet}</sheetData></worksheet>"#)),
        ];
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let parts = parts.iter().map(|(name, text)| (*name, text.clone()));
        for (name, text) in files.into_iter().chain(parts) {
            writer
                .start_file(name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(text.as_bytes()).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn workbooks_are_read_cell_by_cell() {
        let bytes = workbook(&[("B2", "name"), ("C2", "city"), ("B3", "A"), ("C5", "Lyon")]);
        assert_eq!(
            texts(&read(&bytes, 10).unwrap()),
            [
                (2, vec!["name".into(), "city".into()]),
                (3, vec!["A".into()]),
                (5, vec![String::new(), "Lyon".into()]),
            ]
        );
    }

    #[test]
    fn a_far_cell_is_refused_before_anything_is_allocated_for_it() {
        // The review's 1.6 KB file: A1 and XFD1048576 made the reader ask for 512 GiB.
        let far_corner = workbook(&[("A1", "name"), ("XFD1048576", "x")]);
        assert!(far_corner.len() < 2048, "{} bytes", far_corner.len());
        assert_eq!(read(&far_corner, 5_000), Err(TableError::TooManyColumns));
        // Column P is allowed, row 1,048,576 is not: 400 MB of grid before.
        let far_row = workbook(&[("A1", "name"), ("P1048576", "x")]);
        assert_eq!(read(&far_row, 5_000), Err(TableError::TooManyRows));
        // The last column a row may use, and one past it.
        let last = workbook(&[("A1", "name"), ("DX1", "x")]);
        assert_eq!(read(&last, 10).unwrap()[0].cells.len(), 128);
        let past = workbook(&[("A1", "name"), ("DY1", "x")]);
        assert_eq!(read(&past, 10), Err(TableError::TooManyColumns));
        // Blank rows between the header and the rows are kept apart from too many rows.
        let gap = workbook(&[("A1", "name"), ("A12", "x")]);
        assert_eq!(read(&gap, 5).unwrap().len(), 2);
        let too_far = workbook(&[("A1", "name"), ("A13", "x")]);
        assert_eq!(read(&too_far, 5), Err(TableError::TooManyRows));
    }

    #[test]
    fn parts_the_reader_holds_whole_are_bounded_and_so_is_the_text_kept() {
        let cells = [("A1", "name"), ("A2", "x")];
        let styles = |bytes: usize| {
            let xf = r#"<xf numFmtId="0"/>"#;
            format!(
                r#"<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs>{}</cellXfs></styleSheet>"#,
                xf.repeat(bytes / xf.len())
            )
        };
        let within = workbook_with(&cells, &[("xl/styles.xml", styles(1 << 20))]);
        assert_eq!(read(&within, 10).unwrap().len(), 2);
        let past = workbook_with(&cells, &[("xl/styles.xml", styles(3 << 20))]);
        assert_eq!(read(&past, 10), Err(TableError::TooLarge));
        // A picture pasted into the sheet is never read, whatever its size.
        let picture = workbook_with(&cells, &[("xl/media/image1.jpeg", "x".repeat(3 << 20))]);
        assert_eq!(read(&picture, 10).unwrap().len(), 2);
        let strings = |bytes: usize| {
            format!(
                r#"<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{}</sst>"#,
                "<si><t>a</t></si>".repeat(bytes / 17)
            )
        };
        let past = workbook_with(&cells, &[("xl/sharedStrings.xml", strings(17 << 20))]);
        assert_eq!(read(&past, 10), Err(TableError::TooLarge));
        // Text: each cell keeps its own copy, so their sum is what counts.
        let long = "x".repeat(MAX_TEXT_BYTES / 4 + 1);
        let four: Vec<(String, &str)> = (1..=4).map(|r| (format!("A{r}"), long.as_str())).collect();
        let four: Vec<(&str, &str)> = four.iter().map(|(at, text)| (at.as_str(), *text)).collect();
        assert_eq!(read(&workbook(&four), 10), Err(TableError::TooLarge));
        assert_eq!(read(&workbook(&four[..3]), 10).unwrap().len(), 3);
    }

    #[test]
    fn csv_lines_past_the_columns_are_refused() {
        let mut wide = String::from("name");
        wide.push_str(&";".repeat(MAX_CSV_FIELDS));
        assert_eq!(read(wide.as_bytes(), 10), Err(TableError::TooManyColumns));
        // Many trailing separators are fine, and dropped.
        let trailing = format!("name{}\nA{}\n", ";".repeat(300), ";".repeat(300));
        let rows = read(trailing.as_bytes(), 10).unwrap();
        assert_eq!(
            texts(&rows),
            [(1, vec!["name".into()]), (2, vec!["A".into()])]
        );
        // Something in column 129 is not.
        let far = format!("name{}x\n", ";".repeat(128));
        assert_eq!(read(far.as_bytes(), 10), Err(TableError::TooManyColumns));
        let last = format!("name{}x\n", ";".repeat(127));
        assert_eq!(read(last.as_bytes(), 10).unwrap()[0].cells.len(), 128);
        // Separators inside quotes are not cells.
        let quoted = format!("name;\"{}\"\n", ";".repeat(2000));
        assert_eq!(read(quoted.as_bytes(), 10).unwrap()[0].cells.len(), 2);
    }

    #[test]
    fn numbers_read_as_text_without_needless_decimals() {
        assert_eq!(Raw::Number(91000.0).text(), "91000");
        assert_eq!(Raw::Number(4.5).text(), "4.5");
    }
}
