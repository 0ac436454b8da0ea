//! Sending SMS: [`SmsSender`], with the development [`OutboxSms`] (a JSON file per message in
//! `<data dir>/outbox/` and a log line) and [`WebhookSms`] (a JSON POST `{to, body}` to the
//! gateway at `REGARD_SMS_WEBHOOK_URL`).

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;

/// Why an SMS could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SmsError {
    #[error("writing the SMS to the outbox failed: {0}")]
    Outbox(#[from] std::io::Error),
    #[error("the SMS gateway failed: {0}")]
    Gateway(String),
}

/// Sends one text message to an E.164 number.
#[async_trait]
pub trait SmsSender: Send + Sync {
    async fn send(&self, to: &str, body: &str) -> Result<(), SmsError>;
}

/// Development sender: `<outbox>/sms-<epoch ms>-<uuid>.json` holding `{"to", "body"}`, and the
/// message in the log (a development sender only: codes are secrets in production).
pub struct OutboxSms {
    pub dir: PathBuf,
}

#[async_trait]
impl SmsSender for OutboxSms {
    async fn send(&self, to: &str, body: &str) -> Result<(), SmsError> {
        let json = serde_json::json!({ "to": to, "body": body }).to_string();
        let path = super::write_outbox(&self.dir, "sms", "json", json.as_bytes()).await?;
        tracing::info!(to, body, path = %path.display(), "development SMS written to the outbox");
        Ok(())
    }
}

/// Gateway sender: POSTs `{"to", "body"}` as JSON; any 2xx answer counts as sent.
pub struct WebhookSms {
    client: reqwest::Client,
    url: String,
}

impl WebhookSms {
    /// A sender posting to `url` (10 s timeout).
    pub fn new(url: String) -> Result<Self, SmsError> {
        crate::tls::install_provider();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|err| SmsError::Gateway(err.to_string()))?;
        Ok(Self { client, url })
    }
}

#[async_trait]
impl SmsSender for WebhookSms {
    async fn send(&self, to: &str, body: &str) -> Result<(), SmsError> {
        let response = self
            .client
            .post(&self.url)
            .json(&serde_json::json!({ "to": to, "body": body }))
            .send()
            .await
            // Without the URL: it may carry the gateway's credentials.
            .map_err(|err| SmsError::Gateway(err.without_url().to_string()))?;
        if !response.status().is_success() {
            return Err(SmsError::Gateway(format!("status {}", response.status())));
        }
        Ok(())
    }
}
