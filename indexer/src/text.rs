//! The full-text side of the index: an identifier-aware tokenizer and a tantivy index of every
//! source file (path, definition names, doc lines, code), kept in step with the symbol index.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};
use tantivy::{Index as Tantivy, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, doc};

use crate::Error;
use crate::index::{MAX_PARSE_BYTES, Snapshot};

/// The tokenizer's registered name.
const CODE: &str = "code";
/// Parts and whole identifiers longer than this are not indexed.
const MAX_TERM: usize = 64;

/// Splits text into identifiers and emits each identifier whole and, at the same position, its
/// parts: `parseHTTPResponse` → `parsehttpresponse`, `parse`, `http`, `response`;
/// `read_to_end` → `read_to_end`, `read`, `to`, `end`. Everything is lowercased.
pub(crate) fn code_terms(text: &str, mut emit: impl FnMut(&str, usize, usize, usize)) {
    let bytes = text.as_bytes();
    let mut position = 0;
    let mut i = 0;
    let mut lower = String::new();
    while i < bytes.len() {
        if !is_ident_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident_byte(bytes[i]) {
            i += 1;
        }
        let word = &text[start..i];
        if word.len() <= MAX_TERM {
            lower.clear();
            lower.push_str(word);
            lower.make_ascii_lowercase();
            emit(&lower, start, i, position);
            let mut parts = 0;
            split_parts(word, |from, to| {
                parts += 1;
                if to - from < word.len() {
                    lower.clear();
                    lower.push_str(&word[from..to]);
                    lower.make_ascii_lowercase();
                    emit(&lower, start + from, start + to, position);
                }
            });
            let _ = parts;
        }
        position += 1;
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The parts of an identifier, as byte ranges: split at `_`, at lower→upper case changes, before
/// the last capital of a run of capitals followed by a lowercase letter, and between letters
/// and digits.
fn split_parts(word: &str, mut part: impl FnMut(usize, usize)) {
    let b = word.as_bytes();
    let mut start: Option<usize> = None;
    for i in 0..b.len() {
        let c = b[i];
        if c == b'_' {
            if let Some(s) = start.take() {
                part(s, i);
            }
            continue;
        }
        if let Some(s) = start {
            let prev = b[i - 1];
            let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (prev.is_ascii_uppercase()
                    && c.is_ascii_uppercase()
                    && b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()))
                || (prev.is_ascii_digit() != c.is_ascii_digit() && prev != b'_');
            if boundary {
                part(s, i);
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        part(s, b.len());
    }
}

/// The tantivy tokenizer over [`code_terms`]. Its tokens' text buffers are kept between
/// documents (`len` of them are the current document's), so a token costs no allocation.
#[derive(Clone, Default)]
pub(crate) struct CodeTokenizer {
    tokens: Vec<Token>,
    len: usize,
}

pub(crate) struct CodeTokenStream<'a> {
    tokens: &'a [Token],
    index: Option<usize>,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        let (tokens, len) = (&mut self.tokens, &mut self.len);
        *len = 0;
        code_terms(text, |term, from, to, position| {
            if let Some(token) = tokens.get_mut(*len) {
                token.offset_from = from;
                token.offset_to = to;
                token.position = position;
                token.text.clear();
                token.text.push_str(term);
            } else {
                tokens.push(Token {
                    offset_from: from,
                    offset_to: to,
                    position,
                    text: term.to_string(),
                    position_length: 1,
                });
            }
            *len += 1;
        });
        CodeTokenStream { tokens: &self.tokens[..self.len], index: None }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let next = self.index.map_or(0, |i| i + 1);
        self.index = Some(next);
        next < self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.index.unwrap_or(0)]
    }

    fn token_mut(&mut self) -> &mut Token {
        unreachable!("the code tokenizer's tokens are read-only")
    }
}

/// The fields of a file's document. Scores come per field, so ranking can weigh them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    pub path: Field,
    pub hash: Field,
    pub path_terms: Field,
    pub defs: Field,
    pub docs: Field,
    pub body: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(CODE).set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED),
        hash: builder.add_bytes_field("hash", STORED),
        path_terms: builder.add_text_field("path_terms", text.clone()),
        defs: builder.add_text_field("defs", text.clone()),
        docs: builder.add_text_field("docs", text.clone()),
        body: builder.add_text_field("body", text),
    };
    (builder.build(), fields)
}

/// What changed in one sync.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncStats {
    pub added: usize,
    pub removed: usize,
}

struct State {
    /// The snapshot generation the index reflects.
    generation: Option<u64>,
    /// Path → content hash of every indexed file.
    docs: HashMap<String, [u8; 16]>,
}

/// The tantivy index of one root.
pub struct TextIndex {
    /// Where it is saved (`None`: in memory), for messages.
    dir: Option<PathBuf>,
    reader: IndexReader,
    writer: Mutex<IndexWriter>,
    fields: Fields,
    state: Mutex<State>,
    /// One more than the generation last synced to (0: none), read without the lock.
    synced: std::sync::atomic::AtomicU64,
}

