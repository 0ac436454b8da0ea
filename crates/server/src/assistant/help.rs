//! The help articles (`docs/help/{fr,en}/<slug>.md`, embedded in the binary) and their search
//! index: BM25 through `tantivy`, one in-memory index per language, whose analyser lowercases,
//! drops the language's stop words, stems (Snowball, French or English) and folds accents, so
//! "créer", "creer" and "création" meet, as do "render", "renders" and "rendering".
//!
//! Each article starts with a small front matter (`title:` and `keywords:`); the keywords are
//! indexed with the title (boosted) to catch the words users type that the text does not use
//! ("2FA", "télécharger").

use std::sync::LazyLock;

use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexReader, TantivyDocument, doc};

use super::Locale;

/// One article in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Article {
    pub slug: &'static str,
    pub locale: Locale,
    pub title: String,
    pub keywords: String,
    /// The Markdown body (without the front matter).
    pub body: String,
    /// The first paragraph, as plain text.
    pub summary: String,
    /// The article cut at its `##` headings (the text before the first one comes first, under
    /// the article's title): what a how-to answer quotes.
    pub sections: Vec<Section>,
}

/// A part of an article under one heading, as plain text (list items on their own lines,
/// numbered as in the article).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub heading: String,
    pub text: String,
}

impl Article {
    /// The in-app address of the article.
    pub fn href(&self) -> String {
        format!("/help/{}", self.slug)
    }

    /// The body rendered to HTML (the articles are ours: no user input reaches them).
    pub fn html(&self) -> String {
        let parser = pulldown_cmark::Parser::new(&self.body);
        let mut html = String::with_capacity(self.body.len() * 3 / 2);
        pulldown_cmark::html::push_html(&mut html, parser);
        html
    }

    /// The body as plain text (Markdown marks dropped), for the LLM's context.
    pub fn plain_text(&self) -> String {
        let mut out = String::new();
        for section in &self.sections {
            if !section.heading.is_empty() && section.heading != self.title {
                out.push_str(&section.heading);
                out.push('\n');
            }
            out.push_str(&section.text);
            out.push('\n');
        }
        out
    }
}

/// Cuts a Markdown body into sections of plain text.
fn sections(title: &str, body: &str) -> Vec<Section> {
    use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
    let mut out = vec![Section {
        heading: title.to_owned(),
        text: String::new(),
    }];
    let mut in_heading = false;
    // Numbers of the ordered lists being read (None for bullet lists).
    let mut lists: Vec<Option<u64>> = Vec::new();
    for event in Parser::new(body) {
        let current = out.last_mut().expect("one section at least");
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) => {
                in_heading = true;
                out.push(Section {
                    heading: String::new(),
                    text: String::new(),
                });
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::List(start)) => {
                // A list inside an item starts on its own line.
                if !current.text.is_empty() && !current.text.ends_with('\n') {
                    current.text.push('\n');
                }
                lists.push(start);
            }
            Event::End(TagEnd::List(_)) => {
                lists.pop();
            }
            Event::Start(Tag::Item) => match lists.last_mut() {
                Some(Some(n)) => {
                    current.text.push_str(&format!("{n}. "));
                    *n += 1;
                }
                _ => current.text.push_str("- "),
            },
            Event::Text(text) | Event::Code(text) => {
                if in_heading {
                    current.heading.push_str(&text);
                } else {
                    current.text.push_str(&text);
                }
            }
            Event::SoftBreak | Event::HardBreak => current.text.push(' '),
            // Paragraphs inside list items end with the item: one line break.
            Event::End(TagEnd::Paragraph | TagEnd::Item) if !current.text.ends_with('\n') => {
                current.text.push('\n');
            }
            _ => {}
        }
    }
    for section in &mut out {
        section.text = section.text.trim().to_owned();
    }
    out.retain(|s| !s.text.is_empty());
    out
}

macro_rules! articles {
    ($($slug:literal),* $(,)?) => {
        &[$(
            ($slug, include_str!(concat!("../../../../docs/help/fr/", $slug, ".md")),
                    include_str!(concat!("../../../../docs/help/en/", $slug, ".md"))),
        )*]
    };
}

/// Every article's slug with its French and English sources, in the Help page's order.
const SOURCES: &[(&str, &str, &str)] = articles![
    "sign-in",
    "account-security",
    "creatives",
    "locations",
    "simulations",
    "render-adjustments",
    "night-renders",
    "legibility",
    "plans",
    "heatmaps",
    "scores",
    "areas-of-interest",
    "compare",
    "benchmarks",
    "exporting",
    "reports",
    "sharing",
    "privacy",
    "assistant",
];

