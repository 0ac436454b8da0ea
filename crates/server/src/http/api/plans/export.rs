//! A plan's deliverables: `GET /plans/{id}/export.xlsx` (the sites and the totals, one row
//! each, numbers as numbers) and `GET /plans/{id}/export.pdf` (branded: a cover with the
//! totals, then a page per site with its render, its attention in the first second and its
//! texts' legibility). In French unless `?lang=en`.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use rust_xlsxwriter::{Format, FormatAlign, Workbook};
use serde::Deserialize;
use utoipa::IntoParams;

use super::super::activity::record;
use super::super::body::{Id, IdPath};
use super::super::error::ApiError;
use super::super::input::Member;
use super::super::query::{Param, Params};
use super::super::reports::slug;
use super::{Plan, SiteAnswer, answer, find};
use crate::assistant::Locale;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::i18n::t;
use crate::reports::pdf::{PlanReport, PlanSiteReport, PlanText};
use crate::state::AppState;
use crate::storage::StorageKey;

/// The query of a plan's exports.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct ExportQuery {
    /// The language: `fr` (the default) or `en`.
    #[serde(default)]
    #[param(inline, value_type = Option<Locale>)]
    lang: Param<Locale>,
}

/// A download named after the plan.
fn download(name: &str, extension: &str, mime: &'static str, bytes: Vec<u8>) -> Response {
    let slug = slug(name);
    let file = if slug.is_empty() {
        format!("regard-plan.{extension}")
    } else {
        format!("regard-plan-{slug}.{extension}")
    };
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{file}\""))
        .unwrap_or(HeaderValue::from_static("attachment"));
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(mime)),
            (header::CONTENT_DISPOSITION, disposition),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, no-store"),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// Records the export of a plan in the workspace's activity.
async fn exported(state: &AppState, user: &Member, plan: &Plan) {
    record(
        state,
        user,
        ActivityAction::Exported,
        ActivitySubject::Plan,
        &plan.id,
        Some(&plan.name),
    )
    .await;
}

/// The main text's legibility in words: yes, no, or unknown (no viewing conditions).
fn legible_words(lang: Locale, legible: Option<bool>) -> String {
    match legible {
        Some(true) => t(lang, "plans.legible.yes", &[]),
        Some(false) => t(lang, "plans.legible.no", &[]),
        None => t(lang, "plans.legible.unknown", &[]),
    }
}

/// The plan as a workbook: a header row, a row per site, a totals row.
pub fn workbook(plan: &Plan, lang: Locale) -> Result<Vec<u8>, rust_xlsxwriter::XlsxError> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.set_name(t(lang, "plans.export.sheet", &[]))?;
    let bold = Format::new().set_bold();
    let head = Format::new()
        .set_bold()
        .set_text_wrap()
        .set_align(FormatAlign::Top);
    let whole = Format::new().set_num_format("#,##0");
    let seconds = Format::new().set_num_format("0.0");
    let columns = [
        ("name", 32.0),
        ("address", 32.0),
        ("city", 18.0),
        ("format", 30.0),
        ("dailyContacts", 14.0),
        ("contacts", 14.0),
        ("noticed", 16.0),
        ("timeInView", 14.0),
        ("legible", 16.0),
    ];
    for (col, (key, width)) in columns.iter().enumerate() {
        let col = col as u16;
        sheet.set_column_width(col, *width)?;
        sheet.write_string_with_format(
            0,
            col,
            t(lang, &format!("plans.export.columns.{key}"), &[]),
            &head,
        )?;
    }
    let mut row = 1u32;
    for site in &plan.sites {
        sheet.write_string(row, 0, &site.name)?;
        if let Some(address) = &site.address {
            sheet.write_string(row, 1, address)?;
        }
        if let Some(city) = &site.city {
            sheet.write_string(row, 2, city)?;
        }
        sheet.write_string(
            row,
            3,
            t(
                lang,
                &format!("locations.formats.{}", site.format.as_str()),
                &[],
            ),
        )?;
        let numbers = [
            (4u16, site.daily_contacts),
            (5, site.contacts),
            (6, site.noticed),
        ];
        for (col, value) in numbers {
            if let Some(value) = value {
                sheet.write_number_with_format(row, col, value as f64, &whole)?;
            }
        }
        if let Some(s) = site.time_in_view_s {
            sheet.write_number_with_format(row, 7, s, &seconds)?;
        }
        sheet.write_string(row, 8, legible_words(lang, site.legible))?;
        row += 1;
    }
    sheet.write_string_with_format(row, 0, t(lang, "plans.export.total", &[]), &bold)?;
    sheet.write_string_with_format(
        row,
        3,
        t(
            lang,
            "plans.export.days",
            &[("count", &plan.totals.days.to_string())],
        ),
        &bold,
    )?;
    let bold_whole = Format::new().set_bold().set_num_format("#,##0");
    sheet.write_number_with_format(row, 5, plan.totals.contacts as f64, &bold_whole)?;
    if let Some(noticed) = plan.totals.noticed {
        sheet.write_number_with_format(row, 6, noticed as f64, &bold_whole)?;
    }
    sheet.set_freeze_panes(1, 0)?;
    book.save_to_buffer()
}

/// `GET /plans/{id}/export.xlsx?lang=fr|en` → the plan's sites and totals as a workbook.
#[utoipa::path(
    get,
    path = "/plans/{id}/export.xlsx",
    tag = "plans",
    params(("id" = String, Path, description = "The plan's id"), ExportQuery),
    responses((status = 200, description = "The workbook", content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", body = Vec<u8>))
)]
pub(super) async fn xlsx(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Params(query): Params<ExportQuery>,
) -> Result<Response, ApiError> {
    let lang = query.lang.0.unwrap_or(Locale::Fr);
    let found = find(&state, &user, &id).await?;
    let (plan, _) = answer(&state, &user, &found).await?;
    let bytes = workbook(&plan, lang).map_err(ApiError::internal)?;
    exported(&state, &user, &plan).await;
    Ok(download(
        &plan.name,
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        bytes,
    ))
}

