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
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::activity::record;
use super::body::{Body, Choice, Id, IdPath, Line, Lines, Patch, Problems, Ref, body_pair};
use super::creatives::Facet;
use super::error::ApiError;
use super::input::{DEFAULT_LIMIT, Member, Paged, SortOrder, rfc3339, sorted_after, sorted_page};
use super::media::{Media, media_body, now_secs, release};
use super::query::{Limit, Param, Params};
use crate::codes::FieldCode;
use crate::db::activity::{ActivityAction, ActivitySubject};
use crate::db::locations::{LocationFilters, LocationSort};
use crate::db::{self, locations::LocationRow, locations::LocationWithPhoto};
use crate::media::signing::MemberSigner;
pub use crate::ooh::PanelFormat;
use crate::ooh::{self, Audience, FormatRegion};
use crate::quad::{parse_quad, quad_json};
use crate::state::AppState;

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

/// Most contacts a day a site may claim (a hundred million: anything above is a typo; the
/// busiest sites in the world count a few million).
pub const MAX_DAILY_CONTACTS: i64 = 100_000_000;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(formats))
        .routes(routes!(facets))
        .routes(routes!(positions))
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
    /// Who passes the panel; `null` when unknown.
    pub audience: Option<Audience>,
    /// The nearest typical viewing distance, in metres.
    pub viewing_distance_min_m: Option<f64>,
    /// The farthest typical viewing distance, in metres.
    pub viewing_distance_max_m: Option<f64>,
    /// The approach speed in km/h as given; `null`: the audience's default (see `viewing`).
    pub speed_kmh: Option<f64>,
    /// A screen's width in pixels.
    pub screen_width_px: Option<i64>,
    /// A screen's height in pixels.
    pub screen_height_px: Option<i64>,
    /// Contacts a day: the passers-by who see the panel (visibility-adjusted, as Affimétrie,
    /// Route or Geopath count them); `null` when unknown.
    pub daily_contacts: Option<i64>,
    /// Where `daily_contacts` comes from ("Affimétrie 2026", "Route", "Geopath", "comptage").
    pub audience_source: Option<String>,
    /// What the viewing conditions give for the panel's main text (a tenth of its height);
    /// `null` without a panel height, a distance range, or a speed or audience.
    pub viewing: Option<ViewingBody>,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// How many simulations deleting it would also delete: on the answers about one location;
    /// `null` in lists.
    pub simulation_count: Option<i64>,
}

/// Legibility and time in view of a main text under a location's viewing conditions
/// (docs/viewing.md).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct ViewingBody {
    /// The approach speed used, in km/h: the one given or the audience's default.
    pub speed_kmh: f64,
    /// The main text's letter height, in millimetres.
    pub letter_height_mm: f64,
    /// The farthest distance from which it can be read at all, in metres (10′ of arc: the
    /// threshold at which 90 % of viewers read under ideal conditions).
    pub legible_distance_m: f64,
    /// The farthest distance from which it reads comfortably, in metres (20′ of arc, ISO
    /// 9241-3's preferred size).
    pub comfortable_distance_m: f64,
    /// Seconds during which it can be read: on a straight path passing the panel at the
    /// nearest viewing distance, while within the legible distance (and the farthest viewing
    /// distance) and while the panel is within 60° of the direction of travel.
    pub time_in_view_s: f64,
}

impl From<ooh::Viewing> for ViewingBody {
    fn from(v: ooh::Viewing) -> Self {
        let round = |x: f64, places: i32| {
            let k = 10f64.powi(places);
            (x * k).round() / k
        };
        Self {
            speed_kmh: v.speed_kmh,
            letter_height_mm: round(v.letter_mm, 1),
            legible_distance_m: round(v.legible_distance_m, 1),
            comfortable_distance_m: round(v.comfortable_distance_m, 1),
            time_in_view_s: round(v.time_in_view_s, 1),
        }
    }
}

