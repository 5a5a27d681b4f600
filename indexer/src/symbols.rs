//! What one file defines and references, as data: definitions (with qualified names, spans,
//! signatures and doc lines), references (with their kind, enclosing definition and qualifier),
//! and the scopes, bindings and imports of [`crate::names`]. `extract` fills it in.

use serde::{Deserialize, Serialize};

use crate::names::{Binding, Impl, Import, Pos, Scope};

/// What a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DefKind {
    Class,
    Enum,
    Interface,
    Type,
    Function,
    Method,
    Constant,
    Module,
    Macro,
}

impl DefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DefKind::Class => "class",
            DefKind::Enum => "enum",
            DefKind::Interface => "interface",
            DefKind::Type => "type",
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Constant => "constant",
            DefKind::Module => "module",
            DefKind::Macro => "macro",
        }
    }

    pub(crate) fn from_capture(capture: &str) -> Option<DefKind> {
        Some(match capture {
            "definition.class" => DefKind::Class,
            "definition.enum" => DefKind::Enum,
            "definition.interface" => DefKind::Interface,
            "definition.type" => DefKind::Type,
            "definition.function" => DefKind::Function,
            "definition.method" => DefKind::Method,
            "definition.constant" => DefKind::Constant,
            "definition.module" => DefKind::Module,
            "definition.macro" => DefKind::Macro,
            _ => return None,
        })
    }
}

/// How a name is used. Ordered from least to most specific: when several query patterns match
/// one identifier, the most specific kind wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RefKind {
    Name,
    Attribute,
    Type,
    Import,
    Inheritance,
    /// `receiver.name(...)`.
    MethodCall,
    /// `name(...)` or `path::name(...)`.
    Call,
}

impl RefKind {
    /// Every kind, in declaration order (`kind as usize` indexes it).
    const ALL: [RefKind; 7] = [
        RefKind::Name,
        RefKind::Attribute,
        RefKind::Type,
        RefKind::Import,
        RefKind::Inheritance,
        RefKind::MethodCall,
        RefKind::Call,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Name => "name",
            RefKind::Attribute => "attribute",
            RefKind::Type => "type use",
            RefKind::Import => "import",
            RefKind::Inheritance => "inheritance",
            RefKind::MethodCall => "method call",
            RefKind::Call => "call",
        }
    }

    pub(crate) fn from_capture(capture: &str) -> Option<RefKind> {
        Some(match capture {
            "reference.name" => RefKind::Name,
            "reference.attribute" => RefKind::Attribute,
            "reference.type" => RefKind::Type,
            "reference.import" => RefKind::Import,
            "reference.inheritance" | "reference.implementation" => RefKind::Inheritance,
            "reference.method" => RefKind::MethodCall,
            "reference.call" => RefKind::Call,
            _ => return None,
        })
    }
}

/// One definition: 36 bytes. Its name, qualified name, header, signature and doc line are held
/// end to end in its file's [`Defs`] string (a large workspace has 1.6 million definitions: a
/// string each cost 16 bytes and an allocation more), the name as the end of the qualified name
/// when it is that (it nearly always is). [`Defs`] gives it out with its texts, as a [`DefRef`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    pub kind: DefKind,
    /// 1-based first and last line of the whole definition.
    pub line: u32,
    pub end_line: u32,
    /// Byte span of the definition, from its own line on (annotations that its node holds stand
    /// above it, as decorators do).
    pub start_byte: u32,
    pub end_byte: u32,
    /// The innermost enclosing definition, as an index into the file's `defs` (`NONE`: none).
    parent: u32,
    /// Where its texts start in the file's [`Defs`] string; they end where the next
    /// definition's start. Not saved: the texts are saved with each definition.
    #[serde(skip)]
    at: u32,
    /// Within its texts: where the name ends when it stands apart (else where it starts, in the
    /// qualified name), where the qualified name ends, where the header ends, then where the
    /// signature starts and ends; the doc line is the rest. The texts are the name unless the
    /// qualified name ends with it, the qualified name, the header, the signature and the doc
    /// line, end to end; the signature is left out when the header holds it (a one-line
    /// signature: `def add(self, item)` in `    def add(self, item):`, nearly every definition),
    /// and taken from there.
    spans: [u16; 5],
    /// [`HAS_DOC`], [`NAME_APART`], [`PROVIDES`].
    flags: u8,
}

