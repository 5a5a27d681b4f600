//! Word forms: how a query's word meets the identifiers that spell it otherwise. Inflections
//! meet through an English stemmer (`parsers` and `parser`, `escaping` and `escape`), and a word
//! meets the abbreviations code writes for it through [`VOCABULARY`] (`config` and `cfg`,
//! `float` and `f64`). Exact forms still count most: a folded form scores [`FOLDED`] of its
//! word, an abbreviation [`ABBREVIATED`].

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;

/// What a form that meets a query word by inflection scores, of the word's own score.
pub(crate) const FOLDED: f32 = 0.8;
/// What a form that meets a query word by abbreviation scores, of the word's own score.
pub(crate) const ABBREVIATED: f32 = 0.6;

/// Words and the shorter forms code writes for them (`vocabulary.txt`), one meaning a line, the
/// full form first: a query word meets a line when it is one of its forms or shares the stem of
/// one of its words (`configurations` → `configur`, as `configuration`).
const VOCABULARY: &str = include_str!("vocabulary.txt");

/// The lines of [`VOCABULARY`], each its forms.
fn vocabulary() -> &'static [Vec<&'static str>] {
    static LINES: OnceLock<Vec<Vec<&'static str>>> = OnceLock::new();
    LINES.get_or_init(|| {
        VOCABULARY
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.split_whitespace().collect())
            .collect()
    })
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// A word's stem, when it is a word a stemmer reads: ASCII letters only, three or more.
pub(crate) fn stem(word: &str) -> Option<String> {
    (word.len() >= 3 && word.bytes().all(|b| b.is_ascii_lowercase()))
        .then(|| stemmer().stem(word).into_owned())
}

/// For each form and full word's stem in [`VOCABULARY`], the lines it belongs to.
fn lines_by_key() -> &'static FxHashMap<String, Vec<usize>> {
    static LINES: OnceLock<FxHashMap<String, Vec<usize>>> = OnceLock::new();
    LINES.get_or_init(|| {
        let mut map: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        let mut add = |key: String, line: usize| {
            let lines = map.entry(key).or_default();
            if !lines.contains(&line) {
                lines.push(line);
            }
        };
        for (line, words) in vocabulary().iter().enumerate() {
            for word in words {
                add(word.to_string(), line);
                if let Some(stem) = stem(word).filter(|s| s.len() >= 4) {
                    add(stem, line);
                }
            }
        }
        map
    })
}

/// The other forms [`VOCABULARY`] gives `word` (lowercase), in the table's order, without it.
pub(crate) fn abbreviations(word: &str) -> Vec<&'static str> {
    let map = lines_by_key();
    let mut lines: Vec<usize> = map.get(word).cloned().unwrap_or_default();
    if let Some(stem) = stem(word)
        && let Some(more) = map.get(&stem)
    {
        lines.extend(more.iter().filter(|l| !lines.contains(l)).collect::<Vec<_>>());
    }
    lines.sort_unstable();
    let mut out: Vec<&'static str> = Vec::new();
    for line in lines {
        for form in &vocabulary()[line] {
            if *form != word && !out.contains(form) {
                out.push(form);
            }
        }
    }
    out
}

/// The prefix every inflection of `word` with stem `stem` starts with: what they share
/// (`query` and its stem `queri` share `quer`), when that is three letters or more.
pub(crate) fn inflection_prefix<'a>(word: &'a str, stem: &str) -> Option<&'a str> {
    let shared = word.bytes().zip(stem.bytes()).take_while(|(a, b)| a == b).count();
    (shared >= 3).then(|| &word[..shared])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_share_a_stem_and_other_words_do_not() {
        for (a, b) in
            [("parsers", "parser"), ("escaping", "escape"), ("validated", "validate"), ("queries", "query")]
        {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_ne!(stem("parser"), stem("parse"));
        assert_eq!(stem("f64"), None, "digits are not stemmed");
        assert_eq!(stem("ab"), None);
        let (word, s) = ("query", stem("query").unwrap());
        assert_eq!(inflection_prefix(word, &s), Some("quer"));
    }

    #[test]
    fn a_word_meets_the_abbreviations_code_writes_for_it_and_back() {
        assert!(abbreviations("configurations").contains(&"cfg"));
        assert!(abbreviations("cfg").contains(&"config"));
        assert!(abbreviations("floats").contains(&"f64"));
        assert!(abbreviations("f64").contains(&"float"));
        assert_eq!(abbreviations("ctx"), ["context"]);
        assert!(abbreviations("parser").is_empty());
        for line in vocabulary() {
            for form in line {
                assert!(
                    form.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                    "{form}: a form is one lowercase term, as the tokenizer makes"
                );
            }
        }
    }
}