/// A location's viewing conditions as the rules read them.
pub fn conditions(l: &LocationRow) -> ooh::Conditions {
    ooh::Conditions {
        audience: l.audience.as_deref().and_then(Audience::parse),
        distance_min_m: l.viewing_distance_min_m,
        distance_max_m: l.viewing_distance_max_m,
        speed_kmh: l.speed_kmh,
    }
}

/// The location's viewing figures for a main text a tenth of the panel's height.
fn location_viewing(l: &LocationRow) -> Option<ViewingBody> {
    let height_mm = ooh::cm_to_mm(l.panel_height_cm?);
    conditions(l)
        .viewing(ooh::reference_letter_mm(height_mm))
        .map(ViewingBody::from)
}

/// A panel format as a body names it: its value, a former one or a name planners write
/// (`inventory::cells::format`), read as the one canonical format.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct FormatName(PanelFormat);

impl std::str::FromStr for FormatName {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        crate::inventory::cells::format(text)
            .map(FormatName)
            .ok_or(())
    }
}

body_pair! {
    /// The body of `POST /locations`: the fields of [`LocationChanges`], `name` required.
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    pub(super) struct NewLocation {
        /// At most 200 characters.
        #[serde(default)]
        #[schema(value_type = String, max_length = 200, format = "name", required = true)]
        name: Patch<Line<200>>,
    }

    /// The body of `PATCH /locations/{id}`: absent fields stay, `null` clears one (not the name,
    /// the format or the illumination).
    #[derive(Deserialize, ToSchema)]
    #[serde(deny_unknown_fields)]
    pub(super) struct LocationChanges {
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
        /// `other` by default; cannot be cleared. A format's value (`GET /locations/formats`),
        /// or a name planners write for one, stored as that value: `12m2`, `4x3`, `8 m²`,
        /// `320x240`, `48 sheet`, `75 pouces`, an app label, a former value (`billboard_12m2`
        /// is `billboard_4x3`, `billboard_8m2` is `billboard_320x240`).
        #[serde(default)]
        #[schema(value_type = String, max_length = 64, example = "billboard_4x3")]
        format: Patch<Choice<FormatName, 64>>,
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
        /// `pedestrian` or `road`.
        #[serde(default)]
        #[schema(value_type = Option<Audience>)]
        audience: Patch<Choice<Audience, 64>>,
        /// Metres, 0.5 to 5000; at most `viewing_distance_max_m`.
        #[serde(default)]
        #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 5000)]
        viewing_distance_min_m: Patch<f64>,
        /// Metres, 0.5 to 5000; at least `viewing_distance_min_m`.
        #[serde(default)]
        #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 5000)]
        viewing_distance_max_m: Patch<f64>,
        /// km/h, 1 to 200; `null`: the audience's default (5 on foot, 50 by road).
        #[serde(default)]
        #[schema(value_type = Option<f64>, minimum = 1, maximum = 200)]
        speed_kmh: Patch<f64>,
        /// 1 to 100000; given with `screen_height_px`.
        #[serde(default)]
        #[schema(value_type = Option<i64>, minimum = 1, maximum = 100000)]
        screen_width_px: Patch<i64>,
        /// 1 to 100000; given with `screen_width_px`.
        #[serde(default)]
        #[schema(value_type = Option<i64>, minimum = 1, maximum = 100000)]
        screen_height_px: Patch<i64>,
        /// Contacts a day, 0 to 100,000,000; `null`: unknown.
        #[serde(default)]
        #[schema(value_type = Option<i64>, minimum = 0, maximum = 100000000)]
        daily_contacts: Patch<i64>,
        /// Where the contacts come from, at most 100 characters.
        #[serde(default)]
        #[schema(value_type = Option<String>, max_length = 100, format = "line")]
        audience_source: Patch<Line<100>>,
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
            audience: new.audience,
            viewing_distance_min_m: new.viewing_distance_min_m,
            viewing_distance_max_m: new.viewing_distance_max_m,
            speed_kmh: new.speed_kmh,
            screen_width_px: new.screen_width_px,
            screen_height_px: new.screen_height_px,
            daily_contacts: new.daily_contacts,
            audience_source: new.audience_source,
        }
    }
}

