//! The full-text side of the index: an identifier-aware tokenizer and a tantivy index of every
//! source file (path, definition names, doc lines, code), kept in step with the symbol index.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tantivy::index::SegmentId;
use tantivy::postings::Postings;
use tantivy::postings::TermInfo;
use tantivy::query::Bm25Weight;
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};
use tantivy::{
    DocId, DocSet, Index as Tantivy, IndexReader, IndexWriter, InvertedIndexReader, ReloadPolicy, Searcher,
    SegmentReader, TERMINATED, TantivyDocument, Term, doc,
};

use crate::Error;
use crate::snapshot::{FileEntry, MAX_PARSE_BYTES, Snapshot};

/// The tokenizer's registered name.
const CODE: &str = "code";
/// Parts and whole identifiers longer than this are not indexed.
const MAX_TERM: usize = 64;
/// File text added to the search index between commits while it syncs: a repository with less
/// source than this is committed once; a larger one's queue of documents stays this small
/// (tantivy queues up to 10,000 documents, text and all, while its threads index).
const SYNC_BYTES_IN_FLIGHT: usize = 32 << 20;
/// The dictionary terms read per segment and field when looking for a word's inflections: the
/// terms that start as the word and its stem do (`pars` for `parsers`).
const MAX_FORMS_SCANNED: u64 = 64;

/// A query's word as [`TextIndex::field_scores`] weighs it: its forms (the word first), each
/// with the share of the word's score it earns, and the word's weight among the query's words.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryWord {
    pub forms: Vec<(String, f32)>,
    pub weight: f32,
}

/// Splits text into identifiers and emits each identifier whole and, at the same position, its
/// parts: `parseHTTPResponse` → `parsehttpresponse`, `parse`, `http`, `response`;
/// `read_to_end` → `read_to_end`, `read`, `to`, `end`. Everything is lowercased.
pub(crate) fn code_terms(text: &str, mut emit: impl FnMut(&str, usize, usize, usize)) {
    let mut token = Token::default();
    let mut stream = CodeTokenStream::new(text, &mut token);
    while stream.advance() {
        let t = stream.token();
        emit(&t.text, t.offset_from, t.offset_to, t.position);
    }
}

fn is_ident_byte(b: u8) -> bool {
    IDENT[usize::from(b)]
}

/// Which bytes make identifiers: ASCII letters, digits and `_`.
static IDENT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// The parts of an identifier, as byte ranges, one at a time: split at `_`, at lower→upper case
/// changes, before the last capital of a run of capitals followed by a lowercase letter, and
/// between letters and digits.
#[derive(Default)]
struct Parts {
    /// The next byte to look at.
    at: usize,
    /// Where the part being read began.
    start: Option<usize>,
}

impl Parts {
    /// The next part of `b`, which must be the same word at every call.
    fn next(&mut self, b: &[u8]) -> Option<(usize, usize)> {
        while self.at < b.len() {
            let i = self.at;
            let c = b[i];
            self.at += 1;
            if c == b'_' {
                if let Some(s) = self.start.take() {
                    return Some((s, i));
                }
                continue;
            }
            let Some(s) = self.start else {
                self.start = Some(i);
                continue;
            };
            let prev = b[i - 1];
            let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (prev.is_ascii_uppercase()
                    && c.is_ascii_uppercase()
                    && b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()))
                || (prev.is_ascii_digit() != c.is_ascii_digit() && prev != b'_');
            if boundary {
                self.start = Some(i);
                return Some((s, i));
            }
        }
        self.start.take().map(|s| (s, b.len()))
    }
}

/// Whether an identifier has two parts or more (`BaseStubbing`, `read_to_end`, not `parse`).
pub(crate) fn is_compound(word: &str) -> bool {
    let mut parts = Parts::default();
    parts.next(word.as_bytes()).is_some() && parts.next(word.as_bytes()).is_some()
}

/// The tantivy tokenizer over [`code_terms`]. It keeps one token, whose text buffer serves
/// every document: a token costs no allocation, and a large document no token list.
#[derive(Clone, Default)]
pub(crate) struct CodeTokenizer {
    token: Token,
}

/// The terms of one text, made as they are read.
pub(crate) struct CodeTokenStream<'a> {
    text: &'a str,
    /// The next byte to scan for a word.
    at: usize,
    /// The next word's position.
    position: usize,
    /// The current word's range and, when it has several, the parts still to emit.
    word: (usize, usize),
    parts: Option<Parts>,
    token: &'a mut Token,
}

impl<'a> CodeTokenStream<'a> {
    fn new(text: &'a str, token: &'a mut Token) -> Self {
        CodeTokenStream { text, at: 0, position: 0, word: (0, 0), parts: None, token }
    }

