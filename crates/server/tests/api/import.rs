//! `POST /api/v1/locations/import`: inventory files (CSV in either encoding and separator,
//! XLSX) with their photos in a ZIP, checked by the rules of `POST /locations`, all or nothing.

use std::io::{Cursor, Write};

use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::fixtures::{jpeg, jpeg_with_gps, noise_png, png, png_claiming};
use crate::helpers::{TestApp, User, assert_api_error, spawn_app, spawn_app_with};

fn file(name: &str, data: impl Into<Vec<u8>>) -> Part {
    Part::bytes(data.into())
        .file_name(name.to_owned())
        .mime_str("application/octet-stream")
        .unwrap()
}

fn csv(text: &str) -> Form {
    Form::new().part("file", file("inventory.csv", text.as_bytes().to_vec()))
}

fn with_photos(form: Form, zip: Vec<u8>) -> Form {
    form.part("photos", file("photos.zip", zip))
}

/// A ZIP of `(name, bytes)` entries, deflated.
fn zip_of(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        writer
            .start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

async fn import(app: &TestApp, user: &User, query: &str, form: Form) -> reqwest::Response {
    app.api(Method::POST, &format!("/locations/import{query}"), user)
        .multipart(form)
        .send()
        .await
        .expect("request sent")
}

/// Imports and returns the answer's body, asserting its status.
async fn import_status(app: &TestApp, user: &User, query: &str, form: Form, status: u16) -> Value {
    let response = import(app, user, query, form).await;
    let got = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_eq!(got, status, "{body:#}");
    body
}

/// The user's locations, newest first.
async fn locations(app: &TestApp, user: &User) -> Vec<Value> {
    let response = app
        .api_send(Method::GET, "/locations?limit=100", user)
        .await;
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.unwrap();
    page["items"].as_array().unwrap().clone()
}

async fn location(app: &TestApp, user: &User, id: &Value) -> Value {
    let path = format!("/locations/{}", id.as_str().unwrap());
    let response = app.api_send(Method::GET, &path, user).await;
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

fn error(row: u32, field: &str, code: &str) -> Value {
    json!({"row": row, "field": field, "code": code})
}

const GOOD_AND_BAD: &str = "name,postcode,width_m,height_m,format,distance_m\n\
    Gare d'Évry,91000,4,3,billboard_4x3,10-150\n\
    Mairie,123456789012345678901,abc,,poster,far\n\
    \n\
    ,75001,,,,\n";

fn good_and_bad_errors() -> Value {
    json!([
        error(3, "postcode", "too_long"),
        error(3, "format", "invalid_value"),
        error(3, "width_m", "invalid_type"),
        error(3, "distance_m", "invalid_type"),
        // Row 4 is empty; row 5 has no name.
        error(5, "name", "required"),
    ])
}

#[tokio::test]
async fn a_dry_run_reports_every_error_and_writes_nothing() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let response = import(&app, &user, "?dry_run=true", csv(GOOD_AND_BAD)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-import-rows"], "3");
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"created": [], "errors": good_and_bad_errors()})
    );
    // The same as a form field.
    let form = csv(GOOD_AND_BAD).text("dry_run", "true");
    let body = import_status(&app, &user, "", form, 200).await;
    assert_eq!(body["errors"], good_and_bad_errors());
    // A file without errors: checked, still nothing written.
    let good = "name,city\nA,Paris\nB,Lyon\n";
    let body = import_status(&app, &user, "?dry_run=true", csv(good), 200).await;
    assert_eq!(body, json!({"created": [], "errors": []}));
    assert!(locations(&app, &user).await.is_empty());
    // `false` imports, in either place.
    let body = import_status(&app, &user, "?dry_run=false", csv(good), 200).await;
    assert_eq!(body["created"].as_array().unwrap().len(), 2);
    let form = csv(good).text("dry_run", "false");
    import_status(&app, &user, "", form, 200).await;
    assert_eq!(locations(&app, &user).await.len(), 4);
    for query in ["?dry_run=maybe", "?dry_run="] {
        let body = import_status(&app, &user, query, csv(good), 422).await;
        assert_eq!(
            body["details"]["fields"],
            json!({"dry_run": "invalid_type"})
        );
    }
    let body = import_status(&app, &user, "", csv(good).text("dry_run", ""), 422).await;
    assert_eq!(
        body["details"]["fields"],
        json!({"dry_run": "invalid_type"})
    );
    assert_eq!(locations(&app, &user).await.len(), 4);
}