/// A stored quad (written by [`quad_json`]) as the answer's points.
pub fn stored_quad(text: &str) -> Option<Vec<QuadPoint>> {
    let points = crate::quad::read_stored(text)?;
    Some(points.iter().map(|&(x, y)| QuadPoint { x, y }).collect())
}

fn location_body(item: &LocationWithPhoto, now: u64, signer: &MemberSigner) -> Location {
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
        photo: item.photo.as_ref().map(|m| media_body(signer, m, now)),
        panel_quad: l.panel_quad.as_deref().and_then(stored_quad),
        notes: l.notes.clone(),
        audience: l.audience.as_deref().and_then(Audience::parse),
        viewing_distance_min_m: l.viewing_distance_min_m,
        viewing_distance_max_m: l.viewing_distance_max_m,
        speed_kmh: l.speed_kmh,
        screen_width_px: l.screen_width_px,
        screen_height_px: l.screen_height_px,
        daily_contacts: l.daily_contacts,
        audience_source: l.audience_source.clone(),
        viewing: location_viewing(l),
        created_at: rfc3339(l.created_at),
        updated_at: rfc3339(l.updated_at),
        simulation_count: None,
    }
}

/// The viewing conditions of a body onto a row: ranges, then the rules between fields (a
/// distance range in order, a screen's two sides together).
fn apply_viewing(body: &LocationChanges, problems: &mut Problems, row: &mut LocationRow) {
    match &body.audience {
        Patch::Value(Choice(audience)) => row.audience = Some(audience.as_str().to_owned()),
        Patch::Null => row.audience = None,
        Patch::Absent => {}
    }
    let distance = |v: f64| (0.5..=5000.0).contains(&v);
    row.viewing_distance_min_m = problems
        .in_range(
            "viewing_distance_min_m",
            body.viewing_distance_min_m.clone(),
            distance,
        )
        .apply(row.viewing_distance_min_m);
    row.viewing_distance_max_m = problems
        .in_range(
            "viewing_distance_max_m",
            body.viewing_distance_max_m.clone(),
            distance,
        )
        .apply(row.viewing_distance_max_m);
    if let (Some(min), Some(max)) = (row.viewing_distance_min_m, row.viewing_distance_max_m)
        && min > max
    {
        let key = if body.viewing_distance_max_m.is_present() {
            "viewing_distance_max_m"
        } else {
            "viewing_distance_min_m"
        };
        problems.add(key, FieldCode::OutOfRange);
    }
    row.speed_kmh = problems
        .in_range("speed_kmh", body.speed_kmh.clone(), |v| {
            (1.0..=200.0).contains(&v)
        })
        .apply(row.speed_kmh);
    let pixels = |v: i64| (1..=100_000).contains(&v);
    row.screen_width_px = problems
        .in_range("screen_width_px", body.screen_width_px.clone(), pixels)
        .apply(row.screen_width_px);
    row.screen_height_px = problems
        .in_range("screen_height_px", body.screen_height_px.clone(), pixels)
        .apply(row.screen_height_px);
    match (row.screen_width_px, row.screen_height_px) {
        (Some(_), None) => problems.require("screen_height_px"),
        (None, Some(_)) => problems.require("screen_width_px"),
        _ => {}
    }
    row.daily_contacts = problems
        .in_range("daily_contacts", body.daily_contacts.clone(), |v| {
            (0..=MAX_DAILY_CONTACTS).contains(&v)
        })
        .apply(row.daily_contacts);
    row.audience_source = body
        .audience_source
        .clone()
        .map(|t| t.0)
        .apply(row.audience_source.take());
}

