//! Queries on `plans` and `plan_sites`: a campaign plan is one creative on a set of locations
//! between two dates; each site names the simulation that shows the creative there
//! (docs/architecture/plans.md). Lists are newest first with keyset pagination on
//! `(created_at, id)`; `search` holds the normalised name.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError, page, search};

/// A stored plan.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlanRow {
    pub id: String,
    pub owner_id: String,
    pub name: String,
    pub creative_id: String,
    /// `YYYY-MM-DD`.
    pub start_date: String,
    /// `YYYY-MM-DD`, not before `start_date`.
    pub end_date: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A site of a plan: a location and the simulation of the plan's creative on it (`None` once
/// that simulation was deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRow {
    pub location_id: String,
    pub simulation_id: Option<String>,
}

/// A plan with its sites, in the plan's order.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanWithSites {
    pub plan: PlanRow,
    pub sites: Vec<SiteRow>,
}

const SELECT: &str = "SELECT p.id, p.owner_id, p.name, p.creative_id, p.start_date, p.end_date, \
                      p.created_at, p.updated_at FROM plans p";

fn from_row(row: &AnyRow) -> Result<PlanRow, sqlx::Error> {
    Ok(PlanRow {
        id: row.try_get("id")?,
        owner_id: row.try_get("owner_id")?,
        name: row.try_get("name")?,
        creative_id: row.try_get("creative_id")?,
        start_date: row.try_get("start_date")?,
        end_date: row.try_get("end_date")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

async fn write_sites(
    conn: &mut sqlx::AnyConnection,
    plan_id: &str,
    sites: &[SiteRow],
) -> Result<(), DbError> {
    sqlx::query("DELETE FROM plan_sites WHERE plan_id = $1")
        .bind(plan_id)
        .execute(&mut *conn)
        .await?;
    for (position, site) in sites.iter().enumerate() {
        sqlx::query(
            "INSERT INTO plan_sites (plan_id, location_id, simulation_id, position) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(plan_id)
        .bind(&site.location_id)
        .bind(&site.simulation_id)
        .bind(position as i64)
        .execute(&mut *conn)
        .await
        .map_err(DbError::from_write)?;
    }
    Ok(())
}

/// Inserts a plan with its sites in one transaction.
pub async fn insert(db: &Db, plan: &PlanRow, sites: &[SiteRow]) -> Result<(), DbError> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "INSERT INTO plans (id, owner_id, name, search, creative_id, start_date, end_date, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&plan.id)
    .bind(&plan.owner_id)
    .bind(&plan.name)
    .bind(search::document(&[Some(&plan.name)]))
    .bind(&plan.creative_id)
    .bind(&plan.start_date)
    .bind(&plan.end_date)
    .bind(plan.created_at)
    .bind(plan.updated_at)
    .execute(&mut *tx)
    .await
    .map_err(DbError::from_write)?;
    write_sites(&mut tx, &plan.id, sites).await?;
    tx.commit().await?;
    Ok(())
}

/// Saves a plan's fields and, when given, replaces its sites, in one transaction; returns
/// whether the plan exists.
pub async fn update(db: &Db, plan: &PlanRow, sites: Option<&[SiteRow]>) -> Result<bool, DbError> {
    let mut tx = db.begin_write().await?;
    let done = sqlx::query(
        "UPDATE plans SET name = $1, search = $2, creative_id = $3, start_date = $4, \
         end_date = $5, updated_at = $6 WHERE id = $7 AND owner_id = $8",
    )
    .bind(&plan.name)
    .bind(search::document(&[Some(&plan.name)]))
    .bind(&plan.creative_id)
    .bind(&plan.start_date)
    .bind(&plan.end_date)
    .bind(plan.updated_at)
    .bind(&plan.id)
    .bind(&plan.owner_id)
    .execute(&mut *tx)
    .await
    .map_err(DbError::from_write)?;
    if done.rows_affected() != 1 {
        tx.rollback().await?;
        return Ok(false);
    }
    if let Some(sites) = sites {
        write_sites(&mut tx, &plan.id, sites).await?;
    }
    tx.commit().await?;
    Ok(true)
}

async fn sites_of(db: &Db, plan_ids: &[&str]) -> Result<Vec<(String, SiteRow)>, DbError> {
    if plan_ids.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders: Vec<String> = (1..=plan_ids.len()).map(|n| format!("${n}")).collect();
    let sql = format!(
        "SELECT plan_id, location_id, simulation_id FROM plan_sites WHERE plan_id IN ({}) \
         ORDER BY plan_id, position",
        placeholders.join(", ")
    );
    let mut query = sqlx::query(&sql);
    for id in plan_ids {
        query = query.bind(*id);
    }
    let rows = query.fetch_all(db.pool()).await?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get("plan_id")?,
                SiteRow {
                    location_id: row.try_get("location_id")?,
                    simulation_id: row.try_get("simulation_id")?,
                },
            ))
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

fn with_sites(plans: Vec<PlanRow>, mut sites: Vec<(String, SiteRow)>) -> Vec<PlanWithSites> {
    plans
        .into_iter()
        .map(|plan| {
            let mine = sites
                .iter()
                .filter(|(id, _)| *id == plan.id)
                .map(|(_, site)| site.clone())
                .collect();
            sites.retain(|(id, _)| *id != plan.id);
            PlanWithSites { plan, sites: mine }
        })
        .collect()
}

/// The owner's plan with this id, with its sites.
pub async fn find(db: &Db, owner_id: &str, id: &str) -> Result<Option<PlanWithSites>, DbError> {
    let row = sqlx::query(&format!("{SELECT} WHERE p.id = $1 AND p.owner_id = $2"))
        .bind(id)
        .bind(owner_id)
        .fetch_optional(db.pool())
        .await?;
    let Some(plan) = row.as_ref().map(from_row).transpose()? else {
        return Ok(None);
    };
    let sites = sites_of(db, &[&plan.id]).await?;
    Ok(with_sites(vec![plan], sites).pop())
}

/// One page of the owner's plans, newest first, filtered by `query` on their names.
pub async fn list(
    db: &Db,
    owner_id: &str,
    limit: i64,
    after: Option<(i64, &str)>,
    query: &str,
) -> Result<Vec<PlanWithSites>, DbError> {
    let request = page::PageRequest {
        owner_id,
        limit,
        after,
        query,
        filters: &[],
    };
    let plans = page::newest_first(db, SELECT, "p", request, from_row).await?;
    let ids: Vec<&str> = plans.iter().map(|p| p.id.as_str()).collect();
    let sites = sites_of(db, &ids).await?;
    Ok(with_sites(plans, sites))
}

/// Deletes the owner's plan (its sites go with it; their simulations stay in the library).
pub async fn delete(db: &Db, owner_id: &str, id: &str) -> Result<bool, DbError> {
    let done = sqlx::query("DELETE FROM plans WHERE id = $1 AND owner_id = $2")
        .bind(id)
        .bind(owner_id)
        .execute(db.pool())
        .await?;
    Ok(done.rows_affected() == 1)
}

/// Whether a simulation is a site of any plan (its renders then get their attention analysed).
pub async fn has_simulation(db: &Db, simulation_id: &str) -> Result<bool, DbError> {
    let row = sqlx::query("SELECT 1 AS one FROM plan_sites WHERE simulation_id = $1 LIMIT 1")
        .bind(simulation_id)
        .fetch_optional(db.pool())
        .await?;
    Ok(row.is_some())
}

/// The simulation of `creative_id` on `location_id` a plan reuses: a rendered one first, then
/// the most recently changed; its id and status.
pub async fn reusable_simulation(
    db: &Db,
    owner_id: &str,
    creative_id: &str,
    location_id: &str,
) -> Result<Option<(String, String)>, DbError> {
    let row = sqlx::query(
        "SELECT id, status FROM simulations \
         WHERE owner_id = $1 AND creative_id = $2 AND location_id = $3 \
         ORDER BY CASE WHEN status = 'done' THEN 0 WHEN status = 'failed' THEN 2 ELSE 1 END, \
         updated_at DESC, id DESC LIMIT 1",
    )
    .bind(owner_id)
    .bind(creative_id)
    .bind(location_id)
    .fetch_optional(db.pool())
    .await?;
    Ok(match row {
        Some(row) => Some((row.try_get("id")?, row.try_get("status")?)),
        None => None,
    })
}