    /// The next part of the current word shorter than the word, as the token.
    fn next_part(&mut self) -> bool {
        let Some(parts) = &mut self.parts else { return false };
        let (start, end) = self.word;
        let word = &self.text.as_bytes()[start..end];
        while let Some((from, to)) = parts.next(word) {
            if to - from < word.len() {
                // Identifier bytes are ASCII: a part of the lowercased word is the lowercased
                // part, at the same offsets.
                let part = &self.text[start + from..start + to];
                self.token.text.clear();
                self.token.text.push_str(part);
                self.token.text.make_ascii_lowercase();
                self.token.offset_from = start + from;
                self.token.offset_to = start + to;
                return true;
            }
        }
        self.parts = None;
        false
    }
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        CodeTokenStream::new(text, &mut self.token)
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if self.next_part() {
            return true;
        }
        let bytes = self.text.as_bytes();
        loop {
            while self.at < bytes.len() && !is_ident_byte(bytes[self.at]) {
                self.at += 1;
            }
            if self.at == bytes.len() {
                return false;
            }
            let start = self.at;
            let (mut upper, mut other) = (0usize, 0usize);
            while self.at < bytes.len() && is_ident_byte(bytes[self.at]) {
                upper += usize::from(bytes[self.at].is_ascii_uppercase());
                other += usize::from(!bytes[self.at].is_ascii_alphabetic());
                self.at += 1;
            }
            let end = self.at;
            let position = self.position;
            self.position += 1;
            if end - start > MAX_TERM {
                continue;
            }
            self.token.text.clear();
            self.token.text.push_str(&self.text[start..end]);
            self.token.text.make_ascii_lowercase();
            self.token.offset_from = start;
            self.token.offset_to = end;
            self.token.position = position;
            // One part only (`read`, `Read`, `READ`): nothing more to emit.
            let len = end - start;
            let one_part = other == 0
                && (upper == 0 || upper == len || (upper == 1 && bytes[start].is_ascii_uppercase()));
            self.word = (start, end);
            self.parts = (!one_part).then(Parts::default);
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
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

/// Opens each segment's term dictionaries. One in another format (an index saved by a tack
/// whose tantivy stored FST dictionaries) opens as an index and fails at the first search.
fn readable(index: &Tantivy, fields: &Fields) -> tantivy::Result<()> {
    for meta in index.searchable_segment_metas()? {
        let segment = SegmentReader::open(&index.segment(meta))?;
        for field in [fields.path, fields.path_terms, fields.defs, fields.docs, fields.body] {
            segment.inverted_index(field)?;
        }
    }
    Ok(())
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
    /// BM25's statistics for the searcher generation they were counted on.
    stats: Mutex<Option<(u64, Arc<LiveStats>)>>,
    /// Each segment's documents (see `segment_docs`).
    paths: Mutex<HashMap<SegmentId, Arc<SegmentDocs>>>,
}

impl TextIndex {
    /// Opens the index saved in `dir` (created when missing, rebuilt when unreadable), or an
    /// in-memory one. Says why a saved index was dropped.
    pub fn open(dir: Option<&Path>) -> Result<(Self, Option<String>), Error> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4);
        Self::open_tantivy(dir, threads)
            .map_err(|err| Error::SearchIndexOpen { path: dir.map(Path::to_path_buf), cause: err.into() })
    }

