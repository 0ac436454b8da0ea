//! The simulations of a campaign plan (`/plans`): for each of its locations, the simulation of
//! its creative there, reused when the library has one (a rendered one first) or made with
//! the default settings; rendered when it is not, and its render's attention analysed (the
//! plan's noticed contacts come from it).

use super::*;
use crate::db::plans::SiteRow;

/// Checks that the plan's locations can be rendered (each found, with a photo and a panel
/// outline big enough), reporting under `key`; the locations in order, or `None` when one is
/// refused (the problem is added).
pub(in crate::http::api) async fn renderable_locations(
    state: &AppState,
    user: &Member,
    problems: &mut Problems,
    key: &str,
    ids: &[String],
) -> Result<Option<Vec<LocationWithPhoto>>, ApiError> {
    let template = new_row(user, "", "", true, 0);
    let mut locations = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(location) = find_location(state, user, problems, key, id).await? else {
            return Ok(None);
        };
        let mut probe = Problems::default();
        check_renderable(&mut probe, &template, &location);
        if probe.has("quad") {
            let code = if location.location.panel_quad.is_none() {
                FieldCode::RequiresQuad
            } else {
                FieldCode::TooSmall
            };
            problems.add(key, code);
            return Ok(None);
        }
        locations.push(location);
    }
    Ok(Some(locations))
}

/// The sites of a plan of `creative` on `locations`: each location's simulation of the
/// creative, the one a site already had (`kept`, by location) when it still exists, else one
/// the library has, else a new one (queued); drafts and failed renders are queued again. Once
/// the sites are saved, [`analyse_sites`] gives rendered ones the analysis they lack.
pub(in crate::http::api) async fn plan_sites(
    state: &AppState,
    user: &Member,
    creative: &CreativeWithMedia,
    locations: &[LocationWithPhoto],
    kept: &[SiteRow],
) -> Result<Vec<SiteRow>, ApiError> {
    let ctx = state.job_context();
    let owner = user.workspace_id();
    let now = db::now_ms();
    let mut sites = Vec::with_capacity(locations.len());
    let mut new = Vec::new();
    for (i, location) in locations.iter().enumerate() {
        let location_id = &location.location.id;
        let mut existing = None;
        if let Some(id) = kept
            .iter()
            .find(|s| &s.location_id == location_id)
            .and_then(|s| s.simulation_id.as_deref())
            && let Some(view) = sdb::find(&state.db, owner, id).await?
            && view.sim.creative_id == creative.creative.id
        {
            existing = Some(view);
        }
        if existing.is_none()
            && let Some((id, _)) =
                db::plans::reusable_simulation(&state.db, owner, &creative.creative.id, location_id)
                    .await?
        {
            existing = sdb::find(&state.db, owner, &id).await?;
        }
        let simulation_id = match existing {
            Some(view) => {
                let status = SimulationStatus::parse(&view.sim.status);
                if let Some(SimulationStatus::Draft | SimulationStatus::Failed) = status {
                    service::queue_render(&ctx, owner, &view.sim.id).await?;
                }
                view.sim.id
            }
            None => {
                let mut row = new_row(
                    user,
                    &creative.creative.id,
                    location_id,
                    true,
                    now + i as i64,
                );
                row.name = default_name(creative, location);
                let id = row.id.clone();
                new.push(NewSimulation {
                    row,
                    job_id: Some(uuid::Uuid::new_v4().to_string()),
                });
                id
            }
        };
        sites.push(SiteRow {
            location_id: location_id.clone(),
            simulation_id: Some(simulation_id),
        });
    }
    if !new.is_empty() {
        service::create(&ctx, owner, &new).await?;
        for n in &new {
            record(
                state,
                user,
                ActivityAction::Created,
                ActivitySubject::Simulation,
                &n.row.id,
                Some(&n.row.name),
            )
            .await;
        }
    }
    Ok(sites)
}

/// Queues the attention analysis of each site's render that has none, once the plan's sites
/// are saved: the renders that end later are analysed by the render job (it sees the plan's
/// site), those that ended before, here (reused ones, and any that ended while the plan was
/// being made).
pub(in crate::http::api) async fn analyse_sites(
    state: &AppState,
    user: &Member,
    sites: &[SiteRow],
) -> Result<(), ApiError> {
    let ctx = state.job_context();
    for id in sites.iter().filter_map(|s| s.simulation_id.as_deref()) {
        if let Some(view) = sdb::find(&state.db, user.workspace_id(), id).await?
            && SimulationStatus::parse(&view.sim.status) == Some(SimulationStatus::Done)
            && view.attention.is_none()
        {
            service::analyse_render(&ctx, &view).await;
        }
    }
    Ok(())
}