fn parse(slug: &'static str, locale: Locale, source: &'static str) -> Article {
    let (mut title, mut keywords, mut body) = (String::new(), String::new(), source);
    if let Some(rest) = source.strip_prefix("---\n")
        && let Some((front, after)) = rest.split_once("\n---\n")
    {
        for line in front.lines() {
            if let Some(value) = line.strip_prefix("title:") {
                title = value.trim().to_owned();
            } else if let Some(value) = line.strip_prefix("keywords:") {
                keywords = value.trim().to_owned();
            }
        }
        body = after.trim_start();
    }
    // French puts a no-break space before ; : ? ! » and after «, so that a line never starts
    // with one of them.
    let body = match locale {
        Locale::Fr => body
            .replace(" ;", "\u{a0};")
            .replace(" :", "\u{a0}:")
            .replace(" ?", "\u{a0}?")
            .replace(" !", "\u{a0}!")
            .replace(" »", "\u{a0}»")
            .replace("« ", "«\u{a0}"),
        Locale::En => body.to_owned(),
    };
    let sections = sections(&title, &body);
    let summary = sections
        .first()
        .and_then(|s| s.text.lines().next())
        .unwrap_or_default()
        .to_owned();
    Article {
        slug,
        locale,
        title,
        keywords,
        body,
        summary,
        sections,
    }
}

/// All articles, parsed once.
static ARTICLES: LazyLock<Vec<Article>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .flat_map(|(slug, fr, en)| [parse(slug, Locale::Fr, fr), parse(slug, Locale::En, en)])
        .collect()
});

/// The articles of one language, in the Help page's order.
pub fn articles(locale: Locale) -> impl Iterator<Item = &'static Article> {
    ARTICLES.iter().filter(move |a| a.locale == locale)
}

/// The article with this slug in this language.
pub fn article(slug: &str, locale: Locale) -> Option<&'static Article> {
    articles(locale).find(|a| a.slug == slug)
}

/// A search hit: the section of an article that best answers, and its BM25 score.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub article: &'static Article,
    pub section: &'static Section,
    pub score: f32,
}

/// One language's index.
struct LangIndex {
    index: Index,
    reader: IndexReader,
    fields: [Field; 3],
    idx: Field,
    sec: Field,
}

const TOKENIZER: &str = "regard_text";

fn analyzer(locale: Locale) -> TextAnalyzer {
    let language = match locale {
        Locale::Fr => Language::French,
        Locale::En => Language::English,
    };
    // Stop words are listed with their accents, so they go before folding; the stemmer also
    // knows the accented forms. Folding last makes "creer" meet "créer".
    let builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser);
    match StopWordFilter::new(language) {
        Some(stop) => builder
            .filter(stop)
            .filter(Stemmer::new(language))
            .filter(AsciiFoldingFilter)
            .build(),
        None => builder
            .filter(Stemmer::new(language))
            .filter(AsciiFoldingFilter)
            .build(),
    }
}

fn build(locale: Locale) -> tantivy::Result<LangIndex> {
    let mut schema = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let title = schema.add_text_field("title", text.clone());
    let keywords = schema.add_text_field("keywords", text.clone());
    let body = schema.add_text_field("body", text);
    let idx = schema.add_u64_field("idx", STORED);
    let sec = schema.add_u64_field("sec", STORED);
    let index = Index::create_in_ram(schema.build());
    index.tokenizers().register(TOKENIZER, analyzer(locale));
    // 15 MB is tantivy's smallest indexing budget; the articles take a few kB.
    let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000)?;
    for (i, article) in ARTICLES.iter().enumerate() {
        if article.locale != locale {
            continue;
        }
        // One document per section, each carrying its article's title and keywords, so that
        // the article is found by its topic and the answer quotes the part that matches.
        for (j, section) in article.sections.iter().enumerate() {
            // The assistant's own article lists example questions of every topic: only its
            // introduction is indexed, so it answers "what can you do?", not "how do I …?".
            if article.slug == "assistant" && j > 0 {
                continue;
            }
            let heading = if j == 0 { "" } else { section.heading.as_str() };
            writer.add_document(doc!(
                title => format!("{} {heading}", article.title),
                keywords => article.keywords.as_str(),
                body => section.text.as_str(),
                idx => i as u64,
                sec => j as u64,
            ))?;
        }
    }
    writer.commit()?;
    let reader = index.reader()?;
    Ok(LangIndex {
        index,
        reader,
        fields: [title, keywords, body],
        idx,
        sec,
    })
}

