//! Queries on `locations`: out-of-home sites with their panel, optional photo (a media row)
//! and the panel's quad in that photo (JSON text). `search` holds the normalised name,
//! address, city and postal code (see [`super::search`]).

use sqlx::Row;
use sqlx::any::AnyRow;

use super::media::{self, MediaRow};
use super::{Backend, Db, DbError, Float, page, search};

/// A stored location.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LocationRow {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    /// One of the panel formats (`billboard_4x3`, ...).
    pub format: String,
    pub panel_width_cm: Option<i64>,
    pub panel_height_cm: Option<i64>,
    /// `none`, `front`, `back` or `digital`.
    pub illumination: String,
    pub orientation_deg: Option<f64>,
    pub photo_media_id: Option<String>,
    /// JSON text: `[{"x":..,"y":..} × 4]`, normalised, clockwise from top-left.
    pub panel_quad: Option<String>,
    pub notes: Option<String>,
    /// `pedestrian` or `road`.
    pub audience: Option<String>,
    pub viewing_distance_min_m: Option<f64>,
    pub viewing_distance_max_m: Option<f64>,
    /// `None`: the audience's default.
    pub speed_kmh: Option<f64>,
    pub screen_width_px: Option<i64>,
    pub screen_height_px: Option<i64>,
    /// Contacts a day (visibility-adjusted, as the audience measurement gives them).
    pub daily_contacts: Option<i64>,
    /// Where `daily_contacts` comes from ("Affimétrie 2026", "Route", "comptage").
    pub audience_source: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl LocationRow {
    fn search(&self) -> String {
        search::document(&[
            Some(&self.name),
            self.address.as_deref(),
            self.city.as_deref(),
            self.postal_code.as_deref(),
        ])
    }
}

/// A location with its photo, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct LocationWithPhoto {
    pub location: LocationRow,
    pub photo: Option<MediaRow>,
}

/// The columns written on insert and update, in bind order: the fields, then the [`DERIVED`]
/// ones the server computes from them (after them: times, ids).
const EDITABLE: [&str; 26] = [
    "name",
    "address",
    "city",
    "postal_code",
    "country",
    "latitude",
    "longitude",
    "format",
    "panel_width_cm",
    "panel_height_cm",
    "illumination",
    "orientation_deg",
    "photo_media_id",
    "panel_quad",
    "notes",
    "audience",
    "viewing_distance_min_m",
    "viewing_distance_max_m",
    "speed_kmh",
    "screen_width_px",
    "screen_height_px",
    "daily_contacts",
    "audience_source",
    "search",
    "sort_name",
    "sort_city",
];

/// The last columns of [`EDITABLE`], computed from the others: the search text and sort keys.
const DERIVED: usize = 3;

fn select() -> String {
    format!(
        "SELECT l.id, l.owner_id, {}, l.created_at, l.updated_at, {} \
         FROM locations l LEFT JOIN media m ON m.id = l.photo_media_id",
        EDITABLE[..EDITABLE.len() - DERIVED]
            .iter()
            .map(|c| format!("l.{c}"))
            .collect::<Vec<_>>()
            .join(", "),
        media::columns("m", "m_")
    )
}

fn from_row(row: &AnyRow) -> Result<LocationWithPhoto, sqlx::Error> {
    Ok(LocationWithPhoto {
        location: LocationRow {
            id: row.try_get("id")?,
            owner_id: row.try_get("owner_id")?,
            name: row.try_get("name")?,
            address: row.try_get("address")?,
            city: row.try_get("city")?,
            postal_code: row.try_get("postal_code")?,
            country: row.try_get("country")?,
            latitude: row.try_get("latitude")?,
            longitude: row.try_get("longitude")?,
            format: row.try_get("format")?,
            panel_width_cm: row.try_get("panel_width_cm")?,
            panel_height_cm: row.try_get("panel_height_cm")?,
            illumination: row.try_get("illumination")?,
            orientation_deg: row.try_get("orientation_deg")?,
            photo_media_id: row.try_get("photo_media_id")?,
            panel_quad: row.try_get("panel_quad")?,
            notes: row.try_get("notes")?,
            audience: row.try_get("audience")?,
            viewing_distance_min_m: row.try_get("viewing_distance_min_m")?,
            viewing_distance_max_m: row.try_get("viewing_distance_max_m")?,
            speed_kmh: row.try_get("speed_kmh")?,
            screen_width_px: row.try_get("screen_width_px")?,
            screen_height_px: row.try_get("screen_height_px")?,
            daily_contacts: row.try_get("daily_contacts")?,
            audience_source: row.try_get("audience_source")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        },
        photo: media::from_row(row, "m_")?,
    })
}

