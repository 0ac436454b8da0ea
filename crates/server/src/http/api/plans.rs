//! Campaign plans: `POST /plans`, `GET /plans?limit=&cursor=&q=`, `GET`/`PATCH`/`DELETE
//! /plans/{id}`, and the deliverables `GET /plans/{id}/export.xlsx` and `export.pdf`
//! (`plan_export`). A plan is one creative on a set of locations between two dates; it makes
//! (or reuses) each site's simulation of the creative, renders it and analyses the render's
//! attention, and answers the sites' contacts and noticed contacts (crate::plans,
//! docs/architecture/plans.md).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Body, FromField, Id, IdList, IdPath, Line, Patch, Problems, Ref};
use super::error::ApiError;
use super::input::{ListParams, ListQuery, Member, Paged, rfc3339};
use super::locations::PanelFormat;
use super::media::{Media, media_body, now_secs};
use super::simulations::{
    ReadingCode, SimulationLegibility, SimulationStatus, analyse_sites, plan_sites,
    renderable_locations,
};
use crate::codes::FieldCode;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::plans::{PlanRow, PlanWithSites};
use crate::db::simulations::SimulationView;
use crate::db::{self};
use crate::heatmaps::ItemStatus;
use crate::plans::{self as rules, PlanStatus, SiteFacts, SiteState};
use crate::state::AppState;

mod export;

/// Most sites in one plan.
pub const MAX_SITES: usize = 200;
/// Longest plan name, in characters.
pub const MAX_NAME: usize = 200;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get_one, update, delete_one))
        .routes(routes!(export::xlsx))
        .routes(routes!(export::pdf))
}

/// A plan's date: `YYYY-MM-DD` (`invalid_value` otherwise).
#[derive(Debug, Clone, Copy, PartialEq)]
struct PlanDate(chrono::NaiveDate);

impl FromField for PlanDate {
    fn from_field(value: Value) -> Result<Option<Self>, FieldCode> {
        match value {
            Value::Null => Ok(None),
            Value::String(text) if text.trim().is_empty() => Ok(None),
            Value::String(text) => rules::parse_date(text.trim())
                .map(|d| Some(PlanDate(d)))
                .ok_or(FieldCode::InvalidValue),
            _ => Err(FieldCode::InvalidType),
        }
    }
}

/// The body of `POST /plans`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct NewPlan {
    /// At most 200 characters.
    #[serde(default)]
    #[schema(value_type = String, max_length = 200, format = "name", required = true)]
    name: Patch<Line<MAX_NAME>>,
    /// The creative the plan shows on every site.
    #[serde(default)]
    #[schema(value_type = uuid::Uuid, required = true)]
    creative_id: Patch<Ref>,
    /// 1 to 200 locations, each with a photo and a panel outline, in the plan's order.
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 200, required = true)]
    location_ids: Patch<IdList<MAX_SITES>>,
    /// The first day, `YYYY-MM-DD`.
    #[serde(default)]
    #[schema(value_type = String, format = Date, required = true)]
    start_date: Patch<PlanDate>,
    /// The last day, `YYYY-MM-DD`, not before `start_date`.
    #[serde(default)]
    #[schema(value_type = String, format = Date, required = true)]
    end_date: Patch<PlanDate>,
}

/// The body of `PATCH /plans/{id}`: absent fields stay; none can be cleared.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct PlanChanges {
    /// At most 200 characters.
    #[serde(default)]
    #[schema(value_type = String, max_length = 200, format = "name")]
    name: Patch<Line<MAX_NAME>>,
    /// Another creative: each site gets its simulation of it.
    #[serde(default)]
    #[schema(value_type = uuid::Uuid)]
    creative_id: Patch<Ref>,
    /// The sites, in order (1 to 200): sites kept keep their simulation.
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 200)]
    location_ids: Patch<IdList<MAX_SITES>>,
    /// `YYYY-MM-DD`.
    #[serde(default)]
    #[schema(value_type = String, format = Date)]
    start_date: Patch<PlanDate>,
    /// `YYYY-MM-DD`, not before `start_date`.
    #[serde(default)]
    #[schema(value_type = String, format = Date)]
    end_date: Patch<PlanDate>,
}

