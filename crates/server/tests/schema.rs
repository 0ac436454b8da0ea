//! The two migration folders (`migrations/sqlite`, `migrations/postgres`) are written twice by
//! hand; this test makes drift impossible to miss (issue 14). It applies both to fresh
//! databases and compares what they built, table by table: columns (type, nullability,
//! default), primary keys, indexes (columns and uniqueness, whatever their names), foreign keys
//! (columns, target, `ON DELETE`) and `CHECK (column IN (...))` constraints.
//!
//! It needs PostgreSQL: `REGARD_TEST_DATABASE_URL=postgres://... cargo test -p regard --test
//! schema` (the test command runs it in its PostgreSQL pass; `test = false` keeps it out of
//! the SQLite-only pass).

#[path = "support/postgres.rs"]
mod postgres;

use std::collections::{BTreeMap, BTreeSet};

use sqlx::Row;

/// One table as both backends can describe it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Table {
    /// name → (type, not null, default)
    columns: BTreeMap<String, (String, bool, Option<String>)>,
    primary_key: Vec<String>,
    /// (columns, unique), the primary key's own index left out.
    indexes: BTreeSet<(Vec<String>, bool)>,
    /// (column, target table, target column, on delete)
    foreign_keys: BTreeSet<(String, String, String, String)>,
    /// column → allowed values
    checks: BTreeMap<String, BTreeSet<String>>,
}

type Schema = BTreeMap<String, Table>;

/// `DOUBLE PRECISION` and `double precision`, `TEXT` and `text`: one spelling.
fn normal_type(declared: &str) -> String {
    declared.trim().to_ascii_lowercase()
}

/// A default without PostgreSQL's cast (`'x'::text` → `'x'`).
fn normal_default(default: Option<String>) -> Option<String> {
    default.map(|d| d.split("::").next().unwrap_or_default().trim().to_owned())
}

fn normal_action(action: &str) -> String {
    let action = action.trim().to_ascii_uppercase();
    if action.is_empty() {
        "NO ACTION".to_owned()
    } else {
        action
    }
}