static INDEXES: LazyLock<Option<[LangIndex; 2]>> =
    LazyLock::new(|| match (build(Locale::Fr), build(Locale::En)) {
        (Ok(fr), Ok(en)) => Some([fr, en]),
        (Err(err), _) | (_, Err(err)) => {
            tracing::error!(error = %err, "building the help index failed");
            None
        }
    });

/// The search terms of a text: its words after the index's analyser (stop words dropped,
/// stemmed, accents folded).
pub fn terms(text: &str, locale: Locale) -> Vec<String> {
    let mut analyzer = analyzer(locale);
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let term = stream.token().text.clone();
        if !out.contains(&term) {
            out.push(term);
        }
    }
    out
}

/// Words that make a sentence a question rather than say what it is about.
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "which", "where", "when", "why", "who", "can", "could", "do", "does", "did",
    "should", "would", "i", "my", "me", "is", "are", "comment", "quel", "quelle", "quels",
    "quelles", "ou", "pourquoi", "quand", "qui", "que", "qu", "quoi", "est", "ce", "je", "j",
    "puis", "peut", "peux", "on", "mon", "ma", "mes", "moi", "faire", "fait", "sert",
];

/// The terms of a question without its question words.
fn question_terms(question: &str, locale: Locale) -> Vec<String> {
    let kept: Vec<String> = super::matching::words(question)
        .into_iter()
        .filter(|w| w.chars().count() > 1 && !QUESTION_WORDS.contains(&w.as_str()))
        .collect();
    terms(&kept.join(" "), locale)
}

impl Hit {
    /// The share of the question's terms that the hit's article section (with its title and
    /// keywords) contains: a high BM25 score on one common word ("match") is not an answer.
    pub fn coverage(&self, question: &str, locale: Locale) -> f32 {
        let asked = question_terms(question, locale);
        if asked.is_empty() {
            return 0.0;
        }
        let found = self.found(&asked, locale);
        // One word in common is not enough unless it is the whole question ("capitals" is in
        // the locations article; "capital of Australia" is not about it).
        if found < 2 && found < asked.len() {
            return 0.0;
        }
        found as f32 / asked.len() as f32
    }

    /// Like [`Hit::coverage`], over the section alone (its heading and text): which section of
    /// an article answers.
    pub fn section_coverage(&self, question: &str, locale: Locale) -> f32 {
        let asked = question_terms(question, locale);
        let known = terms(
            &format!("{} {}", self.section.heading, self.section.text),
            locale,
        );
        let found = asked.iter().filter(|t| known.contains(t)).count();
        found as f32 / asked.len().max(1) as f32
    }

    fn found(&self, asked: &[String], locale: Locale) -> usize {
        let text = format!(
            "{} {} {} {}",
            self.article.title, self.article.keywords, self.section.heading, self.section.text
        );
        let known = terms(&text, locale);
        asked.iter().filter(|t| known.contains(t)).count()
    }

    /// The lines of the section that answer the question best: the whole section when it is
    /// short, its opening lines when its heading asks the question, otherwise the run of lines
    /// of at most `max` characters holding the most of the question's terms (the earliest such
    /// run).
    pub fn excerpt(&self, question: &str, locale: Locale, max: usize) -> String {
        let lines: Vec<&str> = self.section.text.lines().collect();
        if self.section.text.chars().count() <= max {
            return self.section.text.clone();
        }
        let asked = question_terms(question, locale);
        // A section headed by the question ("Why does my render look dull?") answers it as a
        // whole, most likely cause first: the later lines that repeat the question's words
        // ("render") are not the better part of it.
        if self.heading_asks(&asked, locale) {
            return lines[..run_end(&lines, 0, max)].join("\n");
        }
        let per_line: Vec<Vec<String>> = lines.iter().map(|l| terms(l, locale)).collect();
        let mut best = (0usize, 0usize, 0usize); // (score, start, end)
        for start in 0..lines.len() {
            let end = run_end(&lines, start, max);
            let mut seen: Vec<&String> = Vec::new();
            for t in per_line[start..end].iter().flatten() {
                if asked.contains(t) && !seen.contains(&t) {
                    seen.push(t);
                }
            }
            if seen.len() > best.0 || (start == 0 && best.2 == 0) {
                best = (seen.len(), start, end);
            }
        }
        lines[best.1..best.2].join("\n")
    }

    /// Whether the section's heading holds at least half of the question's terms `asked`.
    fn heading_asks(&self, asked: &[String], locale: Locale) -> bool {
        let heading = terms(&self.section.heading, locale);
        let found = asked.iter().filter(|t| heading.contains(t)).count();
        found > 0 && found * 2 >= asked.len()
    }
}