/// Applies a create (`creating`) or update body onto a location row, checking every field
/// and the rules between them. The caller calls `problems.finish()`.
pub(super) async fn apply_body(
    state: &AppState,
    user: &Member,
    body: LocationChanges,
    problems: &mut Problems,
    row: &mut LocationRow,
    creating: bool,
) -> Result<(), ApiError> {
    apply_viewing(&body, problems, row);
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
    // A standard format fills in its size (and a screen's pixels) unless the body gives them.
    if let Some(Choice(FormatName(format))) = problems.not_null("format", body.format) {
        row.format = format.as_str().to_owned();
        let spec = ooh::spec(format);
        if let Some((w, h)) = ooh::size_cm(format)
            && !body.panel_width_cm.is_present()
            && !body.panel_height_cm.is_present()
        {
            (row.panel_width_cm, row.panel_height_cm) = (Some(w), Some(h));
        }
        if let Some((w, h)) = spec.resolution
            && !body.screen_width_px.is_present()
            && !body.screen_height_px.is_present()
        {
            (row.screen_width_px, row.screen_height_px) = (Some(w.into()), Some(h.into()));
        }
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
        Patch::Value(Ref(id)) => {
            match db::media::find_owned(&state.db, user.workspace_id(), &id).await? {
                Some(media) => row.photo_media_id = Some(media.id),
                None => problems.add("photo_media_id", FieldCode::NotFound),
            }
        }
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
    user: Member,
    Body(body, mut problems): Body<NewLocation>,
) -> Result<(StatusCode, Json<Location>), ApiError> {
    let now = db::now_ms();
    let mut row = LocationRow {
        id: uuid::Uuid::new_v4().to_string(),
        owner_id: user.workspace_id().to_owned(),
        format: "other".to_owned(),
        illumination: "none".to_owned(),
        created_at: now,
        updated_at: now,
        ..LocationRow::default()
    };
    apply_body(&state, &user, body.into(), &mut problems, &mut row, true).await?;
    problems.finish()?;
    room_for_locations(&state, user.workspace_id(), 1).await?;
    db::locations::insert(&state.db, &row).await?;
    let item = db::locations::find(&state.db, user.workspace_id(), &row.id)
        .await?
        .ok_or_else(|| ApiError::internal("a location vanished right after its insert"))?;
    record(
        &state,
        &user,
        ActivityAction::Created,
        ActivitySubject::Location,
        &item.location.id,
        Some(&item.location.name),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        Json(location_body(
            &item,
            now_secs(),
            &state.signer.for_member(user.user_id()),
        )),
    ))
}

/// A panel format and its standard size.
#[derive(Debug, Serialize, ToSchema)]
pub struct FormatInfo {
    pub format: PanelFormat,
    pub region: FormatRegion,
    /// Centimetres, as locations store it; `null` for formats without a standard size.
    pub width_cm: Option<i64>,
    pub height_cm: Option<i64>,
    /// Millimetres, exact (imperial sizes converted to the millimetre).
    pub width_mm: Option<u32>,
    pub height_mm: Option<u32>,
    /// A screen's pixels.
    pub width_px: Option<u32>,
    pub height_px: Option<u32>,
}

/// `GET /locations/formats` → every panel format with its standard size, in the order the
/// form lists them (France, United Kingdom, United States, Germany, screens, custom).
#[utoipa::path(
    get,
    path = "/locations/formats",
    tag = "locations",
    responses((status = 200, description = "The panel formats and their sizes", body = Vec<FormatInfo>))
)]
async fn formats(_user: Member) -> Json<Vec<FormatInfo>> {
    Json(
        ooh::FORMATS
            .iter()
            .map(|spec| {
                let cm = ooh::size_cm(spec.format);
                FormatInfo {
                    format: spec.format,
                    region: spec.region,
                    width_cm: cm.map(|(w, _)| w),
                    height_cm: cm.map(|(_, h)| h),
                    width_mm: spec.size_mm.map(|(w, _)| w),
                    height_mm: spec.size_mm.map(|(_, h)| h),
                    width_px: spec.resolution.map(|(w, _)| w),
                    height_px: spec.resolution.map(|(_, h)| h),
                }
            })
            .collect(),
    )
}

/// The query of `GET /locations`: the page, the search, the order and the filters. The
/// cursor is read once the order is known (each order has its own).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct LocationQuery {
    /// Items per page, 1 to 100 (50 by default).
    #[serde(default)]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Param<Limit>,
    /// The `next_cursor` of the previous page.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    cursor: Param<String>,
    /// Search text: keeps the locations whose name, address, city or postal code holds every
    /// word, ignoring case and accents.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    q: Param<String>,
    /// The order (`newest` by default).
    #[serde(default)]
    #[param(inline, value_type = Option<LocationSort>)]
    sort: Param<LocationSort>,
}

