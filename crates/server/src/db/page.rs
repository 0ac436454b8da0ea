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

/// A sort key value (a sorted list cursor's position).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortKey {
    Number(i64),
    Text(String),
}

/// Where the main ` FROM ` of a `SELECT` is: the first one outside parentheses (a subquery in
/// the select list has its own).
fn top_level_from(select: &str) -> usize {
    let mut depth = 0i32;
    for (i, c) in select.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ' ' if depth == 0 && select[i..].starts_with(" FROM ") => return i,
            _ => {}
        }
    }
    select.len()
}

/// An ordered page request: the key's SQL, its direction and whether it is text.
pub(super) struct SortedRequest<'a> {
    pub owner_id: &'a str,
    pub limit: i64,
    /// The sort key's SQL (over the list's select), e.g. `LOWER(c.name)`.
    pub key: &'a str,
    pub descending: bool,
    pub text: bool,
    /// `(key, id)` of the last row of the previous page.
    pub after: Option<(&'a SortKey, &'a str)>,
    /// The user's search text (empty: no filter).
    pub query: &'a str,
    /// Equality filters `(column, value)` on the list's table.
    pub filters: &'a [(&'a str, &'a str)],
}

/// One page of an owner's rows in `key` order (ties by id, the same way), after the keyset
/// position when given, filtered; each row with its sort key as the database computed it (the
/// next cursor carries it, so `LOWER` need not agree with Rust's). `select` is the list's
/// `SELECT ... FROM <table> <alias> ...` without a `WHERE`. Fetches `limit + 1` rows.
pub(super) async fn sorted<T>(
    db: &Db,
    select: &str,
    alias: &str,
    request: SortedRequest<'_>,
    from_row: fn(&AnyRow) -> Result<T, sqlx::Error>,
) -> Result<Vec<(T, SortKey)>, DbError> {
    use sqlx::Row;
    let SortedRequest {
        owner_id,
        limit,
        key,
        descending,
        text,
        after,
        query,
        filters,
    } = request;
    let (cmp, dir) = if descending {
        ("<", "DESC")
    } else {
        (">", "ASC")
    };
    let patterns = search::like_patterns(query);
    let at = top_level_from(select);
    let select = format!("{}, {key} AS sort_key{}", &select[..at], &select[at..]);
    let mut sql = format!("{select} WHERE {alias}.owner_id = $1");
    let mut n = 1;
    let mut next = || {
        n += 1;
        n
    };
    if after.is_some() {
        let (a, b) = (next(), next());
        sql.push_str(&format!(
            " AND ({key} {cmp} ${a} OR ({key} = ${a} AND {alias}.id {cmp} ${b}))"
        ));
    }
    for _ in &patterns {
        sql.push_str(&format!(" AND {alias}.search LIKE ${} ESCAPE '\\'", next()));
    }
    for (column, _) in filters {
        sql.push_str(&format!(" AND {column} = ${}", next()));
    }
    sql.push_str(&format!(
        " ORDER BY {key} {dir}, {alias}.id {dir} LIMIT ${}",
        next()
    ));
    let mut q = sqlx::query(&sql).bind(owner_id);
    if let Some((after_key, after_id)) = after {
        q = match after_key {
            SortKey::Number(v) => q.bind(*v),
            SortKey::Text(v) => q.bind(v.clone()),
        };
        q = q.bind(after_id.to_owned());
    }
    for pattern in &patterns {
        q = q.bind(pattern.clone());
    }
    for (_, value) in filters {
        q = q.bind((*value).to_owned());
    }
    let rows = q.bind(limit + 1).fetch_all(db.pool()).await?;
    rows.iter()
        .map(|row| {
            // `sort_key` is the select's last column.
            let last = row.len() - 1;
            let key = if text {
                SortKey::Text(row.try_get(last)?)
            } else {
                SortKey::Number(row.try_get(last)?)
            };
            Ok((from_row(row)?, key))
        })
        .collect::<Result<_, sqlx::Error>>()
        .map_err(DbError::from)
}

/// The non-blank values of `column` in the owner's rows of `table` with how many rows have
/// each, in the order a reader expects: accents and case ignored ("Été" between "Dunes" and
/// "Hiver"), the same on both databases. For the lists' filters.
pub(super) async fn value_counts(
    db: &Db,
    table: &str,
    column: &str,
    owner_id: &str,
) -> Result<Vec<(String, i64)>, DbError> {
    use sqlx::Row;
    let rows = sqlx::query(&format!(
        "SELECT {column} AS value, COUNT(*) AS n FROM {table} \
         WHERE owner_id = $1 AND {column} IS NOT NULL AND {column} <> '' GROUP BY {column}"
    ))
    .bind(owner_id)
    .fetch_all(db.pool())
    .await?;
    let mut values = rows
        .iter()
        .map(|row| Ok((row.try_get("value")?, row.try_get("n")?)))
        .collect::<Result<Vec<(String, i64)>, sqlx::Error>>()?;
    values.sort_by_cached_key(|(value, _)| (search::normalize(value), value.clone()));
    Ok(values)
}