#[tokio::test]
async fn rows_become_locations_under_the_rules_of_the_api() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let text = "name,address,city,postcode,country,latitude,longitude,format,width_m,height_m,audience,distance_m,speed_kmh,notes,unknown column\n\
        Gare,1 place de la Gare,Évry,91000,France,\"48,6241\",\"2,4405\",billboard_4x3,,,Automobilistes,10 à 150,\"32,5\",Near the station,ignored\n\
        Vitrine,,Paris,,,,,Vitrine,\"2,345\",1.5,piétons,40,,,\n\
        Écran,,,,,,,digital_75in_portrait,,,pedestrian,2–20,,,\n";
    let response = import(&app, &user, "", csv(text)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-import-rows"], "3");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["errors"], json!([]));
    let created = body["created"].as_array().unwrap();
    assert_eq!(created.len(), 3);

    let gare = location(&app, &user, &created[0]).await;
    assert_eq!(gare["name"], "Gare");
    assert_eq!(gare["city"], "Évry");
    assert_eq!(gare["postal_code"], "91000");
    assert_eq!(gare["latitude"], 48.6241);
    assert_eq!(gare["longitude"], 2.4405);
    // A standard format fills in its size, as the API does.
    assert_eq!(
        (&gare["panel_width_cm"], &gare["panel_height_cm"]),
        (&json!(400), &json!(300))
    );
    assert_eq!(gare["audience"], "road");
    assert_eq!(gare["viewing_distance_min_m"], 10.0);
    assert_eq!(gare["viewing_distance_max_m"], 150.0);
    assert_eq!(gare["speed_kmh"], 32.5);
    assert_eq!(gare["notes"], "Near the station");
    assert_eq!(gare["photo"], Value::Null);
    assert_eq!(gare["panel_quad"], Value::Null);

    let window = location(&app, &user, &created[1]).await;
    assert_eq!(window["format"], "shop_window");
    // Metres to centimetres, rounded.
    assert_eq!(
        (&window["panel_width_cm"], &window["panel_height_cm"]),
        (&json!(235), &json!(150))
    );
    assert_eq!(window["audience"], "pedestrian");
    // One number is the farthest distance.
    assert_eq!(window["viewing_distance_min_m"], Value::Null);
    assert_eq!(window["viewing_distance_max_m"], 40.0);

    let screen = location(&app, &user, &created[2]).await;
    assert_eq!(screen["screen_width_px"], 1080);
    assert_eq!(
        (
            &screen["viewing_distance_min_m"],
            &screen["viewing_distance_max_m"]
        ),
        (&json!(2.0), &json!(20.0))
    );

    // The list shows them in the file's order.
    let names: Vec<Value> = locations(&app, &user)
        .await
        .iter()
        .map(|l| l["name"].clone())
        .collect();
    assert_eq!(names, [json!("Gare"), json!("Vitrine"), json!("Écran")]);
}

#[tokio::test]
async fn rows_are_refused_with_the_codes_of_the_api() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let long = "x".repeat(201);
    let text = format!(
        "name,latitude,longitude,width_m,height_m,audience,distance_m,speed_kmh\n\
         {long},91,,0.001,200000,cyclists,150-10,0\n\
         ok,,2.4,,,,,\n"
    );
    let body = import_status(&app, &user, "?dry_run=true", csv(&text), 200).await;
    assert_eq!(
        body["errors"],
        json!([
            error(2, "name", "too_long"),
            error(2, "latitude", "out_of_range"),
            error(2, "width_m", "out_of_range"),
            error(2, "height_m", "out_of_range"),
            error(2, "audience", "invalid_value"),
            error(2, "distance_m", "out_of_range"),
            error(2, "speed_kmh", "out_of_range"),
            error(3, "latitude", "required"),
        ])
    );
}

