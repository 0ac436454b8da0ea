//! Locations: `POST /locations`, `GET /locations?limit=&cursor=&q=`, and
//! `GET`/`PATCH`/`DELETE /locations/{id}`. An out-of-home site: address, coordinates, panel
//! format, size and lighting, an optional photo and the panel's four corners in it.
//!
//! Every field is checked with a per-field code in `details.fields` (`required`, `too_long`,
//! `invalid_type`, `invalid_value`, `out_of_range`, `not_found`, and for the quad
//! `invalid_shape`, `self_intersecting`, `not_convex`, `not_clockwise`, `requires_photo`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{Body, Choice, Id, IdPath, Line, Lines, Patch, Problems, Ref, body_pair};
use super::error::ApiError;
use super::input::{ApiUser, ListParams, ListQuery, Paged, rfc3339};
use super::media::{Media, media_body, now_secs, release};
use crate::codes::FieldCode;
use crate::db::{self, locations::LocationRow, locations::LocationWithPhoto};
use crate::quad::{parse_quad, quad_json};
use crate::state::AppState;

wire_enum! {
    /// A panel's format.
    pub enum PanelFormat {
        /// 4 × 3 m billboard.
        Billboard4x3 = "billboard_4x3";
        /// 12 m² billboard.
        Billboard12m2 = "billboard_12m2";
        BusShelter = "bus_shelter";
        /// 2 m² street furniture (MUPI).
        Mupi2m2 = "mupi_2m2";
        DigitalScreen = "digital_screen";
        ShopWindow = "shop_window";
        Other = "other";
    }
}

wire_enum! {
    /// How a panel is lit.
    pub enum Illumination {
        None = "none";
        Front = "front";
        Back = "back";
        Digital = "digital";
    }
}

/// Largest panel side in centimetres (a kilometre: anything above is a typo).
pub const MAX_PANEL_CM: i64 = 100_000;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get_one, update, delete_one))
}

/// A corner of the panel in the photo, relative to its size (0..1, y downwards).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct QuadPoint {
    #[schema(minimum = 0, maximum = 1)]
    pub x: f64,
    #[schema(minimum = 0, maximum = 1)]
    pub y: f64,
}

/// An out-of-home site.
#[derive(Debug, Serialize, ToSchema)]
pub struct Location {
    pub id: String,
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    /// Degrees, north positive.
    pub latitude: Option<f64>,
    /// Degrees, east positive.
    pub longitude: Option<f64>,
    pub format: PanelFormat,
    pub panel_width_cm: Option<i64>,
    pub panel_height_cm: Option<i64>,
    pub illumination: Illumination,
    /// Which way the panel faces, in degrees from north, clockwise.
    pub orientation_deg: Option<f64>,
    pub photo_media_id: Option<String>,
    pub photo: Option<Media>,
    /// The panel's four corners in the photo, clockwise from the top left.
    pub panel_quad: Option<Vec<QuadPoint>>,
    pub notes: Option<String>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// How many simulations deleting it would also delete: on the answers about one location;
    /// `null` in lists.
    pub simulation_count: Option<i64>,
}

