//! `regard admin` and `regard keys` as an operator runs them, against an embedded data folder:
//! create a user (password on standard input), list, reset a password, an admin token that
//! verifies with the server's secret, delete; a new signing key; and bad input refused with one
//! clear line and a non-zero exit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn regard(data_dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_regard"))
        .args(args)
        .env("REGARD_DATA_DIR", data_dir)
        // The embedded default, whatever the caller's environment says.
        .env_remove("REGARD_DATABASE_URL")
        .env_remove("REGARD_STORAGE_URL")
        .env_remove("REGARD_JWT_SECRET")
        .env_remove("REGARD_JWT_KEYS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn listed_emails(data_dir: &Path) -> Vec<String> {
    stdout(&regard(data_dir, &["admin", "list-users"], ""))
        .lines()
        .map(|line| {
            let user: Value = serde_json::from_str(line).unwrap();
            user["email"].as_str().unwrap().to_owned()
        })
        .collect()
}

async fn password_hash(data_dir: &Path, email: &str) -> String {
    let url = format!("sqlite://{}", data_dir.join("regard.db").display());
    let db = regard::db::Db::connect(&url, 1).await.unwrap();
    let user = regard::db::users::find_by_email(&db, email)
        .await
        .unwrap()
        .unwrap();
    db.close().await;
    user.encrypted_password
}

#[tokio::test]
async fn an_operator_manages_users_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();

    let created = stdout(&regard(
        data,
        &["admin", "create-user", "--email", "Ops@Example.com"],
        "first-secret\n",
    ));
    let created: Value = serde_json::from_str(created.trim()).unwrap();
    assert_eq!(created["email"], "ops@example.com");
    assert!(uuid::Uuid::parse_str(created["id"].as_str().unwrap()).is_ok());
    assert_eq!(listed_emails(data), ["ops@example.com"]);
    let first = password_hash(data, "ops@example.com").await;
    assert!(
        regard::auth::password::Hasher::new(0, std::time::Duration::ZERO)
            .verify("first-secret".into(), first.clone())
            .await
            .unwrap()
    );

    let again = regard(
        data,
        &["admin", "create-user", "--email", "ops@example.com"],
        "x-secret\n",
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("email_exists"));

    stdout(&regard(
        data,
        &["admin", "reset-password", "--email", "ops@example.com"],
        "second-secret\n",
    ));
    let second = password_hash(data, "ops@example.com").await;
    assert!(
        regard::auth::password::Hasher::new(0, std::time::Duration::ZERO)
            .verify("second-secret".into(), second)
            .await
            .unwrap()
    );

    // The token verifies with the secret the server generated, and is an admin's.
    let token = stdout(&regard(
        data,
        &["admin", "token", "--expires-in", "120"],
        "",
    ));
    let secret = std::fs::read_to_string(data.join("jwt_secret")).unwrap();
    let keys = regard::auth::tokens::JwtKeys::from_secret(secret.trim().as_bytes());
    let claims = keys.verify_any(token.trim()).unwrap();
    assert_eq!(claims["role"], "service_role");
    let lifetime = claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap();
    assert_eq!(lifetime, 120);

    stdout(&regard(
        data,
        &["admin", "delete-user", "--email", "ops@example.com"],
        "",
    ));
    assert!(listed_emails(data).is_empty());
}

#[test]
fn bad_input_gets_one_clear_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let invalid = regard(
        dir.path(),
        &["admin", "create-user", "--email", "not-an-address"],
        "secret-123\n",
    );
    assert!(!invalid.status.success());
    assert!(
        String::from_utf8_lossy(&invalid.stderr)
            .contains("Unable to validate email address: invalid format")
    );
    let short = regard(
        dir.path(),
        &["admin", "create-user", "--email", "a@example.com"],
        "abc\n",
    );
    assert!(!short.status.success());
    assert!(String::from_utf8_lossy(&short.stderr).contains("weak_password"));
    let unknown = regard(
        dir.path(),
        &["admin", "delete-user", "--email", "nobody@example.com"],
        "",
    );
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no user with the address"));
}

#[test]
fn keys_generate_prints_a_private_es256_jwk_that_signs() {
    let dir = tempfile::tempdir().unwrap();
    let printed = stdout(&regard(dir.path(), &["keys", "generate"], ""));
    let jwk: Value = serde_json::from_str(printed.trim()).unwrap();
    assert_eq!(jwk["kty"], "EC");
    assert_eq!(jwk["crv"], "P-256");
    assert_eq!(jwk["alg"], "ES256");
    assert_eq!(jwk["key_ops"], serde_json::json!(["sign", "verify"]));
    assert!(jwk["d"].is_string() && jwk["kid"].is_string());
    let keys =
        regard::auth::tokens::JwtKeys::from_jwks(b"secret", &serde_json::json!([jwk]).to_string())
            .unwrap();
    let token = keys
        .sign(&serde_json::json!({"sub": "x", "exp": 4_000_000_000i64}))
        .unwrap();
    assert!(keys.verify_any(&token).is_ok());
}