#[tokio::test]
async fn one_bad_row_imports_nothing_and_leaves_no_photo_behind() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let zip = zip_of(&[("a.jpg", jpeg(320, 240)), ("b.png", png(200, 150))]);
    let text = "name,photo,latitude\nA,a.jpg,\nB,b.png,\nC,,95\n";
    let response = import(&app, &user, "", with_photos(csv(text), zip.clone())).await;
    let body = assert_api_error(response, 422, "validation_failed").await;
    assert_eq!(body["created"], json!([]));
    assert_eq!(
        body["errors"],
        json!([error(4, "latitude", "out_of_range")])
    );
    assert!(locations(&app, &user).await.is_empty());
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty(), "{:?}", app.objects().await);

    // A photo that passes its header but not its decoding is found only when storing: the
    // photos stored before it are taken back.
    let mut broken = png(200, 150);
    let middle = broken.len() / 2;
    for byte in &mut broken[middle..middle + 16] {
        *byte ^= 0x5A;
    }
    let zip = zip_of(&[("a.jpg", jpeg(320, 240)), ("b.png", broken)]);
    let text = "name,photo\nA,a.jpg\nB,b.png\n";
    let body = import_status(&app, &user, "", with_photos(csv(text), zip), 422).await;
    assert_eq!(body["errors"], json!([error(3, "photo", "invalid")]));
    assert!(locations(&app, &user).await.is_empty());
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty(), "{:?}", app.objects().await);
}

#[tokio::test]
async fn csv_files_are_read_in_utf8_with_or_without_bom_and_in_windows_1252() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // UTF-8 with a byte-order mark, `;` as Excel writes it in French.
    let mut utf8 = b"\xEF\xBB\xBF".to_vec();
    utf8.extend_from_slice("nom;ville;largeur_m\nCœur de Ville;Besançon;4,5\n".as_bytes());
    // Windows-1252, `,`: "Évry Cœur", "Saint-Étienne", "Bœuf à l'été".
    let cp1252 =
        b"name,city,notes\n\xC9vry C\x9Cur,Saint-\xC9tienne,B\x9Cuf \xE0 l'\xE9t\xE9\n".to_vec();
    // UTF-8 without a byte-order mark.
    let plain = "name,city\nL'Haÿ-les-Roses,Orléans\n".as_bytes().to_vec();
    for data in [utf8, cp1252, plain] {
        let form = Form::new().part("file", file("inventory.csv", data));
        import_status(&app, &user, "", form, 200).await;
    }
    let items = locations(&app, &user).await;
    let got: Vec<(Value, Value)> = items
        .iter()
        .map(|l| (l["name"].clone(), l["city"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!("L'Haÿ-les-Roses"), json!("Orléans")),
            (json!("Évry Cœur"), json!("Saint-Étienne")),
            (json!("Cœur de Ville"), json!("Besançon")),
        ]
    );
    assert_eq!(items[1]["notes"], "Bœuf à l'été");
    assert_eq!(items[2]["panel_width_cm"], 450);
}

#[tokio::test]
async fn french_headers_are_found_whatever_their_case_accents_and_spaces() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let text = " Nom ;Adresse;VILLE;Code Postal;PAYS;Largeur_m;Hauteur-M;Vitesse km/h;Audience;Distance (m)\n\
        Marché;2 rue Haute;Évry;91000;France;3,2;2,4;30;piéton;5 à 25\n";
    let body = import_status(&app, &user, "", csv(text), 200).await;
    let marche = location(&app, &user, &body["created"][0]).await;
    assert_eq!(marche["name"], "Marché");
    assert_eq!(marche["address"], "2 rue Haute");
    assert_eq!(marche["city"], "Évry");
    assert_eq!(marche["postal_code"], "91000");
    assert_eq!(marche["country"], "France");
    assert_eq!(
        (&marche["panel_width_cm"], &marche["panel_height_cm"]),
        (&json!(320), &json!(240))
    );
    assert_eq!(marche["speed_kmh"], 30.0);
    assert_eq!(marche["audience"], "pedestrian");
    assert_eq!(
        (
            &marche["viewing_distance_min_m"],
            &marche["viewing_distance_max_m"]
        ),
        (&json!(5.0), &json!(25.0))
    );
    // Errors name the canonical English column.
    let text = "Nom;Code Postal\nA;123456789012345678901\n";
    let body = import_status(&app, &user, "?dry_run=true", csv(text), 200).await;
    assert_eq!(body["errors"], json!([error(2, "postcode", "too_long")]));
}