/// [`Def::flags`]: the definition has a doc line.
const HAS_DOC: u8 = 1;
/// [`Def::flags`]: the name is not the end of the qualified name and is held before it.
const NAME_APART: u8 = 2;
/// [`Def::flags`]: a test framework hands what it makes to the parameters of its name (a pytest
/// fixture: `def test_save(tmp_path)` gets `tmp_path()`'s value).
const PROVIDES: u8 = 4;
/// The longest name or qualified name a definition keeps, in bytes: its texts' spans are 16
/// bits, and the two names and the other three texts at their longest fit.
const MAX_NAME: usize = 16 << 10;
/// The longest header, signature or doc line a definition keeps, in bytes (the extractor cuts
/// them to a few hundred characters before).
const MAX_TEXT: usize = 4 << 10;

/// `text` cut to at most `max` bytes, at a character's start.
fn at_most(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A definition's texts, as [`Defs::push`] takes them.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefText<'a> {
    /// Within the file: `Class.method` (Python), `module::Type::method` (Rust).
    pub qualified: &'a str,
    /// The definition's first source line, as written (indentation kept, trailing space cut).
    pub header: &'a str,
    /// The signature with whitespace collapsed: `def add(self, item)`, `pub fn new(r: f64) -> Self`.
    pub signature: &'a str,
    /// The first line of the docstring or doc comment.
    pub doc: Option<&'a str>,
}

impl Def {
    /// The innermost enclosing definition, as an index into the file's `defs`.
    pub fn parent(&self) -> Option<u32> {
        (self.parent != u32::MAX).then_some(self.parent)
    }

    /// Whether a test framework hands what it makes to the parameters of its name ([`PROVIDES`]).
    pub fn provides(&self) -> bool {
        self.flags & PROVIDES != 0
    }

    /// Whether these spans and flags read within texts of `len` bytes at character starts
    /// (a saved index is read back from disk).
    fn fits(&self, text: &str) -> bool {
        let [name, qualified_end, header_end, signature_start, signature_end] = self.spans.map(usize::from);
        let qualified_start = if self.flags & NAME_APART != 0 { name } else { 0 };
        let ordered = qualified_start <= qualified_end
            && qualified_end <= header_end
            && header_end <= text.len()
            && signature_start <= signature_end
            && signature_end <= text.len()
            && (self.flags & NAME_APART != 0 || name <= qualified_end);
        ordered && self.spans.iter().all(|&at| text.is_char_boundary(at.into()))
    }
}

/// A definition with its texts, as [`Defs`] gives it out; its fields are the [`Def`]'s.
#[derive(Debug, Clone, Copy)]
pub struct DefRef<'a> {
    def: &'a Def,
    /// The definition's texts, end to end.
    text: &'a str,
}

impl std::ops::Deref for DefRef<'_> {
    type Target = Def;

    fn deref(&self) -> &Def {
        self.def
    }
}

impl<'a> DefRef<'a> {
    pub fn name(&self) -> &'a str {
        if self.flags & NAME_APART != 0 { self.slice(0, 0) } else { self.slice(self.spans[0], 1) }
    }

    /// Within the file: `Class.method` (Python), `module::Type::method` (Rust).
    pub fn qualified(&self) -> &'a str {
        let start = if self.flags & NAME_APART != 0 { self.spans[0] } else { 0 };
        self.slice(start, 1)
    }

    /// The definition's first source line, as written (indentation kept, trailing space cut).
    pub fn header(&self) -> &'a str {
        self.slice(self.spans[1], 2)
    }

    /// The signature with whitespace collapsed: `def add(self, item)`, `pub fn new(r: f64) -> Self`.
    pub fn signature(&self) -> &'a str {
        self.slice(self.spans[3], 4)
    }

    /// The first line of the docstring or doc comment.
    pub fn doc(&self) -> Option<&'a str> {
        let start = self.spans[2].max(self.spans[4]);
        (self.flags & HAS_DOC != 0).then(|| self.text.get(start as usize..).unwrap_or(""))
    }

    /// The texts from `start` to span `end`.
    fn slice(&self, start: u16, end: usize) -> &'a str {
        self.text.get(start as usize..self.spans[end] as usize).unwrap_or("")
    }
}

/// A file's definitions in source order, their texts end to end in one string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Defs {
    list: Vec<Def>,
    text: String,
}

