//! The optional language model: any OpenAI-compatible chat-completions endpoint (OpenAI, a
//! local Ollama or vLLM) configured with `REGARD_ASSISTANT_URL`, `REGARD_ASSISTANT_MODEL` and
//! `REGARD_ASSISTANT_API_KEY`. The help sections that match the question go into its system
//! message; the user's data is reachable only through the tools below, which read the same
//! owner-scoped lists as the offline engine and change nothing. When the endpoint fails (an
//! error, a timeout, an answer that cannot be read), [`super::Assistant`] answers offline.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::data::{Data, Kind, Panel};
use super::intent::{self, Intent};
use super::matching::{Candidate, find, words};
use super::{Link, Locale, Question, Reply, Role, help};
use crate::config::Secret;
use crate::db::search::normalize;

/// Tool-call rounds before the model must have answered.
const MAX_ROUNDS: usize = 5;
/// Messages of the conversation passed on (the latest ones).
const HISTORY: usize = 12;
/// Items a list tool returns at most.
const TOOL_ITEMS: usize = 50;

/// Where the model is and how to reach it.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// The API base (`https://api.openai.com/v1`, `http://localhost:11434/v1`), or the full
    /// `…/chat/completions` address.
    pub url: String,
    pub model: String,
    pub api_key: Option<Secret>,
    pub timeout: Duration,
}

