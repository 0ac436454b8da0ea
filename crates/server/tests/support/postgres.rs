//! Shared by the integration test binaries (included with `#[path]`): one PostgreSQL database
//! per test, created through the admin URL of `REGARD_TEST_DATABASE_URL` and dropped (with
//! `FORCE`, ending the connections of servers still closing) when the value is dropped.

use sqlx::{AnyConnection, Connection, Executor};

/// A fresh database; `url` connects to it.
pub struct PostgresDb {
    admin_url: String,
    name: String,
    pub url: String,
}

impl PostgresDb {
    /// Creates `test_<uuid>` through `admin_url`.
    pub async fn create(admin_url: &str) -> Self {
        sqlx::any::install_default_drivers();
        let name = format!("test_{}", uuid::Uuid::new_v4().simple());
        let mut admin = AnyConnection::connect(admin_url)
            .await
            .expect("connect to REGARD_TEST_DATABASE_URL");
        admin
            .execute(format!("CREATE DATABASE \"{name}\"").as_str())
            .await
            .expect("create test database");
        let _ = admin.close().await;
        Self {
            admin_url: admin_url.to_owned(),
            url: with_database(admin_url, &name),
            name,
        }
    }
}

impl Drop for PostgresDb {
    fn drop(&mut self) {
        // On a thread of its own because Drop cannot await.
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                if let Ok(mut admin) = AnyConnection::connect(&admin_url).await {
                    let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                    if let Err(err) = admin.execute(sql.as_str()).await {
                        eprintln!("could not drop {name}: {err}");
                    }
                    let _ = admin.close().await;
                }
            });
        })
        .join();
    }
}

/// `admin_url` with its database name replaced.
fn with_database(admin_url: &str, name: &str) -> String {
    let (base, query) = match admin_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (admin_url, None),
    };
    // Everything after the authority's last '/' is the database name.
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}
