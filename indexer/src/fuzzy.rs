//! Definitions by name as a person types it: exact, prefix, camel humps (`CA` finds
//! `CartAdapter`), substring, letters in order, best first. What `symbols` lists and
//! `search`'s symbol mode finds.

use crate::snapshot::Snapshot;
use crate::symbols::{Def, DefKind, DefRef};

/// How a name matched a query; earlier is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NameMatch {
    Exact,
    ExactIgnoringCase,
    Prefix,
    CamelHumps,
    Substring,
    Fuzzy,
}

impl NameMatch {
    pub fn as_str(self) -> &'static str {
        match self {
            NameMatch::Exact | NameMatch::ExactIgnoringCase => "exact",
            NameMatch::Prefix => "prefix",
            NameMatch::CamelHumps => "camel humps",
            NameMatch::Substring => "substring",
            NameMatch::Fuzzy => "fuzzy",
        }
    }
}

/// Every definition whose name matches `query` (exact, prefix, camel humps, substring, letters in
/// order; a qualified query matches qualified names), best first: match quality, then kinds people
/// look for (types before methods), shorter names, then path and line for a stable order.
pub fn find_definitions<'a>(
    snapshot: &'a Snapshot,
    query: &str,
) -> Vec<(NameMatch, u32, &'a str, DefRef<'a>)> {
    let qualified_query = query.contains('.') || query.contains("::");
    let mut found: Vec<(NameMatch, u32, &str, DefRef)> = Vec::new();
    for (path, entry) in &snapshot.files {
        for def in &entry.symbols.defs {
            let haystack = if qualified_query { def.qualified() } else { def.name() };
            if let Some((how, spread)) = match_name(query, haystack, qualified_query) {
                found.push((how, spread, path.as_str(), def));
            }
        }
    }
    found.sort_by(|a, b| {
        (a.0, a.1, kind_rank(&a.3), a.3.name().len(), a.2, a.3.line).cmp(&(
            b.0,
            b.1,
            kind_rank(&b.3),
            b.3.name().len(),
            b.2,
            b.3.line,
        ))
    });
    found
}

fn kind_rank(def: &Def) -> u8 {
    use DefKind as K;
    match def.kind {
        K::Class | K::Interface | K::Enum | K::Type => 0,
        K::Function | K::Macro => 1,
        K::Method => 2,
        K::Module => 3,
        K::Constant => 4,
    }
}

/// How `name` matches `query`, with a spread (lower is tighter) for ordering fuzzy matches.
fn match_name(query: &str, name: &str, qualified: bool) -> Option<(NameMatch, u32)> {
    if name == query {
        return Some((NameMatch::Exact, 0));
    }
    if qualified {
        // `Cart.add` matches `shop.Cart.add` at a separator.
        if name.ends_with(query) && name[..name.len() - query.len()].ends_with(['.', ':']) {
            return Some((NameMatch::Exact, 0));
        }
    }
    let lower_name = name.to_lowercase();
    let lower_query = query.to_lowercase();
    if lower_name == lower_query {
        return Some((NameMatch::ExactIgnoringCase, 0));
    }
    if lower_name.starts_with(&lower_query) {
        return Some((NameMatch::Prefix, 0));
    }
    if camel_humps(query, name) {
        return Some((NameMatch::CamelHumps, 0));
    }
    if lower_query.len() >= 3 && lower_name.contains(&lower_query) {
        return Some((NameMatch::Substring, 0));
    }
    if lower_query.chars().count() >= 2 {
        return fuzzy(&lower_query, &lower_name).map(|spread| (NameMatch::Fuzzy, spread));
    }
    None
}

/// The words of an identifier: `CartAdapter` → Cart, Adapter; `apply_discount` → apply, discount.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == ':' || c == '.' {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Camel humps: the query's chunks (split at capitals and underscores) start successive words
/// of the name (`CA` and `CarAd` find `CartAdapter`, `ap_d` finds `apply_discount`), or the
/// query is the start of the name's initials (`ad` finds `apply_discount`).
fn camel_humps(query: &str, name: &str) -> bool {
    let words: Vec<String> = words(name).iter().map(|w| w.to_lowercase()).collect();
    if words.len() < 2 {
        return false;
    }
    let initials: String = words.iter().filter_map(|w| w.chars().next()).collect();
    let lower = query.to_lowercase();
    if lower.chars().count() >= 2 && initials.starts_with(&lower) {
        return true;
    }
    let chunks: Vec<String> = words_of_query(query);
    if chunks.len() < 2 {
        return false;
    }
    let mut at = 0;
    for chunk in &chunks {
        match (at..words.len()).find(|&i| words[i].starts_with(chunk.as_str())) {
            Some(i) => at = i + 1,
            None => return false,
        }
    }
    true
}

fn words_of_query(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in query.chars() {
        if c == '_' {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        if c.is_uppercase() && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The query's letters in order in the name; the spread is how far apart they lie.
fn fuzzy(query: &str, name: &str) -> Option<u32> {
    let name: Vec<char> = name.chars().collect();
    let mut at = 0;
    let mut first = None;
    for q in query.chars() {
        let i = (at..name.len()).find(|&i| name[i] == q)?;
        first.get_or_insert(i);
        at = i + 1;
    }
    Some((at - first.unwrap_or(0)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_exactly_by_prefix_humps_and_fuzzily() {
        assert_eq!(match_name("Cart", "Cart", false), Some((NameMatch::Exact, 0)));
        assert_eq!(match_name("cart", "Cart", false), Some((NameMatch::ExactIgnoringCase, 0)));
        assert_eq!(match_name("app", "apply_discount", false), Some((NameMatch::Prefix, 0)));
        assert_eq!(match_name("CA", "CartAdapter", false), Some((NameMatch::Prefix, 0)));
        assert_eq!(match_name("CAd", "CartAdapter", false), Some((NameMatch::CamelHumps, 0)));
        assert_eq!(match_name("ad", "apply_discount", false), Some((NameMatch::CamelHumps, 0)));
        assert_eq!(match_name("a_d", "apply_discount", false), Some((NameMatch::CamelHumps, 0)));
        assert_eq!(match_name("disc", "apply_discount", false), Some((NameMatch::Substring, 0)));
        assert_eq!(match_name("apdc", "apply_discount", false).map(|m| m.0), Some(NameMatch::Fuzzy));
        assert_eq!(match_name("xyz", "apply_discount", false), None);
        assert_eq!(match_name("Cart.add", "shop.Cart.add", true), Some((NameMatch::Exact, 0)));
    }
}
