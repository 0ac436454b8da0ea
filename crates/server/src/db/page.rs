//! Keyset pagination shared by the owner-scoped lists: newest first on `(created_at, id)`,
//! optionally filtered by the normalised `search` column (see `search`).

use sqlx::any::AnyRow;

use super::{Db, DbError, search};

/// Which page of whose rows.
pub(super) struct PageRequest<'a> {
    pub owner_id: &'a str,
    pub limit: i64,
    /// `(created_at, id)` of the last row of the previous page.
    pub after: Option<(i64, &'a str)>,
    /// The user's search text (empty: no filter).
    pub query: &'a str,
    /// Equality filters `(column, value)` on the list's table (e.g. `s.creative_id`).
    pub filters: &'a [(&'a str, &'a str)],
}

/// One page of an owner's rows, newest first, after `(created_at, id)` when given, filtered by
/// the query. `select` is the list's `SELECT ... FROM <table> <alias> ...` without a `WHERE`;
/// `alias` names the table that has `owner_id`, `created_at`, `id` and `search`. Fetches
/// `limit + 1` rows so the caller knows whether more follow.
pub(super) async fn newest_first<T>(
    db: &Db,
    select: &str,
    alias: &str,
    request: PageRequest<'_>,
    from_row: fn(&AnyRow) -> Result<T, sqlx::Error>,
) -> Result<Vec<T>, DbError> {
    let PageRequest {
        owner_id,
        limit,
        after,
        query,
        filters,
    } = request;
    let patterns = search::like_patterns(query);
    // Always bound (`i64::MAX` means "from the start") so that one query text serves both;
    // row values compare lexicographically on both backends and use the
    // `(owner_id, created_at, id)` index.
    let (after_at, after_id) = after.unwrap_or((i64::MAX, ""));
    let first_filter = 5 + patterns.len();
    let filter_clauses: String = filters
        .iter()
        .enumerate()
        .map(|(i, (column, _))| format!(" AND {column} = ${}", first_filter + i))
        .collect();
    let sql = format!(
        "{select} WHERE {alias}.owner_id = $1 AND ({alias}.created_at, {alias}.id) < ($2, $3){}{filter_clauses} \
         ORDER BY {alias}.created_at DESC, {alias}.id DESC LIMIT $4",
        search::like_clauses(&format!("{alias}.search"), 5, patterns.len())
    );
    let mut q = sqlx::query(&sql)
        .bind(owner_id)
        .bind(after_at)
        .bind(after_id)
        .bind(limit + 1);
    for pattern in &patterns {
        q = q.bind(pattern.as_str());
    }
    for (_, value) in filters {
        q = q.bind(*value);
    }
    let rows = q.fetch_all(db.pool()).await?;
    rows.iter()
        .map(from_row)
        .collect::<Result<_, _>>()
        .map_err(DbError::from)
}