body_pair! {
    /// The body of `POST /locations`: the fields of [`LocationChanges`], `name` required.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct NewLocation {
        /// At most 200 characters.
        #[serde(default)]
        #[schema(value_type = String, max_length = 200, format = "name", required = true)]
        name: Patch<Line<200>>,
    }

    /// The body of `PATCH /locations/{id}`: absent fields stay, `null` clears one (not the name,
    /// the format or the illumination).
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    struct LocationChanges {
        /// At most 200 characters; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = String, max_length = 200, format = "name")]
        name: Patch<Line<200>>,
    }

    shared {
        /// At most 500 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 500, format = "line")]
        address: Patch<Line<500>>,
        /// At most 200 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 200, format = "line")]
        city: Patch<Line<200>>,
        /// At most 20 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 20, format = "line")]
        postal_code: Patch<Line<20>>,
        /// At most 100 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 100, format = "line")]
        country: Patch<Line<100>>,
        /// -90 to 90; given with `longitude`.
        #[serde(default)]
        #[schema(value_type = Option<f64>, minimum = -90, maximum = 90)]
        latitude: Patch<f64>,
        /// -180 to 180; given with `latitude`.
        #[serde(default)]
        #[schema(value_type = Option<f64>, minimum = -180, maximum = 180)]
        longitude: Patch<f64>,
        /// `other` by default; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = PanelFormat)]
        format: Patch<Choice<PanelFormat, 64>>,
        /// 1 to 100000.
        #[serde(default)]
        #[schema(value_type = Option<i64>, minimum = 1, maximum = 100000)]
        panel_width_cm: Patch<i64>,
        /// 1 to 100000.
        #[serde(default)]
        #[schema(value_type = Option<i64>, minimum = 1, maximum = 100000)]
        panel_height_cm: Patch<i64>,
        /// `none` by default; cannot be cleared.
        #[serde(default)]
        #[schema(value_type = Illumination)]
        illumination: Patch<Choice<Illumination, 64>>,
        /// 0 (inclusive) to 360 (exclusive).
        #[serde(default)]
        #[schema(value_type = Option<f64>, minimum = 0, exclusive_maximum = 360)]
        orientation_deg: Patch<f64>,
        /// An uploaded image of the caller's.
        #[serde(default)]
        #[schema(value_type = Option<uuid::Uuid>)]
        photo_media_id: Patch<Ref>,
        /// Four `{x, y}` points (or `[x, y]` pairs), convex, clockwise; needs a photo.
        #[serde(default)]
        #[schema(value_type = Option<Vec<QuadPoint>>, min_items = 4, max_items = 4)]
        panel_quad: Patch<serde_json::Value>,
        /// At most 5000 characters, several lines.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 5000, format = "lines")]
        notes: Patch<Lines<5000>>,
    }
}

impl From<NewLocation> for LocationChanges {
    fn from(new: NewLocation) -> Self {
        Self {
            name: new.name,
            address: new.address,
            city: new.city,
            postal_code: new.postal_code,
            country: new.country,
            latitude: new.latitude,
            longitude: new.longitude,
            format: new.format,
            panel_width_cm: new.panel_width_cm,
            panel_height_cm: new.panel_height_cm,
            illumination: new.illumination,
            orientation_deg: new.orientation_deg,
            photo_media_id: new.photo_media_id,
            panel_quad: new.panel_quad,
            notes: new.notes,
        }
    }
}

/// A stored quad (written by [`quad_json`]) as the answer's points.
pub fn stored_quad(text: &str) -> Option<Vec<QuadPoint>> {
    let points = crate::quad::read_stored(text)?;
    Some(points.iter().map(|&(x, y)| QuadPoint { x, y }).collect())
}

fn location_body(item: &LocationWithPhoto, now: u64, state: &AppState) -> Location {
    let l = &item.location;
    Location {
        id: l.id.clone(),
        name: l.name.clone(),
        address: l.address.clone(),
        city: l.city.clone(),
        postal_code: l.postal_code.clone(),
        country: l.country.clone(),
        latitude: l.latitude,
        longitude: l.longitude,
        format: PanelFormat::parse(&l.format).unwrap_or(PanelFormat::Other),
        panel_width_cm: l.panel_width_cm,
        panel_height_cm: l.panel_height_cm,
        illumination: Illumination::parse(&l.illumination).unwrap_or(Illumination::None),
        orientation_deg: l.orientation_deg,
        photo_media_id: l.photo_media_id.clone(),
        photo: item
            .photo
            .as_ref()
            .map(|m| media_body(&state.signer, m, now)),
        panel_quad: l.panel_quad.as_deref().and_then(stored_quad),
        notes: l.notes.clone(),
        created_at: rfc3339(l.created_at),
        updated_at: rfc3339(l.updated_at),
        simulation_count: None,
    }
}