#[tokio::test]
async fn xlsx_workbooks_are_read_from_their_first_sheet() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet();
    let header = [
        "Nom",
        "Ville",
        "Code postal",
        "Largeur_m",
        "Hauteur_m",
        "Format",
        "Latitude",
        "Longitude",
    ];
    for (col, title) in header.iter().enumerate() {
        sheet.write_string(0, col as u16, *title).unwrap();
    }
    sheet.write_string(1, 0, "Hôtel de Ville").unwrap();
    sheet.write_string(1, 1, "Évry").unwrap();
    // Numbers as numbers, as a spreadsheet keeps them.
    sheet.write_number(1, 2, 91000).unwrap();
    sheet.write_number(1, 3, 1.2).unwrap();
    sheet.write_number(1, 4, 1.76).unwrap();
    sheet.write_string(1, 5, "Abribus").unwrap();
    sheet.write_number(1, 6, 48.62).unwrap();
    sheet.write_number(1, 7, 2.44).unwrap();
    // Row 3 left empty; row 4 refused.
    sheet.write_string(3, 0, "Trop loin").unwrap();
    sheet.write_number(3, 6, 123.0).unwrap();
    sheet.write_number(3, 7, 2.0).unwrap();
    // A second sheet is not read.
    let other = workbook.add_worksheet();
    other.write_string(0, 0, "city").unwrap();
    let bytes = workbook.save_to_buffer().unwrap();
    let form = || Form::new().part("file", file("inventaire.xlsx", bytes.clone()));

    let body = import_status(&app, &user, "?dry_run=true", form(), 200).await;
    assert_eq!(
        body["errors"],
        json!([error(4, "latitude", "out_of_range")])
    );

    // Without the refused row.
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheet = workbook.add_worksheet();
    for (col, title) in header.iter().enumerate() {
        sheet.write_string(0, col as u16, *title).unwrap();
    }
    sheet.write_string(1, 0, "Hôtel de Ville").unwrap();
    sheet.write_string(1, 1, "Évry").unwrap();
    sheet.write_number(1, 2, 91000).unwrap();
    sheet.write_number(1, 3, 1.2).unwrap();
    sheet.write_number(1, 4, 1.76).unwrap();
    sheet.write_string(1, 5, "Abribus").unwrap();
    let bytes = workbook.save_to_buffer().unwrap();
    let form = Form::new().part("file", file("inventaire.xlsx", bytes));
    let body = import_status(&app, &user, "", form, 200).await;
    let hotel = location(&app, &user, &body["created"][0]).await;
    assert_eq!(hotel["name"], "Hôtel de Ville");
    assert_eq!(hotel["city"], "Évry");
    assert_eq!(hotel["postal_code"], "91000");
    assert_eq!(hotel["format"], "bus_shelter");
    assert_eq!(
        (&hotel["panel_width_cm"], &hotel["panel_height_cm"]),
        (&json!(120), &json!(176))
    );
}

#[tokio::test]
async fn a_workbook_with_one_far_cell_is_refused_and_the_server_lives() {
    // The review's attack: a header and one cell in the sheet's last corner, which a dense
    // reader turned into a 512 GiB grid (and the process into an abort).
    let app = spawn_app().await;
    let user = app.new_user().await;
    let far = |row: u32, col: u16| {
        let mut workbook = rust_xlsxwriter::Workbook::new();
        let sheet = workbook.add_worksheet();
        sheet.write_string(0, 0, "name").unwrap();
        sheet.write_string(row, col, "x").unwrap();
        workbook.save_to_buffer().unwrap()
    };
    for (bytes, max) in [
        (far(1_048_575, 16_383), "max_columns"),
        (far(1_048_575, 15), "max_rows"),
    ] {
        let form = Form::new().part("file", file("far.xlsx", bytes));
        let body = import_status(&app, &user, "?dry_run=true", form, 422).await;
        assert_eq!(
            body["details"]["fields"],
            json!({"file": "too_many"}),
            "{body}"
        );
        assert!(body["details"][max].is_u64(), "{body}");
    }
    // Still serving, and a sensible workbook still reads.
    let bytes = far(2, 0);
    let form = Form::new().part("file", file("near.xlsx", bytes));
    let body = import_status(&app, &user, "?dry_run=true", form, 200).await;
    assert_eq!(body["errors"], json!([]));
}

