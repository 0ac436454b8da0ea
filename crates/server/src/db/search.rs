//! Accent- and case-insensitive search, and sort keys, that work the same on SQLite and
//! PostgreSQL.
//!
//! Neither backend folds accents portably (SQLite's `LIKE` folds ASCII case only; PostgreSQL's
//! `unaccent` is an extension), so each searchable row stores a `search` column written by the
//! server: its text fields [`normalize`]d (NFKD, combining marks dropped, lowercased, ligatures
//! spelled out, whitespace collapsed) and joined by newlines. A query is normalised the same
//! way, split into words, and every word must appear (`search LIKE '%word%'`, with `%`, `_` and
//! `\` escaped). 'evry' finds 'Évry'; 'coeur' finds 'Cœur'.

use unicode_normalization::UnicodeNormalization;

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};
use unicode_normalization::char::is_combining_mark;

/// Most words of a query that are used (the rest are ignored).
const MAX_TERMS: usize = 8;

/// Lowercase, without diacritics, ligatures spelled out, whitespace collapsed to one space.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.nfkd().filter(|c| !is_combining_mark(*c)) {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        match c {
            'œ' | 'Œ' => out.push_str("oe"),
            'æ' | 'Æ' => out.push_str("ae"),
            'ß' => out.push_str("ss"),
            _ => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// The value of a `search` column for these fields (absent ones skipped).
pub fn document(fields: &[Option<&str>]) -> String {
    fields
        .iter()
        .flatten()
        .map(|field| normalize(field))
        .filter(|field| !field.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `LIKE` patterns (escape character `\`) for the words of a query; empty for a blank query.
pub fn like_patterns(query: &str) -> Vec<String> {
    normalize(query)
        .split(' ')
        .filter(|word| !word.is_empty())
        .take(MAX_TERMS)
        .map(|word| {
            let mut pattern = String::with_capacity(word.len() + 2);
            pattern.push('%');
            for c in word.chars() {
                if matches!(c, '%' | '_' | '\\') {
                    pattern.push('\\');
                }
                pattern.push(c);
            }
            pattern.push('%');
            pattern
        })
        .collect()
}

/// SQL conditions `AND <column> LIKE $n ESCAPE '\'` for `count` patterns, numbered from `first`.
pub fn like_clauses(column: &str, first: usize, count: usize) -> String {
    (first..first + count)
        .map(|n| format!(" AND {column} LIKE ${n} ESCAPE '\\'"))
        .collect()
}

/// Rows read per statement by [`backfill`].
const BACKFILL_BATCH: i64 = 500;

/// Writes the sort keys (and the creatives' search text, which now holds their notes) of the
/// rows written before they existed: those whose `sort_name` is still the migration's `''`.
/// Run at start-up after the migrations; idempotent, so nodes starting together only repeat
/// each other's writes. Returns how many rows it wrote.
pub async fn backfill(db: &Db) -> Result<u64, DbError> {
    let creatives = each_unsorted(db, "creatives", "name, brand, campaign, notes", |row| {
        let name: String = row.try_get("name")?;
        let text = |column: &str| row.try_get::<Option<String>, _>(column);
        let search = super::creatives::search_of(
            &name,
            text("brand")?.as_deref(),
            text("campaign")?.as_deref(),
            text("notes")?.as_deref(),
        );
        Ok((
            "UPDATE creatives SET sort_name = $1, search = $2 WHERE id = $3",
            vec![normalize(&name), search],
        ))
    })
    .await?;
    let locations = each_unsorted(db, "locations", "name, city", |row| {
        let city: Option<String> = row.try_get("city")?;
        Ok((
            "UPDATE locations SET sort_name = $1, sort_city = $2 WHERE id = $3",
            vec![
                normalize(&row.try_get::<String, _>("name")?),
                normalize(city.as_deref().unwrap_or("")),
            ],
        ))
    })
    .await?;
    let heatmaps = each_unsorted(db, "heatmaps", "name", |row| {
        Ok((
            "UPDATE heatmaps SET sort_name = $1 WHERE id = $2",
            vec![normalize(&row.try_get::<String, _>("name")?)],
        ))
    })
    .await?;
    Ok(creatives + locations + heatmaps)
}

/// Runs the update `fix` makes of each row of `table` without a sort key (`columns` read, by id,
/// [`BACKFILL_BATCH`] at a time): its SQL and values, the row's id bound last. Returns how many
/// rows were written.
async fn each_unsorted(
    db: &Db,
    table: &str,
    columns: &str,
    fix: impl Fn(&AnyRow) -> Result<(&'static str, Vec<String>), sqlx::Error>,
) -> Result<u64, DbError> {
    let select = format!(
        "SELECT id, {columns} FROM {table} WHERE sort_name = '' AND id > $1 ORDER BY id LIMIT $2"
    );
    let (mut written, mut after) = (0, String::new());
    loop {
        let rows = sqlx::query(&select)
            .bind(&after)
            .bind(BACKFILL_BATCH)
            .fetch_all(db.pool())
            .await?;
        let Some(last) = rows.last() else {
            return Ok(written);
        };
        after = last.try_get("id")?;
        for row in &rows {
            let (sql, values) = fix(row)?;
            let mut update = sqlx::query(sql);
            for value in values {
                update = update.bind(value);
            }
            written += update
                .bind(row.try_get::<String, _>("id")?)
                .execute(db.pool())
                .await?
                .rows_affected();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_case_and_ligatures_fold() {
        assert_eq!(normalize("  Évry-Courcouronnes\t "), "evry-courcouronnes");
        assert_eq!(normalize("CŒUR de Ville"), "coeur de ville");
        assert_eq!(normalize("Straße  Nº 5"), "strasse no 5");
        assert_eq!(normalize("ﬁne"), "fine");
    }

    #[test]
    fn patterns_escape_like_wildcards() {
        assert_eq!(
            like_patterns(" Évry  50%_a\\b "),
            ["%evry%", "%50\\%\\_a\\\\b%"]
        );
        assert!(like_patterns("   ").is_empty());
        assert_eq!(
            like_clauses("c.search", 3, 2),
            " AND c.search LIKE $3 ESCAPE '\\' AND c.search LIKE $4 ESCAPE '\\'"
        );
    }

    #[test]
    fn documents_join_present_fields() {
        assert_eq!(
            document(&[Some("Évry"), None, Some(" 91000 ")]),
            "evry\n91000"
        );
    }
}
