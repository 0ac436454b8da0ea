//! Memory an inventory file can make the server take (issue 47): peak resident memory growth
//! and time of `inventory::read` for hostile and large files within the upload limit (10 MiB):
//!
//! - the review's 1.6 KB workbook (a header and one cell at XFD1048576; it used to ask for a
//!   512 GiB grid and abort the process), and the same with the far cell at P1048576 (+408 MiB
//!   before);
//! - a full grid of 5,001 rows × 128 columns, as XLSX and as CSV (the most cells a file may
//!   hold);
//! - a workbook whose shared strings inflate to the 64 MiB the workbook limit allows, in
//!   millions of one-letter strings, and one just within their own limit (16 MiB);
//! - styles just within their limit (2 MiB of cell formats naming one font, each a style the
//!   reader builds);
//! - one 15 MiB shared string named by every cell of a full grid (each cell keeps a copy).
//!
//! ```text
//! cargo run --release -p regard --example bench_workbooks
//! ```
//!
//! Each file is written by this program, then read in a child process of its own (this program
//! with `--one PATH`) that holds nothing else, so that neither the writing nor another file's
//! reading hides its peak.

mod support;

use std::io::{Cursor, Write};
use std::process::Command;
use std::time::Instant;

use regard::inventory;

/// The files, by name.
const FILES: [&str; 9] = [
    "far-corner-xfd1048576",
    "far-row-p1048576",
    "grid-5001x128-xlsx",
    "grid-5001x128-csv",
    "shared-strings-64mib",
    "shared-strings-16mib",
    "styles-2mib",
    "one-string-everywhere",
    "inventory-5000-rows",
];

/// A workbook of one sheet, its parts written by hand: `strings` shared strings, and `sheet`
/// as the sheet's `<sheetData>` content.
fn workbook(strings: &str, sheet: &str) -> Vec<u8> {
    workbook_with(strings, sheet, None)
}