#[tokio::test]
async fn photos_are_found_in_the_zip_by_file_name() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let zip = zip_of(&[
        ("inventaire/photos/gare.jpg", jpeg_with_gps(400, 300)),
        ("mairie.png", png(320, 240)),
        ("__MACOSX/._gare.jpg", b"resource fork".to_vec()),
    ]);
    let text = "name,photo,latitude,longitude\n\
        Gare,gare.jpg,,\n\
        Mairie,MAIRIE.PNG,45.1,5.2\n\
        Parvis,,,\n\
        Mairie bis,mairie.png,,\n";
    let body = import_status(&app, &user, "", with_photos(csv(text), zip), 200).await;
    let created = body["created"].as_array().unwrap();
    let gare = location(&app, &user, &created[0]).await;
    assert_eq!(gare["photo"]["original_name"], "gare.jpg");
    assert_eq!(
        (&gare["photo"]["width"], &gare["photo"]["height"]),
        (&json!(400), &json!(300))
    );
    // The photo's GPS position where the row has none; the panel's corners are left to the
    // editor.
    assert!((gare["latitude"].as_f64().unwrap() - 48.625).abs() < 1e-9);
    assert!((gare["longitude"].as_f64().unwrap() - 2.44).abs() < 1e-9);
    assert_eq!(gare["panel_quad"], Value::Null);
    let url = gare["photo"]["urls"]["thumbnail"].as_str().unwrap();
    assert_eq!(app.get_url(url).await.status(), 200);

    let mairie = location(&app, &user, &created[1]).await;
    assert_eq!(mairie["photo"]["original_name"], "mairie.png");
    assert_eq!(mairie["latitude"], 45.1);
    let parvis = location(&app, &user, &created[2]).await;
    assert_eq!(parvis["photo"], Value::Null);
    // One file named twice is one image.
    let bis = location(&app, &user, &created[3]).await;
    assert_eq!(bis["photo"]["id"], mairie["photo"]["id"]);
    assert_eq!(app.media_rows().await, 2);
}

#[tokio::test]
async fn a_photo_missing_from_the_zip_is_not_found() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let zip = zip_of(&[
        ("a.jpg", jpeg(64, 48)),
        ("x/twice.jpg", jpeg(64, 48)),
        ("y/twice.jpg", png(64, 48)),
    ]);
    let text = "name,photo\nA,a.jpg\nB,absent.jpg\nC,twice.jpg\n";
    let body = import_status(&app, &user, "", with_photos(csv(text), zip), 422).await;
    assert_eq!(body["code"], "validation_failed");
    assert_eq!(
        body["errors"],
        json!([
            error(3, "photo", "not_found"),
            error(4, "photo", "conflict")
        ])
    );
    // Without any ZIP, every named photo is missing.
    let body = import_status(
        &app,
        &user,
        "?dry_run=true",
        csv("name,photo\nA,a.jpg\n"),
        200,
    )
    .await;
    assert_eq!(body["errors"], json!([error(2, "photo", "not_found")]));
    assert_eq!(app.media_rows().await, 0);
    assert!(locations(&app, &user).await.is_empty());
}