/// The filters of the locations list and map (read beside the list's own parameters).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct FilterQuery {
    /// Keeps the locations of this format.
    #[serde(default)]
    #[param(value_type = Option<PanelFormat>)]
    format: Param<PanelFormat>,
    /// Keeps the locations of exactly this city (as stored).
    #[serde(default)]
    #[param(value_type = Option<String>)]
    city: Param<String>,
    /// Keeps the locations seen by this audience.
    #[serde(default)]
    #[param(value_type = Option<Audience>)]
    audience: Param<Audience>,
}

impl FilterQuery {
    fn filters(&self) -> LocationFilters<'_> {
        LocationFilters {
            format: self.format.0.map(PanelFormat::as_str),
            city: self.city.0.as_deref().filter(|c| !c.trim().is_empty()),
            audience: self.audience.0.map(Audience::as_str),
        }
    }
}

/// An order as cursors name it.
impl SortOrder for LocationSort {
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn newest(self) -> bool {
        self == LocationSort::Newest
    }
    fn text(self) -> bool {
        self.is_text()
    }
}

/// `GET /locations?limit=&cursor=&q=&sort=&format=&city=&audience=` → `{items, next_cursor}`,
/// newest first unless `sort` says otherwise; `q` matches name, address, city and postal code,
/// ignoring case and accents.
#[utoipa::path(
    get,
    path = "/locations",
    tag = "locations",
    params(LocationQuery, FilterQuery),
    responses((status = 200, description = "One page of locations", body = Paged<Location>))
)]
async fn list(
    State(state): State<AppState>,
    user: Member,
    Params(query): Params<LocationQuery>,
    Params(filters): Params<FilterQuery>,
) -> Result<Json<Paged<Location>>, ApiError> {
    let limit = query.limit.0.map_or(DEFAULT_LIMIT, |Limit(n)| n);
    let sort = query.sort.0.unwrap_or(LocationSort::Newest);
    let after = sorted_after(sort, query.cursor.0.as_deref())?;
    let rows = db::locations::list_sorted(
        &state.db,
        user.workspace_id(),
        sort,
        limit,
        after.as_ref().map(|(key, id)| (key, id.as_str())),
        query.q.0.as_deref().unwrap_or("").trim(),
        filters.filters(),
    )
    .await?;
    let now = now_secs();
    Ok(Json(sorted_page(
        sort,
        limit,
        rows,
        |row| &row.location.id,
        |row| location_body(&row, now, &state.signer.for_member(user.user_id())),
    )))
}

/// The values the locations list's filters offer.
#[derive(Debug, Serialize, ToSchema)]
pub struct LocationFacets {
    /// Cities in use, in alphabetical order (accents and case ignored).
    pub cities: Vec<Facet>,
    /// Formats in use.
    pub formats: Vec<Facet>,
}

/// `GET /locations/facets` → `{"cities": [{"name", "count"}], "formats": [...]}`.
#[utoipa::path(
    get,
    path = "/locations/facets",
    tag = "locations",
    responses((status = 200, description = "Cities and formats in use", body = LocationFacets))
)]
async fn facets(
    State(state): State<AppState>,
    user: Member,
) -> Result<Json<LocationFacets>, ApiError> {
    let (cities, formats) = db::locations::facets(&state.db, user.workspace_id()).await?;
    let list = |values: Vec<(String, i64)>| -> Vec<Facet> {
        values
            .into_iter()
            .map(|(name, count)| Facet { name, count })
            .collect()
    };
    Ok(Json(LocationFacets {
        cities: list(cities),
        formats: list(formats),
    }))
}

/// Most locations the map shows at once.
pub const MAX_POSITIONS: i64 = 5000;