/// The end of the run of `lines` from `start` that fits in `max` characters (one line at
/// least, each counted with its line break).
fn run_end(lines: &[&str], start: usize, max: usize) -> usize {
    let mut len = 0;
    let mut end = start;
    while let Some(line) = lines.get(end) {
        let add = line.chars().count() + 1;
        if end > start && len + add > max {
            break;
        }
        len += add;
        end += 1;
    }
    end
}

/// Builds the indexes now (at start-up) rather than on the first question.
pub fn warm_up() {
    LazyLock::force(&INDEXES);
}

/// The best sections for a question, best first, in the question's language.
pub fn search(question: &str, locale: Locale, limit: usize) -> Vec<Hit> {
    let Some(indexes) = INDEXES.as_ref() else {
        return Vec::new();
    };
    let lang = &indexes[match locale {
        Locale::Fr => 0,
        Locale::En => 1,
    }];
    // Only letters and digits reach the query parser, so no query syntax ("-", ":", quotes)
    // can change what a question means.
    let cleaned: String = question
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    if cleaned.trim().is_empty() {
        return Vec::new();
    }
    let [title, keywords, body] = lang.fields;
    let mut parser = QueryParser::for_index(&lang.index, vec![title, keywords, body]);
    parser.set_field_boost(title, 2.0);
    parser.set_field_boost(keywords, 1.5);
    let (query, _) = parser.parse_query_lenient(&cleaned);
    let searcher = lang.reader.searcher();
    let Ok(top) = searcher.search(&query, &TopDocs::with_limit(limit)) else {
        return Vec::new();
    };
    top.into_iter()
        .filter_map(|(score, address)| {
            let doc: TantivyDocument = searcher.doc(address).ok()?;
            let i = doc.get_first(lang.idx)?.as_u64()?;
            let j = doc.get_first(lang.sec)?.as_u64()?;
            let article = ARTICLES.get(usize::try_from(i).ok()?)?;
            Some(Hit {
                article,
                section: article.sections.get(usize::try_from(j).ok()?)?,
                score,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_article_exists_in_both_languages_with_a_title_and_keywords() {
        for (slug, _, _) in SOURCES {
            for locale in [Locale::Fr, Locale::En] {
                let a = article(slug, locale).unwrap();
                assert!(!a.title.is_empty(), "{slug} {locale:?} has no title");
                assert!(!a.keywords.is_empty(), "{slug} {locale:?} has no keywords");
                assert!(!a.summary.is_empty(), "{slug} {locale:?} has no summary");
                assert!(a.html().contains("<p>"), "{slug}");
                assert!(!a.sections.is_empty(), "{slug} {locale:?} has no sections");
            }
        }
    }

    #[test]
    fn search_stems_and_folds_accents() {
        let top = |q: &str, l: Locale| search(q, l, 1)[0].article.slug;
        assert_eq!(top("comment creer une heatmap", Locale::Fr), "heatmaps");
        assert_eq!(
            top("Comment faire un rendu de nuit ?", Locale::Fr),
            "night-renders"
        );
        assert_eq!(top("what does clarity mean", Locale::En), "scores");
        assert_eq!(
            top("how do I download my render as PNG", Locale::En),
            "exporting"
        );
        assert_eq!(top("2FA authenticator", Locale::En), "account-security");
        assert!(search("?!", Locale::En, 3).is_empty());
        let night = article("night-renders", Locale::En).unwrap();
        assert!(
            night.sections[1]
                .text
                .contains("Panel lighting:\n- Backlit"),
            "{}",
            night.sections[1].text
        );
        let hits = search("how do I create a heatmap", Locale::En, 2);
        assert!(
            hits.iter()
                .any(|h| h.section.text.starts_with("1. Open Heatmap"))
        );
        // A section headed by the question is quoted from its start.
        let question = "Pourquoi mon rendu paraît terne ?";
        let adjustments = article("render-adjustments", Locale::Fr).unwrap();
        let hit = Hit {
            article: adjustments,
            section: adjustments
                .sections
                .iter()
                .find(|s| s.heading.starts_with("Pourquoi"))
                .unwrap(),
            score: 1.0,
        };
        let excerpt = hit.excerpt(question, Locale::Fr, 450);
        assert!(
            excerpt.starts_with("- L'Ajustement automatique"),
            "{excerpt}"
        );
        assert_eq!(run_end(&["ab", "cd", "ef"], 0, 6), 2);
        assert_eq!(run_end(&["a long line"], 0, 3), 1);
        let hit = search("what is the capital of Australia", Locale::En, 1)[0];
        assert_eq!(
            hit.coverage("what is the capital of Australia", Locale::En),
            0.0
        );
    }
}