/// The definitions without their texts: `defs[i].line`, `defs.len()`.
impl std::ops::Deref for Defs {
    type Target = [Def];

    fn deref(&self) -> &[Def] {
        &self.list
    }
}

impl Defs {
    /// Definition `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<DefRef<'_>> {
        let def = self.list.get(i)?;
        let end = self.list.get(i + 1).map_or(self.text.len(), |next| next.at as usize);
        Some(DefRef { def, text: self.text.get(def.at as usize..end).unwrap_or("") })
    }

    /// Definition `i`, which the caller knows there is.
    pub fn at(&self, i: usize) -> DefRef<'_> {
        self.get(i).expect("a definition of this file")
    }

    /// In source order.
    pub fn iter(&self) -> DefIter<'_> {
        DefIter { defs: self, range: 0..self.list.len() }
    }

    /// From definition `start` on, in source order.
    pub fn iter_from(&self, start: usize) -> DefIter<'_> {
        DefIter { defs: self, range: start.min(self.list.len())..self.list.len() }
    }

    /// Adds a definition: `lines` are its first and last (1-based), `bytes` its span.
    pub fn push(
        &mut self,
        name: &str,
        kind: DefKind,
        lines: (u32, u32),
        bytes: (u32, u32),
        parent: Option<u32>,
        text: DefText<'_>,
    ) {
        let DefText { qualified, header, signature, doc } = text;
        let (name, qualified) = (at_most(name, MAX_NAME), at_most(qualified, MAX_NAME));
        let (header, signature, doc) =
            (at_most(header, MAX_TEXT), at_most(signature, MAX_TEXT), doc.map(|d| at_most(d, MAX_TEXT)));
        let apart = !qualified.ends_with(name);
        let inside = header.find(signature).filter(|_| !signature.is_empty());
        let own_signature = if inside.is_some() { "" } else { signature };
        let at = self.text.len();
        for part in [if apart { name } else { "" }, qualified, header, own_signature, doc.unwrap_or("")] {
            self.text.push_str(part);
        }
        let qualified_start = if apart { name.len() } else { 0 };
        let qualified_end = qualified_start + qualified.len();
        let name_span = if apart { name.len() } else { qualified_end - name.len() };
        let header_end = qualified_end + header.len();
        let signature_start = inside.map_or(header_end, |at| qualified_end + at);
        let spans =
            [name_span, qualified_end, header_end, signature_start, signature_start + signature.len()]
                .map(|at| u16::try_from(at).expect("a definition's texts are cut to fit 16 bits"));
        let flags = if doc.is_some() { HAS_DOC } else { 0 } | if apart { NAME_APART } else { 0 };
        self.list.push(Def {
            kind,
            line: lines.0,
            end_line: lines.1,
            start_byte: bytes.0,
            end_byte: bytes.1,
            parent: parent.unwrap_or(u32::MAX),
            // Past 4 GB of texts in one file (no parsed file comes near) the texts read as empty.
            at: u32::try_from(at).unwrap_or(u32::MAX),
            spans,
            flags,
        });
    }

    /// Stretches the last definition to end at `end_line` and `end_byte`: a clause that
    /// follows it adds to it (Elixir's `def f(x)` clauses of one arity).
    pub(crate) fn stretch_last(&mut self, end_line: u32, end_byte: u32) {
        if let Some(last) = self.list.last_mut() {
            last.end_line = last.end_line.max(end_line);
            last.end_byte = last.end_byte.max(end_byte);
        }
    }

    /// Marks the last definition as one a test framework hands to parameters of its name.
    pub(crate) fn mark_last_provides(&mut self) {
        if let Some(last) = self.list.last_mut() {
            last.flags |= PROVIDES;
        }
    }

    /// Gives back the room the list and the string grew beyond what they hold.
    pub fn shrink_to_fit(&mut self) {
        self.list.shrink_to_fit();
        self.text.shrink_to_fit();
    }
}

impl<'a> IntoIterator for &'a Defs {
    type Item = DefRef<'a>;
    type IntoIter = DefIter<'a>;

    fn into_iter(self) -> DefIter<'a> {
        self.iter()
    }
}

/// A file's definitions with their texts, in source order.
#[derive(Debug, Clone)]
pub struct DefIter<'a> {
    defs: &'a Defs,
    range: std::ops::Range<usize>,
}

impl<'a> Iterator for DefIter<'a> {
    type Item = DefRef<'a>;