/// Why the model gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("request failed: {0}")]
    Http(#[from] reqwest::Error),
    #[error("the endpoint answered {0}")]
    Status(reqwest::StatusCode),
    #[error("unexpected answer: {0}")]
    Shape(&'static str),
    #[error("no answer after {MAX_ROUNDS} rounds of tool calls")]
    TooManyRounds,
    #[error("reading the user's data failed: {0}")]
    Data(#[from] crate::db::DbError),
}

/// A client of the endpoint.
#[derive(Debug, Clone)]
pub struct LlmClient {
    config: LlmConfig,
    endpoint: String,
    http: reqwest::Client,
}

impl LlmClient {
    /// A client for `config`.
    pub fn new(config: LlmConfig) -> Self {
        let base = config.url.trim_end_matches('/');
        let endpoint = if base.ends_with("/chat/completions") {
            base.to_owned()
        } else {
            format!("{base}/chat/completions")
        };
        crate::tls::install_provider();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .unwrap_or_default();
        Self {
            config,
            endpoint,
            http,
        }
    }

    /// Asks the model, running the tools it calls, until it answers.
    pub async fn answer(&self, data: &Data<'_>, question: &Question) -> Result<Reply, LlmError> {
        let locale = super::engine::reply_locale(question);
        let text = question.text();
        let hits = help::search(text, locale, 3);
        let mut messages = vec![json!({"role": "system", "content": system_prompt(locale, &hits)})];
        let start = question.messages.len().saturating_sub(HISTORY);
        for m in &question.messages[start..] {
            let role = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            messages.push(json!({"role": role, "content": m.content}));
        }
        let mut seen = Seen::default();
        for _ in 0..MAX_ROUNDS {
            let body = json!({
                "model": self.config.model,
                "messages": messages,
                "tools": tools(),
                "tool_choice": "auto",
                "temperature": 0.2,
            });
            let mut request = self.http.post(&self.endpoint).json(&body);
            if let Some(key) = &self.config.api_key {
                request = request.bearer_auth(key.expose());
            }
            let response = request.send().await?;
            if !response.status().is_success() {
                return Err(LlmError::Status(response.status()));
            }
            let answer: Value = response.json().await?;
            let message = answer["choices"][0]["message"].clone();
            if !message.is_object() {
                return Err(LlmError::Shape("no choices[0].message"));
            }
            let calls = message["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if calls.is_empty() {
                let content = message["content"].as_str().unwrap_or_default().trim();
                if content.is_empty() {
                    return Err(LlmError::Shape("an empty answer"));
                }
                return Ok(seen.reply(content, text, &hits));
            }
            messages.push(message);
            for call in calls {
                let id = call["id"].as_str().unwrap_or_default().to_owned();
                let name = call["function"]["name"].as_str().unwrap_or_default();
                // Arguments are a JSON text; some servers send an object.
                let args = match &call["function"]["arguments"] {
                    Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
                    other => other.clone(),
                };
                let result = run_tool(data, name, &args, locale, &mut seen).await?;
                messages.push(
                    json!({"role": "tool", "tool_call_id": id, "content": result.to_string()}),
                );
            }
        }
        Err(LlmError::TooManyRounds)
    }
}

fn system_prompt(locale: Locale, hits: &[help::Hit]) -> String {
    let language = locale.pick("French", "English");
    let mut prompt = format!(
        "You are the assistant of Regard, a web app for out-of-home advertisers: creatives (ad \
         images), locations (billboard sites with a photo and the panel's corners), simulations \
         (a creative rendered on a location's panel) and attention heatmaps (predicted attention, \
         score out of 100). Answer in {language}, in one to three short sentences. For anything \
         about the user's own data, call the tools; never invent names or figures. Give figures \
         with their units: scores as N/100, shares in %, visibility as N×. For how-to questions \
         use the help excerpts below. If you cannot answer, say so and say what you can do.\n"
    );
    for hit in hits {
        prompt.push_str(&format!(
            "\n## Help: {} ({})\n{}\n",
            hit.article.title,
            hit.article.href(),
            hit.section.text
        ));
    }
    prompt
}

fn tools() -> Value {
    let kind = json!({"type": "string", "enum": ["creative", "location", "simulation", "heatmap"]});
    json!([
        {"type": "function", "function": {
            "name": "search_help",
            "description": "Search Regard's help articles; returns the best matching sections.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
        {"type": "function", "function": {
            "name": "list_items",
            "description": "Count and list the user's items of one kind, optionally filtered. Returns {count, items}.",
            "parameters": {"type": "object", "properties": {
                "kind": kind,
                "city": {"type": "string", "description": "locations and simulations: the location's city"},
                "brand": {"type": "string", "description": "creatives: brand"},
                "campaign": {"type": "string", "description": "creatives: campaign"},
                "status": {"type": "string", "description": "heatmaps and simulations: done, failed, processing, draft"}},
                "required": ["kind"]}}},
        {"type": "function", "function": {
            "name": "rank_items",
            "description": "The user's items of one kind ranked by a measure: score (attention score /100), panel_share (share of the scene's attention on the panel, simulations) or visibility (panel share / area share).",
            "parameters": {"type": "object", "properties": {
                "kind": kind,
                "metric": {"type": "string", "enum": ["score", "panel_share", "visibility"]},
                "order": {"type": "string", "enum": ["best", "worst"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10}},
                "required": ["kind", "metric", "order"]}}},
        {"type": "function", "function": {
            "name": "get_item",
            "description": "One of the user's items by name (tolerant to case, accents and small typos), with its status and figures.",
            "parameters": {"type": "object", "properties": {"kind": kind, "name": {"type": "string"}}, "required": ["name"]}}}
    ])
}

/// The items and articles tool results mentioned, to turn into links.
#[derive(Default)]
struct Seen {
    items: BTreeMap<String, String>,
    articles: Vec<Link>,
    intent: Option<Intent>,
}

impl Seen {
    fn item(&mut self, name: &str, href: &str) -> Value {
        self.items.insert(name.to_owned(), href.to_owned());
        json!({"name": name, "href": href})
    }

    fn reply(self, content: &str, question: &str, hits: &[help::Hit]) -> Reply {
        let said = normalize(content);
        let mut links: Vec<Link> = self
            .items
            .iter()
            .filter(|(name, _)| said.contains(&normalize(name)))
            .map(|(name, href)| Link {
                label: name.clone(),
                href: href.clone(),
            })
            .take(6)
            .collect();
        links.extend(self.articles.into_iter().take(1));
        if links.is_empty()
            && let Some(hit) = hits.first()
        {
            links.push(Link {
                label: hit.article.title.clone(),
                href: hit.article.href(),
            });
        }
        let intent = self
            .intent
            .or(intent::parse(question).intent)
            .unwrap_or(Intent::Help);
        Reply {
            answer: content.to_owned(),
            links,
            intent: intent.code().to_owned(),
        }
    }
}

fn arg<'v>(args: &'v Value, key: &str) -> Option<&'v str> {
    args[key].as_str().map(str::trim).filter(|s| !s.is_empty())
}

fn same(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (_, None) => true,
        (Some(a), Some(b)) => normalize(a) == normalize(b),
        (None, Some(_)) => false,
    }
}

fn panel_json(p: &Option<Panel>) -> Value {
    match p {
        Some(p) => json!({"panel_share_percent": (p.share * 1000.0).round() / 10.0,
                          "area_share_percent": (p.area_share * 1000.0).round() / 10.0,
                          "visibility": (p.visibility * 10.0).round() / 10.0,
                          "seen_in_first_second_percent":
                              p.first_second.map(|f| (f * 1000.0).round() / 10.0)}),
        None => Value::Null,
    }
}

fn status_ok(filter: Option<&str>, status: &str) -> bool {
    let Some(filter) = filter else { return true };
    match normalize(filter).as_str() {
        "done" | "finished" | "termine" | "terminee" => matches!(status, "done" | "partial"),
        "failed" | "echec" => matches!(status, "failed" | "partial"),
        "processing" | "in progress" | "queued" | "rendering" | "en cours" => {
            matches!(status, "queued" | "processing" | "rendering")
        }
        other => other == status,
    }
}

/// Runs one tool call; an unknown tool or bad arguments give an `error` the model can read.
async fn run_tool(
    data: &Data<'_>,
    name: &str,
    args: &Value,
    locale: Locale,
    seen: &mut Seen,
) -> Result<Value, LlmError> {
    let kind = arg(args, "kind").and_then(Kind::parse);
    Ok(match name {
        "search_help" => {
            let query = arg(args, "query").unwrap_or_default();
            let hits = help::search(query, locale, 3);
            if let Some(hit) = hits.first() {
                seen.articles.push(Link {
                    label: hit.article.title.clone(),
                    href: hit.article.href(),
                });
            }
            seen.intent.get_or_insert(Intent::Help);
            json!(hits.iter().map(|h| json!({"title": h.article.title, "href": h.article.href(), "text": h.section.text})).collect::<Vec<_>>())
        }
        "list_items" => {
            let Some(kind) = kind else {
                return Ok(
                    json!({"error": "kind must be creative, location, simulation or heatmap"}),
                );
            };
            seen.intent = Some(Intent::List);
            let mut items = Vec::new();
            match kind {
                Kind::Creative => {
                    for c in data.creatives().await? {
                        if same(c.brand.as_deref(), arg(args, "brand"))
                            && same(c.campaign.as_deref(), arg(args, "campaign"))
                        {
                            let mut v = seen.item(&c.name, &format!("/creatives/{}", c.id));
                            v["brand"] = json!(c.brand);
                            v["campaign"] = json!(c.campaign);
                            items.push(v);
                        }
                    }
                }
                Kind::Location => {
                    for l in data.locations().await? {
                        if same(l.city.as_deref(), arg(args, "city")) {
                            let mut v = seen.item(&l.name, &format!("/locations/{}", l.id));
                            v["city"] = json!(l.city);
                            v["format"] = json!(l.format);
                            items.push(v);
                        }
                    }
                }
                Kind::Simulation => {
                    for s in data.simulations().await? {
                        if same(s.city.as_deref(), arg(args, "city"))
                            && status_ok(arg(args, "status"), &s.status)
                        {
                            let mut v = seen.item(&s.name, &format!("/simulation/{}", s.id));
                            v["status"] = json!(s.status);
                            v["creative"] = json!(s.creative_name);
                            v["location"] = json!(s.location_name);
                            v["attention"] = panel_json(&s.panel);
                            items.push(v);
                        }
                    }
                }
                Kind::Heatmap => {
                    for h in data.heatmaps().await? {
                        if status_ok(arg(args, "status"), h.status) {
                            let mut v = seen.item(&h.name, &format!("/heatmap/results/{}", h.id));
                            v["status"] = json!(h.status);
                            v["images"] = json!(h.total);
                            v["mean_score"] = json!(h.score.map(|s| s.round()));
                            items.push(v);
                        }
                    }
                }
            }
            let count = items.len();
            items.truncate(TOOL_ITEMS);
            json!({"count": count, "items": items, "newest_first": true})
        }
        "rank_items" => {
            let Some(kind) = kind else {
                return Ok(
                    json!({"error": "kind must be creative, location, simulation or heatmap"}),
                );
            };
            let best = arg(args, "order") != Some("worst");
            seen.intent = Some(if best { Intent::Best } else { Intent::Worst });
            let metric = arg(args, "metric").unwrap_or("score");
            let limit = args["limit"].as_u64().unwrap_or(3).clamp(1, 10) as usize;
            let mut ranked: Vec<(f64, String, String, Value)> = Vec::new();
            let scores = data.scores().await?;
            match (kind, metric) {
                (Kind::Simulation, _) => {
                    for s in data.simulations().await? {
                        let value = match metric {
                            "score" => s.attention_score,
                            "visibility" => s.panel.map(|p| p.visibility),
                            _ => s.panel.map(|p| p.share),
                        };
                        if let Some(v) = value {
                            let mut extra = panel_json(&s.panel);
                            extra["attention_score"] = json!(s.attention_score.map(|x| x.round()));
                            ranked.push((
                                v,
                                s.name.clone(),
                                format!("/simulation/{}", s.id),
                                extra,
                            ));
                        }
                    }
                }
                (Kind::Creative, "score") => {
                    for c in data.creatives().await? {
                        if let Some(s) = scores.get(&c.media_id) {
                            ranked.push((
                                s.score,
                                c.name.clone(),
                                format!("/creatives/{}", c.id),
                                json!({"score": s.score.round()}),
                            ));
                        }
                    }
                }
                (Kind::Location, "score") => {
                    for l in data.locations().await? {
                        if let Some(s) = l.photo_media_id.as_ref().and_then(|m| scores.get(m)) {
                            ranked.push((
                                s.score,
                                l.name.clone(),
                                format!("/locations/{}", l.id),
                                json!({"photo_score": s.score.round()}),
                            ));
                        }
                    }
                }
                (Kind::Creative | Kind::Location, _) => {
                    let mut per: BTreeMap<String, (f64, String, Value)> = BTreeMap::new();
                    for s in data.simulations().await? {
                        let Some(p) = s.panel else { continue };
                        let v = if metric == "visibility" {
                            p.visibility
                        } else {
                            p.share
                        };
                        let owner = if kind == Kind::Creative {
                            &s.creative_id
                        } else {
                            &s.location_id
                        };
                        let entry = per.entry(owner.clone()).or_insert((
                            v,
                            s.name.clone(),
                            panel_json(&s.panel),
                        ));
                        if (v > entry.0) == best {
                            *entry = (v, s.name.clone(), panel_json(&s.panel));
                        }
                    }
                    if kind == Kind::Creative {
                        for c in data.creatives().await? {
                            if let Some((v, sim, extra)) = per.get(&c.id) {
                                let mut extra = extra.clone();
                                extra["simulation"] = json!(sim);
                                ranked.push((
                                    *v,
                                    c.name.clone(),
                                    format!("/creatives/{}", c.id),
                                    extra,
                                ));
                            }
                        }
                    } else {
                        for l in data.locations().await? {
                            if let Some((v, sim, extra)) = per.get(&l.id) {
                                let mut extra = extra.clone();
                                extra["simulation"] = json!(sim);
                                ranked.push((
                                    *v,
                                    l.name.clone(),
                                    format!("/locations/{}", l.id),
                                    extra,
                                ));
                            }
                        }
                    }
                }
                (Kind::Heatmap, _) => {
                    for h in data.heatmaps().await? {
                        if let Some(s) = h.score {
                            ranked.push((
                                s,
                                h.name.clone(),
                                format!("/heatmap/results/{}", h.id),
                                json!({"mean_score": s.round()}),
                            ));
                        }
                    }
                }
            }
            ranked.sort_by(|a, b| {
                if best {
                    b.0.total_cmp(&a.0)
                } else {
                    a.0.total_cmp(&b.0)
                }
            });
            let items: Vec<Value> = ranked
                .into_iter()
                .take(limit)
                .map(|(_, name, href, extra)| {
                    let mut v = seen.item(&name, &href);
                    if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
                        v.extend(extra.clone());
                    }
                    v
                })
                .collect();
            json!({"items": items})
        }
        "get_item" => {
            seen.intent.get_or_insert(Intent::Details);
            let wanted = arg(args, "name").unwrap_or_default();
            let kinds: Vec<Kind> = kind.map(|k| vec![k]).unwrap_or_else(|| Kind::ALL.to_vec());
            let mut candidates: Vec<Candidate<(Kind, usize)>> = Vec::new();
            for kind in &kinds {
                let names: Vec<String> = match kind {
                    Kind::Creative => data
                        .creatives()
                        .await?
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                    Kind::Location => data
                        .locations()
                        .await?
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                    Kind::Simulation => data
                        .simulations()
                        .await?
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                    Kind::Heatmap => data
                        .heatmaps()
                        .await?
                        .iter()
                        .map(|c| c.name.clone())
                        .collect(),
                };
                candidates.extend(
                    names
                        .iter()
                        .enumerate()
                        .filter_map(|(i, n)| Candidate::new(n, (*kind, i))),
                );
            }
            let found = find(&words(wanted), &candidates, &|_| false);
            let Some(f) = found.first() else {
                return Ok(json!({"error": "no item with that name"}));
            };
            let (kind, i) = f.candidate.target;
            match kind {
                Kind::Creative => {
                    let c = &data.creatives().await?[i];
                    let mut v = seen.item(&c.name, &format!("/creatives/{}", c.id));
                    v["kind"] = json!("creative");
                    v["brand"] = json!(c.brand);
                    v["campaign"] = json!(c.campaign);
                    v["score"] = json!(scores_of(data, &c.media_id).await?);
                    v
                }
                Kind::Location => {
                    let l = &data.locations().await?[i];
                    let mut v = seen.item(&l.name, &format!("/locations/{}", l.id));
                    v["kind"] = json!("location");
                    v["city"] = json!(l.city);
                    v["address"] = json!(l.address);
                    v["format"] = json!(l.format);
                    v["illumination"] = json!(l.illumination);
                    v["panel_cm"] = json!([l.panel_width_cm, l.panel_height_cm]);
                    v
                }
                Kind::Simulation => {
                    let s = &data.simulations().await?[i];
                    let mut v = seen.item(&s.name, &format!("/simulation/{}", s.id));
                    v["kind"] = json!("simulation");
                    v["status"] = json!(s.status);
                    v["creative"] = json!(s.creative_name);
                    v["location"] = json!(s.location_name);
                    v["night"] = json!(s.night);
                    v["attention"] = panel_json(&s.panel);
                    v["attention_score"] = json!(s.attention_score.map(|x| x.round()));
                    v
                }
                Kind::Heatmap => {
                    let h = &data.heatmaps().await?[i];
                    let mut v = seen.item(&h.name, &format!("/heatmap/results/{}", h.id));
                    v["kind"] = json!("heatmap");
                    v["status"] = json!(h.status);
                    v["images"] = json!(h.total);
                    v["done"] = json!(h.done);
                    v["failed"] = json!(h.failed);
                    v["mean_score"] = json!(h.score.map(|x| x.round()));
                    v
                }
            }
        }
        other => json!({"error": format!("unknown tool {other}")}),
    })
}

async fn scores_of(data: &Data<'_>, media_id: &str) -> Result<Option<f64>, LlmError> {
    Ok(data.scores().await?.get(media_id).map(|s| s.score.round()))
}