/// A site of a plan: a location, its simulation of the plan's creative and its figures over
/// the plan's days.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlanSite {
    pub location_id: String,
    /// The site's simulation (`null` once deleted: change the plan's sites to make another).
    pub simulation_id: Option<String>,
    /// The location's contacts a day; `null` when unknown.
    pub daily_contacts: Option<i64>,
    /// `daily_contacts × days`.
    pub contacts: Option<i64>,
    /// The contacts who look at the panel within the first second over the plan's days:
    /// the rendered simulation's `audience.noticed_per_day × days`; `null` until it is
    /// rendered and analysed, or without contacts.
    pub noticed: Option<i64>,
    /// Seconds the main text can be read on the approach (docs/viewing.md); `null` without
    /// viewing conditions or a panel size.
    pub time_in_view_s: Option<f64>,
    /// Whether the main text can be read from the viewer's path at all (from the nearest
    /// viewing distance on); `null` without viewing conditions or a panel size.
    pub legible: Option<bool>,
    /// The location's name, city and format, for lists and exports.
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
    pub format: PanelFormat,
    /// Where the site's simulation is (`null` without one).
    pub status: Option<SimulationStatus>,
    /// The probability that a passer-by looks at the panel within the first second, once the
    /// render is analysed.
    pub first_second_probability: Option<f64>,
    /// The render's thumbnail and preview, once rendered.
    pub render: Option<Media>,
}

/// A plan's totals.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct PlanTotals {
    /// How many sites.
    pub locations: i64,
    /// Days from `start_date` to `end_date`, both counted.
    pub days: i64,
    /// The sites' contacts (those with daily contacts).
    pub contacts: i64,
    /// The sites' noticed contacts; `null` until every site with contacts is rendered and
    /// analysed.
    pub noticed: Option<i64>,
}

/// A campaign plan.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Plan {
    pub id: String,
    pub name: String,
    pub creative_id: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    /// `YYYY-MM-DD`.
    pub end_date: String,
    pub status: PlanStatus,
    /// In the plan's order.
    pub sites: Vec<PlanSite>,
    pub totals: PlanTotals,
    /// The creative's name and image (`null` only while it is being deleted).
    pub creative_name: Option<String>,
    pub creative: Option<Media>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
}

/// A site as the plan answers it, with the facts its totals are made of.
pub(super) struct SiteAnswer {
    pub body: PlanSite,
    pub facts: SiteFacts,
    /// The simulation, for the exports.
    pub view: Option<SimulationView>,
    /// The creative's texts on the site's panel, as the simulation answers them (for the PDF).
    pub legibility: Option<SimulationLegibility>,
}

/// Where a site's simulation is, for the plan: rendered and analysed, pending, or failed.
fn site_state(view: Option<&SimulationView>) -> SiteState {
    let Some(view) = view else {
        return SiteState::Failed;
    };
    match SimulationStatus::parse(&view.sim.status) {
        Some(SimulationStatus::Failed) => SiteState::Failed,
        Some(SimulationStatus::Done) => match view
            .attention
            .as_ref()
            .and_then(|a| ItemStatus::parse(&a.status))
        {
            Some(ItemStatus::Done) => SiteState::Ready,
            Some(ItemStatus::Failed) => SiteState::Failed,
            _ => SiteState::Pending,
        },
        _ => SiteState::Pending,
    }
}

/// Gathers a plan's sites and figures.
pub(super) async fn answer(
    state: &AppState,
    user: &Member,
    found: &PlanWithSites,
) -> Result<(Plan, Vec<SiteAnswer>), ApiError> {
    let owner = user.workspace_id();
    let signer = state.signer.for_member(user.user_id());
    let now = now_secs();
    let plan = &found.plan;
    let days = match (
        rules::parse_date(&plan.start_date),
        rules::parse_date(&plan.end_date),
    ) {
        (Some(start), Some(end)) => rules::days(start, end),
        _ => return Err(ApiError::internal("a stored plan's dates do not parse")),
    };
    let creative = db::creatives::find(&state.db, owner, &plan.creative_id).await?;
    let mut sites = Vec::with_capacity(found.sites.len());
    for site in &found.sites {
        let view = match &site.simulation_id {
            Some(id) => crate::db::simulations::find(&state.db, owner, id).await?,
            None => None,
        };
        let location = db::locations::find(&state.db, owner, &site.location_id).await?;
        let sim_body = view
            .as_ref()
            .map(|v| super::simulations::simulation_body(&signer, v, now));
        let legibility = match &view {
            Some(v) => super::simulations::legibility(state, v).await,
            None => None,
        };
        let main = legibility
            .as_ref()
            .and_then(|l| l.texts.iter().find(|t| t.shown >= 0.5));
        let l = location.map(|found| found.location).unwrap_or_default();
        let daily_contacts = l.daily_contacts;
        let first_second = sim_body
            .as_ref()
            .and_then(|s| s.attention.as_ref())
            .and_then(|a| a.first_second_probability);
        let facts = SiteFacts {
            daily_contacts,
            noticed_per_day: sim_body.as_ref().and_then(|s| s.audience.noticed_per_day),
            state: site_state(view.as_ref()),
        };
        let figures = rules::site_figures(&facts, days);
        sites.push(SiteAnswer {
            body: PlanSite {
                location_id: site.location_id.clone(),
                simulation_id: view.as_ref().map(|v| v.sim.id.clone()),
                daily_contacts,
                contacts: figures.contacts,
                noticed: figures.noticed,
                time_in_view_s: legibility
                    .as_ref()
                    .and_then(|l| l.viewing)
                    .map(|v| v.time_in_view_s),
                legible: main
                    .and_then(|t| t.reading)
                    .map(|r| r != ReadingCode::Never),
                name: l.name,
                address: l.address,
                city: l.city,
                format: PanelFormat::parse(&l.format).unwrap_or(PanelFormat::Other),
                status: sim_body.as_ref().map(|s| s.status),
                first_second_probability: first_second,
                render: sim_body.and_then(|s| s.output),
            },
            facts,
            view,
            legibility,
        });
    }
    let facts: Vec<SiteFacts> = sites.iter().map(|s| s.facts).collect();
    let totals = rules::totals(&facts, days);
    Ok((
        Plan {
            id: plan.id.clone(),
            name: plan.name.clone(),
            creative_id: plan.creative_id.clone(),
            start_date: plan.start_date.clone(),
            end_date: plan.end_date.clone(),
            status: rules::status(&facts),
            sites: sites.iter().map(|s| s.body.clone()).collect(),
            totals: PlanTotals {
                locations: totals.locations,
                days: totals.days,
                contacts: totals.contacts,
                noticed: totals.noticed,
            },
            creative_name: creative.as_ref().map(|c| c.creative.name.clone()),
            creative: creative
                .as_ref()
                .map(|c| media_body(&signer, &c.media, now)),
            created_at: rfc3339(plan.created_at),
            updated_at: rfc3339(plan.updated_at),
        },
        sites,
    ))
}