    /// [`TextIndex::open`], with tantivy's error.
    fn open_tantivy(dir: Option<&Path>, threads: usize) -> tantivy::Result<(Self, Option<String>)> {
        let (schema, fields) = schema();
        let mut dropped = None;
        let index = match dir {
            None => Tantivy::create_in_ram(schema.clone()),
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                let opened = Tantivy::open_in_dir(dir).and_then(|index| {
                    if index.schema() != schema {
                        return Err(tantivy::TantivyError::SchemaError("another schema".into()));
                    }
                    readable(&index, &fields)?;
                    Ok(index)
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
        // One indexing thread per core (up to four), 40 MB each (a cold index of 3,000 Java
        // files then makes two segments, not nine). Which file lands in which segment varies
        // from run to run; scores do not (see `LiveStats`).
        let writer = index.writer_with_num_threads(threads, threads * 40_000_000)?;
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
        Ok((
            Self {
                dir,
                reader,
                writer: Mutex::new(writer),
                fields,
                state,
                synced,
                stats: Mutex::new(None),
                paths: Mutex::default(),
            },
            dropped,
        ))
    }

    /// Builds the search index of `snapshot` afresh in `dir`, as a bundle holds it: one indexing
    /// thread and no merges, so that the same files in the same order make the same segments.
    pub(crate) fn build_reproducible(dir: &Path, root: &Path, snapshot: &Snapshot) -> Result<(), Error> {
        let (index, _) = Self::open_tantivy(Some(dir), 1)
            .map_err(|err| Error::SearchIndexOpen { path: Some(dir.to_path_buf()), cause: err.into() })?;
        index
            .writer
            .lock()
            .expect("text index writer")
            .set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        index.sync(root, snapshot)?;
        let writer = index.writer.into_inner().expect("text index writer");
        writer
            .wait_merging_threads()
            .map_err(|err| Error::SearchIndexUpdate { path: Some(dir.to_path_buf()), cause: err.into() })
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
        let stale: Vec<String> = state.docs.keys().filter(|p| snapshot.entry(p).is_none()).cloned().collect();
        for path in stale {
            writer.delete_term(Term::from_field_text(self.fields.path, &path));
            state.docs.remove(&path);
            stats.removed += 1;
        }
        let dir = crate::beneath::RootDir::open(root).ok();
        let mut pending = 0usize;
        for (path, entry) in snapshot.files.iter().chain(&snapshot.texts) {
            if state.docs.get(path) == Some(&entry.hash) {
                continue;
            }
            let bytes = if entry.size > MAX_PARSE_BYTES {
                None
            } else {
                dir.as_ref().and_then(|dir| dir.read_prefix(path, MAX_PARSE_BYTES).ok())
            };
            // A path new to the index has no document to delete: a delete term costs a term
            // lookup in every segment when the segments are written.
            if state.docs.contains_key(path) {
                writer.delete_term(Term::from_field_text(self.fields.path, path));
            }
            let bytes = bytes.unwrap_or_default();
            pending += bytes.len();
            writer.add_document(self.document(entry, bytes)).map_err(failed)?;
            state.docs.insert(path.clone(), entry.hash);
            stats.added += 1;
            // The writer queues up to 10,000 documents, text and all, while its threads index:
            // on a large cold sync that held 150-300 MB more. A commit waits for the queue.
            if pending >= SYNC_BYTES_IN_FLIGHT {
                writer.commit().map_err(failed)?;
                pending = 0;
            }
        }
        if stats.added + stats.removed > 0 {
            writer.commit().map_err(failed)?;
            self.reader.reload().map_err(failed)?;
        }
        state.generation = Some(snapshot.generation);
        self.synced.store(snapshot.generation + 1, std::sync::atomic::Ordering::Release);
        Ok(stats)
    }

    /// A file's document: its path, its definitions' names and doc lines, its text.
    fn document(&self, entry: &FileEntry, bytes: Vec<u8>) -> TantivyDocument {
        let mut defs = String::new();
        let mut docs = String::new();
        for def in &entry.symbols.defs {
            defs.push_str(def.qualified());
            defs.push('\n');
            if let Some(doc) = &def.doc() {
                docs.push_str(doc);
                docs.push('\n');
            }
        }
        let f = self.fields;
        doc!(
            f.path => entry.path.as_str(),
            f.hash => entry.hash.as_slice(),
            f.path_terms => entry.path.as_str(),
            f.defs => defs,
            f.docs => docs,
            // Valid UTF-8 (nearly every file) becomes the body without a copy.
            f.body => String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        )
    }

    /// BM25's statistics over the documents alive in `searcher`, counted once per generation.
    fn live_stats(&self, searcher: &Searcher) -> tantivy::Result<Arc<LiveStats>> {
        let generation = searcher.generation().generation_id();
        let mut cached = self.stats.lock().expect("text index statistics");
        if let Some((g, stats)) = cached.as_ref()
            && *g == generation
        {
            return Ok(stats.clone());
        }
        let f = self.fields;
        let docs = self.segment_docs(searcher)?;
        let stats = Arc::new(LiveStats::count(searcher, &docs, &[f.path_terms, f.defs, f.docs, f.body])?);
        *cached = Some((generation, stats.clone()));
        Ok(stats)
    }

    /// Each of `terms` with the forms of it the index holds ([`crate::forms`]): the term itself
    /// (share 1, held or not), the inflections the body's and the paths' dictionaries hold (a
    /// word sharing its stem: `parsers` for `parser`) and the abbreviations either way (`cfg`
    /// for `config`), each with the share of the term's score it earns.
    pub fn word_forms(&self, terms: &[String]) -> Result<Vec<QueryWord>, Error> {
        self.forms(terms).map_err(|err| Error::SearchIndexRead { path: self.dir.clone(), cause: err.into() })
    }

    /// [`TextIndex::word_forms`], with tantivy's error.
    fn forms(&self, terms: &[String]) -> tantivy::Result<Vec<QueryWord>> {
        let searcher = self.reader.searcher();
        let mut dictionaries = Vec::new();
        for segment in searcher.segment_readers() {
            for field in [self.fields.body, self.fields.path_terms] {
                dictionaries.push(segment.inverted_index(field)?);
            }
        }
        let mut out = Vec::with_capacity(terms.len());
        for term in terms {
            let mut forms = vec![(term.clone(), 1.0)];
            if let Some(stem) = crate::forms::stem(term)
                && let Some(prefix) = crate::forms::inflection_prefix(term, &stem)
            {
                // Past the prefix: the same bytes with the last one the next letter.
                let mut end = prefix.as_bytes().to_vec();
                if let Some(last) = end.last_mut() {
                    *last += 1;
                }
                let mut found: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
                for dictionary in &dictionaries {
                    let mut stream = dictionary
                        .terms()
                        .range()
                        .ge(prefix)
                        .lt(&end)
                        .limit(MAX_FORMS_SCANNED)
                        .into_stream()?;
                    while stream.advance() {
                        let Ok(key) = std::str::from_utf8(stream.key()) else { continue };
                        // An inflection adds a few letters at most (`parse` → `parsing`).
                        if key.len() > term.len() + 4 || found.contains(key) {
                            continue;
                        }
                        if key != term && crate::forms::stem(key).is_some_and(|s| s == stem) {
                            found.insert(key.to_string());
                        }
                    }
                }
                forms.extend(found.into_iter().map(|form| (form, crate::forms::FOLDED)));
            }
            for form in crate::forms::abbreviations(term) {
                if !forms.iter().any(|(f, _)| f == form) {
                    forms.push((form.to_string(), crate::forms::ABBREVIATED));
                }
            }
            out.push(QueryWord { forms, weight: 1.0 });
        }
        Ok(out)
    }

    /// BM25 scores of every file matching any of `words` in `field`, by path.
    pub(crate) fn field_scores(
        &self,
        field: Field,
        words: &[QueryWord],
    ) -> Result<FxHashMap<String, f32>, Error> {
        self.scores(field, words)
            .map_err(|err| Error::SearchIndexRead { path: self.dir.clone(), cause: err.into() })
    }

    /// [`TextIndex::field_scores`], with tantivy's error. Each word is scored on its own and a
    /// file's scores are summed in the query's order, so the sum's last bits, and with them the
    /// order of nearly equal files, do not depend on how the files fell into segments (tantivy's
    /// union adds its clauses in the order their next documents come). A term is looked up once
    /// per segment, for its document frequency and its postings both (a `TermQuery` looks it up
    /// twice): BM25 as tantivy's term scorer computes it.
    ///
    /// A word's forms are scored at the word's rarity (its own form's document frequency, or,
    /// where the index does not hold it, its most frequent form's), each at its share, and a
    /// file scores its best form: `parsers` and `parser` in one file are one word met twice, not
    /// two words.
    ///
    /// A parsed file is scored among the parsed files alone (their count, their average
    /// length, how many of them hold the term): the words of a repository's documents, build
    /// scripts and configuration do not change how its code ranks. `groovy` in six Gradle files
    /// is still a rare word in the Java code it names. A text file is scored among all files.
    fn scores(&self, field: Field, words: &[QueryWord]) -> tantivy::Result<FxHashMap<String, f32>> {
        let searcher = self.reader.searcher();
        let stats = self.live_stats(&searcher)?;
        let mut out = FxHashMap::default();
        if words.is_empty() {
            return Ok(out);
        }
        let segments = searcher.segment_readers();
        let docs = self.segment_docs(&searcher)?;
        let inverted =
            segments.iter().map(|s| s.inverted_index(field)).collect::<tantivy::Result<Vec<_>>>()?;
        let norms =
            segments.iter().map(|s| s.get_fieldnorms_reader(field)).collect::<tantivy::Result<Vec<_>>>()?;
        let (all, parsed) = (stats.all(field), stats.parsed(field));
        let mut sums: Vec<Vec<Option<f32>>> =
            segments.iter().map(|s| vec![None; s.max_doc() as usize]).collect();
        // Each form held: its term in each segment, and how many files and text files hold it.
        struct Held {
            found: Vec<Option<TermInfo>>,
            df_all: u64,
            df_text: u64,
            share: f32,
        }
        let mut best: FxHashMap<(usize, DocId), f32> = FxHashMap::default();
        for word in words {
            let mut held: Vec<Held> = Vec::with_capacity(word.forms.len());
            for (form, share) in &word.forms {
                let term = Term::from_field_text(field, form);
                let mut h =
                    Held { found: Vec::with_capacity(segments.len()), df_all: 0, df_text: 0, share: *share };
                for ((segment, inverted), docs) in segments.iter().zip(&inverted).zip(&docs) {
                    let info = inverted.get_term_info(&term)?;
                    if let Some(info) = &info {
                        h.df_all += live_count(segment, inverted, info)?;
                        h.df_text += text_docs_holding(segment, inverted, info, &docs.text_docs)?;
                    }
                    h.found.push(info);
                }
                held.push(h);
            }
            // The word's rarity among all files, and among the parsed files: its own form's
            // where one of them holds it, else its most frequent form's there. Each is chosen
            // from its own files, so the text files never change a parsed file's score.
            let in_parsed = |h: &Held| h.df_all - h.df_text;
            let own = held.first().filter(|h| h.df_all > 0);
            let Some(rarity_all) = own.or_else(|| held.iter().max_by_key(|h| h.df_all)).map(|h| h.df_all)
            else {
                continue;
            };
            if rarity_all == 0 {
                continue;
            }
            let own_parsed = held.first().map(in_parsed).filter(|df| *df > 0);
            let rarity_parsed = own_parsed.unwrap_or_else(|| held.iter().map(in_parsed).max().unwrap_or(0));
            let weight_all =
                Bm25Weight::for_one_term(rarity_all, all.docs, all.average).boost_by(word.weight);
            let weight_parsed =
                Bm25Weight::for_one_term(rarity_parsed, parsed.docs, parsed.average).boost_by(word.weight);
            let held_forms = held.iter().filter(|h| h.df_all > 0).count();
            best.clear();
            for h in held.iter().filter(|h| h.df_all > 0) {
                for (ord, info) in h.found.iter().enumerate() {
                    let Some(info) = info else { continue };
                    let mut postings =
                        inverted[ord].read_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
                    let (sums, norms, parsed) = (&mut sums[ord], &norms[ord], &docs[ord].parsed);
                    let mut doc = postings.doc();
                    while doc != TERMINATED {
                        let weight = if parsed[doc as usize] { &weight_parsed } else { &weight_all };
                        let score = h.share * weight.score(norms.fieldnorm_id(doc), postings.term_freq());
                        if held_forms == 1 {
                            *sums[doc as usize].get_or_insert(0.0) += score;
                        } else {
                            let at = best.entry((ord, doc)).or_insert(0.0);
                            *at = at.max(score);
                        }
                        doc = postings.advance();
                    }
                }
            }
            // One addition per file and word, whatever order the map holds them in.
            for (&(ord, doc), score) in &best {
                *sums[ord][doc as usize].get_or_insert(0.0) += score;
            }
        }
        for ((segment, sums), docs) in segments.iter().zip(&sums).zip(&docs) {
            for (doc, sum) in sums.iter().enumerate() {
                if segment.is_deleted(doc as DocId) {
                    continue;
                }
                if let (Some(score), Some(Some(path))) = (sum, docs.paths.get(doc)) {
                    out.insert(path.to_string(), *score);
                }
            }
        }
        Ok(out)
    }

    /// Each segment's paths by document and whether a grammar reads each, in the searcher's
    /// segment order. A segment never changes (a deletion only marks a document), so they are
    /// read from the document store once, not on every query; those of segments gone since are
    /// dropped.
    fn segment_docs(&self, searcher: &Searcher) -> tantivy::Result<Vec<Arc<SegmentDocs>>> {
        let segments = searcher.segment_readers();
        let mut out = Vec::with_capacity(segments.len());
        for segment in segments {
            let id = segment.segment_id();
            if let Some(docs) = self.paths.lock().expect("text index paths").get(&id) {
                out.push(docs.clone());
                continue;
            }
            let store = segment.get_store_reader(1)?;
            let mut paths = Vec::with_capacity(segment.max_doc() as usize);
            for doc in 0..segment.max_doc() {
                let stored: TantivyDocument = store.get(doc)?;
                paths.push(stored.get_first(self.fields.path).and_then(|v| v.as_str()).map(str::to_string));
            }
            let parsed: Vec<bool> = paths
                .iter()
                .map(|p| p.as_deref().is_some_and(|p| crate::Lang::from_path(Path::new(p)).is_some()))
                .collect();
            let text_docs = (0..segment.max_doc()).filter(|doc| !parsed[*doc as usize]).collect();
            let docs = Arc::new(SegmentDocs { paths, parsed, text_docs });
            self.paths.lock().expect("text index paths").insert(id, docs.clone());
            out.push(docs);
        }
        let mut cached = self.paths.lock().expect("text index paths");
        if cached.len() > segments.len() {
            let live: HashSet<SegmentId> = segments.iter().map(|s| s.segment_id()).collect();
            cached.retain(|id, _| live.contains(id));
        }
        Ok(out)
    }

    /// For each file, how many of `terms` its body holds.
    pub fn terms_per_file(&self, terms: &[String]) -> Result<HashMap<String, u32>, Error> {
        self.count_terms(terms)
            .map_err(|err| Error::SearchIndexRead { path: self.dir.clone(), cause: err.into() })
    }

    /// [`TextIndex::terms_per_file`], with tantivy's error: the terms' postings, no scores.
    fn count_terms(&self, terms: &[String]) -> tantivy::Result<HashMap<String, u32>> {
        let searcher = self.reader.searcher();
        let docs = self.segment_docs(&searcher)?;
        let mut out: HashMap<String, u32> = HashMap::new();
        for (segment, docs) in searcher.segment_readers().iter().zip(&docs) {
            let inverted = segment.inverted_index(self.fields.body)?;
            let mut counts = vec![0u32; segment.max_doc() as usize];
            for term in terms {
                let term = Term::from_field_text(self.fields.body, term);
                let Some(mut postings) = inverted.read_postings(&term, IndexRecordOption::Basic)? else {
                    continue;
                };
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    counts[doc as usize] += 1;
                    doc = postings.advance();
                }
            }
            for (doc, count) in counts.into_iter().enumerate() {
                if count == 0 || segment.is_deleted(doc as DocId) {
                    continue;
                }
                if let Some(path) = docs.paths.get(doc).and_then(Option::as_deref) {
                    *out.entry(path.to_string()).or_default() += count;
                }
            }
        }
        Ok(out)
    }

    /// How many files contain `term` in the body, and how many files there are: for weighing a
    /// term's rarity when picking hit lines.
    pub fn doc_freq(&self, term: &str) -> (u64, u64) {
        let searcher = self.reader.searcher();
        let df = live_doc_freq(&searcher, &Term::from_field_text(self.fields.body, term)).unwrap_or(0);
        (df, searcher.num_docs())
    }

    /// The number of files indexed.
    pub fn len(&self) -> usize {
        self.state.lock().expect("text index state").docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One segment's documents: each one's path, and whether a grammar reads it.
struct SegmentDocs {
    paths: Vec<Option<String>>,
    parsed: Vec<bool>,
    /// The documents a grammar does not read, in order.
    text_docs: Vec<DocId>,
}

/// BM25's corpus statistics over the documents alive now, over all of them and over the parsed
/// files alone. Tantivy's own count a deleted document until a merge drops it, so a file's
/// score after an edit would depend on when the background merges ran. Token totals are summed
/// from the documents' field norms (the exact totals tantivy keeps include deleted documents),
/// so they are the same however the files fell into segments and whichever merges ran.
struct LiveStats {
    docs: u64,
    parsed_docs: u64,
    /// Each field's tokens over all documents and over the parsed ones.
    tokens: Vec<(Field, u64, u64)>,
}

/// The statistics BM25 weighs a term by, over one set of documents.
#[derive(Clone, Copy)]
struct Corpus {
    docs: u64,
    average: f32,
}

impl LiveStats {
    fn count(searcher: &Searcher, docs: &[Arc<SegmentDocs>], fields: &[Field]) -> tantivy::Result<LiveStats> {
        let mut tokens: Vec<(Field, u64, u64)> = fields.iter().map(|f| (*f, 0, 0)).collect();
        let mut parsed_docs = 0;
        for (segment, docs) in searcher.segment_readers().iter().zip(docs) {
            let live = || (0..segment.max_doc()).filter(|doc| !segment.is_deleted(*doc));
            parsed_docs += live().filter(|doc| docs.parsed[*doc as usize]).count() as u64;
            for (field, all, parsed) in &mut tokens {
                let norms = segment.get_fieldnorms_reader(*field)?;
                for doc in live() {
                    let n = u64::from(norms.fieldnorm(doc));
                    *all += n;
                    if docs.parsed[doc as usize] {
                        *parsed += n;
                    }
                }
            }
        }
        Ok(LiveStats { docs: searcher.num_docs(), parsed_docs, tokens })
    }

    fn all(&self, field: Field) -> Corpus {
        let tokens = self.tokens.iter().find(|(f, ..)| *f == field).map_or(0, |(_, n, _)| *n);
        Corpus::of(self.docs, tokens)
    }

    fn parsed(&self, field: Field) -> Corpus {
        let tokens = self.tokens.iter().find(|(f, ..)| *f == field).map_or(0, |(_, _, n)| *n);
        Corpus::of(self.parsed_docs, tokens)
    }
}

impl Corpus {
    fn of(docs: u64, tokens: u64) -> Corpus {
        let docs = docs.max(1);
        Corpus { docs, average: tokens as f32 / docs as f32 }
    }
}

/// How many alive documents hold `term`: postings are walked only in segments with deletions.
fn live_doc_freq(searcher: &Searcher, term: &Term) -> tantivy::Result<u64> {
    let mut total = 0u64;
    for segment in searcher.segment_readers() {
        let inverted = segment.inverted_index(term.field())?;
        if let Some(info) = inverted.get_term_info(term)? {
            total += live_count(segment, &inverted, &info)?;
        }
    }
    Ok(total)
}

/// How many of `text_docs` (in order) are alive and in a term's postings: a skip to each, so a
/// term's postings are not walked for the few text files among many parsed ones.
fn text_docs_holding(
    segment: &SegmentReader,
    inverted: &InvertedIndexReader,
    info: &TermInfo,
    text_docs: &[DocId],
) -> tantivy::Result<u64> {
    if text_docs.is_empty() {
        return Ok(0);
    }
    let mut postings = inverted.read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
    let mut count = 0;
    for &doc in text_docs {
        let at = if postings.doc() < doc { postings.seek(doc) } else { postings.doc() };
        if at == TERMINATED {
            break;
        }
        count += u64::from(at == doc && !segment.is_deleted(doc));
    }
    Ok(count)
}

/// How many of the documents in a term's postings are alive in `segment`.
fn live_count(
    segment: &SegmentReader,
    inverted: &InvertedIndexReader,
    info: &TermInfo,
) -> tantivy::Result<u64> {
    if segment.num_deleted_docs() == 0 {
        return Ok(u64::from(info.doc_freq));
    }
    let mut postings = inverted.read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
    let mut total = 0;
    let mut doc = postings.doc();
    while doc != TERMINATED {
        total += u64::from(!segment.is_deleted(doc));
        doc = postings.advance();
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of `terms` alone, at weight 1.
    fn exact(terms: &[&str]) -> Vec<QueryWord> {
        terms.iter().map(|t| QueryWord { forms: vec![(t.to_string(), 1.0)], weight: 1.0 }).collect()
    }

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        code_terms(text, |t, _, _, p| out.push(format!("{t}@{p}")));
        out
    }

    #[test]
    fn compound_identifiers_have_two_parts_or_more() {
        for word in ["BaseStubbing", "read_to_end", "parseHTTP", "utf8"] {
            assert!(is_compound(word), "{word}");
        }
        for word in ["parse", "Parse", "HTTP", "_private", "x"] {
            assert!(!is_compound(word), "{word}");
        }
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
    fn the_tokenizer_starts_each_document_afresh() {
        let mut analyzer = TextAnalyzer::builder(CodeTokenizer::default()).build();
        let mut tokens = |text: &str| {
            let mut out = Vec::new();
            analyzer.token_stream(text).process(&mut |t: &Token| {
                out.push(format!("{}@{} {}..{}", t.text, t.position, t.offset_from, t.offset_to))
            });
            out
        };
        // The first document ends inside a word's parts; the second begins with a plain word.
        assert_eq!(tokens("x = getX2"), ["x@0 0..1", "getx2@1 4..9", "get@1 4..7", "x@1 7..8", "2@1 8..9"]);
        assert_eq!(tokens("READ(my_buf)"), ["read@0 0..4", "my_buf@1 5..11", "my@1 5..7", "buf@1 8..11"]);
        let long = "a".repeat(MAX_TERM + 1);
        assert_eq!(tokens(&format!("{long} b")), ["b@1 66..67"], "an overlong word still takes a position");
        assert!(tokens("  ( ) ").is_empty());
    }

    #[test]
    fn scores_count_only_the_files_there_now() {
        // Each edit leaves the file's old document behind, deleted, until a merge drops it.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.py"), "def alpha():\n    return beta()\n").unwrap();
        std::fs::write(root.join("b.py"), "def beta():\n    pass\n").unwrap();
        std::fs::write(root.join("c.py"), "gamma = 1\n").unwrap();
        // A text file, edited too: its deleted documents must not count among the text files.
        std::fs::write(root.join("notes.md"), "alpha\n").unwrap();
        let filter = crate::walk::Filter::new(&root, &[]).unwrap();
        let (index, _) = crate::index::Index::open(&root, filter, None);
        // One indexing thread: the three files share a segment, which keeps b.py's deleted
        // documents (a segment whose documents are all deleted is dropped).
        let (edited, _) = TextIndex::open_tantivy(None, 1).unwrap();
        edited.sync(&root, &index.snapshot()).unwrap();
        for i in 1..4 {
            let text = format!("def beta():\n    return {}\n", "alpha + ".repeat(i * 5) + "0");
            std::fs::write(root.join("b.py"), text).unwrap();
            std::fs::write(root.join("notes.md"), format!("alpha beta {i}\n")).unwrap();
            let snapshot = index.apply_changes(&["b.py".to_string(), "notes.md".to_string()]);
            assert_eq!(edited.sync(&root, &snapshot).unwrap().added, 2);
        }
        let searcher = edited.reader.searcher();
        assert!(searcher.segment_readers().iter().any(|s| s.num_deleted_docs() > 0), "no deletions kept");
        let (fresh, _) = TextIndex::open(None).unwrap();
        fresh.sync(&root, &index.snapshot()).unwrap();
        let terms = ["alpha".to_string(), "beta".to_string(), "return".to_string()];
        let words = edited.word_forms(&terms).unwrap();
        assert_eq!(words, fresh.word_forms(&terms).unwrap());
        for field in [edited.fields.body, edited.fields.defs] {
            let (a, b) =
                (edited.field_scores(field, &words).unwrap(), fresh.field_scores(field, &words).unwrap());
            assert_eq!(a, b, "the edited index scores as a fresh index of the same files");
        }
        assert_eq!(edited.doc_freq("alpha"), fresh.doc_freq("alpha"));
        assert_eq!(edited.doc_freq("alpha"), (3, 4));
        // The match counts a search reports skip the deleted documents too.
        assert_eq!(edited.terms_per_file(&terms).unwrap(), fresh.terms_per_file(&terms).unwrap());
        assert_eq!(edited.terms_per_file(&terms).unwrap()["b.py"], 3);
        assert_eq!(edited.terms_per_file(&terms).unwrap()["notes.md"], 2);
    }

    #[test]
    fn documents_and_build_scripts_change_no_parsed_files_score() {
        // `groovy` is a rare word in the code; six build scripts and a README that say it must
        // not make it a common one for the code, nor change the code's average length.
        let write = |root: &Path, with_texts: bool| {
            std::fs::write(root.join("maker.py"), "def inline_maker():\n    return groovy_meta()\n").unwrap();
            std::fs::write(root.join("other.py"), "def other():\n    return inline_maker()\n").unwrap();
            std::fs::write(root.join("third.py"), "x = 1\n").unwrap();
            if with_texts {
                for i in 0..6 {
                    std::fs::write(root.join(format!("build{i}.gradle")), "apply plugin: 'groovy'\n")
                        .unwrap();
                }
                std::fs::write(
                    root.join("README.md"),
                    "# Inline maker\n\nWorks with groovy and inline mocks.\n",
                )
                .unwrap();
            }
        };
        let scores = |with_texts: bool| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().canonicalize().unwrap();
            write(&root, with_texts);
            let filter = crate::walk::Filter::new(&root, &[]).unwrap();
            let (index, _) = crate::index::Index::open(&root, filter, None);
            assert_eq!(index.snapshot().texts.len(), if with_texts { 7 } else { 0 });
            let (text, _) = TextIndex::open(None).unwrap();
            text.sync(&root, &index.snapshot()).unwrap();
            let words = exact(&["groovy", "inline", "maker"]);
            [text.fields.body, text.fields.defs, text.fields.path_terms]
                .map(|field| text.field_scores(field, &words).unwrap())
        };
        let (code_alone, with_texts) = (scores(false), scores(true));
        for (alone, with) in code_alone.iter().zip(&with_texts) {
            for (path, score) in alone {
                assert_eq!(with.get(path), Some(score), "{path} scores as in the code alone");
            }
        }
        // The text files are scored, among all files.
        assert!(with_texts[0]["README.md"] > 0.0 && with_texts[0]["build0.gradle"] > 0.0);
    }

    /// `dir/repo` holding one Python file, `a.py` defining `alpha`, and its symbol index (apart
    /// from the search index a test keeps in `dir`, whose files would be searched as text).
    fn one_file_repository(dir: &Path) -> (PathBuf, crate::index::Index) {
        let dir = dir.join("repo");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.py"), "def alpha():\n    return 1\n").unwrap();
        let root = dir.canonicalize().unwrap();
        let filter = crate::walk::Filter::new(&root, &[]).unwrap();
        let (index, _) = crate::index::Index::open(&root, filter, None);
        (root, index)
    }

    #[test]
    fn a_saved_index_whose_term_dictionaries_cannot_be_read_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let (root, index) = one_file_repository(dir.path());
        let store = dir.path().join("search");
        {
            let (text, dropped) = TextIndex::open(Some(&store)).unwrap();
            assert_eq!(dropped, None);
            assert_eq!(text.sync(&root, &index.snapshot()).unwrap().added, 1);
        }
        // What an older tack's FST dictionary looks like to this one: a `.term` file it cannot
        // read. Schema and metadata are intact, so the index itself still opens.
        let terms: Vec<_> = std::fs::read_dir(&store)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "term"))
            .collect();
        assert!(!terms.is_empty());
        for path in &terms {
            let mut bytes = std::fs::read(path).unwrap();
            let n = bytes.len();
            bytes[n - 40..].fill(0xAB);
            std::fs::write(path, bytes).unwrap();
        }
        let (text, dropped) = TextIndex::open(Some(&store)).unwrap();
        let dropped = dropped.expect("the unreadable index is dropped");
        assert!(dropped.starts_with("the saved search index is unusable"), "{dropped}");
        assert!(text.is_empty(), "rebuilt from nothing");
        assert_eq!(text.sync(&root, &index.snapshot()).unwrap().added, 1);
        let alpha = text.field_scores(text.fields.defs, &exact(&["alpha"])).unwrap();
        assert_eq!(alpha.keys().collect::<Vec<_>>(), ["a.py"]);
    }

    #[test]
    fn a_reader_searches_the_last_commit_while_another_call_syncs() {
        let dir = tempfile::tempdir().unwrap();
        let (root, index) = one_file_repository(dir.path());
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
