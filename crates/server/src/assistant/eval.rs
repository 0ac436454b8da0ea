//! The question set (`crates/server/assistant/questions.json`) and its scoring: each question,
//! asked of the offline engine over the demo account ([`super::fixture::seed_demo`]), passes
//! when the answer has the expected intent and contains every expected fact (compared without
//! case, accents or spacing differences) and, when given, a link whose label or address
//! contains the expected text. `regard assistant-eval` prints the score per category; a test
//! keeps it above the target.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Locale, Message, Question, Reply, Role, data::Data, engine};
use crate::db::search::normalize;
use crate::db::{Db, DbError};

/// The question set shipped with the code.
pub const QUESTIONS: &str = include_str!("../../assistant/questions.json");

/// One question of the set.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    pub category: String,
    pub locale: String,
    pub question: String,
    /// Earlier user messages of the conversation, oldest first.
    #[serde(default)]
    pub history: Vec<String>,
    #[serde(default)]
    pub path: Option<String>,
    pub intent: String,
    #[serde(default)]
    pub facts: Vec<String>,
    /// Text one of the links' label or address must contain.
    #[serde(default)]
    pub link: Option<String>,
}

/// The result of one question.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub case: Case,
    pub reply: Reply,
    /// Why it failed (empty when it passed).
    pub problems: Vec<String>,
}

/// Results per category, and every outcome.
#[derive(Debug, Default)]
pub struct Report {
    pub outcomes: Vec<Outcome>,
}

impl Report {
    /// `(passed, total)` per category, and over all.
    pub fn scores(&self) -> (BTreeMap<String, (usize, usize)>, (usize, usize)) {
        let mut per: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut all = (0, 0);
        for o in &self.outcomes {
            let entry = per.entry(o.case.category.clone()).or_default();
            entry.1 += 1;
            all.1 += 1;
            if o.problems.is_empty() {
                entry.0 += 1;
                all.0 += 1;
            }
        }
        (per, all)
    }

    /// The table `regard assistant-eval` prints.
    pub fn table(&self) -> String {
        let (per, all) = self.scores();
        let mut out = format!(
            "{:<12} {:>7} {:>7} {:>7}\n",
            "category", "passed", "total", "score"
        );
        for (category, (passed, total)) in &per {
            out.push_str(&format!(
                "{category:<12} {passed:>7} {total:>7} {:>6.1}%\n",
                100.0 * *passed as f64 / *total as f64
            ));
        }
        out.push_str(&format!(
            "{:<12} {:>7} {:>7} {:>6.1}%\n",
            "all",
            all.0,
            all.1,
            100.0 * all.0 as f64 / all.1.max(1) as f64
        ));
        out
    }
}

fn flat(text: &str) -> String {
    normalize(&text.replace(['«', '»', '“', '”', '"'], ""))
}

/// Reads a question set.
pub fn parse(json: &str) -> Result<Vec<Case>, serde_json::Error> {
    serde_json::from_str(json)
}

/// Asks every question of `cases` for `owner` (whose account is the demo account).
pub async fn run(db: &Db, owner: &str, cases: &[Case]) -> Result<Report, DbError> {
    let mut report = Report::default();
    for case in cases {
        let locale = Locale::parse(&case.locale).unwrap_or(Locale::Fr);
        let mut messages: Vec<Message> = Vec::new();
        for earlier in &case.history {
            messages.push(Message {
                role: Role::User,
                content: earlier.clone(),
            });
            // The assistant's answers in between do not matter to the engine.
            messages.push(Message {
                role: Role::Assistant,
                content: "…".to_owned(),
            });
        }
        messages.push(Message {
            role: Role::User,
            content: case.question.clone(),
        });
        let question = Question {
            messages,
            locale,
            path: case.path.clone(),
        };
        let data = Data::new(db, owner);
        let reply = engine::answer(&data, &question).await?;
        let mut problems = Vec::new();
        if reply.intent != case.intent {
            problems.push(format!(
                "intent {} (expected {})",
                reply.intent, case.intent
            ));
        }
        let answer = flat(&reply.answer);
        for fact in &case.facts {
            if !answer.contains(&flat(fact)) {
                problems.push(format!("missing {fact:?}"));
            }
        }
        if let Some(wanted) = &case.link {
            let wanted = flat(wanted);
            let found = reply
                .links
                .iter()
                .any(|l| flat(&l.label).contains(&wanted) || flat(&l.href).contains(&wanted));
            if !found {
                problems.push(format!("no link with {wanted:?}"));
            }
        }
        report.outcomes.push(Outcome {
            case: case.clone(),
            reply,
            problems,
        });
    }
    Ok(report)
}