/// The quoted strings of a constraint's text, in order.
fn quoted(text: &str) -> BTreeSet<String> {
    text.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// `kind TEXT NOT NULL CHECK (kind IN ('a', 'b'))` → (`kind`, {a, b}) for each such column of
/// a SQLite `CREATE TABLE`.
fn sqlite_checks(create: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut checks = BTreeMap::new();
    let mut rest = create;
    while let Some(at) = rest.find("CHECK (") {
        let after = &rest[at + "CHECK (".len()..];
        let end = after.find("))").expect("a closed CHECK");
        let body = &after[..end + 1];
        // The first column named (a check over two columns starts with a parenthesis).
        let column = body
            .trim_start_matches('(')
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        checks.insert(column, quoted(body));
        rest = &after[end..];
    }
    checks
}

async fn sqlite_schema(url: &str) -> Schema {
    let pool = sqlx::SqlitePool::connect(url).await.unwrap();
    let tables = sqlx::query(
        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' \
         AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut schema = Schema::new();
    for row in tables {
        let name: String = row.get("name");
        let create: String = row.get("sql");
        let mut table = Table {
            checks: sqlite_checks(&create),
            ..Table::default()
        };
        let mut pk: Vec<(i64, String)> = Vec::new();
        for column in
            sqlx::query("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)")
                .bind(&name)
                .fetch_all(&pool)
                .await
                .unwrap()
        {
            let column_name: String = column.get("name");
            let position: i64 = column.get("pk");
            if position > 0 {
                pk.push((position, column_name.clone()));
            }
            table.columns.insert(
                column_name,
                (
                    normal_type(column.get("type")),
                    column.get::<i64, _>("notnull") != 0,
                    normal_default(column.get("dflt_value")),
                ),
            );
        }
        pk.sort();
        table.primary_key = pk.into_iter().map(|(_, column)| column).collect();
        for index in sqlx::query("SELECT name, \"unique\", origin FROM pragma_index_list(?)")
            .bind(&name)
            .fetch_all(&pool)
            .await
            .unwrap()
        {
            if index.get::<String, _>("origin") == "pk" {
                continue;
            }
            let index_name: String = index.get("name");
            let columns: Vec<String> =
                sqlx::query("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
                    .bind(&index_name)
                    .fetch_all(&pool)
                    .await
                    .unwrap()
                    .iter()
                    .map(|c| c.get("name"))
                    .collect();
            table
                .indexes
                .insert((columns, index.get::<i64, _>("unique") != 0));
        }
        for fk in sqlx::query(
            "SELECT \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(?)",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap()
        {
            table.foreign_keys.insert((
                fk.get("from"),
                fk.get("table"),
                fk.get("to"),
                normal_action(fk.get("on_delete")),
            ));
        }
        schema.insert(name, table);
    }
    pool.close().await;
    schema
}

/// The text between the first `(` after `marker` and its `)`, split on commas.
fn parenthesised(text: &str, marker: &str) -> Vec<String> {
    let start = text.find(marker).expect(marker) + marker.len();
    let open = start + text[start..].find('(').unwrap() + 1;
    let close = open + text[open..].find(')').unwrap();
    text[open..close]
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_owned())
        .collect()
}

async fn postgres_schema(url: &str) -> Schema {
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' \
         AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut schema = Schema::new();
    for name in tables {
        let mut table = Table::default();
        for column in sqlx::query(
            "SELECT column_name::text AS name, data_type::text AS type, \
             is_nullable::text AS nullable, column_default::text AS dflt \
             FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap()
        {
            table.columns.insert(
                column.get("name"),
                (
                    normal_type(column.get("type")),
                    column.get::<String, _>("nullable") == "NO",
                    normal_default(column.get("dflt")),
                ),
            );
        }
        for constraint in sqlx::query(
            "SELECT contype::text AS kind, pg_get_constraintdef(oid) AS def FROM pg_constraint \
             WHERE conrelid = ('public.' || quote_ident($1))::regclass",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap()
        {
            let def: String = constraint.get("def");
            match constraint.get::<String, _>("kind").as_str() {
                "p" => table.primary_key = parenthesised(&def, "PRIMARY KEY"),
                "f" => {
                    let from = parenthesised(&def, "FOREIGN KEY");
                    let to = parenthesised(&def, "REFERENCES");
                    let target = def["REFERENCES ".len() + def.find("REFERENCES ").unwrap()..]
                        .split('(')
                        .next()
                        .unwrap()
                        .trim()
                        .to_owned();
                    let on_delete = def
                        .split("ON DELETE ")
                        .nth(1)
                        .map(|rest| rest.split(" ON ").next().unwrap().to_owned())
                        .unwrap_or_default();
                    table.foreign_keys.insert((
                        from[0].clone(),
                        target,
                        to[0].clone(),
                        normal_action(&on_delete),
                    ));
                }
                "c" => {
                    // CHECK ((kind = ANY (ARRAY['upload'::text, ...])))
                    let column = def
                        .trim_start_matches("CHECK ")
                        .trim_start_matches('(')
                        .split_whitespace()
                        .next()
                        .unwrap()
                        .to_owned();
                    table.checks.insert(column, quoted(&def));
                }
                _ => {}
            }
        }
        for index in sqlx::query(
            "SELECT indexname::text AS name, indexdef FROM pg_indexes \
             WHERE schemaname = 'public' AND tablename = $1",
        )
        .bind(&name)
        .fetch_all(&pool)
        .await
        .unwrap()
        {
            let index_name: String = index.get("name");
            if index_name == format!("{name}_pkey") {
                continue;
            }
            let def: String = index.get("indexdef");
            table.indexes.insert((
                parenthesised(&def, " USING "),
                def.starts_with("CREATE UNIQUE"),
            ));
        }
        schema.insert(name, table);
    }
    pool.close().await;
    schema
}

/// Both databases, freshly migrated: (SQLite URL, its folder, the PostgreSQL database).
async fn migrated() -> (String, tempfile::TempDir, postgres::PostgresDb) {
    let admin_url = std::env::var("REGARD_TEST_DATABASE_URL")
        .expect("this test compares with PostgreSQL: set REGARD_TEST_DATABASE_URL=postgres://...");
    let dir = tempfile::tempdir().unwrap();
    let sqlite_url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("schema.db").display()
    );
    regard::db::Db::connect(&sqlite_url, 1)
        .await
        .unwrap()
        .close()
        .await;
    let pg = postgres::PostgresDb::create(&admin_url).await;
    regard::db::Db::connect(&pg.url, 1)
        .await
        .unwrap()
        .close()
        .await;
    (sqlite_url, dir, pg)
}

/// The tables whose descriptions differ, each with both descriptions.
fn drift(sqlite: &Schema, postgres: &Schema) -> Vec<String> {
    let names: BTreeSet<&String> = sqlite.keys().chain(postgres.keys()).collect();
    names
        .into_iter()
        .filter(|name| sqlite.get(*name) != postgres.get(*name))
        .map(|name| {
            format!(
                "{name}:\n  sqlite:   {:?}\n  postgres: {:?}",
                sqlite.get(name),
                postgres.get(name)
            )
        })
        .collect()
}

#[tokio::test]
async fn both_migration_folders_build_the_same_schema() {
    let (sqlite_url, _dir, pg) = migrated().await;
    let sqlite = sqlite_schema(&sqlite_url).await;
    let postgres = postgres_schema(&pg.url).await;
    assert!(
        sqlite.len() > 15,
        "every table was read: {:?}",
        sqlite.keys()
    );
    let users = &sqlite["users"];
    assert!(
        users.columns.len() > 10 && !users.indexes.is_empty(),
        "{users:?}"
    );
    let drift = drift(&sqlite, &postgres);
    assert!(
        drift.is_empty(),
        "the schemas differ:\n{}",
        drift.join("\n")
    );
}

#[tokio::test]
async fn a_difference_on_either_side_is_caught() {
    let (sqlite_url, _dir, pg) = migrated().await;
    let sqlite = sqlite_schema(&sqlite_url).await;
    // One change of each kind on the PostgreSQL side, as a forgotten edit would leave it.
    let pool = sqlx::PgPool::connect(&pg.url).await.unwrap();
    for change in [
        "CREATE INDEX forgotten_idx ON users (phone)",
        "ALTER TABLE media ALTER COLUMN original_name SET NOT NULL",
        "ALTER TABLE jobs ADD COLUMN extra BIGINT",
    ] {
        sqlx::query(change).execute(&pool).await.unwrap();
    }
    pool.close().await;
    let postgres = postgres_schema(&pg.url).await;
    let drift = drift(&sqlite, &postgres);
    let tables: Vec<&str> = drift.iter().map(|d| d.split(':').next().unwrap()).collect();
    assert_eq!(tables, ["jobs", "media", "users"], "{drift:?}");
}

#[test]
fn check_constraints_are_read_from_both_spellings() {
    let lite = sqlite_checks(
        "CREATE TABLE t (kind TEXT NOT NULL CHECK (kind IN ('a', 'b')), n BIGINT, \
         status TEXT CHECK (status IN ('x')))",
    );
    assert_eq!(
        lite["kind"],
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
    assert_eq!(lite["status"], BTreeSet::from(["x".to_owned()]));
    assert_eq!(
        quoted("CHECK ((kind = ANY (ARRAY['a'::text, 'b'::text])))"),
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
    assert_eq!(normal_default(Some("'x'::text".into())), Some("'x'".into()));
}

/// A database at `url` migrated with the `folder` migrations older than `version`, for rows as
/// older servers wrote them; with the migrator of all of them, to run the rest after.
async fn migrated_before(
    url: &str,
    folder: &str,
    version: i64,
) -> (sqlx::AnyPool, sqlx::migrate::Migrator) {
    sqlx::any::install_default_drivers();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let all = sqlx::migrate::Migrator::new(root.join(folder))
        .await
        .unwrap();
    let mut before = sqlx::migrate::Migrator::new(root.join(folder))
        .await
        .unwrap();
    before.migrations = all
        .migrations
        .iter()
        .filter(|m| m.version < version)
        .cloned()
        .collect::<Vec<_>>()
        .into();
    before.run(&pool).await.unwrap();
    sqlx::query(
        "INSERT INTO users (id, email, encrypted_password, app_metadata, user_metadata, \
         created_at, updated_at) VALUES ('u1', 'old@example.com', '', '{}', '{}', 0, 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    (pool, all)
}

/// Locations saved before the viewing conditions (migration 20261130000000) keep working: the
/// size of a standard format is filled in where none was given, the rest stays empty. On both
/// databases: the migrations before it, rows as older servers wrote them, then the rest.
#[tokio::test]
async fn older_locations_get_their_format_size_and_nothing_invented() {
    const VIEWING: i64 = 20261130000000;
    let admin_url = std::env::var("REGARD_TEST_DATABASE_URL")
        .expect("this test runs on PostgreSQL too: set REGARD_TEST_DATABASE_URL=postgres://...");
    let dir = tempfile::tempdir().unwrap();
    let sqlite_url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let pg = postgres::PostgresDb::create(&admin_url).await;
    for (url, folder) in [
        (sqlite_url.as_str(), "sqlite"),
        (pg.url.as_str(), "postgres"),
    ] {
        let (pool, all) = migrated_before(url, folder, VIEWING).await;
        for (id, format, size) in [
            ("a", "billboard_4x3", None),
            ("b", "billboard_12m2", None),
            ("c", "mupi_2m2", None),
            ("d", "bus_shelter", Some((118, 175))),
            ("e", "digital_screen", None),
            ("f", "other", None),
        ] {
            sqlx::query(
                "INSERT INTO locations (id, owner_id, name, format, panel_width_cm, \
                 panel_height_cm, illumination, search, created_at, updated_at) \
                 VALUES ($1, 'u1', $1, $2, $3, $4, 'none', '', 0, 0)",
            )
            .bind(id)
            .bind(format)
            .bind(size.map(|(w, _): (i64, i64)| w))
            .bind(size.map(|(_, h): (i64, i64)| h))
            .execute(&pool)
            .await
            .unwrap();
        }
        all.run(&pool).await.unwrap();
        let rows = sqlx::query(
            "SELECT id, panel_width_cm, panel_height_cm, audience, viewing_distance_min_m, \
             speed_kmh FROM locations ORDER BY id",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let read: Vec<(String, Option<i64>, Option<i64>, bool)> = rows
            .iter()
            .map(|r| {
                let empty = r
                    .try_get::<Option<String>, _>("audience")
                    .unwrap()
                    .is_none()
                    && r.try_get::<Option<f64>, _>("viewing_distance_min_m")
                        .unwrap()
                        .is_none()
                    && r.try_get::<Option<f64>, _>("speed_kmh").unwrap().is_none();
                (
                    r.try_get("id").unwrap(),
                    r.try_get("panel_width_cm").unwrap(),
                    r.try_get("panel_height_cm").unwrap(),
                    empty,
                )
            })
            .collect();
        let expected = [
            ("a", Some(400), Some(300)),
            ("b", Some(400), Some(300)),
            ("c", Some(120), Some(176)),
            // A size typed by hand stays.
            ("d", Some(118), Some(175)),
            ("e", None, None),
            ("f", None, None),
        ];
        assert_eq!(
            read,
            expected
                .iter()
                .map(|&(id, w, h)| (id.to_owned(), w, h, true))
                .collect::<Vec<_>>(),
            "{folder}"
        );
        pool.close().await;
    }
}

/// Locations saved with a format's second name (migration 20261206000000, issue 48) get the
/// format's one value: `billboard_12m2` is `billboard_4x3`; `billboard_8m2` is the 320 × 240
/// cm panel, and the 4 × 2 m size the old value filled in becomes its size, while a size typed
/// by hand stays. On both databases.
#[tokio::test]
async fn older_formats_become_their_one_value() {
    const ONE_VALUE: i64 = 20261206000000;
    let admin_url = std::env::var("REGARD_TEST_DATABASE_URL")
        .expect("this test runs on PostgreSQL too: set REGARD_TEST_DATABASE_URL=postgres://...");
    let dir = tempfile::tempdir().unwrap();
    let sqlite_url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let pg = postgres::PostgresDb::create(&admin_url).await;
    for (url, folder) in [
        (sqlite_url.as_str(), "sqlite"),
        (pg.url.as_str(), "postgres"),
    ] {
        // The account's personal workspace (id `u1`) came with it.
        let (pool, all) = migrated_before(url, folder, ONE_VALUE).await;
        for (id, format, w, h) in [
            ("a", "billboard_12m2", 400, 300),
            ("b", "billboard_8m2", 400, 200),
            ("c", "billboard_8m2", 330, 250),
            ("d", "billboard_4x3", 400, 300),
            ("e", "mupi_2m2", 120, 176),
        ] {
            sqlx::query(
                "INSERT INTO locations (id, owner_id, name, format, panel_width_cm, \
                 panel_height_cm, illumination, search, created_at, updated_at) \
                 VALUES ($1, 'u1', $1, $2, $3, $4, 'none', '', 0, 0)",
            )
            .bind(id)
            .bind(format)
            .bind(w)
            .bind(h)
            .execute(&pool)
            .await
            .unwrap();
        }
        all.run(&pool).await.unwrap();
        let rows = sqlx::query(
            "SELECT id, format, panel_width_cm, panel_height_cm FROM locations ORDER BY id",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let read: Vec<(String, String, i64, i64)> = rows
            .iter()
            .map(|r| {
                (
                    r.try_get("id").unwrap(),
                    r.try_get("format").unwrap(),
                    r.try_get("panel_width_cm").unwrap(),
                    r.try_get("panel_height_cm").unwrap(),
                )
            })
            .collect();
        let expected = [
            ("a", "billboard_4x3", 400, 300),
            ("b", "billboard_320x240", 320, 240),
            ("c", "billboard_320x240", 330, 250),
            ("d", "billboard_4x3", 400, 300),
            ("e", "mupi_2m2", 120, 176),
        ];
        assert_eq!(
            read,
            expected
                .iter()
                .map(|&(id, f, w, h)| (id.to_owned(), f.to_owned(), w, h))
                .collect::<Vec<_>>(),
            "{folder}"
        );
        pool.close().await;
    }
}

/// The tables of the schema before workspaces, parents before children (PostgreSQL checks
/// foreign keys row by row).
const TABLES_BEFORE_WORKSPACES: [&str; 21] = [
    "users",
    "sessions",
    "session_amr_claims",
    "refresh_tokens",
    "media",
    "media_text_lines",
    "creatives",
    "locations",
    "heatmaps",
    "heatmap_items",
    "heatmap_aois",
    "heatmap_shares",
    "simulations",
    "jobs",
    "mfa_factors",
    "mfa_challenges",
    "mfa_recovery_codes",
    "one_time_tokens",
    "flow_states",
    "identities",
    "account_branding",
];

/// The table a column of that name refers to, if any.
fn referred(column: &str) -> Option<&'static str> {
    match column {
        "user_id" | "owner_id" => Some("users"),
        "session_id" => Some("sessions"),
        "heatmap_id" => Some("heatmaps"),
        "item_id" => Some("heatmap_items"),
        "creative_id" => Some("creatives"),
        "location_id" => Some("locations"),
        "factor_id" => Some("mfa_factors"),
        c if c.ends_with("media_id") => Some("media"),
        _ => None,
    }
}

/// The columns of `table` with their declared types, in order.
async fn columns_of(pool: &sqlx::AnyPool, sqlite: bool, table: &str) -> Vec<(String, String)> {
    let sql = if sqlite {
        format!("SELECT name AS name, type AS type FROM pragma_table_info('{table}') ORDER BY cid")
    } else {
        format!(
            "SELECT CAST(column_name AS TEXT) AS name, CAST(data_type AS TEXT) AS type \
             FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = '{table}' \
             ORDER BY ordinal_position"
        )
    };
    sqlx::query(&sql)
        .fetch_all(pool)
        .await
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.try_get("name").unwrap(),
                r.try_get::<String, _>("type").unwrap().to_lowercase(),
            )
        })
        .collect()
}

/// Every row of every table as text, column by column (by name), in id order.
async fn every_row(
    pool: &sqlx::AnyPool,
    sqlite: bool,
) -> BTreeMap<String, Vec<BTreeMap<String, Option<String>>>> {
    let mut all = BTreeMap::new();
    for table in TABLES_BEFORE_WORKSPACES {
        let columns = columns_of(pool, sqlite, table).await;
        let list: Vec<String> = columns
            .iter()
            .map(|(c, _)| format!("CAST({c} AS TEXT) AS {c}"))
            .collect();
        let rows = sqlx::query(&format!(
            "SELECT {} FROM {table} ORDER BY 1, 2",
            list.join(", ")
        ))
        .fetch_all(pool)
        .await
        .unwrap();
        let rows = rows
            .iter()
            .map(|r| {
                columns
                    .iter()
                    .map(|(c, _)| {
                        (
                            c.clone(),
                            r.try_get::<Option<String>, _>(c.as_str()).unwrap(),
                        )
                    })
                    .collect()
            })
            .collect();
        all.insert(table.to_owned(), rows);
    }
    all
}

/// The workspaces migration (20261204000000) moves every library row into its owner's personal
/// workspace and loses nothing: on both databases, the migrations before it, two rows in every
/// table with every column filled, then the rest; every row of every table reads back the same
/// (but the library revision, which moved to the workspace), and each account has its
/// personal workspace, owned, with its revision.
#[tokio::test]
async fn the_workspaces_migration_keeps_every_row() {
    const WORKSPACES: i64 = 20261204000000;
    let admin_url = std::env::var("REGARD_TEST_DATABASE_URL")
        .expect("this test runs on PostgreSQL too: set REGARD_TEST_DATABASE_URL=postgres://...");
    let dir = tempfile::tempdir().unwrap();
    let sqlite_url = format!("sqlite://{}?mode=rwc", dir.path().join("old.db").display());
    let pg = postgres::PostgresDb::create(&admin_url).await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for (url, folder) in [
        (sqlite_url.as_str(), "sqlite"),
        (pg.url.as_str(), "postgres"),
    ] {
        let sqlite = folder == "sqlite";
        sqlx::any::install_default_drivers();
        let pool = sqlx::pool::PoolOptions::<sqlx::Any>::new()
            .max_connections(1)
            .connect(url)
            .await
            .unwrap();
        let all = sqlx::migrate::Migrator::new(root.join(folder))
            .await
            .unwrap();
        let mut before = sqlx::migrate::Migrator::new(root.join(folder))
            .await
            .unwrap();
        before.migrations = all
            .migrations
            .iter()
            .filter(|m| m.version < WORKSPACES)
            .cloned()
            .collect::<Vec<_>>()
            .into();
        if sqlite {
            // As `Db::migrate` runs them (a table rebuild must not cascade).
            sqlx::query("PRAGMA foreign_keys = OFF")
                .execute(&pool)
                .await
                .unwrap();
        }
        before.run(&pool).await.unwrap();
        for table in TABLES_BEFORE_WORKSPACES {
            let columns = columns_of(&pool, sqlite, table).await;
            assert!(!columns.is_empty(), "{folder}: no table {table}");
            for k in 1..=2 {
                let values: Vec<String> = columns
                    .iter()
                    .map(|(column, kind)| {
                        let text = match (column.as_str(), referred(column)) {
                            ("id", _) => format!("{table}-{k}"),
                            (_, Some(parent)) => format!("{parent}-{k}"),
                            ("kind", _) if table == "media" => "upload".into(),
                            ("fit", _) => "cover".into(),
                            ("shape", _) => "rect".into(),
                            ("status", _) => "done".into(),
                            _ => format!("{column} {k} é"),
                        };
                        match kind.as_str() {
                            "bigint" | "integer" => format!("{}", 1000 + k),
                            "double precision" => format!("{}.25", k),
                            _ => format!("'{text}'"),
                        }
                    })
                    .collect();
                let names: Vec<&str> = columns.iter().map(|(c, _)| c.as_str()).collect();
                sqlx::query(&format!(
                    "INSERT INTO {table} ({}) VALUES ({})",
                    names.join(", "),
                    values.join(", ")
                ))
                .execute(&pool)
                .await
                .unwrap_or_else(|err| panic!("{folder}: {table}: {err}"));
            }
        }
        let mut old = every_row(&pool, sqlite).await;
        all.run(&pool).await.unwrap();
        if sqlite {
            let broken = sqlx::query("PRAGMA foreign_key_check")
                .fetch_all(&pool)
                .await
                .unwrap();
            assert!(broken.is_empty(), "{folder}: foreign keys hold");
        }
        let mut new = every_row(&pool, sqlite).await;
        // Columns later migrations add start empty on every kept row (a location's contacts);
        // the rows are compared on the columns they had.
        for (table, rows) in new.iter_mut() {
            let Some(before) = old.get(table).and_then(|rows| rows.first()) else {
                continue;
            };
            let known: Vec<String> = before.keys().cloned().collect();
            for row in rows.iter_mut() {
                let added: Vec<String> = row
                    .keys()
                    .filter(|c| !known.contains(c) && c.as_str() != "library_revision")
                    .cloned()
                    .collect();
                for column in added {
                    let value = row.remove(&column).flatten();
                    assert_eq!(value, None, "{folder}: {table}.{column} starts empty");
                }
            }
        }
        let revisions: Vec<(String, Option<String>)> = old
            .get_mut("users")
            .unwrap()
            .iter_mut()
            .map(|user| {
                let revision = user.remove("library_revision").expect("a revision before");
                (user["id"].clone().unwrap(), revision)
            })
            .collect();
        assert_eq!(old, new, "{folder}: every row as it was");
        let workspaces = sqlx::query(
            "SELECT w.id AS id, w.personal_of AS personal_of, \
             CAST(w.library_revision AS TEXT) AS revision, m.user_id AS member, m.role AS role \
             FROM workspaces w JOIN workspace_members m ON m.workspace_id = w.id ORDER BY w.id",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let read: Vec<(String, Option<String>)> = workspaces
            .iter()
            .map(|r| {
                let id: String = r.try_get("id").unwrap();
                assert_eq!(r.try_get::<String, _>("personal_of").unwrap(), id);
                assert_eq!(r.try_get::<String, _>("member").unwrap(), id);
                assert_eq!(r.try_get::<String, _>("role").unwrap(), "owner");
                (id, r.try_get("revision").unwrap())
            })
            .collect();
        assert_eq!(
            read, revisions,
            "{folder}: one personal workspace per account"
        );
        pool.close().await;
    }
}
