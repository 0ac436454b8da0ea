//! PNG exports: `GET /heatmaps/{id}/items/{item_id}/export.png` and
//! `GET /heatmaps/{id}/compare.png` (docs/architecture/heatmaps.md, "Exports").

use image::RgbImage;
use reqwest::Method;
use serde_json::{Value, json};

use crate::fixtures::{jpeg, png};
use crate::helpers::{TestApp, User, assert_api_error, spawn_app, spawn_app_with};

async fn get(app: &TestApp, user: &User, path: &str) -> reqwest::Response {
    app.api_send(Method::GET, path, user).await
}

/// A PNG answer, decoded, with its file name.
async fn png_of(response: reqwest::Response) -> (RgbImage, String) {
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    let bytes = response.bytes().await.unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let img = image::load_from_memory(&bytes).unwrap().into_rgb8();
    (img, disposition)
}

/// Two done images (a creative 320 × 240 and a photo 240 × 320), with an area on the first.
async fn done_heatmap(app: &TestApp, user: &User) -> (Value, String, String) {
    let poster = app.upload_ok(user, "IMG_1.png", png(320, 240)).await;
    let other = app.upload_ok(user, "b.jpg", jpeg(240, 320)).await;
    app.creative_of(user, &poster, json!({"name": "Affiche été"}))
        .await;
    let mut events = app.events(user).await;
    let heatmap = app
        .heatmap(user, "Soldes d'hiver", &[&poster, &other])
        .await;
    let ids: Vec<String> = heatmap["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect();
    app.until_finished(&mut events, &[&ids[0], &ids[1]]).await;
    (heatmap, ids[0].clone(), ids[1].clone())
}

#[tokio::test]
async fn an_image_exports_as_heatmap_fog_or_side_by_side_with_its_areas() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (heatmap, first, _) = done_heatmap(&app, &user).await;
    let hid = heatmap["id"].as_str().unwrap();
    // The bare images (`caption=0`): the pixels of the views themselves.
    let path = |query: &str| {
        let query = if query.is_empty() {
            "?caption=0".to_owned()
        } else {
            format!("{query}&caption=0")
        };
        format!("/heatmaps/{hid}/items/{first}/export.png{query}")
    };

    let (overlay, name) = png_of(get(&app, &user, &path("")).await).await;
    assert_eq!((overlay.width(), overlay.height()), (320, 240));
    assert!(name.contains("regard-affiche-ete-overlay.png"), "{name}");
    let (faint, _) = png_of(get(&app, &user, &path("?view=overlay&opacity=0.1")).await).await;
    let (fog, name) = png_of(get(&app, &user, &path("?view=fog")).await).await;
    assert!(name.contains("-fog.png"));
    assert_ne!(overlay, faint, "the opacity changes the picture");
    assert_ne!(overlay, fog);
    // The first glance: its own overlay and fog, named as such.
    let (glance, name) = png_of(get(&app, &user, &path("?map=glance")).await).await;
    assert!(
        name.contains("regard-affiche-ete-overlay-glance.png"),
        "{name}"
    );
    assert_eq!((glance.width(), glance.height()), (320, 240));
    assert_ne!(glance, overlay, "the first glance is another map");
    let (explored, _) = png_of(get(&app, &user, &path("?map=exploration")).await).await;
    assert_eq!(explored, overlay, "exploration is the default map");
    let (glance_fog, name) = png_of(get(&app, &user, &path("?view=fog&map=glance")).await).await;
    assert!(name.contains("-fog-glance.png"), "{name}");
    assert_ne!(glance_fog, fog);
    let (three, name) = png_of(get(&app, &user, &path("?view=side_by_side")).await).await;
    assert!(name.contains("-side-by-side.png"));
    assert_eq!(three.height(), 240);
    assert!(three.width() > 3 * 320, "{}", three.width());

    // An area is outlined: its top edge changes, its inside does not.
    let response = app
        .api_json(
            Method::POST,
            &format!("/heatmaps/{hid}/items/{first}/aois"),
            &user,
            &json!({"name": "Logo", "rect": {"x": 0.25, "y": 0.25, "width": 0.5, "height": 0.5}}),
        )
        .await;
    assert_eq!(response.status(), 201);
    let (bare, _) = png_of(get(&app, &user, &path("?areas=0")).await).await;
    let (marked, _) = png_of(get(&app, &user, &path("?areas=1")).await).await;
    assert_ne!(
        bare.get_pixel(200, 60),
        marked.get_pixel(200, 60),
        "top edge drawn"
    );
    assert_eq!(
        bare.get_pixel(230, 150),
        marked.get_pixel(230, 150),
        "inside untouched"
    );
}