/// Applies a create (`creating`) or update body onto a location row, checking every field
/// and the rules between them. The caller calls `problems.finish()`.
async fn apply_body(
    state: &AppState,
    user: &ApiUser,
    body: LocationChanges,
    problems: &mut Problems,
    row: &mut LocationRow,
    creating: bool,
) -> Result<(), ApiError> {
    match body.name {
        Patch::Value(Line(name)) => row.name = name,
        Patch::Null => problems.require("name"),
        Patch::Absent if creating => problems.require("name"),
        Patch::Absent => {}
    }
    row.address = body.address.map(|t| t.0).apply(row.address.take());
    row.city = body.city.map(|t| t.0).apply(row.city.take());
    row.postal_code = body.postal_code.map(|t| t.0).apply(row.postal_code.take());
    row.country = body.country.map(|t| t.0).apply(row.country.take());
    row.notes = body.notes.map(|t| t.0).apply(row.notes.take());
    row.latitude = problems
        .in_range("latitude", body.latitude, |v| (-90.0..=90.0).contains(&v))
        .apply(row.latitude);
    row.longitude = problems
        .in_range("longitude", body.longitude, |v| {
            (-180.0..=180.0).contains(&v)
        })
        .apply(row.longitude);
    match (row.latitude, row.longitude) {
        (Some(_), None) => problems.require("longitude"),
        (None, Some(_)) => problems.require("latitude"),
        _ => {}
    }
    if let Some(Choice(format)) = problems.not_null("format", body.format) {
        row.format = format.as_str().to_owned();
    }
    if let Some(Choice(illumination)) = problems.not_null("illumination", body.illumination) {
        row.illumination = illumination.as_str().to_owned();
    }
    let side = |v: i64| (1..=MAX_PANEL_CM).contains(&v);
    row.panel_width_cm = problems
        .in_range("panel_width_cm", body.panel_width_cm, side)
        .apply(row.panel_width_cm);
    row.panel_height_cm = problems
        .in_range("panel_height_cm", body.panel_height_cm, side)
        .apply(row.panel_height_cm);
    row.orientation_deg = problems
        .in_range("orientation_deg", body.orientation_deg, |v| {
            (0.0..360.0).contains(&v)
        })
        .apply(row.orientation_deg);

    match body.photo_media_id {
        Patch::Value(Ref(id)) => match db::media::find_owned(&state.db, user.id(), &id).await? {
            Some(media) => row.photo_media_id = Some(media.id),
            None => problems.add("photo_media_id", FieldCode::NotFound),
        },
        Patch::Null => row.photo_media_id = None,
        Patch::Absent => {}
    }
    match body.panel_quad {
        Patch::Value(value) => match parse_quad(&value) {
            Ok(points) => row.panel_quad = Some(quad_json(&points).to_string()),
            Err(code) => problems.add("panel_quad", code),
        },
        Patch::Null => row.panel_quad = None,
        Patch::Absent => {}
    }
    if row.panel_quad.is_some() && row.photo_media_id.is_none() && !problems.has("photo_media_id") {
        problems.add("panel_quad", FieldCode::RequiresPhoto);
    }
    Ok(())
}

/// `POST /locations` → 201. `format` defaults to `other`, `illumination` to `none`.
#[utoipa::path(
    post,
    path = "/locations",
    tag = "locations",
    request_body = NewLocation,
    responses((status = 201, description = "The new location", body = Location))
)]
async fn create(
    State(state): State<AppState>,
    user: ApiUser,
    Body(body, mut problems): Body<NewLocation>,
) -> Result<(StatusCode, Json<Location>), ApiError> {
    let now = db::now_ms();
    let mut row = LocationRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.id().to_owned(),
        format: "other".to_owned(),
        illumination: "none".to_owned(),
        created_at: now,
        updated_at: now,
        ..LocationRow::default()
    };
    apply_body(&state, &user, body.into(), &mut problems, &mut row, true).await?;
    problems.finish()?;
    db::locations::insert(&state.db, &row).await?;
    let item = db::locations::find(&state.db, user.id(), &row.id)
        .await?
        .ok_or_else(|| ApiError::internal("a location vanished right after its insert"))?;
    Ok((
        StatusCode::CREATED,
        Json(location_body(&item, now_secs(), &state)),
    ))
}

