//! Sending mail: [`Mailer`], with [`SmtpMailer`] (`REGARD_SMTP_URL`, through `lettre`) and the
//! development [`OutboxMailer`] (an `.eml` file per message in `<data dir>/outbox/`). Both
//! build the same RFC 5322 message with `lettre`: plain text and HTML alternatives.

use std::path::PathBuf;

use async_trait::async_trait;
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// One message to one recipient.
#[derive(Debug, Clone)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// Why a mail could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("invalid address: {0}")]
    Address(String),
    #[error("building the message failed: {0}")]
    Build(String),
    #[error("writing the mail to the outbox failed: {0}")]
    Outbox(#[from] std::io::Error),
    #[error("the SMTP server failed: {0}")]
    Smtp(String),
}

/// Sends mail.
#[async_trait]
pub trait Mailer: Send + Sync {
    async fn send(&self, mail: &Mail) -> Result<(), MailError>;
}

fn build(from: &Mailbox, mail: &Mail) -> Result<Message, MailError> {
    let to: Mailbox = mail
        .to
        .parse()
        .map_err(|err: lettre::address::AddressError| MailError::Address(err.to_string()))?;
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(&mail.subject)
        .multipart(MultiPart::alternative_plain_html(
            mail.text.clone(),
            mail.html.clone(),
        ))
        .map_err(|err| MailError::Build(err.to_string()))
}

fn parse_from(from: &str) -> Result<Mailbox, MailError> {
    from.parse()
        .map_err(|err: lettre::address::AddressError| MailError::Address(format!("{from}: {err}")))
}

/// Development mailer: `<outbox>/mail-<epoch ms>-<uuid>.eml`.
pub struct OutboxMailer {
    dir: PathBuf,
    from: Mailbox,
}

impl OutboxMailer {
    pub fn new(dir: PathBuf, from: &str) -> Result<Self, MailError> {
        Ok(Self {
            dir,
            from: parse_from(from)?,
        })
    }
}

#[async_trait]
impl Mailer for OutboxMailer {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let message = build(&self.from, mail)?;
        let path = super::write_outbox(&self.dir, "mail", "eml", &message.formatted()).await?;
        // The address and subject only: the body holds a secret link.
        tracing::info!(subject = %mail.subject, path = %path.display(), "development mail written to the outbox");
        Ok(())
    }
}

/// SMTP mailer (connection pool, STARTTLS or TLS as the URL says).
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    /// A mailer for `smtp://` / `smtps://` URLs as `lettre` reads them.
    pub fn new(url: &str, from: &str) -> Result<Self, MailError> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|err| MailError::Smtp(format!("invalid REGARD_SMTP_URL: {err}")))?
            .build();
        Ok(Self {
            transport,
            from: parse_from(from)?,
        })
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let message = build(&self.from, mail)?;
        self.transport
            .send(message)
            .await
            .map_err(|err| MailError::Smtp(err.to_string()))?;
        Ok(())
    }
}