/// [`workbook`] with `styles` as `xl/styles.xml`.
fn workbook_with(strings: &str, sheet: &str, styles: Option<String>) -> Vec<u8> {
    let mut files = vec![
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>"#.to_owned(),
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.to_owned(),
        ),
        (
            "xl/workbook.xml",
            r#"<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_owned(),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            r#"<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#.to_owned(),
        ),
        (
            "xl/sharedStrings.xml",
            format!(r#"<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{strings}</sst>"#),
        ),
        (
            "xl/worksheets/sheet1.xml",
            format!(r#"<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{sheet}</sheetData></worksheet>"#),
        ),
    ];
    if let Some(styles) = styles {
        files.push(("xl/styles.xml", styles));
    }
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9));
    for (name, text) in files {
        writer.start_file(name, options).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// A sheet row of inline strings.
fn row(number: u32, cells: &[(String, String)]) -> String {
    let cells: String = cells
        .iter()
        .map(|(at, text)| format!(r#"<c r="{at}" t="inlineStr"><is><t>{text}</t></is></c>"#))
        .collect();
    format!(r#"<row r="{number}">{cells}</row>"#)
}

/// The column letters of column `index` (from 0).
fn column(mut index: u32) -> String {
    let mut letters = Vec::new();
    loop {
        letters.push(b'A' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap()
}

fn file(name: &str) -> Vec<u8> {
    match name {
        "far-corner-xfd1048576" => workbook(
            "",
            &(row(1, &[("A1".into(), "name".into())])
                + &row(1_048_576, &[("XFD1048576".into(), "x".into())])),
        ),
        "far-row-p1048576" => workbook(
            "",
            &(row(1, &[("A1".into(), "name".into())])
                + &row(1_048_576, &[("P1048576".into(), "x".into())])),
        ),
        "grid-5001x128-xlsx" => {
            // Shared strings: one per cell would pass 10 MiB zipped; 128 distinct texts.
            let strings: String = (0..128).map(|i| format!("<si><t>v{i}</t></si>")).collect();
            let mut sheet = String::new();
            for r in 1..=5_001u32 {
                sheet.push_str(&format!(r#"<row r="{r}">"#));
                for c in 0..128 {
                    let at = column(c);
                    sheet.push_str(&format!(r#"<c r="{at}{r}" t="s"><v>{c}</v></c>"#));
                }
                sheet.push_str("</row>");
            }
            workbook(&strings, &sheet)
        }
        "grid-5001x128-csv" => {
            let mut text = String::new();
            for r in 0..5_001 {
                let cells: Vec<String> = (0..128).map(|c| format!("v{}", (r + c) % 97)).collect();
                text.push_str(&cells.join(";"));
                text.push('\n');
            }
            text.into_bytes()
        }
        "shared-strings-64mib" | "shared-strings-16mib" => {
            let one = "<si><t>a</t></si>";
            let mib = if name == "shared-strings-64mib" {
                63
            } else {
                16
            };
            let count = ((mib << 20) - 200) / one.len();
            let strings = one.repeat(count);
            workbook(&strings, &row(1, &[("A1".into(), "name".into())]))
        }
        "styles-2mib" => {
            let xf = r#"<xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>"#;
            let count = ((2 << 20) - 1000) / xf.len();
            let styles = format!(
                r#"<?xml version="1.0"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellXfs count="{count}">{}</cellXfs></styleSheet>"#,
                xf.repeat(count)
            );
            workbook_with("", &row(1, &[("A1".into(), "name".into())]), Some(styles))
        }
        "one-string-everywhere" => {
            let strings = format!("<si><t>{}</t></si>", "x".repeat(15 << 20));
            let mut sheet = String::new();
            for r in 1..=5_001u32 {
                sheet.push_str(&format!(r#"<row r="{r}">"#));
                for c in 0..128 {
                    let at = column(c);
                    sheet.push_str(&format!(r#"<c r="{at}{r}" t="s"><v>0</v></c>"#));
                }
                sheet.push_str("</row>");
            }
            workbook(&strings, &sheet)
        }
        "inventory-5000-rows" => {
            let mut text = String::from(
                "nom;ville;code postal;format;largeur_m;hauteur_m;latitude;longitude\n",
            );
            for i in 0..5_000 {
                text.push_str(&format!(
                    "Site {i};Lyon;69003;4x3;4;3;45.{i:04};4.8{i:03}\n"
                ));
            }
            text.into_bytes()
        }
        other => panic!("no file {other}"),
    }
}

fn measure(path: &str) {
    let name = std::path::Path::new(path)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let bytes = std::fs::read(path).expect("read the file");
    let size = bytes.len();
    support::reset_peak_rss();
    let before = support::status_kib("VmRSS:").unwrap_or(0);
    let started = Instant::now();
    let read = inventory::read(&bytes);
    let elapsed = started.elapsed();
    let peak = support::status_kib("VmHWM:").unwrap_or(0);
    let outcome = match &read {
        Ok(rows) => format!("{} rows", rows.len()),
        Err(err) => format!("refused: {err}"),
    };
    drop(read);
    println!(
        "{name:<24} {:>9.1} KiB  peak +{:>6.1} MiB  {:>8.1} ms  {outcome}",
        size as f64 / 1024.0,
        peak.saturating_sub(before) as f64 / 1024.0,
        elapsed.as_secs_f64() * 1000.0,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, path] = args.as_slice()
        && flag == "--one"
    {
        measure(path);
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    println!("file                          size  peak memory growth      time  outcome");
    for name in FILES {
        let path = dir.path().join(name);
        std::fs::write(&path, file(name)).expect("write the file");
        let status = Command::new(std::env::current_exe().unwrap())
            .arg("--one")
            .arg(&path)
            .status()
            .expect("run a child");
        if !status.success() {
            println!("{name:<24} the reading process died: {status}");
        }
    }
}