/// Binds the editable columns of `l` in [`EDITABLE`] order.
macro_rules! bind_editable {
    ($query:expr, $l:expr) => {
        $query
            .bind(&$l.name)
            .bind(&$l.address)
            .bind(&$l.city)
            .bind(&$l.postal_code)
            .bind(&$l.country)
            .bind(Float($l.latitude))
            .bind(Float($l.longitude))
            .bind(&$l.format)
            .bind($l.panel_width_cm)
            .bind($l.panel_height_cm)
            .bind(&$l.illumination)
            .bind(Float($l.orientation_deg))
            .bind(&$l.photo_media_id)
            .bind(&$l.panel_quad)
            .bind(&$l.notes)
            .bind(&$l.audience)
            .bind(Float($l.viewing_distance_min_m))
            .bind(Float($l.viewing_distance_max_m))
            .bind(Float($l.speed_kmh))
            .bind($l.screen_width_px)
            .bind($l.screen_height_px)
            .bind($l.daily_contacts)
            .bind(&$l.audience_source)
            .bind($l.search())
            .bind(search::normalize(&$l.name))
            .bind(search::normalize($l.city.as_deref().unwrap_or("")))
    };
}

/// `INSERT` of `rows` locations in one statement: the editable columns, then the times and ids.
///
/// SQLite gets anonymous `?` placeholders: it takes `$N` for a *named* parameter and looks
/// each name up among those before it, which made a statement of 13,000 values take 0.5 s
/// to prepare (`examples/bench_import.rs`); `?` are numbered as they come.
fn insert_sql(rows: usize, backend: Backend) -> String {
    let width = EDITABLE.len() + 4;
    let values = (0..rows)
        .map(|row| {
            let placeholders = (1..=width)
                .map(|n| match backend {
                    Backend::Sqlite => "?".to_owned(),
                    Backend::Postgres => format!("${}", row * width + n),
                })
                .collect::<Vec<_>>()
                .join(", ");
            format!("({placeholders})")
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "INSERT INTO locations ({}, created_at, updated_at, id, owner_id) VALUES {values}",
        EDITABLE.join(", ")
    )
}

/// Binds the values of `locations` in [`insert_sql`] order.
fn bind_rows<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    locations: &'q [LocationRow],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for location in locations {
        query = bind_editable!(query, location)
            .bind(location.created_at)
            .bind(location.updated_at)
            .bind(&location.id)
            .bind(&location.owner_id);
    }
    query
}

/// How many locations the workspace `owner_id` holds.
pub async fn count(db: &Db, owner_id: &str) -> Result<u64, DbError> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM locations WHERE owner_id = $1")
        .bind(owner_id)
        .fetch_one(db.pool())
        .await?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// Inserts a location.
pub async fn insert(db: &Db, location: &LocationRow) -> Result<(), DbError> {
    let sql = insert_sql(1, db.backend());
    bind_rows(sqlx::query(&sql), std::slice::from_ref(location))
        .execute(db.pool())
        .await
        .map_err(DbError::from_write)?;
    Ok(())
}

/// Locations per `INSERT` of [`insert_all`]: 30 values each, 15,000 a statement, within
/// SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const INSERT_BATCH: usize = 500;

/// Inserts media rows, then locations (which may name them as photos), in one transaction:
/// all of them or none. Locations go [`INSERT_BATCH`] to a statement.
pub async fn insert_all(
    db: &Db,
    photos: &[MediaRow],
    locations: &[LocationRow],
) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    for photo in photos {
        media::insert_in(&mut tx, photo).await?;
    }
    for batch in locations.chunks(INSERT_BATCH) {
        let sql = insert_sql(batch.len(), db.backend());
        bind_rows(sqlx::query(&sql), batch)
            .execute(&mut *tx)
            .await
            .map_err(DbError::from_write)?;
    }
    tx.commit().await?;
    Ok(())
}

/// Saves every editable column and `updated_at`; returns whether the row exists.
pub async fn update(db: &Db, location: &LocationRow) -> Result<bool, DbError> {
    let n = EDITABLE.len();
    let sql = format!(
        "UPDATE locations SET {}, updated_at = ${} WHERE id = ${} AND owner_id = ${}",
        EDITABLE
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c} = ${}", i + 1))
            .collect::<Vec<_>>()
            .join(", "),
        n + 1,
        n + 2,
        n + 3
    );
    let done = bind_editable!(sqlx::query(&sql), location)
        .bind(location.updated_at)
        .bind(&location.id)
        .bind(&location.owner_id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() == 1)
}

/// The owner's location with this id.
pub async fn find(db: &Db, owner_id: &str, id: &str) -> Result<Option<LocationWithPhoto>, DbError> {
    let row = sqlx::query(&format!("{} WHERE l.id = $1 AND l.owner_id = $2", select()))
        .bind(id)
        .bind(owner_id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.as_ref().map(from_row).transpose()?)
}