#[tokio::test]
async fn photos_are_refused_as_uploads_are() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let zip = zip_of(&[
        // 100 megapixels and one more row: over REGARD_MEDIA_MAX_PIXELS.
        ("huge.png", png_claiming(10_000, 10_001)),
        ("notes.jpg", b"not an image at all".to_vec()),
        ("ok.jpg", jpeg(64, 48)),
    ]);
    let text = "name,photo\nHuge,huge.png\nNotes,notes.jpg\nOk,ok.jpg\n";
    for query in ["?dry_run=true", ""] {
        let response = import(&app, &user, query, with_photos(csv(text), zip.clone())).await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        assert_eq!(status, if query.is_empty() { 422 } else { 200 }, "{body}");
        assert_eq!(
            body["errors"],
            json!([
                error(2, "photo", "too_large"),
                error(3, "photo", "invalid_type")
            ])
        );
    }
    assert_eq!(app.media_rows().await, 0);
    assert!(app.objects().await.is_empty());

    // Over the decoding budget, and over the upload size: `too_large` too.
    let app = spawn_app_with(|config| {
        config.media_decode_budget = 1;
        config.media_max_bytes = 200_000;
    })
    .await;
    let user = app.new_user().await;
    let zip = zip_of(&[
        ("big.jpg", jpeg(1000, 800)),
        ("noise.png", noise_png(300, 300)),
    ]);
    let text = "name,photo\nBig,big.jpg\nNoise,noise.png\n";
    let body = import_status(
        &app,
        &user,
        "?dry_run=true",
        with_photos(csv(text), zip),
        200,
    )
    .await;
    assert_eq!(
        body["errors"],
        json!([
            error(2, "photo", "too_large"),
            error(3, "photo", "too_large")
        ])
    );
}

#[tokio::test]
async fn a_zip_bomb_is_refused_without_being_inflated() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // 64 MB of zeros deflate to about 64 KB.
    let zeros = vec![0u8; 64 << 20];
    let bomb = zip_of(&[("a.jpg", jpeg(64, 48)), ("zeros.jpg", zeros)]);
    assert!(bomb.len() < 200_000, "{}", bomb.len());
    for text in [
        "name,photo\nA,a.jpg\n",
        "name,photo\nA,a.jpg\nZ,zeros.jpg\n",
    ] {
        let body = import_status(&app, &user, "", with_photos(csv(text), bomb.clone()), 422).await;
        assert_eq!(body["code"], "validation_failed");
        assert_eq!(body["details"]["fields"], json!({"photos": "too_large"}));
        assert_eq!(
            (&body["created"], &body["errors"]),
            (&json!([]), &json!([]))
        );
    }
    assert_eq!(app.media_rows().await, 0);
    assert!(locations(&app, &user).await.is_empty());
    // Nothing of it is left in the staging folder.
    let tmp = app.state.config.data_dir.join("tmp");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .map(|d| d.collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn photos_count_against_the_storage_quota() {
    let app = spawn_app_with(|config| config.storage_quota_mb = 1).await;
    let user = app.new_user().await;
    let data = noise_png(800, 600);
    assert!(data.len() > 1_000_000);
    let zip = zip_of(&[("noise.png", data)]);
    let response = import(
        &app,
        &user,
        "",
        with_photos(csv("name,photo\nA,noise.png\n"), zip),
    )
    .await;
    assert_api_error(response, 413, "storage_quota_exceeded").await;
    assert_eq!(app.media_rows().await, 0);
}

#[tokio::test]
async fn files_that_cannot_be_imported_are_refused_whole() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let refused = |fields: Value| {
        let app = &app;
        let user = &user;
        move |form: Form| async move {
            let response = import(app, user, "", form).await;
            let body = assert_api_error(response, 422, "validation_failed").await;
            assert_eq!(body["details"]["fields"], fields, "{body}");
            assert_eq!(
                (&body["created"], &body["errors"]),
                (&json!([]), &json!([]))
            );
            body
        }
    };
    refused(json!({"file": "required"}))(Form::new().text("dry_run", "true")).await;
    refused(json!({"file": "invalid", "name": "required"}))(csv("city,postcode\nParis,75001\n"))
        .await;
    refused(json!({"file": "invalid"}))(Form::new().part("file", file("photo.png", png(8, 8))))
        .await;
    refused(json!({"file": "invalid"}))(
        Form::new().part("file", file("broken.xlsx", b"PK\x03\x04broken".to_vec())),
    )
    .await;
    refused(json!({"file": "too_few"}))(csv("name,city\n")).await;
    let mut many = String::from("name\n");
    for i in 0..=5_000 {
        many.push_str(&format!("Site {i}\n"));
    }
    let body = refused(json!({"file": "too_many"}))(csv(&many)).await;
    assert_eq!(body["details"]["max_rows"], 5000);
    refused(json!({"photos": "invalid"}))(with_photos(csv("name\nA\n"), b"not a zip".to_vec()))
        .await;
    refused(json!({"other": "unknown_field"}))(csv("name\nA\n").text("other", "x")).await;
    refused(json!({"file": "too_many"}))(
        csv("name\nA\n").part("file", file("b.csv", b"name\nB\n".to_vec())),
    )
    .await;
    assert!(locations(&app, &user).await.is_empty());

    // A form without any part is no form.
    let response = import(&app, &user, "", Form::new()).await;
    assert_api_error(response, 400, "invalid_multipart").await;
    let response = app
        .api(Method::POST, "/locations/import", &user)
        .json(&json!({"file": "name\nA\n"}))
        .send()
        .await
        .unwrap();
    assert_api_error(response, 400, "invalid_multipart").await;
}