impl TextIndex {
    /// Opens the index saved in `dir` (created when missing, rebuilt when unreadable), or an
    /// in-memory one. Says why a saved index was dropped.
    pub fn open(dir: Option<&Path>) -> Result<(Self, Option<String>), Error> {
        Self::open_tantivy(dir)
            .map_err(|err| Error::SearchIndexOpen { path: dir.map(Path::to_path_buf), cause: err.into() })
    }

    /// [`TextIndex::open`], with tantivy's error.
    fn open_tantivy(dir: Option<&Path>) -> tantivy::Result<(Self, Option<String>)> {
        let (schema, fields) = schema();
        let mut dropped = None;
        let index = match dir {
            None => Tantivy::create_in_ram(schema.clone()),
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let opened = Tantivy::open_in_dir(dir).and_then(|index| {
                    if index.schema() == schema {
                        Ok(index)
                    } else {
                        Err(tantivy::TantivyError::SchemaError("another schema".into()))
                    }
                });
                match opened {
                    Ok(index) => index,
                    Err(err) => {
                        if dir.join("meta.json").exists() {
                            dropped = Some(format!("the saved search index is unusable ({err})"));
                        }
                        std::fs::remove_dir_all(dir)?;
                        std::fs::create_dir_all(dir)?;
                        Tantivy::create_in_dir(dir, schema.clone())?
                    }
                }
            }
        };
        // Tokenizers are not saved with an index: register on every open.
        index.tokenizers().register(CODE, TextAnalyzer::builder(CodeTokenizer::default()).build());
        let writer = index.writer_with_num_threads(1, 32_000_000)?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let mut docs = HashMap::new();
        let searcher = reader.searcher();
        for segment in searcher.segment_readers() {
            let store = segment.get_store_reader(16)?;
            for doc_id in 0..segment.max_doc() {
                if segment.is_deleted(doc_id) {
                    continue;
                }
                let doc: TantivyDocument = store.get(doc_id)?;
                let path = doc.get_first(fields.path).and_then(|v| v.as_str()).map(str::to_string);
                let hash =
                    doc.get_first(fields.hash).and_then(|v| v.as_bytes()).and_then(|b| b.try_into().ok());
                if let (Some(path), Some(hash)) = (path, hash) {
                    docs.insert(path, hash);
                }
            }
        }
        let state = Mutex::new(State { generation: None, docs });
        let synced = std::sync::atomic::AtomicU64::new(0);
        let dir = dir.map(Path::to_path_buf);
        Ok((Self { dir, reader, writer: Mutex::new(writer), fields, state, synced }, dropped))
    }

    pub(crate) fn fields(&self) -> Fields {
        self.fields
    }

    /// Brings the index to `snapshot`: files whose content hash changed are indexed again
    /// (read from `root`), removed files are deleted. A no-op when already in step.
    pub fn sync(&self, root: &Path, snapshot: &Snapshot) -> Result<SyncStats, Error> {
        self.sync_with(root, snapshot, true)
    }

    /// [`TextIndex::sync`], unless another call is syncing after a first sync: then this one
    /// searches what is committed (a change behind at most) rather than wait. For readers; a
    /// writer syncs.
    pub fn sync_unless_busy(&self, root: &Path, snapshot: &Snapshot) -> Result<SyncStats, Error> {
        self.sync_with(root, snapshot, false)
    }

    fn sync_with(&self, root: &Path, snapshot: &Snapshot, wait: bool) -> Result<SyncStats, Error> {
        let failed = |err: tantivy::TantivyError| Error::SearchIndexUpdate {
            path: self.dir.clone(),
            cause: err.into(),
        };
        // Already at this snapshot or a newer one: no lock, so a query never waits for a sync.
        if self.synced.load(std::sync::atomic::Ordering::Acquire) > snapshot.generation {
            return Ok(SyncStats::default());
        }
        let mut state = match self.state.try_lock() {
            Ok(state) => state,
            // Once something is committed; before the first sync there is nothing to search.
            Err(std::sync::TryLockError::WouldBlock)
                if !wait && self.synced.load(std::sync::atomic::Ordering::Acquire) > 0 =>
            {
                return Ok(SyncStats::default());
            }
            Err(_) => self.state.lock().expect("text index state"),
        };
        if state.generation.is_some_and(|g| g >= snapshot.generation) {
            return Ok(SyncStats::default());
        }
        let mut writer = self.writer.lock().expect("text index writer");
        let mut stats = SyncStats::default();
        let stale: Vec<String> =
            state.docs.keys().filter(|p| !snapshot.files.contains_key(*p)).cloned().collect();
        for path in stale {
            writer.delete_term(Term::from_field_text(self.fields.path, &path));
            state.docs.remove(&path);
            stats.removed += 1;
        }
        let dir = crate::beneath::RootDir::open(root).ok();
        for (path, entry) in &snapshot.files {
            if state.docs.get(path) == Some(&entry.hash) {
                continue;
            }
            writer.delete_term(Term::from_field_text(self.fields.path, path));
            let body = if entry.size > MAX_PARSE_BYTES {
                String::new()
            } else {
                dir.as_ref()
                    .and_then(|dir| dir.read(path).ok())
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default()
            };
            let mut defs = String::new();
            let mut docs = String::new();
            for def in &entry.symbols.defs {
                defs.push_str(&def.qualified);
                defs.push('\n');
                if let Some(doc) = &def.doc {
                    docs.push_str(doc);
                    docs.push('\n');
                }
            }
            let f = self.fields;
            writer
                .add_document(doc!(
                    f.path => path.as_str(),
                    f.hash => entry.hash.as_slice(),
                    f.path_terms => path.as_str(),
                    f.defs => defs,
                    f.docs => docs,
                    f.body => body,
                ))
                .map_err(failed)?;
            state.docs.insert(path.clone(), entry.hash);
            stats.added += 1;
        }
        if stats.added + stats.removed > 0 {
            writer.commit().map_err(failed)?;
            self.reader.reload().map_err(failed)?;
        }
        state.generation = Some(snapshot.generation);
        self.synced.store(snapshot.generation + 1, std::sync::atomic::Ordering::Release);
        Ok(stats)
    }

    /// BM25 scores of every file matching any of `terms` in `field`, by path.
    pub(crate) fn field_scores(&self, field: Field, terms: &[String]) -> Result<HashMap<String, f32>, Error> {
        self.scores(field, terms)
            .map_err(|err| Error::SearchIndexRead { path: self.dir.clone(), cause: err.into() })
    }

    /// [`TextIndex::field_scores`], with tantivy's error.
    fn scores(&self, field: Field, terms: &[String]) -> tantivy::Result<HashMap<String, f32>> {
        let searcher = self.reader.searcher();
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let query: Box<dyn Query> =
                    Box::new(TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs));
                (Occur::Should, query)
            })
            .collect();
        if clauses.is_empty() {
            return Ok(HashMap::new());
        }
        let query = BooleanQuery::new(clauses);
        let limit = (searcher.num_docs() as usize).max(1);
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut out = HashMap::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            if let Some(path) = doc.get_first(self.fields.path).and_then(|v| v.as_str()) {
                out.insert(path.to_string(), score);
            }
        }
        Ok(out)
    }

    /// For each file, how many of `terms` its body holds.
    pub fn terms_per_file(&self, terms: &[String]) -> Result<HashMap<String, u32>, Error> {
        let mut out: HashMap<String, u32> = HashMap::new();
        for term in terms {
            for path in self.field_scores(self.fields.body, std::slice::from_ref(term))?.into_keys() {
                *out.entry(path).or_default() += 1;
            }
        }
        Ok(out)
    }

    /// How many files contain `term` in the body, and how many files there are: for weighing a
    /// term's rarity when picking hit lines.
    pub fn doc_freq(&self, term: &str) -> (u64, u64) {
        let searcher = self.reader.searcher();
        let n = searcher.num_docs();
        let df = searcher.doc_freq(&Term::from_field_text(self.fields.body, term)).unwrap_or(0);
        (df, n)
    }

    /// The number of files indexed.
    pub fn len(&self) -> usize {
        self.state.lock().expect("text index state").docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        code_terms(text, |t, _, _, p| out.push(format!("{t}@{p}")));
        out
    }

    #[test]
    fn identifiers_are_kept_whole_and_split_into_parts() {
        assert_eq!(terms("parseHTTPResponse"), ["parsehttpresponse@0", "parse@0", "http@0", "response@0"]);
        assert_eq!(terms("read_to_end(buf)"), ["read_to_end@0", "read@0", "to@0", "end@0", "buf@1"]);
        assert_eq!(
            terms("HTTPServer getX2Value"),
            ["httpserver@0", "http@0", "server@0", "getx2value@1", "get@1", "x@1", "2@1", "value@1"]
        );
        assert_eq!(terms("__init__ x"), ["__init__@0", "init@0", "x@1"]);
    }

    #[test]
    fn a_reader_searches_the_last_commit_while_another_call_syncs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def alpha():\n    return 1\n").unwrap();
        let root = dir.path().canonicalize().unwrap();
        let filter = crate::walk::Filter::new(&root, &[]).unwrap();
        let (index, _) = crate::index::Index::open(&root, filter, None);
        let (text, _) = TextIndex::open(None).unwrap();
        assert_eq!(text.sync_unless_busy(&root, &index.snapshot()).unwrap().added, 1);
        std::fs::write(root.join("a.py"), "def alpha():\n    return 2\n").unwrap();
        let newer = index.apply_changes(&["a.py".to_string()]);
        {
            // Another call is syncing: the reader does not wait, and nothing is indexed.
            let _busy = text.state.lock().unwrap();
            assert_eq!(text.sync_unless_busy(&root, &newer).unwrap(), SyncStats::default());
        }
        // Then the next reader brings the index up to date.
        assert_eq!(text.sync_unless_busy(&root, &newer).unwrap().added, 1);
        assert_eq!(text.sync(&root, &newer).unwrap(), SyncStats::default());
    }
}