#[tokio::test]
async fn variants_export_side_by_side_at_one_height() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (heatmap, first, second) = done_heatmap(&app, &user).await;
    let hid = heatmap["id"].as_str().unwrap();
    let path = format!("/heatmaps/{hid}/compare.png?items={first},{second}&view=fog&caption=0");
    let (img, name) = png_of(get(&app, &user, &path).await).await;
    let glance = format!("{path}&map=glance");
    let (first_glance, glance_name) = png_of(get(&app, &user, &glance).await).await;
    assert!(
        glance_name.contains("-compare-fog-glance.png"),
        "{glance_name}"
    );
    assert_eq!(first_glance.dimensions(), img.dimensions());
    assert_ne!(first_glance, img);
    assert!(
        name.contains("regard-soldes-d-hiver-compare-fog.png"),
        "{name}"
    );
    // 320 × 240 and 240 × 320 brought to 240 high: 320 + 180, and a gap between.
    assert_eq!(img.height(), 240);
    assert!(img.width() > 500 && img.width() < 540, "{}", img.width());
}

/// By default an export carries a caption band under the image: the image unchanged above it,
/// text in the band (under each image of a comparison), the rule in the agency's colour once
/// it chose one.
#[tokio::test]
async fn exports_carry_a_caption_under_the_image_and_the_agencys_colour() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (heatmap, first, second) = done_heatmap(&app, &user).await;
    let hid = heatmap["id"].as_str().unwrap();
    let item = format!("/heatmaps/{hid}/items/{first}/export.png");
    let (bare, _) = png_of(get(&app, &user, &format!("{item}?caption=0")).await).await;
    let (captioned, _) = png_of(get(&app, &user, &item).await).await;
    assert_eq!(captioned.width(), bare.width());
    assert!(
        captioned.height() > bare.height() + 40,
        "{}",
        captioned.height()
    );
    let top = image::imageops::crop_imm(&captioned, 0, 0, bare.width(), bare.height()).to_image();
    assert_eq!(top, bare, "the image itself is unchanged above the band");
    let inked = |img: &RgbImage, x: std::ops::Range<u32>, y0: u32| {
        (y0..img.height())
            .flat_map(|y| x.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| img.get_pixel(x, y).0.iter().all(|&c| c < 160))
            .count()
    };
    assert!(
        inked(&captioned, 0..captioned.width(), bare.height() + 4) > 100,
        "text in the band"
    );
    // Regard's blue rule, then the agency's colour.
    assert_eq!(captioned.get_pixel(5, bare.height()).0, [29, 78, 216]);
    let english = get(&app, &user, &format!("{item}?lang=en")).await;
    let (english, _) = png_of(english).await;
    assert_ne!(english, captioned, "the caption follows the language");
    let response = app
        .api_json(
            Method::PUT,
            "/account/branding",
            &user,
            &json!({"agency_name": "Agence Lumière", "accent_color": "#c2410c"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let (branded, _) = png_of(get(&app, &user, &item).await).await;
    assert_eq!(branded.get_pixel(5, bare.height()).0, [194, 65, 12]);
    assert!(
        branded.height() > captioned.height(),
        "a signature line is added"
    );

    // A comparison: a caption under each image.
    let compare = format!("/heatmaps/{hid}/compare.png?items={first},{second}");
    let (bare, _) = png_of(get(&app, &user, &format!("{compare}&caption=0")).await).await;
    let (captioned, _) = png_of(get(&app, &user, &compare).await).await;
    assert!(captioned.height() > bare.height());
    let half = captioned.width() / 2;
    assert!(inked(&captioned, 0..half - 20, bare.height() + 4) > 100);
    assert!(inked(&captioned, half + 20..captioned.width(), bare.height() + 4) > 100);
}

#[tokio::test]
async fn bad_exports_get_clear_errors() {
    let app = spawn_app().await;
    let (user, other) = (app.new_user().await, app.new_user().await);
    let (heatmap, first, second) = done_heatmap(&app, &user).await;
    let hid = heatmap["id"].as_str().unwrap();
    let item = |query: &str| format!("/heatmaps/{hid}/items/{first}/export.png{query}");

    for (query, field, code) in [
        ("?view=sepia", "view", "invalid"),
        ("?opacity=2", "opacity", "out_of_range"),
        ("?opacity=much", "opacity", "invalid_type"),
        ("?areas=maybe", "areas", "invalid_type"),
        ("?map=first", "map", "invalid"),
        ("?caption=maybe", "caption", "invalid_type"),
        ("?lang=de", "lang", "invalid_value"),
        ("?zoom=2", "zoom", "unknown_field"),
    ] {
        let body = assert_api_error(
            get(&app, &user, &item(query)).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(body["details"]["fields"][field], code, "{query}: {body}");
    }
    let compare = |query: &str| format!("/heatmaps/{hid}/compare.png{query}");
    for (query, code) in [
        (format!("?items={first}"), "too_few"),
        (
            format!("?items={first},{first},{first},{first},{first}"),
            "too_many",
        ),
        (
            format!("?items={first},{}", uuid::Uuid::new_v4()),
            "not_found",
        ),
    ] {
        let body = assert_api_error(
            get(&app, &user, &compare(&query)).await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(body["details"]["fields"]["items"], code, "{query}: {body}");
    }
    let body = assert_api_error(
        get(
            &app,
            &user,
            &compare(&format!("?items={first},{second}&view=side_by_side")),
        )
        .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(body["details"]["fields"]["view"], "invalid");

    // Someone else's heatmap is not found; nothing is exported without an account.
    assert_api_error(get(&app, &other, &item("")).await, 404, "not_found").await;
    let response = app
        .base_request(Method::GET, &format!("/api/v1{}", item("")))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
}

#[tokio::test]
async fn an_image_without_a_result_cannot_be_exported() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let media = app.upload_ok(&user, "a.png", png(64, 48)).await;
    let heatmap = app.heatmap(&user, "En attente", &[&media]).await;
    let (hid, item) = (
        heatmap["id"].as_str().unwrap(),
        heatmap["items"][0]["id"].as_str().unwrap(),
    );
    let response = get(
        &app,
        &user,
        &format!("/heatmaps/{hid}/items/{item}/export.png"),
    )
    .await;
    assert_api_error(response, 409, "not_done").await;
}

/// Exports take their memory from REGARD_RENDER_MEMORY_BUDGET before decoding: while it is in
/// use they wait for it up to REGARD_RENDER_WAIT_SECS, then answer 503 `unavailable` with
/// `Retry-After`; once it is free they are made.
#[tokio::test]
async fn exports_wait_for_the_render_budget_then_answer_503() {
    let app = spawn_app_with(|config| {
        config.render_memory_budget = 64;
        config.render_wait_secs = 0.0;
    })
    .await;
    let user = app.new_user().await;
    let (heatmap, first, second) = done_heatmap(&app, &user).await;
    let hid = heatmap["id"].as_str().unwrap();
    let paths = [
        format!("/heatmaps/{hid}/compare.png?items={first},{second}"),
        format!("/heatmaps/{hid}/items/{first}/export.png"),
        format!("/heatmaps/{hid}/report.pdf"),
    ];
    // Something else holds the whole budget: a burst is refused at once.
    let held = app.state.render_budget.acquire(u64::MAX).await.unwrap();
    let answers =
        futures::future::join_all(paths.iter().cycle().take(9).map(|p| get(&app, &user, p))).await;
    for response in answers {
        assert!(crate::helpers::retry_after(&response) >= 1);
        assert_api_error(response, 503, "unavailable").await;
    }
    drop(held);
    png_of(get(&app, &user, &paths[0]).await).await;
    assert_eq!(app.state.render_budget.available_mib(), Some(64));

    // With a wait, a burst queues for the budget and every export is made.
    let app = spawn_app_with(|config| {
        config.render_memory_budget = 64;
        config.render_wait_secs = 60.0;
    })
    .await;
    let user = app.new_user().await;
    let (heatmap, first, second) = done_heatmap(&app, &user).await;
    let hid = heatmap["id"].as_str().unwrap();
    let path = format!("/heatmaps/{hid}/compare.png?items={first},{second}");
    let answers = futures::future::join_all((0..6).map(|_| get(&app, &user, &path))).await;
    for response in answers {
        png_of(response).await;
    }
}