#[tokio::test]
async fn a_file_over_its_size_limit_gets_413() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut big = String::from("name,notes\n");
    let note = "n".repeat(4_000);
    while big.len() <= 10 << 20 {
        big.push_str(&format!("Site,{note}\n"));
    }
    let response = import(&app, &user, "", csv(&big)).await;
    let body = assert_api_error(response, 413, "file_too_large").await;
    assert_eq!(body["details"]["max_bytes"], 10 << 20);
}

#[tokio::test]
async fn a_thousand_rows_are_imported_in_one_go() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut text = String::from("name;city;postcode;format;audience;distance_m\n");
    for i in 0..1_000 {
        text.push_str(&format!(
            "Site {i};Ville {i};{:05};billboard_4x3;road;10-150\n",
            i * 7
        ));
    }
    let body = import_status(&app, &user, "", csv(&text), 200).await;
    let created = body["created"].as_array().unwrap();
    assert_eq!(created.len(), 1_000);
    let last = location(&app, &user, &created[999]).await;
    assert_eq!(last["name"], "Site 999");
    assert_eq!(last["postal_code"], "06993");
    let page = locations(&app, &user).await;
    assert_eq!(page.len(), 100);
    assert_eq!(page[0]["name"], "Site 0");
    assert_eq!(page[99]["name"], "Site 99");
}

#[tokio::test]
async fn imports_are_private_and_need_an_account() {
    let app = spawn_app().await;
    let owner = app.new_user().await;
    let other = app.new_user().await;
    let zip = zip_of(&[("a.jpg", jpeg(64, 48))]);
    let body = import_status(
        &app,
        &owner,
        "",
        with_photos(csv("name,photo\nMine,a.jpg\n"), zip),
        200,
    )
    .await;
    let id = body["created"][0].as_str().unwrap();
    assert!(locations(&app, &other).await.is_empty());
    let response = app
        .api_send(Method::GET, &format!("/locations/{id}"), &other)
        .await;
    assert_api_error(response, 404, "not_found").await;
    assert_eq!(locations(&app, &owner).await.len(), 1);

    let response = app
        .client
        .post(app.url("/api/v1/locations/import"))
        .multipart(csv("name\nA\n"))
        .send()
        .await
        .unwrap();
    assert_api_error(response, 401, "unauthorized").await;
    assert_eq!(locations(&app, &owner).await.len(), 1);
}

/// An inventory of `n` sites, each with its own photo, and the ZIP of those photos.
fn sites_with_photos(n: usize) -> Form {
    let mut text = String::from("name,photo\n");
    let mut entries = Vec::new();
    for i in 0..n {
        text.push_str(&format!("Site {i},site-{i}.png\n"));
        entries.push((format!("site-{i}.png"), png(40 + i as u32, 30)));
    }
    let entries: Vec<(&str, Vec<u8>)> = entries
        .iter()
        .map(|(n, d)| (n.as_str(), d.clone()))
        .collect();
    with_photos(csv(&text), zip_of(&entries))
}