async fn find(state: &AppState, user: &Member, id: &str) -> Result<PlanWithSites, ApiError> {
    db::plans::find(&state.db, user.workspace_id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// Checks that the end is not before the start (`end_date: out_of_range`).
fn check_period(problems: &mut Problems, start: Option<PlanDate>, end: Option<PlanDate>) {
    if let (Some(PlanDate(start)), Some(PlanDate(end))) = (start, end)
        && end < start
    {
        problems.add("end_date", FieldCode::OutOfRange);
    }
}

/// `POST /plans` → 201 `Plan`: the plan, each site's simulation of the creative made (or a
/// rendered one reused) and queued for its render and attention analysis.
#[utoipa::path(
    post,
    path = "/plans",
    tag = "plans",
    request_body = NewPlan,
    responses((status = 201, description = "The new plan", body = Plan))
)]
async fn create(
    State(state): State<AppState>,
    user: Member,
    Body(body, mut problems): Body<NewPlan>,
) -> Result<(StatusCode, Json<Plan>), ApiError> {
    let name = problems.required("name", body.name).map(|Line(n)| n);
    let creative_id = problems.required("creative_id", body.creative_id);
    let location_ids = problems
        .required("location_ids", body.location_ids)
        .map(|ids| ids.0);
    let start = problems.required("start_date", body.start_date);
    let end = problems.required("end_date", body.end_date);
    check_period(&mut problems, start, end);
    let creative = match &creative_id {
        Some(Ref(id)) => {
            let found = db::creatives::find(&state.db, user.workspace_id(), id).await?;
            if found.is_none() {
                problems.add("creative_id", FieldCode::NotFound);
            }
            found
        }
        None => None,
    };
    let locations = match &location_ids {
        Some(ids) => {
            renderable_locations(&state, &user, &mut problems, "location_ids", ids).await?
        }
        None => None,
    };
    problems.finish()?;
    let (Some(name), Some(creative), Some(locations), Some(start), Some(end)) =
        (name, creative, locations, start, end)
    else {
        return Err(ApiError::internal(
            "plan validation let a missing field through",
        ));
    };
    let sites = plan_sites(&state, &user, &creative, &locations, &[]).await?;
    let now = db::now_ms();
    let row = PlanRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.workspace_id().to_owned(),
        name,
        creative_id: creative.creative.id.clone(),
        start_date: start.0.format("%Y-%m-%d").to_string(),
        end_date: end.0.format("%Y-%m-%d").to_string(),
        created_at: now,
        updated_at: now,
    };
    db::plans::insert(&state.db, &row, &sites).await?;
    analyse_sites(&state, &user, &sites).await?;
    record(
        &state,
        &user,
        ActivityAction::Created,
        ActivitySubject::Plan,
        &row.id,
        Some(&row.name),
    )
    .await;
    let found = find(&state, &user, &row.id).await?;
    let (plan, _) = answer(&state, &user, &found).await?;
    Ok((StatusCode::CREATED, Json(plan)))
}

