//! Benchmark of the inventory import target: 1,000 rows without photos imported in under 5 s
//! on a 2-core machine (`POST /api/v1/locations/import`).
//!
//! ```text
//! cargo run --release -p regard --example bench_import [-- RUNS]
//! ```
//!
//! Starts the real server in-process (temporary SQLite database and folder), signs up a user,
//! and times over HTTP, RUNS times each (default 5): a dry run and an import of 1,000 and of
//! 5,000 rows of a CSV with every column (the file's reading, every row checked by the rules of
//! `POST /locations`, the rows inserted in one transaction), and the same 5,000 rows as XLSX.
//! Prints the median and the slowest of each. `BENCH_DATABASE_URL=postgres://...` (an empty
//! database) runs it on PostgreSQL instead.

use std::time::{Duration, Instant};

use serde_json::Value;

mod support;

/// A CSV of `rows` locations with every column, French headers, `;` and decimal commas, as a
/// French spreadsheet writes it.
fn csv(rows: usize) -> Vec<u8> {
    let mut text = String::from(
        "Nom;Adresse;Ville;Code postal;Pays;Latitude;Longitude;Format;Largeur_m;Hauteur_m;Audience;distance_m;Vitesse_kmh;Notes\n",
    );
    for i in 0..rows {
        text.push_str(&format!(
            "Panneau {i};{} avenue de la République;Évry-Courcouronnes;{:05};France;48,{:04};2,{:04};billboard_4x3;4;3;Automobilistes;10 à 150;50;Près du rond-point n° {i}\n",
            i % 200 + 1,
            91000 + i % 100,
            i % 10_000,
            (i * 7) % 10_000,
        ));
    }
    text.into_bytes()
}

/// The same rows as an XLSX workbook, numbers as numbers.
fn xlsx(rows: usize) -> Vec<u8> {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet();
    let header = [
        "name",
        "address",
        "city",
        "postcode",
        "latitude",
        "longitude",
        "format",
        "width_m",
        "height_m",
        "audience",
        "distance_m",
    ];
    for (col, title) in header.iter().enumerate() {
        sheet.write_string(0, col as u16, *title).unwrap();
    }
    for i in 0..rows {
        let row = i as u32 + 1;
        sheet.write_string(row, 0, format!("Panneau {i}")).unwrap();
        sheet
            .write_string(row, 1, format!("{} avenue de la République", i % 200 + 1))
            .unwrap();
        sheet.write_string(row, 2, "Évry-Courcouronnes").unwrap();
        sheet
            .write_number(row, 3, (91000 + i % 100) as f64)
            .unwrap();
        sheet
            .write_number(row, 4, 48.0 + (i % 10_000) as f64 / 1e4)
            .unwrap();
        sheet
            .write_number(row, 5, 2.0 + ((i * 7) % 10_000) as f64 / 1e4)
            .unwrap();
        sheet.write_string(row, 6, "Panneau 4 × 3 m").unwrap();
        sheet.write_number(row, 7, 4.0).unwrap();
        sheet.write_number(row, 8, 3.0).unwrap();
        sheet.write_string(row, 9, "road").unwrap();
        sheet.write_string(row, 10, "10-150").unwrap();
    }
    workbook.save_to_buffer().unwrap()
}

/// One import; returns its time and how many locations it created.
async fn import(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    name: &str,
    data: &[u8],
    dry_run: bool,
) -> (Duration, usize) {
    let part = reqwest::multipart::Part::bytes(data.to_vec()).file_name(name.to_owned());
    let form = reqwest::multipart::Form::new().part("file", part);
    let start = Instant::now();
    let response = client
        .post(format!("{base}/api/v1/locations/import?dry_run={dry_run}"))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    let elapsed = start.elapsed();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["errors"], serde_json::json!([]), "{body}");
    (elapsed, body["created"].as_array().unwrap().len())
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let server = support::Server::start_with(|config| {
        config.no_worker = true;
        config.database_url = std::env::var("BENCH_DATABASE_URL")
            .ok()
            .map(regard::config::Secret::new);
    })
    .await;
    let client = reqwest::Client::new();
    let token = server.sign_up(&client).await;
    println!(
        "backend: {}",
        std::env::var("BENCH_DATABASE_URL").map_or("SQLite".into(), |_| "PostgreSQL".to_owned())
    );

    let files = [
        ("1,000 rows, CSV", "inventory.csv", csv(1_000), 1_000),
        ("5,000 rows, CSV", "inventory.csv", csv(5_000), 5_000),
        ("5,000 rows, XLSX", "inventory.xlsx", xlsx(5_000), 5_000),
    ];
    for (label, name, data, rows) in &files {
        for dry_run in [true, false] {
            let mut times = Vec::with_capacity(runs);
            for _ in 0..runs {
                let (time, created) =
                    import(&client, &server.base, &token, name, data, dry_run).await;
                assert_eq!(created, if dry_run { 0 } else { *rows });
                times.push(time.as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            println!(
                "{:<28} {:>8} KB  median {:>7.3} s   slowest {:>7.3} s   (n = {runs})",
                format!("{label}{}", if dry_run { ", dry run" } else { "" }),
                data.len() / 1000,
                support::median(&times),
                times[times.len() - 1],
            );
        }
    }
    server.stop().await;
}