    fn next(&mut self) -> Option<DefRef<'a>> {
        self.range.next().map(|i| self.defs.at(i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for DefIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range.next_back().map(|i| self.defs.at(i))
    }
}

impl ExactSizeIterator for DefIter<'_> {}

/// Saved as each definition with its own texts: a file's texts together can be longer than
/// what a saved index's reader holds at once.
impl Serialize for Defs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(|d| (d.def, d.text)))
    }
}

impl<'de> Deserialize<'de> for Defs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Defs;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("definitions, each with its texts")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Defs, A::Error> {
                let mut defs = Defs::default();
                while let Some((mut def, text)) = seq.next_element::<(Def, std::borrow::Cow<'de, str>)>()? {
                    if !def.fits(&text) {
                        return Err(serde::de::Error::custom("a definition's texts do not fit its spans"));
                    }
                    // The extractor puts a parent before what it holds: a later or missing one
                    // would be read out of bounds or in a loop.
                    if def.parent().is_some_and(|parent| parent as usize >= defs.list.len()) {
                        return Err(serde::de::Error::custom(
                            "a definition's parent does not come before it",
                        ));
                    }
                    def.at = u32::try_from(defs.text.len()).map_err(serde::de::Error::custom)?;
                    defs.text.push_str(&text);
                    defs.list.push(def);
                }
                defs.shrink_to_fit();
                Ok(defs)
            }
        }
        deserializer.deserialize_seq(Visit)
    }
}

/// One reference to a name, as [`Refs`] gives it back: the kind shares a word with the column,
/// and "no enclosing definition" is a sentinel (20 bytes; 28 with an `Option`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref {
    /// Index into the file's `names`.
    pub name: u32,
    /// 1-based line (bytes).
    pub line: u32,
    /// The 1-based column (bytes) above, the kind in the low [`KIND_BITS`] bits.
    column_kind: u32,
    /// The innermost definition containing the reference, as an index into `defs`; `u32::MAX`
    /// for none.
    enclosing: u32,
    /// What comes before the name, as an index into `names`: the object of `a.b.name`
    /// (`a.b`, or `?` when it is not a plain chain), the path of `geo::name`, the module of an
    /// imported name (`..pkg`); `u32::MAX` (no name) for a bare name.
    pub qualifier: u32,
}

/// Bits of [`Ref`]'s packed word that hold the kind; the column has the other 29 (files past
/// [`crate::MAX_PARSE_BYTES`], 2^21, are not parsed, so no column is larger).
const KIND_BITS: u32 = 3;

impl Ref {
    pub fn new(
        name: u32,
        line: u32,
        column: u32,
        kind: RefKind,
        enclosing: Option<u32>,
        qualifier: u32,
    ) -> Ref {
        let column = column.min(u32::MAX >> KIND_BITS);
        Ref {
            name,
            line,
            column_kind: (column << KIND_BITS) | kind as u32,
            enclosing: enclosing.unwrap_or(u32::MAX),
            qualifier,
        }
    }

    /// 1-based column (bytes).
    pub fn column(&self) -> u32 {
        self.column_kind >> KIND_BITS
    }

    pub fn kind(&self) -> RefKind {
        RefKind::ALL[(self.column_kind & ((1 << KIND_BITS) - 1)) as usize]
    }

    /// The innermost definition containing the reference, as an index into `defs`.
    pub fn enclosing(&self) -> Option<u32> {
        (self.enclosing != u32::MAX).then_some(self.enclosing)
    }
}

/// A file's references in source order, packed: each a few bytes (LEB128 numbers, the line as a
/// step from the one before, the enclosing definition as a flag when it is the one before's),
/// with every [`REFS_PER_MARK`]th starting afresh at a mark, so a line's references are found
/// without decoding the whole file. A workspace of 30,000 files has 18.7 million references:
/// 374 MB at 20 bytes each, about 110 MB packed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refs {
    bytes: Vec<u8>,
    /// Where reference `k * REFS_PER_MARK` starts in `bytes`.
    marks: Vec<u32>,
    len: u32,
}

/// References between marks.
const REFS_PER_MARK: usize = 16;
/// A packed reference's first byte: the kind in the low bits, then these flags.
const SAME_ENCLOSING: u8 = 1 << 3;
const HAS_ENCLOSING: u8 = 1 << 4;
const HAS_QUALIFIER: u8 = 1 << 5;