/// Deletes the owner's location with the simulations placed in it (and their jobs), in one
/// transaction. Returns the media ids to release (its photo, then the simulations' outputs and
/// masks), or `None` when there was no such location.
pub async fn delete(db: &Db, owner_id: &str, id: &str) -> Result<Option<Vec<String>>, DbError> {
    let mut tx = db.begin_write().await?;
    let released = super::simulations::delete_for_location(&mut tx, owner_id, id).await?;
    let row = sqlx::query(
        "DELETE FROM locations WHERE id = $1 AND owner_id = $2 RETURNING photo_media_id",
    )
    .bind(id)
    .bind(owner_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else {
        tx.rollback().await?;
        return Ok(None);
    };
    tx.commit().await?;
    let mut media: Vec<String> = row
        .try_get::<Option<String>, _>("photo_media_id")?
        .into_iter()
        .collect();
    media.extend(released);
    Ok(Some(media))
}

wire_enum! {
    /// How a locations list is ordered (ties broken by id, in the same direction).
    pub enum LocationSort {
        /// Newest first (the default).
        Newest = "newest";
        /// Oldest first.
        Oldest = "oldest";
        /// By name, A → Z (accents and case folded).
        Name = "name";
        /// By name, Z → A.
        NameDesc = "name_desc";
        /// By city, A → Z (accents and case folded); locations without a city first.
        City = "city";
        /// By format (its wire name).
        Format = "format";
    }
}

impl LocationSort {
    /// The SQL of the sort key and whether it descends.
    fn key(self) -> (&'static str, bool) {
        match self {
            Self::Newest => ("l.created_at", true),
            Self::Oldest => ("l.created_at", false),
            Self::Name => ("l.sort_name", false),
            Self::NameDesc => ("l.sort_name", true),
            Self::City => ("l.sort_city", false),
            Self::Format => ("l.format", false),
        }
    }

    /// Whether the key is text rather than a number.
    pub fn is_text(self) -> bool {
        !matches!(self, Self::Newest | Self::Oldest)
    }
}

/// The filters of a locations list: exact values as stored.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocationFilters<'a> {
    pub format: Option<&'a str>,
    pub city: Option<&'a str>,
    pub audience: Option<&'a str>,
}

impl<'a> LocationFilters<'a> {
    fn columns(&self) -> Vec<(&'static str, &'a str)> {
        [
            ("l.format", self.format),
            ("l.city", self.city),
            ("l.audience", self.audience),
        ]
        .into_iter()
        .filter_map(|(column, value)| Some((column, value?)))
        .collect()
    }
}

/// One page of the owner's locations in `sort` order, filtered by the search text and the
/// filters, after `(key, id)` when given; each with its sort key. Fetches `limit + 1` rows.
pub async fn list_sorted(
    db: &Db,
    owner_id: &str,
    sort: LocationSort,
    limit: i64,
    after: Option<(&page::SortKey, &str)>,
    query: &str,
    filters: LocationFilters<'_>,
) -> Result<Vec<(LocationWithPhoto, page::SortKey)>, DbError> {
    let (key, descending) = sort.key();
    let columns = filters.columns();
    let request = page::SortedRequest {
        owner_id,
        limit,
        key,
        descending,
        text: sort.is_text(),
        after,
        query,
        filters: &columns,
    };
    page::sorted(db, &select(), "l", request, from_row).await
}

/// The owner's cities and formats with how many locations have each (cities in the order a
/// reader expects: accents and case ignored), for the list's filters.
pub async fn facets(
    db: &Db,
    owner_id: &str,
) -> Result<(Vec<(String, i64)>, Vec<(String, i64)>), DbError> {
    Ok((
        page::value_counts(db, "locations", "city", owner_id).await?,
        page::value_counts(db, "locations", "format", owner_id).await?,
    ))
}

/// A location on the map.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub id: String,
    pub name: String,
    pub city: Option<String>,
    pub format: String,
    pub audience: Option<String>,
    pub latitude: f64,
    pub longitude: f64,
}

/// Every one of the owner's locations that has a position, matching the search text and the
/// filters, by name: what the map shows (at most `limit`).
pub async fn positions(
    db: &Db,
    owner_id: &str,
    query: &str,
    filters: LocationFilters<'_>,
    limit: i64,
) -> Result<Vec<Position>, DbError> {
    let patterns = search::like_patterns(query);
    let columns = filters.columns();
    let mut sql = "SELECT l.id, l.name, l.city, l.format, l.audience, l.latitude, l.longitude \
                   FROM locations l WHERE l.owner_id = $1 \
                   AND l.latitude IS NOT NULL AND l.longitude IS NOT NULL"
        .to_owned();
    let mut n = 1;
    for _ in &patterns {
        n += 1;
        sql.push_str(&format!(" AND l.search LIKE ${n} ESCAPE '\\'"));
    }
    for (column, _) in &columns {
        n += 1;
        sql.push_str(&format!(" AND {column} = ${n}"));
    }
    sql.push_str(&format!(" ORDER BY l.sort_name, l.id LIMIT ${}", n + 1));
    let mut q = sqlx::query(&sql).bind(owner_id);
    for pattern in &patterns {
        q = q.bind(pattern.clone());
    }
    for (_, value) in &columns {
        q = q.bind((*value).to_owned());
    }
    let rows = q.bind(limit).fetch_all(db.pool()).await?;
    rows.iter()
        .map(|r| {
            Ok(Position {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                city: r.try_get("city")?,
                format: r.try_get("format")?,
                audience: r.try_get("audience")?,
                latitude: r.try_get("latitude")?,
                longitude: r.try_get("longitude")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}
