//! `GET /heatmaps/{id}/report.pdf`: the PDF parses, has a cover and one page per image, and says
//! what the results page says, in French or English. Read back with poppler's `pdfinfo` and
//! `pdftotext` (the test command installs them).

use std::process::Command;

use reqwest::Method;
use serde_json::json;

use crate::fixtures::{jpeg, png};
use crate::helpers::{TestApp, User, assert_api_error, spawn_app};

/// Runs a poppler tool on PDF bytes; its standard output.
fn poppler(tool: &str, pdf: &[u8], extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new(tool)
        .args(extra)
        .arg(&path)
        .args(if tool == "pdftotext" {
            vec!["-"]
        } else {
            vec![]
        })
        .output()
        .unwrap_or_else(|err| panic!("{tool} is needed to read the reports back: {err}"));
    assert!(
        out.status.success(),
        "{tool}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

async fn report(app: &TestApp, user: &User, id: &str, lang: &str) -> reqwest::Response {
    app.api_send(
        Method::GET,
        &format!("/heatmaps/{id}/report.pdf?lang={lang}"),
        user,
    )
    .await
}

#[tokio::test]
async fn a_heatmap_report_is_a_pdf_with_a_cover_and_a_page_per_image_in_both_languages() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let poster = app.upload_ok(&user, "IMG_1.png", png(320, 240)).await;
    let other = app.upload_ok(&user, "variante-b.jpg", jpeg(240, 320)).await;
    app.creative_of(&user, &poster, json!({"name": "Affiche été"}))
        .await;
    let mut events = app.events(&user).await;
    let heatmap = app
        .heatmap(&user, "Campagne soldes", &[&poster, &other])
        .await;
    let hid = heatmap["id"].as_str().unwrap().to_owned();
    let items: Vec<String> = heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect();
    app.until_finished(&mut events, &[&items[0], &items[1]])
        .await;
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/items/{}/aois", items[0]),
            &user,
            &json!({"name": "Logo de la marque", "rect": {"x": 0.1, "y": 0.1, "width": 0.3, "height": 0.2}}),
        )
        .await;
    assert_eq!(response.status(), 201);

    let response = report(&app, &user, &hid, "fr").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/pdf");
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"regard-campagne-soldes.pdf\""
    );
    let pdf = response.bytes().await.unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let info = poppler("pdfinfo", &pdf, &[]);
    assert!(
        info.lines()
            .any(|l| l.starts_with("Pages:") && l.ends_with(" 4")),
        "cover, comparison and two images: {info}"
    );
    assert!(
        info.contains("Rapport d'attention — Campagne soldes"),
        "{info}"
    );
    let text = poppler("pdftotext", &pdf, &["-layout"]);
    for expected in [
        "Rapport d'attention",
        "Campagne soldes",
        "1. Affiche été",
        "2. variante-b",
        "Score d'attention",
        "Concentration",
        "Ordre de lecture prévu",
        "Zones d'intérêt",
        "1. Logo de la marque",
        "Aucune zone d'intérêt enregistrée sur cette image.",
        "Modèle d'attention v3",
        // An area's probability of a look within the first second.
        "Regardée dans la 1re seconde par",
        "Page 4 sur 4",
        // The comparison page: the measures side by side, the difference from the first image
        // and a verdict per measure, in the compare view's words.
        "Mesures comparées",
        "Écarts calculés par rapport à « Affiche été », la première image.",
        "« Logo de la marque » : part",
        "« Logo de la marque » n'existe que sur une image",
        "Verdict",
        // Where each result stands.
        "Repères",
        "Vos créations : pas encore assez de résultats (0 sur 5)",
        "Référence (OSIE) :",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }

    let pdf = report(&app, &user, &hid, "en").await.bytes().await.unwrap();
    let text = poppler("pdftotext", &pdf, &["-layout"]);
    for expected in [
        "Attention report",
        "Attention score",
        "Predicted viewing order",
        "Areas of interest",
        "Compared measures",
        "Benchmarks",
        "Page 1 of 4",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
    assert!(!text.contains("Score d'attention"));

    // One image's report: no comparison page, that image only.
    let path = format!("/heatmaps/{hid}/report.pdf?lang=en&items={}", items[1]);
    let response = app.api_send(Method::GET, &path, &user).await;
    assert_eq!(response.status(), 200);
    let pdf = response.bytes().await.unwrap();
    let info = poppler("pdfinfo", &pdf, &[]);
    assert!(
        info.lines()
            .any(|l| l.starts_with("Pages:") && l.ends_with(" 2")),
        "cover and one image: {info}"
    );
    let text = poppler("pdftotext", &pdf, &["-layout"]);
    assert!(text.contains("1. variante-b"), "{text}");
    assert!(!text.contains("Affiche été") && !text.contains("Compared measures"));
    // A chosen comparison, in the order given.
    let path = format!(
        "/heatmaps/{hid}/report.pdf?lang=en&items={},{}",
        items[1], items[0]
    );
    let pdf = app
        .api_send(Method::GET, &path, &user)
        .await
        .bytes()
        .await
        .unwrap();
    let text = poppler("pdftotext", &pdf, &["-layout"]);
    assert!(
        text.contains("Differences from “variante-b”, the first image."),
        "{text}"
    );
    let path = format!(
        "/heatmaps/{hid}/report.pdf?items={},{}",
        items[0],
        uuid::Uuid::new_v4()
    );
    let body = assert_api_error(
        app.api_send(Method::GET, &path, &user).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(body["details"]["fields"]["items"], "not_found");

    // Someone else's heatmap is not found.
    let stranger = app.new_user().await;
    assert_api_error(report(&app, &stranger, &hid, "fr").await, 404, "not_found").await;
}

/// What `GET /api/v1/shared/{token}` answers a visitor (no account).
async fn open_share(app: &TestApp, token: &str) -> serde_json::Value {
    app.client
        .get(format!("{}/api/v1/shared/{token}", app.address))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// An agency's branding: set and read back (validated), printed on the report's cover and in
/// every footer, shown on its share pages with a share-scoped logo, and on the report a share's
/// visitor downloads; the logo stays while it is the logo.
#[tokio::test]
async fn an_agencys_branding_signs_its_reports_and_share_pages() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let empty: serde_json::Value = app
        .api_send(Method::GET, "/account/branding", &user)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        empty,
        json!({"agency_name": null, "accent_color": null, "logo": null})
    );

    let logo = app.upload_ok(&user, "logo.png", png(300, 100)).await;
    let refused = app
        .api_json(
            Method::PUT,
            "/account/branding",
            &user,
            &json!({"agency_name": "x".repeat(81), "accent_color": "blue",
                    "logo_media_id": uuid::Uuid::new_v4().to_string()}),
        )
        .await;
    crate::helpers::assert_fields(
        refused,
        json!({"agency_name": "too_long", "accent_color": "invalid_value",
               "logo_media_id": "not_found"}),
    )
    .await;
    let stranger = app.new_user().await;
    let theirs = app.upload_ok(&stranger, "logo.png", png(30, 10)).await;
    let refused = app
        .api_json(
            Method::PUT,
            "/account/branding",
            &user,
            &json!({"logo_media_id": theirs["id"]}),
        )
        .await;
    crate::helpers::assert_fields(refused, json!({"logo_media_id": "not_found"})).await;

    let saved = app
        .api_json(
            Method::PUT,
            "/account/branding",
            &user,
            &json!({"agency_name": "Agence Lumière", "accent_color": " #C2410C ",
                    "logo_media_id": logo["id"]}),
        )
        .await;
    assert_eq!(saved.status(), 200);
    let saved: serde_json::Value = saved.json().await.unwrap();
    assert_eq!(saved["agency_name"], "Agence Lumière");
    assert_eq!(saved["accent_color"], "#c2410c");
    assert_eq!(saved["logo"]["id"], logo["id"]);
    // The logo cannot be deleted while it is the logo.
    let in_use = app
        .api_send(
            Method::DELETE,
            &format!("/media/{}", logo["id"].as_str().unwrap()),
            &user,
        )
        .await;
    assert_api_error(in_use, 409, "media_in_use").await;

    let poster = app.upload_ok(&user, "affiche.png", png(320, 240)).await;
    let mut events = app.events(&user).await;
    let heatmap = app.heatmap(&user, "Campagne", &[&poster]).await;
    let hid = heatmap["id"].as_str().unwrap().to_owned();
    let item = heatmap["items"][0]["id"].as_str().unwrap().to_owned();
    app.until_finished(&mut events, &[&item]).await;
    let pdf = report(&app, &user, &hid, "fr").await.bytes().await.unwrap();
    let text = poppler("pdftotext", &pdf, &["-layout"]);
    assert!(text.contains("Agence Lumière"), "{text}");
    assert!(
        text.contains("Agence Lumière · Regard ·"),
        "in the footer: {text}"
    );
    let images = poppler("pdfimages", &pdf, &["-list"]);
    // The logo (300 × 100, drawn from its preview) is one of the images.
    assert!(
        images.lines().any(|l| l.contains(" 300   100 ")),
        "{images}"
    );

    // The share page shows the branding; the report of a share needs no account.
    let link: serde_json::Value = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/shares"),
            &user,
            &json!({}),
        )
        .await
        .json()
        .await
        .unwrap();
    let token = link["token"].as_str().unwrap();
    let shared = open_share(&app, token).await;
    assert_eq!(shared["branding"]["agency_name"], "Agence Lumière");
    assert_eq!(shared["branding"]["accent_color"], "#c2410c");
    let logo_url = shared["branding"]["logo_url"].as_str().unwrap();
    assert!(logo_url.contains("&share="), "{logo_url}");
    let served = app
        .client
        .get(format!("{}{logo_url}", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    let visitor = app
        .client
        .get(format!(
            "{}/api/v1/shared/{token}/report.pdf?lang=en",
            app.address
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(visitor.status(), 200);
    assert_eq!(visitor.headers()["content-type"], "application/pdf");
    let text = poppler("pdftotext", &visitor.bytes().await.unwrap(), &["-layout"]);
    assert!(text.contains("Attention report"), "{text}");
    assert!(text.contains("Agence Lumière"), "{text}");
    let gone = app
        .client
        .get(format!(
            "{}/api/v1/shared/{}/report.pdf",
            app.address,
            "x".repeat(32)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);

    // Cleared: the reports and the share pages go back to plain.
    let cleared = app
        .api_json(Method::PUT, "/account/branding", &user, &json!({}))
        .await;
    assert_eq!(cleared.status(), 200);
    let shared = open_share(&app, token).await;
    assert_eq!(shared["branding"], serde_json::Value::Null);
}
