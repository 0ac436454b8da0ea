//! Finding the user's names in a question, tolerantly: case and accents never matter (both
//! sides go through the search normalisation), and small typos are forgiven (Damerau–
//! Levenshtein distance, through `strsim`: one edit for names of 4 to 7 letters, two from 8;
//! never in the first letter). Names of 3 letters or less only match exactly.

use crate::db::search::normalize;

/// The words of a text, normalised (lowercase, no accents, ligatures spelled out), split on
/// anything that is not a letter or a digit ("d'emplacements" gives "d", "emplacements").
pub fn words(text: &str) -> Vec<String> {
    normalize(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Edits allowed between a name of `len` characters and the words that stand for it.
fn allowed_edits(len: usize) -> usize {
    match len {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// Whether `word` is `target` give or take a small typo.
pub fn similar(word: &str, target: &str) -> bool {
    if word == target {
        return true;
    }
    let len = target.chars().count();
    let edits = allowed_edits(len);
    if edits == 0 || word.chars().count().abs_diff(len) > edits {
        return false;
    }
    strsim::damerau_levenshtein(word, target) <= edits
}

/// A name to look for, with what it stands for.
#[derive(Debug, Clone)]
pub struct Candidate<T> {
    words: Vec<String>,
    joined: String,
    pub target: T,
}

impl<T> Candidate<T> {
    /// A candidate for `name`; `None` when the name has no letters or digits.
    pub fn new(name: &str, target: T) -> Option<Self> {
        let words = words(name);
        if words.is_empty() {
            return None;
        }
        let joined = words.join(" ");
        Some(Self {
            words,
            joined,
            target,
        })
    }
}

/// Where a candidate was found: question words `start..end`.
#[derive(Debug, Clone)]
pub struct Found<'c, T> {
    pub candidate: &'c Candidate<T>,
    pub start: usize,
    pub end: usize,
    pub exact: bool,
}

impl<T> Found<'_, T> {
    fn weight(&self) -> (bool, usize) {
        (self.exact, self.candidate.joined.len())
    }
}

/// The candidates named in `question` (its [`words`]). Longer and exact matches win over the
/// ones they overlap ("Lyon Part-Dieu" over "Lyon"); candidates found on the very same words
/// are all kept (a brand and a creative can share a name). `ignore` lists words that never
/// count as a one-word name on their own (the question's own vocabulary: "best", "page").
pub fn find<'c, T>(
    question: &[String],
    candidates: &'c [Candidate<T>],
    ignore: &dyn Fn(&str) -> bool,
) -> Vec<Found<'c, T>> {
    // The question's windows of 1 to `longest` words, joined once.
    let longest = candidates.iter().map(|c| c.words.len()).max().unwrap_or(0);
    let windows: Vec<Vec<String>> = (1..=longest.min(question.len()))
        .map(|n| question.windows(n).map(|w| w.join(" ")).collect())
        .collect();
    let mut found: Vec<Found<'c, T>> = Vec::new();
    for candidate in candidates {
        let n = candidate.words.len();
        if n > question.len() || (n == 1 && ignore(&candidate.joined)) {
            continue;
        }
        let first = candidate.joined.chars().next();
        for (start, window) in windows[n - 1].iter().enumerate() {
            let exact = *window == candidate.joined;
            // A typo in the first letter is not forgiven: it keeps most comparisons cheap
            // (an account has thousands of names) and such typos are rare.
            let close = exact
                || (window.chars().next() == first
                    && similar(window, &candidate.joined)
                    // A typo inside a one-word window must not turn a keyword into a name.
                    && !(n == 1 && ignore(window)));
            if close {
                found.push(Found {
                    candidate,
                    start,
                    end: start + n,
                    exact,
                });
            }
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.weight()));
    let mut kept: Vec<Found<'c, T>> = Vec::new();
    for f in found {
        let clash = kept.iter().any(|k| {
            let overlaps = f.start < k.end && k.start < f.end;
            let same_span = f.start == k.start && f.end == k.end && f.exact == k.exact;
            overlaps && !same_span
        });
        if !clash {
            kept.push(f);
        }
    }
    kept.sort_by_key(|f| f.start);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(question: &str, list: &[&str]) -> Vec<String> {
        let candidates: Vec<Candidate<String>> = list
            .iter()
            .filter_map(|n| Candidate::new(n, (*n).to_owned()))
            .collect();
        find(&words(question), &candidates, &|w| w == "best")
            .into_iter()
            .map(|f| f.candidate.target.clone())
            .collect()
    }

    #[test]
    fn case_accents_and_typos_are_forgiven() {
        let list = [
            "Évry Centre",
            "Lyon",
            "Lyon Part-Dieu",
            "Soldes d'été",
            "Moka",
        ];
        assert_eq!(names("emplacements à EVRY centre", &list), ["Évry Centre"]);
        assert_eq!(
            names("compare soldes d ete et moka", &list),
            ["Soldes d'été", "Moka"]
        );
        assert_eq!(names("combien à Lyonn ?", &list), ["Lyon"]);
        assert_eq!(names("the Lyon Part Dieu site", &list), ["Lyon Part-Dieu"]);
        assert_eq!(names("creatives for Mokka", &list), ["Moka"]);
        assert!(names("nothing here", &list).is_empty());
    }

    #[test]
    fn short_names_and_keywords_need_exact_words() {
        assert!(names("the ab test", &["AC"]).is_empty());
        assert_eq!(names("the AC test", &["AC"]), ["AC"]);
        assert!(names("which is best", &["Best"]).is_empty());
        // Two edits from "bust": too many for a four-letter name.
        assert!(names("which is bset", &["Bust"]).is_empty());
    }

    #[test]
    fn shared_names_keep_every_meaning() {
        let candidates = vec![
            Candidate::new("Moka", "brand").unwrap(),
            Candidate::new("Moka", "creative").unwrap(),
        ];
        let found = find(&words("list Moka"), &candidates, &|_| false);
        assert_eq!(found.len(), 2);
    }
}