pub(crate) fn put_number(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

pub(crate) fn take_number(bytes: &[u8], at: &mut usize) -> u32 {
    let mut n = 0u32;
    let mut shift = 0;
    loop {
        // Past the end (a damaged saved index) reads as zeros, never out of bounds; a number
        // ends at its fifth byte whatever that byte says.
        let byte = bytes.get(*at).copied().unwrap_or(0);
        *at += 1;
        n |= u32::from(byte & 0x7f) << shift;
        if byte < 0x80 || shift == 28 {
            return n;
        }
        shift += 7;
    }
}

/// A signed step as an unsigned number: 0, -1, 1, -2, … as 0, 1, 2, 3, …
pub(crate) fn zigzag(step: i64) -> u32 {
    ((step << 1) ^ (step >> 63)) as u32
}

pub(crate) fn unzigzag(n: u32) -> i64 {
    i64::from(n >> 1) ^ -i64::from(n & 1)
}

impl Refs {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every reference, in source order.
    pub fn iter(&self) -> RefIter<'_> {
        self.iter_from(0)
    }

    /// The reference at index `i`.
    pub fn get(&self, i: usize) -> Option<Ref> {
        if i >= self.len() {
            return None;
        }
        let start = i / REFS_PER_MARK * REFS_PER_MARK;
        self.iter_from(start).nth(i - start)
    }

    /// The references from `start` on, `start` a multiple of [`REFS_PER_MARK`].
    fn iter_from(&self, start: usize) -> RefIter<'_> {
        let at = self.marks.get(start / REFS_PER_MARK).map_or(self.bytes.len(), |&m| m as usize);
        RefIter { refs: self, next: start, at, line: 0, enclosing: None }
    }

    /// The index of the first reference on `line` or after it.
    pub fn first_at_or_after(&self, line: u32) -> usize {
        // The last mark whose reference is before the line, then on from it.
        let block = self.marks.partition_point(|&m| {
            let mut at = m as usize + 1;
            unzigzag(take_number(&self.bytes, &mut at)) < i64::from(line)
        });
        let start = block.saturating_sub(1) * REFS_PER_MARK;
        start + self.iter_from(start).take_while(|r| r.line < line).count()
    }
}

impl FromIterator<Ref> for Refs {
    fn from_iter<I: IntoIterator<Item = Ref>>(refs: I) -> Refs {
        let mut out = Refs::default();
        let (mut line, mut enclosing) = (0, None);
        for (i, r) in refs.into_iter().enumerate() {
            if i.is_multiple_of(REFS_PER_MARK) {
                out.marks.push(out.bytes.len() as u32);
                (line, enclosing) = (0, None);
            }
            let mut flags = r.kind() as u8;
            if r.enclosing() == enclosing {
                flags |= SAME_ENCLOSING;
            } else if r.enclosing().is_some() {
                flags |= HAS_ENCLOSING;
            }
            if r.qualifier != u32::MAX {
                flags |= HAS_QUALIFIER;
            }
            out.bytes.push(flags);
            // In source order, a line is the one before's or later; a step back still packs.
            put_number(&mut out.bytes, zigzag(i64::from(r.line) - i64::from(line)));
            put_number(&mut out.bytes, r.column());
            put_number(&mut out.bytes, r.name);
            if flags & HAS_ENCLOSING != 0 {
                put_number(&mut out.bytes, r.enclosing().unwrap_or_default());
            }
            if flags & HAS_QUALIFIER != 0 {
                put_number(&mut out.bytes, r.qualifier);
            }
            (line, enclosing) = (r.line, r.enclosing());
            out.len += 1;
        }
        out.bytes.shrink_to_fit();
        out.marks.shrink_to_fit();
        out
    }
}

/// The references of a [`Refs`], decoded in order.
pub struct RefIter<'a> {
    refs: &'a Refs,
    next: usize,
    at: usize,
    line: u32,
    enclosing: Option<u32>,
}