/// A location on the map.
#[derive(Debug, Serialize, ToSchema)]
pub struct LocationPosition {
    pub id: String,
    pub name: String,
    pub city: Option<String>,
    pub format: PanelFormat,
    pub audience: Option<Audience>,
    pub latitude: f64,
    pub longitude: f64,
}

/// The locations the map shows.
#[derive(Debug, Serialize, ToSchema)]
pub struct LocationPositions {
    /// By name; only locations with a position.
    pub items: Vec<LocationPosition>,
    /// Whether more than 5,000 matched (the first 5,000 by name are given).
    pub truncated: bool,
}

/// The query of `GET /locations/positions`: the list's search and filters.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PositionQuery {
    /// Search text, as for the list.
    #[serde(default)]
    #[param(value_type = Option<String>)]
    q: Param<String>,
}

/// `GET /locations/positions?q=&format=&city=&audience=` → every matching location that has a
/// position (at most 5,000), for the map.
#[utoipa::path(
    get,
    path = "/locations/positions",
    tag = "locations",
    params(PositionQuery, FilterQuery),
    responses((status = 200, description = "The positioned locations", body = LocationPositions))
)]
async fn positions(
    State(state): State<AppState>,
    user: Member,
    Params(query): Params<PositionQuery>,
    Params(filters): Params<FilterQuery>,
) -> Result<Json<LocationPositions>, ApiError> {
    let mut rows = db::locations::positions(
        &state.db,
        user.workspace_id(),
        query.q.0.as_deref().unwrap_or("").trim(),
        filters.filters(),
        MAX_POSITIONS + 1,
    )
    .await?;
    let truncated = rows.len() as i64 > MAX_POSITIONS;
    rows.truncate(MAX_POSITIONS as usize);
    Ok(Json(LocationPositions {
        items: rows
            .into_iter()
            .map(|p| LocationPosition {
                format: PanelFormat::parse(&p.format).unwrap_or(PanelFormat::Other),
                audience: p.audience.as_deref().and_then(Audience::parse),
                id: p.id,
                name: p.name,
                city: p.city,
                latitude: p.latitude,
                longitude: p.longitude,
            })
            .collect(),
        truncated,
    }))
}

async fn find(state: &AppState, user: &Member, id: &str) -> Result<LocationWithPhoto, ApiError> {
    db::locations::find(&state.db, user.workspace_id(), id)
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
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<Json<Location>, ApiError> {
    let item = find(&state, &user, &id).await?;
    let count =
        db::simulations::count_for_location(&state.db, user.workspace_id(), &item.location.id)
            .await?;
    let mut body = location_body(&item, now_secs(), &state.signer.for_member(user.user_id()));
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
    user: Member,
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
    record(
        &state,
        &user,
        ActivityAction::Changed,
        ActivitySubject::Location,
        &item.location.id,
        Some(&item.location.name),
    )
    .await;
    Ok(Json(location_body(
        &item,
        now_secs(),
        &state.signer.for_member(user.user_id()),
    )))
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
    user: Member,
    IdPath(id): IdPath<Id>,
) -> Result<StatusCode, ApiError> {
    let name = find(&state, &user, &id).await?.location.name;
    let media = db::locations::delete(&state.db, user.workspace_id(), &id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    record(
        &state,
        &user,
        ActivityAction::Deleted,
        ActivitySubject::Location,
        &id,
        Some(&name),
    )
    .await;
    for media_id in media {
        release(&state, &media_id).await;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Refuses (409 `limit_reached`) `adding` more locations to a workspace that would then hold
/// more than `REGARD_MAX_LOCATIONS_PER_WORKSPACE`.
pub(super) async fn room_for_locations(
    state: &AppState,
    workspace_id: &str,
    adding: usize,
) -> Result<(), ApiError> {
    let max = u64::from(state.config.max_locations_per_workspace);
    if max == 0 {
        return Ok(());
    }
    let held = db::locations::count(&state.db, workspace_id).await?;
    if held.saturating_add(adding as u64) > max {
        return Err(ApiError::new(crate::codes::ErrorCode::LimitReached)
            .with_details(serde_json::json!({"limit": "locations", "max": max})));
    }
    Ok(())
}