/// `GET /plans?limit=&cursor=&q=` → `{items, next_cursor}`, newest first; `q` matches names.
#[utoipa::path(
    get,
    path = "/plans",
    tag = "plans",
    params(ListParams),
    responses((status = 200, description = "One page of plans, newest first", body = Paged<Plan>))
)]
async fn list(
    State(state): State<AppState>,
    user: Member,
    list: ListQuery,
) -> Result<Json<Paged<Plan>>, ApiError> {
    let rows = db::plans::list(
        &state.db,
        user.workspace_id(),
        list.page.limit,
        list.after(),
        &list.q,
    )
    .await?;
    let mut answered = Vec::with_capacity(rows.len());
    for row in rows {
        let (plan, _) = answer(&state, &user, &row).await?;
        answered.push((row, plan));
    }
    Ok(Json(list.page.paged(
        answered,
        |(row, _)| (row.plan.created_at, row.plan.id.as_str()),
        |(_, plan)| plan.clone(),
    )))
}

/// `GET /plans/{id}`.
#[utoipa::path(
    get,
    path = "/plans/{id}",
    tag = "plans",
    params(("id" = String, Path, description = "The plan's id")),
    responses((status = 200, description = "The plan", body = Plan))
)]
async fn get_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Plan>, ApiError> {
    let found = find(&state, &user, &id).await?;
    Ok(Json(answer(&state, &user, &found).await?.0))
}

/// `PATCH /plans/{id}`: absent fields stay. New sites (or a new creative) get their
/// simulations as `POST /plans` makes them; sites kept keep theirs.
#[utoipa::path(
    patch,
    path = "/plans/{id}",
    tag = "plans",
    params(("id" = String, Path, description = "The plan's id")),
    request_body = PlanChanges,
    responses((status = 200, description = "The plan, changed", body = Plan))
)]
async fn update(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
    Body(body, mut problems): Body<PlanChanges>,
) -> Result<Json<Plan>, ApiError> {
    let found = find(&state, &user, &id).await?;
    let mut row = found.plan.clone();
    if let Some(Line(name)) = problems.not_null("name", body.name) {
        row.name = name;
    }
    let stored = |text: &str| rules::parse_date(text).map(PlanDate);
    let start = problems
        .not_null("start_date", body.start_date)
        .or_else(|| stored(&row.start_date));
    let end = problems
        .not_null("end_date", body.end_date)
        .or_else(|| stored(&row.end_date));
    check_period(&mut problems, start, end);
    let creative_changed = body.creative_id.is_present();
    let creative = match problems.not_null("creative_id", body.creative_id) {
        Some(Ref(id)) => {
            let found = db::creatives::find(&state.db, user.workspace_id(), &id).await?;
            if found.is_none() {
                problems.add("creative_id", FieldCode::NotFound);
            }
            found
        }
        None => db::creatives::find(&state.db, user.workspace_id(), &row.creative_id).await?,
    };
    let new_ids = problems
        .not_null("location_ids", body.location_ids)
        .map(|ids| ids.0);
    let ids = new_ids
        .clone()
        .unwrap_or_else(|| found.sites.iter().map(|s| s.location_id.clone()).collect());
    let locations = if new_ids.is_some() || creative_changed {
        renderable_locations(&state, &user, &mut problems, "location_ids", &ids).await?
    } else {
        None
    };
    problems.finish()?;
    let sites = match (locations, &creative) {
        (Some(locations), Some(creative)) => {
            Some(plan_sites(&state, &user, creative, &locations, &found.sites).await?)
        }
        _ => None,
    };
    if let Some(creative) = &creative {
        row.creative_id = creative.creative.id.clone();
    }
    if let (Some(start), Some(end)) = (start, end) {
        row.start_date = start.0.format("%Y-%m-%d").to_string();
        row.end_date = end.0.format("%Y-%m-%d").to_string();
    }
    row.updated_at = db::now_ms().max(row.updated_at);
    if !db::plans::update(&state.db, &row, sites.as_deref()).await? {
        return Err(ApiError::not_found());
    }
    if let Some(sites) = &sites {
        analyse_sites(&state, &user, sites).await?;
    }
    record(
        &state,
        &user,
        ActivityAction::Changed,
        ActivitySubject::Plan,
        &row.id,
        Some(&row.name),
    )
    .await;
    let found = find(&state, &user, &row.id).await?;
    Ok(Json(answer(&state, &user, &found).await?.0))
}

/// `DELETE /plans/{id}` → 204. Its simulations stay in the library.
#[utoipa::path(
    delete,
    path = "/plans/{id}",
    tag = "plans",
    params(("id" = String, Path, description = "The plan's id")),
    responses((status = 204, description = "Deleted"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let found = find(&state, &user, &id).await?;
    if !db::plans::delete(&state.db, user.workspace_id(), &id).await? {
        return Err(ApiError::not_found());
    }
    record(
        &state,
        &user,
        ActivityAction::Deleted,
        ActivitySubject::Plan,
        &id,
        Some(&found.plan.name),
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}