impl Iterator for RefIter<'_> {
    type Item = Ref;

    fn next(&mut self) -> Option<Ref> {
        if self.next >= self.refs.len() {
            return None;
        }
        if self.next.is_multiple_of(REFS_PER_MARK) {
            (self.line, self.enclosing) = (0, None);
        }
        let bytes = &self.refs.bytes;
        let flags = bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        self.line = (i64::from(self.line) + unzigzag(take_number(bytes, &mut self.at))) as u32;
        let column = take_number(bytes, &mut self.at);
        let name = take_number(bytes, &mut self.at);
        if flags & SAME_ENCLOSING == 0 {
            self.enclosing = (flags & HAS_ENCLOSING != 0).then(|| take_number(bytes, &mut self.at));
        }
        let qualifier = if flags & HAS_QUALIFIER != 0 { take_number(bytes, &mut self.at) } else { u32::MAX };
        let kind = RefKind::ALL[usize::from(flags & ((1 << KIND_BITS) - 1))];
        self.next += 1;
        Some(Ref::new(name, self.line, column, kind, self.enclosing, qualifier))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.refs.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for RefIter<'_> {}

impl<'a> IntoIterator for &'a Refs {
    type Item = Ref;
    type IntoIter = RefIter<'a>;

    fn into_iter(self) -> RefIter<'a> {
        self.iter()
    }
}

/// Why a file was left unparsed: how deep it nests, and on which line it first passed the
/// bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TooDeep {
    /// The bound passed plus one: the walk stops counting there.
    pub depth: u32,
    /// 1-based.
    pub line: u32,
}

impl TooDeep {
    /// The reason, as the log and `outline` say it.
    pub fn reason(&self) -> String {
        format!(
            "nested more than {} levels deep at line {}; indexed as text only",
            self.depth.saturating_sub(1),
            self.line
        )
    }
}

/// Everything one file defines and references.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSymbols {
    /// In source order.
    pub defs: Defs,
    /// In source order.
    pub refs: Refs,
    /// The distinct names and paths the fields below point at; `Ref::name` indexes this.
    pub names: Names,
    /// Places where the parser had to recover (0 for a clean file).
    pub syntax_issues: u32,
    /// Scopes in source order; scope 0 is the whole file.
    pub(crate) scopes: Vec<Scope>,
    /// Names bound in scopes (parameters, assignments, loop variables, patterns), in source
    /// order.
    pub(crate) bindings: Vec<Binding>,
    pub(crate) imports: Vec<Import>,
    /// Rust impl blocks.
    pub(crate) impls: Vec<Impl>,
    /// Python `__all__`, when the module sets it.
    pub(crate) exports: Option<Vec<String>>,
    /// Set when the file nests past a bound and was indexed as text only (no symbols).
    pub too_deep: Option<TooDeep>,
}

impl FileSymbols {
    pub fn ref_name(&self, r: &Ref) -> &str {
        &self.names[r.name]
    }

    /// The string at a `names` index; empty for `u32::MAX` (no name).
    pub fn text(&self, id: u32) -> &str {
        self.names.get(id).unwrap_or("")
    }
}

/// A file's distinct names, end to end in one string: a workspace of 30,000 files has 2.9
/// million, and a `String` each cost 24 bytes and an allocation more than the text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Names {
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<u32>,
}

impl Names {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `id`, if there is one.
    pub fn get(&self, id: u32) -> Option<&str> {
        let end = *self.ends.get(id as usize)? as usize;
        let start = id.checked_sub(1).map_or(0, |before| self.ends[before as usize] as usize);
        Some(&self.text[start..end])
    }
}

impl std::ops::Index<u32> for Names {
    type Output = str;