/// The preview of a site's render, read from storage (`None` when there is none or it cannot
/// be read: the page then says so).
async fn render_preview(state: &AppState, site: &SiteAnswer) -> Option<Vec<u8>> {
    let output = site.view.as_ref()?.output.as_ref()?;
    let key = StorageKey::new(&output.preview_key).ok()?;
    match state.storage.get_bytes(&key).await {
        Ok(bytes) => Some(bytes.to_vec()),
        Err(err) => {
            tracing::warn!(media_id = %output.id, error = %err, "a plan's render preview is unreadable");
            None
        }
    }
}

/// `GET /plans/{id}/export.pdf?lang=fr|en` → the plan as a branded A4 PDF.
#[utoipa::path(
    get,
    path = "/plans/{id}/export.pdf",
    tag = "plans",
    params(("id" = String, Path, description = "The plan's id"), ExportQuery),
    responses((status = 200, description = "The plan as a PDF", content_type = "application/pdf", body = Vec<u8>))
)]
pub(super) async fn pdf(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Params(query): Params<ExportQuery>,
) -> Result<Response, ApiError> {
    let lang = query.lang.0.unwrap_or(Locale::Fr);
    let found = find(&state, &user, &id).await?;
    let (plan, sites) = answer(&state, &user, &found).await?;
    let mut pages = Vec::with_capacity(sites.len());
    for site in &sites {
        let texts = site
            .legibility
            .as_ref()
            .map(|l| {
                l.texts
                    .iter()
                    .filter(|t| t.shown >= 0.5)
                    .map(|t| PlanText {
                        letter_mm: t.letter_height_mm,
                        legible_m: t.legible_distance_m,
                        comfortable_m: t.comfortable_distance_m,
                        reading: t.reading.map(|r| r.as_str()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        pages.push(PlanSiteReport {
            name: site.body.name.clone(),
            place: [site.body.address.as_deref(), site.body.city.as_deref()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", "),
            format: t(
                lang,
                &format!("locations.formats.{}", site.body.format.as_str()),
                &[],
            ),
            daily_contacts: site.body.daily_contacts,
            contacts: site.body.contacts,
            noticed: site.body.noticed,
            first_second: site.body.first_second_probability,
            time_in_view_s: site.body.time_in_view_s,
            legible: site.body.legible,
            render: render_preview(&state, site).await,
            texts,
        });
    }
    let report = PlanReport {
        lang,
        name: plan.name.clone(),
        creative: plan.creative_name.clone().unwrap_or_default(),
        start_date: plan.start_date.clone(),
        end_date: plan.end_date.clone(),
        days: plan.totals.days,
        contacts: plan.totals.contacts,
        noticed: plan.totals.noticed,
        generated_at: crate::db::now_ms(),
        brand: super::super::account::report_brand(&state, user.workspace_id()).await?,
        sites: pages,
    };
    let bytes = tokio::task::spawn_blocking(move || crate::reports::pdf::render_plan(&report))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    exported(&state, &user, &plan).await;
    Ok(download(&plan.name, "pdf", "application/pdf", bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::api::plans::{PlanSite, PlanTotals};
    use crate::plans::PlanStatus;
    use calamine::{Data, Reader, Xlsx};

    fn site(name: &str, daily: i64, noticed: Option<i64>) -> PlanSite {
        PlanSite {
            location_id: "l".into(),
            simulation_id: None,
            daily_contacts: Some(daily),
            contacts: Some(daily * 14),
            noticed,
            time_in_view_s: Some(2.5),
            legible: Some(true),
            name: name.into(),
            address: Some("1 rue de Rivoli".into()),
            city: Some("Paris".into()),
            format: super::super::PanelFormat::Billboard4x3,
            status: None,
            first_second_probability: None,
            render: None,
        }
    }

    #[test]
    fn the_workbook_lists_every_site_and_the_totals_as_numbers() {
        let plan = Plan {
            id: "p".into(),
            name: "Soldes".into(),
            creative_id: "c".into(),
            start_date: "2027-03-01".into(),
            end_date: "2027-03-14".into(),
            status: PlanStatus::Ready,
            sites: vec![
                site("Rivoli", 10_000, Some(42_000)),
                site("Nation", 4_000, Some(14_000)),
            ],
            totals: PlanTotals {
                locations: 2,
                days: 14,
                contacts: 196_000,
                noticed: Some(56_000),
            },
            creative_name: None,
            creative: None,
            created_at: String::new(),
            updated_at: String::new(),
        };
        let bytes = workbook(&plan, Locale::Fr).unwrap();
        let mut book = Xlsx::new(std::io::Cursor::new(bytes)).unwrap();
        let range = book.worksheet_range_at(0).unwrap().unwrap();
        let cell = |r: u32, c: u32| range.get_value((r, c)).cloned().unwrap_or(Data::Empty);
        assert_eq!(cell(1, 0), Data::String("Rivoli".into()));
        assert_eq!(cell(2, 0), Data::String("Nation".into()));
        assert_eq!(cell(1, 3), Data::String("Panneau 4 × 3 m (12 m²)".into()));
        assert_eq!(cell(1, 4), Data::Float(10_000.0));
        assert_eq!(cell(2, 5), Data::Float(56_000.0));
        assert_eq!(cell(3, 5), Data::Float(196_000.0));
        assert_eq!(cell(3, 6), Data::Float(56_000.0));
        assert_eq!(cell(1, 7), Data::Float(2.5));
    }
}
