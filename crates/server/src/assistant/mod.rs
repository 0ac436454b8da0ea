//! The chat assistant (docs/assistant.md): answers how-to questions from the help articles and
//! questions about the user's own data, in French or English.
//!
//! - [`help`]: the articles and their BM25 index (tantivy);
//! - [`data`]: read-only, owner-scoped views of the user's data, loaded through the `db`
//!   queries the API uses, and the "tools" both engines call;
//! - [`intent`]: what a question asks (count, list, best, latest, status, compare, navigate,
//!   help) and [`matching`]: which of the user's items, brands and cities it names;
//! - [`engine`]: the offline engine, which runs inside `regard` with no outside service;
//! - [`llm`]: the optional OpenAI-compatible endpoint (`REGARD_ASSISTANT_URL`), with the data
//!   functions as tools, falling back to the offline engine when it fails.

pub mod data;
pub mod engine;
pub mod eval;
pub mod fixture;
pub mod format;
pub mod help;
pub mod intent;
pub mod llm;
pub mod matching;

use serde::Serialize;

use crate::db::{Db, DbError};

/// Longest message accepted, in characters.
pub const MAX_MESSAGE_CHARS: usize = 2000;
/// Most messages of a conversation accepted in one request.
pub const MAX_MESSAGES: usize = 50;

/// The language of a conversation: the product's one language type.
pub use crate::i18n::Locale;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

/// A question with its context.
#[derive(Debug, Clone)]
pub struct Question {
    /// The conversation so far; the last message is the user's question.
    pub messages: Vec<Message>,
    /// The language of the app.
    pub locale: Locale,
    /// The page the user is on (`/heatmap/results/<id>`), if given.
    pub path: Option<String>,
}

impl Question {
    /// The last user message.
    pub fn text(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
            .unwrap_or_default()
    }

    /// The user messages before the last one, latest first.
    pub fn earlier(&self) -> impl Iterator<Item = &str> {
        self.messages
            .iter()
            .rev()
            .filter(|m| m.role == Role::User)
            .skip(1)
            .map(|m| m.content.as_str())
    }
}

/// A link an answer carries: a label and an in-app address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Link {
    pub label: String,
    pub href: String,
}

/// An answer: `{"answer", "links", "intent"}` (the API's JSON form).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Reply {
    /// Plain text, several paragraphs.
    pub answer: String,
    /// In-app links the answer points to.
    pub links: Vec<Link>,
    /// What the question was understood as (`greeting`, `help`, `count`, …).
    pub intent: String,
}

/// The assistant of a server: the offline engine, and the LLM endpoint when configured.
#[derive(Debug, Clone)]
pub struct Assistant {
    llm: Option<llm::LlmClient>,
}

impl Assistant {
    /// The assistant for a configuration (`REGARD_ASSISTANT_*`); builds the help index.
    pub fn new(config: Option<llm::LlmConfig>) -> Self {
        help::warm_up();
        Self {
            llm: config.map(llm::LlmClient::new),
        }
    }

    /// Whether an LLM endpoint is configured.
    pub fn has_llm(&self) -> bool {
        self.llm.is_some()
    }

    /// Answers a question for the user `owner_id`, reading only their data.
    pub async fn answer(
        &self,
        db: &Db,
        owner_id: &str,
        question: &Question,
    ) -> Result<Reply, DbError> {
        let data = data::Data::new(db, owner_id);
        if let Some(llm) = &self.llm {
            match llm.answer(&data, question).await {
                Ok(reply) => return Ok(reply),
                Err(err) => {
                    tracing::warn!(error = %err, "the assistant's LLM endpoint failed; answering offline");
                    let mut reply = engine::answer(&data, question).await?;
                    let locale = engine::reply_locale(question);
                    reply.answer = format!(
                        "{} {}",
                        locale.pick(
                            "(Le modèle de langage ne répond pas : voici la réponse de l'assistant intégré.)",
                            "(The language model did not answer: here is the built-in assistant's answer.)",
                        ),
                        reply.answer
                    );
                    return Ok(reply);
                }
            }
        }
        engine::answer(&data, question).await
    }
}

/// Splits an answer into sentences for streaming (each keeps its trailing space).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        let ends = matches!(c, '.' | '!' | '?' | '\n')
            && chars.peek().is_none_or(|next| next.is_whitespace());
        if ends {
            while let Some(&next) = chars.peek() {
                if !next.is_whitespace() {
                    break;
                }
                current.push(next);
                chars.next();
            }
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_every_character() {
        let text = "Vous avez 3 emplacements à Lyon. Le score est 71,5/100 ! Voir : l'article.";
        let parts = sentences(text);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), text);
        assert_eq!(sentences("1.5× more"), ["1.5× more"]);
    }

    #[test]
    fn locales_parse_regional_forms() {
        assert_eq!(Locale::parse("fr-CA"), Some(Locale::Fr));
        assert_eq!(Locale::parse("EN"), Some(Locale::En));
        assert_eq!(Locale::parse("de"), None);
    }
}