#[tokio::test]
async fn each_photo_of_an_import_counts_as_an_upload() {
    // The review's replay: 15 photos when 10 uploads are left. One upload token used to
    // decode them all.
    let app = spawn_app_with(|config| config.rate_limit_uploads = 11).await;
    let user = app.new_user().await;
    let response = import(&app, &user, "?dry_run=true", sites_with_photos(15)).await;
    assert!(response.headers().contains_key("retry-after"));
    assert_api_error(response, 429, "rate_limited").await;
    assert_eq!(app.media_rows().await, 0);
    // All or none: the refused photos took nothing, so 5 now fit (the request and 5 photos
    // of the 10 left)...
    let body = import_status(&app, &user, "", sites_with_photos(5), 200).await;
    assert_eq!(body["created"].as_array().unwrap().len(), 5);
    // ...and what is left (4, or 5 should a slow machine see one come back) is not enough for
    // 6 photos and their request.
    let response = import(&app, &user, "", sites_with_photos(6)).await;
    assert_api_error(response, 429, "rate_limited").await;
}

#[tokio::test]
async fn photos_per_import_and_locations_per_workspace_are_capped() {
    let app = spawn_app_with(|config| {
        config.import_max_photos = 3;
        config.max_locations_per_workspace = 4;
    })
    .await;
    let user = app.new_user().await;
    let body = import_status(&app, &user, "?dry_run=true", sites_with_photos(4), 422).await;
    assert_eq!(body["details"]["fields"], json!({"photos": "too_many"}));
    assert_eq!(body["details"]["max_photos"], 3);
    import_status(&app, &user, "", csv("name\nA\nB\nC\n"), 200).await;
    // Two more would make five.
    let response = import(&app, &user, "", csv("name\nD\nE\n")).await;
    let body = assert_api_error(response, 409, "limit_reached").await;
    assert_eq!(body["details"], json!({"limit": "locations", "max": 4}));
    // One more fits, by the API as by an import; then none.
    let one = app
        .api_json(Method::POST, "/locations", &user, &json!({"name": "D"}))
        .await;
    assert_eq!(one.status(), 201);
    let response = app
        .api_json(Method::POST, "/locations", &user, &json!({"name": "E"}))
        .await;
    assert_api_error(response, 409, "limit_reached").await;
    assert_eq!(locations(&app, &user).await.len(), 4);
}

#[tokio::test]
async fn an_imported_format_is_stored_as_its_one_value() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let text = "nom;format\nA;12m2\nB;Panneau 12 m²\nC;8 m²\nD;billboard_8m2\nE;48 sheet\n";
    let body = import_status(&app, &user, "", csv(text), 200).await;
    let mut formats = Vec::new();
    for id in body["created"].as_array().unwrap() {
        let site = location(&app, &user, id).await;
        formats.push((
            site["format"].as_str().unwrap().to_owned(),
            site["panel_width_cm"].as_i64(),
            site["panel_height_cm"].as_i64(),
        ));
    }
    let expected = [
        ("billboard_4x3", 400, 300),
        ("billboard_4x3", 400, 300),
        ("billboard_320x240", 320, 240),
        ("billboard_320x240", 320, 240),
        ("uk_48_sheet", 610, 305),
    ];
    assert_eq!(
        formats,
        expected
            .iter()
            .map(|&(f, w, h)| (f.to_owned(), Some(w), Some(h)))
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn daily_contacts_are_imported_however_planners_group_them() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let text = "nom;contacts_jour;source_audience\nA;10 000;Affimétrie 2026\nB;4.000;comptage\nC;12,000;\nD;;\n";
    let body = import_status(&app, &user, "", csv(text), 200).await;
    let mut got = Vec::new();
    for id in body["created"].as_array().unwrap() {
        let site = location(&app, &user, id).await;
        got.push((
            site["daily_contacts"].as_i64(),
            site["audience_source"].as_str().map(str::to_owned),
        ));
    }
    assert_eq!(
        got,
        vec![
            (Some(10_000), Some("Affimétrie 2026".to_owned())),
            (Some(4_000), Some("comptage".to_owned())),
            (Some(12_000), None),
            (None, None),
        ]
    );
    // A count with decimals, or negative, is refused with the field's code, on its row.
    let text = "nom;contacts\nA;12,5\nB;-3\n";
    let body = import_status(&app, &user, "?dry_run=true", csv(text), 200).await;
    assert_eq!(
        body["errors"],
        json!([
            error(2, "daily_contacts", "invalid_type"),
            error(3, "daily_contacts", "out_of_range"),
        ])
    );
}