/// `GET /locations?limit=&cursor=&q=` → `{items, next_cursor}`, newest first; `q` matches
/// name, address, city and postal code, ignoring case and accents.
#[utoipa::path(
    get,
    path = "/locations",
    tag = "locations",
    params(ListParams),
    responses((status = 200, description = "One page of locations, newest first", body = Paged<Location>))
)]
async fn list(
    State(state): State<AppState>,
    user: ApiUser,
    list: ListQuery,
) -> Result<Json<Paged<Location>>, ApiError> {
    let rows =
        db::locations::list(&state.db, user.id(), list.page.limit, list.after(), &list.q).await?;
    let now = now_secs();
    Ok(Json(list.page.paged(
        rows,
        |item| (item.location.created_at, item.location.id.as_str()),
        |item| location_body(item, now, &state),
    )))
}

async fn find(state: &AppState, user: &ApiUser, id: &str) -> Result<LocationWithPhoto, ApiError> {
    db::locations::find(&state.db, user.id(), id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// `GET /locations/{id}`, with `simulation_count` (what deleting it would also delete).
#[utoipa::path(
    get,
    path = "/locations/{id}",
    tag = "locations",
    params(("id" = String, Path, description = "The location's id")),
    responses((status = 200, description = "The location", body = Location))
)]
async fn get_one(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Location>, ApiError> {
    let item = find(&state, &user, &id).await?;
    let count =
        db::simulations::count_for_location(&state.db, user.id(), &item.location.id).await?;
    let mut body = location_body(&item, now_secs(), &state);
    body.simulation_count = Some(count);
    Ok(Json(body))
}

/// `PATCH /locations/{id}`: absent fields stay, `null` clears; the result is checked as a
/// whole (e.g. a quad needs a photo). A replaced photo is released.
#[utoipa::path(
    patch,
    path = "/locations/{id}",
    tag = "locations",
    params(("id" = String, Path, description = "The location's id")),
    request_body = LocationChanges,
    responses((status = 200, description = "The location, changed", body = Location))
)]
async fn update(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
    Body(body, mut problems): Body<LocationChanges>,
) -> Result<Json<Location>, ApiError> {
    let item = find(&state, &user, &id).await?;
    let mut row = item.location.clone();
    apply_body(&state, &user, body, &mut problems, &mut row, false).await?;
    problems.finish()?;
    row.updated_at = db::now_ms().max(row.updated_at);
    if !db::locations::update(&state.db, &row).await? {
        return Err(ApiError::not_found());
    }
    if let Some(old) = &item.location.photo_media_id
        && row.photo_media_id.as_ref() != Some(old)
    {
        release(&state, old).await;
    }
    let item = find(&state, &user, &row.id).await?;
    Ok(Json(location_body(&item, now_secs(), &state)))
}

/// `DELETE /locations/{id}` → 204, with the simulations placed in it (one transaction). Its
/// photo and the simulations' media go too unless something else uses them.
#[utoipa::path(
    delete,
    path = "/locations/{id}",
    tag = "locations",
    params(("id" = String, Path, description = "The location's id")),
    responses((status = 204, description = "Deleted, with its simulations"))
)]
async fn delete_one(
    State(state): State<AppState>,
    user: ApiUser,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let media = db::locations::delete(&state.db, user.id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    for media_id in media {
        release(&state, &media_id).await;
    }
    Ok(StatusCode::NO_CONTENT)
}
