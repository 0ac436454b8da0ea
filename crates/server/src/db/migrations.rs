//! The schema migrations of both databases, embedded in the binary by `build.rs` and read into
//! sqlx's `Migrator` exactly as sqlx reads a migrations folder: `<version>_<description>.sql`,
//! the description with its underscores as spaces, a file whose SQL starts with
//! `-- no-transaction` run outside a transaction, the checksum sqlx computes from the SQL (so a
//! database migrated by an earlier build, which used sqlx's `migrate!` macro, stays valid).

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
}

/// The SQLite migrations, oldest first.
pub(super) fn sqlite() -> Migrator {
    migrator(embedded::SQLITE)
}

/// The PostgreSQL migrations, oldest first.
pub(super) fn postgres() -> Migrator {
    migrator(embedded::POSTGRES)
}

fn migrator(files: &'static [(&'static str, &'static str)]) -> Migrator {
    let mut migrations: Vec<Migration> = files
        .iter()
        .map(|&(name, sql)| {
            let (version, rest) = name
                .split_once('_')
                .unwrap_or_else(|| panic!("migration {name}: no `<version>_` prefix"));
            let version = version
                .parse()
                .unwrap_or_else(|_| panic!("migration {name}: the version is not a number"));
            let kind = MigrationType::from_filename(rest);
            let description = rest.trim_end_matches(kind.suffix()).replace('_', " ");
            Migration::new(
                version,
                Cow::Owned(description),
                kind,
                Cow::Borrowed(sql),
                sql.starts_with("-- no-transaction"),
            )
        })
        .collect();
    migrations.sort_by_key(|migration| migration.version);
    // The struct's fields are public for sqlx's own macro; sqlx-core is pinned (Cargo.toml), so
    // an upgrade that changes them comes back here.
    Migrator {
        migrations: Cow::Owned(migrations),
        ..Migrator::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// What sqlx itself reads from a folder, migration by migration.
    fn from_folder(folder: &str) -> Vec<Migration> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(folder);
        sqlx::migrate::resolve_blocking(&dir)
            .expect("the migrations folder")
            .into_iter()
            .map(|(migration, _)| migration)
            .collect()
    }

    fn assert_same(embedded: &Migrator, folder: &str) {
        let expected = from_folder(folder);
        let got: Vec<&Migration> = embedded.iter().collect();
        assert_eq!(got.len(), expected.len(), "{folder}: number of migrations");
        assert!(!expected.is_empty());
        for (got, expected) in got.iter().zip(&expected) {
            assert_eq!(got.version, expected.version);
            assert_eq!(got.description, expected.description);
            assert_eq!(got.migration_type, expected.migration_type);
            assert_eq!(got.checksum, expected.checksum, "{folder} {}", got.version);
            assert_eq!(got.no_tx, expected.no_tx);
        }
        assert!(!embedded.ignore_missing && embedded.locking && !embedded.no_tx);
    }

    #[test]
    fn the_embedded_migrations_are_what_sqlx_reads_from_the_folders() {
        assert_same(&sqlite(), "sqlite");
        assert_same(&postgres(), "postgres");
    }
}