    fn index(&self, id: u32) -> &str {
        self.get(id).expect("a name id of this file")
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Names {
        let mut out = Names::default();
        for name in names {
            out.text.push_str(name.as_ref());
            out.ends.push(out.text.len() as u32);
        }
        out.text.shrink_to_fit();
        out.ends.shrink_to_fit();
        out
    }
}

/// The innermost scope containing `pos`, given scopes sorted by start (nested spans): the
/// last scope starting at or before it, or the nearest of that scope's parents that contains it.
pub(crate) fn innermost_scope(scopes: &[Scope], pos: Pos) -> u32 {
    let i = scopes.partition_point(|s| { s.start } <= pos);
    let mut at = i.saturating_sub(1) as u32;
    while at != 0 && { scopes[at as usize].end } <= pos {
        at = scopes[at as usize].parent;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_gives_back_each_kind_column_and_enclosing_definition_it_was_made_with() {
        for kind in RefKind::ALL {
            for column in [1, 80, (2 << 20) + 1] {
                for enclosing in [None, Some(0), Some(7)] {
                    let r = Ref::new(3, 10, column, kind, enclosing, u32::MAX);
                    assert_eq!((r.kind(), r.column(), r.enclosing()), (kind, column, enclosing));
                }
            }
        }
        assert_eq!(std::mem::size_of::<Ref>(), 20);
    }

    #[test]
    fn packed_references_give_back_each_reference_in_order_and_by_number() {
        // Lines mostly rising, one step back; enclosing definitions repeating, changing and
        // ending; qualifiers on some; numbers past one byte; more than one mark's worth.
        let refs: Vec<Ref> = (0..53u32)
            .map(|i| {
                let line = if i == 20 { 3 } else { 1 + i / 3 * 70 };
                let enclosing = match i % 7 {
                    0..=2 => Some(i / 7),
                    3 => None,
                    _ => Some(200 + i),
                };
                let qualifier = if i % 4 == 0 { 300 * i } else { u32::MAX };
                Ref::new(i * 37, line, 1 + i * 11, RefKind::ALL[i as usize % 7], enclosing, qualifier)
            })
            .collect();
        let packed: Refs = refs.iter().copied().collect();
        assert_eq!(packed.len(), refs.len());
        assert_eq!(packed.iter().collect::<Vec<_>>(), refs);
        // From each mark on, as a line's lookup starts.
        for start in (0..refs.len()).step_by(REFS_PER_MARK) {
            assert_eq!(packed.iter_from(start).collect::<Vec<_>>(), refs[start..], "from {start}");
        }
        // Each by its number, across marks; none past the end.
        for (i, r) in refs.iter().enumerate() {
            assert_eq!(packed.get(i), Some(*r), "reference {i}");
        }
        assert_eq!(packed.get(refs.len()), None);
        let rising: Refs = refs.iter().copied().filter(|r| r.line != 3).collect();
        let lines: Vec<u32> = rising.iter().map(|r| r.line).collect();
        for line in [0, 1, 2, 71, 72, 700, 1191, 5000] {
            assert_eq!(rising.first_at_or_after(line), lines.partition_point(|&l| l < line), "line {line}");
        }
        assert!(Refs::default().iter().next().is_none());
    }

    #[test]
    fn a_name_list_gives_back_each_name_by_its_number() {
        let names: Names = ["self", "", "geo::Point", "self.x"].into_iter().collect();
        assert_eq!(names.len(), 4);
        assert_eq!((&names[0], &names[1], &names[2], &names[3]), ("self", "", "geo::Point", "self.x"));
        assert_eq!(names.get(4), None);
        assert!(Names::default().is_empty());
    }

    #[test]
    fn a_definition_gives_back_each_text_it_was_made_with() {
        // All in one file's list: each definition's texts end where the next one's start.
        let mut defs = Defs::default();
        let docs = [None, Some(""), Some("Adds an item.")];
        for doc in docs {
            let text = DefText {
                qualified: "Cart.add",
                header: "    def add(self, item):",
                signature: "def add(self, item)",
                doc,
            };
            defs.push("add", DefKind::Method, (3, 5), (10, 80), Some(0), text);
        }
        for (def, doc) in defs.iter().zip(docs) {
            assert_eq!(
                (def.name(), def.qualified(), def.header(), def.signature(), def.doc()),
                ("add", "Cart.add", "    def add(self, item):", "def add(self, item)", doc)
            );
        }
        assert_eq!(std::mem::size_of::<Def>(), 36);
        let apart = DefText { qualified: "f", header: "fn f(", signature: "fn f(a: u8)", doc: Some("Doc.") };
        defs.push("f", DefKind::Function, (1, 3), (0, 9), None, apart);
        defs.push("f", DefKind::Function, (1, 1), (0, 0), None, DefText::default());
        // A qualified name that does not end with the name keeps the name apart.
        let text = DefText { qualified: "Cart.add_item", header: "add = add_item", ..DefText::default() };
        defs.push("add", DefKind::Constant, (4, 4), (0, 14), Some(7), text);
        let (apart, empty, alias) = (defs.at(3), defs.at(4), defs.at(5));
        assert_eq!((apart.header(), apart.signature(), apart.doc()), ("fn f(", "fn f(a: u8)", Some("Doc.")));
        assert_eq!((empty.name(), empty.qualified(), empty.header(), empty.doc()), ("f", "", "", None));
        assert_eq!((empty.parent(), apart.parent()), (None, None));
        assert_eq!(
            (alias.name(), alias.qualified(), alias.header(), alias.parent()),
            ("add", "Cart.add_item", "add = add_item", Some(7))
        );
        // A name past what the spans hold is cut at a character's start.
        let long = "é".repeat(MAX_NAME);
        let text = DefText { qualified: &long, header: "x", signature: "sig", doc: Some("d") };
        defs.push(&long, DefKind::Function, (1, 1), (0, 0), None, text);
        let long = defs.at(6);
        assert_eq!((long.name().len(), long.qualified().len()), (MAX_NAME, MAX_NAME));
        assert_eq!((long.header(), long.signature(), long.doc()), ("x", "sig", Some("d")));
        // Every text at its longest, the name apart: the spans still fit 16 bits.
        let (name, qualified, line) =
            ("n".repeat(2 * MAX_NAME), "q".repeat(2 * MAX_NAME), "h".repeat(2 * MAX_TEXT));
        let sig = "s".repeat(2 * MAX_TEXT);
        let text = DefText { qualified: &qualified, header: &line, signature: &sig, doc: Some(&line) };
        defs.push(&name, DefKind::Function, (1, 1), (0, 0), None, text);
        let most = defs.at(7);
        let lengths =
            [most.name(), most.qualified(), most.header(), most.signature(), most.doc().unwrap_or("")]
                .map(str::len);
        assert_eq!(lengths, [MAX_NAME, MAX_NAME, MAX_TEXT, MAX_TEXT, MAX_TEXT]);
        assert_eq!((defs.len(), defs.iter().len(), defs.iter().next_back().map(|d| d.line)), (8, 8, Some(1)));
        assert_eq!(defs.iter_from(6).map(|d| d.name().len()).collect::<Vec<_>>(), [MAX_NAME, MAX_NAME]);
        assert!(defs.get(8).is_none() && defs.iter_from(9).next().is_none());

        // Saved and read back, each definition with its own texts: the same list (the parents
        // above, made up, do not come before their definitions, which a saved index refuses).
        defs.list.iter_mut().for_each(|def| def.parent = u32::MAX);
        let saved = postcard::to_allocvec(&defs).unwrap();
        let back: Defs = postcard::from_bytes(&saved).unwrap();
        assert_eq!(back, defs);
    }

    #[test]
    fn a_saved_definition_whose_spans_pass_its_texts_is_refused() {
        let mut defs = Defs::default();
        let text = DefText { qualified: "Cart.add", header: "def add(self):", ..DefText::default() };
        defs.push("add", DefKind::Method, (1, 2), (0, 20), None, text);
        let def = &defs.list[0];
        // The texts cut short, as a damaged saved index may have them.
        let saved = postcard::to_allocvec(&[(def, "Cart.add")][..]).unwrap();
        assert!(postcard::from_bytes::<Defs>(&saved).is_err());
        let saved = postcard::to_allocvec(&[(def, "Cart.adddef add(self):")][..]).unwrap();
        assert_eq!(postcard::from_bytes::<Defs>(&saved).unwrap().at(0).header(), "def add(self):");
        // A span inside a character.
        let mut defs = Defs::default();
        let text = DefText { qualified: "é", header: "é", ..DefText::default() };
        defs.push("é", DefKind::Function, (1, 1), (0, 2), None, text);
        let saved = postcard::to_allocvec(&[(&defs.list[0], "\u{e9}\u{e9}")][..]).unwrap();
        assert_eq!(postcard::from_bytes::<Defs>(&saved).unwrap().at(0).header(), "é");
        let saved = postcard::to_allocvec(&[(&defs.list[0], "xé\u{e9}")][..]).unwrap();
        assert!(postcard::from_bytes::<Defs>(&saved).is_err());
        // A parent that does not come before its definition (itself, or past the list).
        let mut defs = Defs::default();
        defs.push("outer", DefKind::Class, (1, 9), (0, 90), None, DefText::default());
        defs.push("inner", DefKind::Method, (2, 3), (10, 30), Some(0), DefText::default());
        let saved = postcard::to_allocvec(&defs).unwrap();
        assert_eq!(postcard::from_bytes::<Defs>(&saved).unwrap(), defs);
        for parent in [1, 2, 7] {
            let mut bad = defs.clone();
            bad.list[1].parent = parent;
            assert!(postcard::from_bytes::<Defs>(&postcard::to_allocvec(&bad).unwrap()).is_err(), "{parent}");
        }
    }
}
