//! `regard admin …`: user accounts from the command line, for operators, with the same code as
//! the admin API (`auth::admin`), against the configured database (`REGARD_*` settings, as
//! `regard serve`); and `regard keys generate`, a new signing key for `REGARD_JWT_KEYS`.
//!
//! Passwords are read from standard input (one line) so that they stay out of the shell
//! history and the process list.

use std::io::BufRead;

use serde_json::json;

use crate::auth::admin::{self, AdminUserParams};
use crate::auth::email::Email;
use crate::auth::session::user_json;
use crate::config::Config;
use crate::db::users::{self, UserRow};
use crate::startup;
use crate::state::AppState;

/// Flags of `regard admin`.
#[derive(Debug, clap::Args)]
pub struct AdminArgs {
    #[command(subcommand)]
    pub action: Action,
    #[command(flatten)]
    pub config: Config,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Create a user, confirmed, with the password read from standard input.
    CreateUser {
        /// The address to sign in with.
        #[arg(long)]
        email: String,
        /// Create the account without a password (the user then signs in by magic link, a
        /// provider, or after a password recovery).
        #[arg(long)]
        no_password: bool,
    },
    /// Set a user's password (read from standard input); their other sessions stay open.
    ResetPassword {
        #[arg(long)]
        email: String,
    },
    /// List users, newest first, as JSON lines.
    ListUsers {
        #[arg(long, default_value_t = 1)]
        page: u64,
        #[arg(long, default_value_t = 50)]
        per_page: u64,
    },
    /// Delete a user and everything they own (or only close the account with --soft).
    DeleteUser {
        #[arg(long)]
        email: String,
        /// Keep what the user owns; free the address and end the sessions.
        #[arg(long)]
        soft: bool,
    },
    /// Print an admin (`service_role`) token for the admin API, signed with the server's key.
    Token {
        /// Lifetime in seconds.
        #[arg(long, default_value_t = 3600)]
        expires_in: i64,
    },
}

/// Flags of `regard keys`.
#[derive(Debug, clap::Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    pub action: KeysAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum KeysAction {
    /// Print a new ES256 private key (JWK with a fresh kid) for REGARD_JWT_KEYS.
    Generate,
}

/// Runs `regard keys`.
pub fn run_keys(args: KeysArgs) -> anyhow::Result<()> {
    match args.action {
        KeysAction::Generate => {
            println!("{}", crate::auth::keys::generate_es256());
            Ok(())
        }
    }
}

fn read_password() -> anyhow::Result<String> {
    eprintln!("password (one line on standard input):");
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    anyhow::ensure!(!password.is_empty(), "no password on standard input");
    Ok(password)
}

async fn find(state: &AppState, email: &str) -> anyhow::Result<UserRow> {
    let email = Email::parse(email).map_err(|err| anyhow::anyhow!(err.message))?;
    users::find_by_email(&state.db, email.as_str())
        .await?
        .ok_or_else(|| anyhow::anyhow!("no user with the address {}", email.as_str()))
}

/// Runs `regard admin`.
pub fn run(args: AdminArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (_stop, stopping) = tokio::sync::watch::channel(false);
        let state = startup::open_state(args.config, stopping).await?;
        let result = act(&state, args.action).await;
        state.bus.stop();
        state.db.close().await;
        result
    })
}

async fn act(state: &AppState, action: Action) -> anyhow::Result<()> {
    let api = |err: crate::auth::AuthError| anyhow::anyhow!("{} ({})", err.message, err.code);
    match action {
        Action::CreateUser { email, no_password } => {
            let password = if no_password {
                None
            } else {
                Some(read_password()?)
            };
            let user = admin::create(
                state,
                AdminUserParams {
                    email: Some(email),
                    password,
                    email_confirm: Some(true),
                    ..AdminUserParams::default()
                },
            )
            .await
            .map_err(api)?;
            println!("{}", json!({"id": user.id, "email": user.email}));
        }
        Action::ResetPassword { email } => {
            let user = find(state, &email).await?;
            let password = read_password()?;
            admin::update(
                state,
                user,
                AdminUserParams {
                    password: Some(password),
                    ..AdminUserParams::default()
                },
            )
            .await
            .map_err(api)?;
            eprintln!("password changed");
        }
        Action::ListUsers { page, per_page } => {
            anyhow::ensure!(page >= 1 && per_page >= 1, "page and per-page start at 1");
            let offset = i64::try_from((page - 1).saturating_mul(per_page))?;
            let (list, total) = users::list(&state.db, offset, i64::try_from(per_page)?).await?;
            for user in &list {
                let body = user_json(user, &[], &[]);
                println!(
                    "{}",
                    json!({
                        "id": body["id"],
                        "email": body["email"],
                        "phone": body["phone"],
                        "created_at": body["created_at"],
                        "email_confirmed_at": body.get("email_confirmed_at"),
                        "last_sign_in_at": body.get("last_sign_in_at"),
                        "banned_until": body.get("banned_until"),
                    })
                );
            }
            eprintln!("{} of {total} users", list.len());
        }
        Action::DeleteUser { email, soft } => {
            let user = find(state, &email).await?;
            admin::remove(state, &user, soft).await.map_err(api)?;
            eprintln!("deleted {}", user.id);
        }
        Action::Token { expires_in } => {
            anyhow::ensure!(expires_in > 0, "--expires-in must be positive");
            let now = chrono::Utc::now().timestamp();
            let token = state.jwt.sign(&json!({
                "role": "service_role",
                "iss": state.config.issuer(),
                "iat": now,
                "exp": now + expires_in,
            }))?;
            println!("{token}");
        }
    }
    Ok(())
}
