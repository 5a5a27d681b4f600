//! `repo_map`: the ranked map of the repository within a token budget.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Value, json};
use tack_indexer::MapFile;

use crate::observe::lenient;
use crate::observe::observation::Observation;
use crate::observe::shape::{Budget, count_tokens};
use crate::tool::{Call, Group, Reply, Spec, Tool, Work};
use crate::workspace::Workspace;

/// The budget with a focus; without one the map may be eight times larger (Aider's rule).
pub const DEFAULT_TOKENS: u64 = 1024;
const NO_FOCUS_MULTIPLIER: u64 = 8;
const MIN_TOKENS: u64 = 128;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapParams {
    /// Paths, symbols (`Cart.add`) or words to center the map on.
    #[serde(default, deserialize_with = "one_or_many")]
    pub focus: Option<Vec<String>>,
    /// Token budget for the map (default 1024 with a focus, 8192 without).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    #[schemars(with = "u64")]
    pub tokens: Option<u64>,
}

/// Lenient: a single string is a one-item focus.
pub(crate) fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    use serde::de::Error;
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s])),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(D::Error::custom(format!("focus items must be strings, got {other}"))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(D::Error::custom(format!("focus must be a list of strings, got {other}"))),
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RepoMapOutput {
    /// Files shown, best first, with the definitions shown from each.
    pub files: Vec<MapFileOut>,
    pub total_files: u64,
    pub total_definitions: u64,
    pub shown_definitions: u64,
    /// Tokens in the map text.
    pub tokens: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MapFileOut {
    pub path: String,
    /// PageRank share of the file (all files sum to 1).
    pub rank: f64,
    pub symbols: Vec<MapSymbolOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct MapSymbolOut {
    pub name: String,
    pub kind: String,
    pub line: u32,
}

impl From<MapFile> for MapFileOut {
    fn from(f: MapFile) -> Self {
        Self {
            path: f.path,
            rank: f.rank,
            symbols: f
                .symbols
                .into_iter()
                .map(|s| MapSymbolOut { name: s.name, kind: s.kind, line: s.line })
                .collect(),
        }
    }
}

pub(crate) struct RepoMap;

impl Tool for RepoMap {
    type Params = RepoMapParams;
    type Output = RepoMapOutput;
    const SPEC: Spec = Spec {
        work: Work::Heavy,
        ..Spec::reader(
            "repo_map",
            "Map the repository",
            Group::Core,
            "Map of the repository: the files and signatures that matter most, ranked by how the \
             code references itself, within a token budget; focus= paths, symbols or words centers it. \
             For a first look at an unfamiliar repository.",
        )
    };

    fn run(call: &Call<'_>, params: RepoMapParams) -> Reply {
        repo_map(call.ws, params, call.limits.budget).into()
    }

    fn guide(_ws: &Workspace) -> Option<String> {
        Some(
            "Start with repo_map in an unfamiliar repository: the files and signatures that matter most, \
             ranked by how the code references itself; give it focus= (paths, symbols, words) to center it. "
                .into(),
        )
    }
}

fn repo_map(ws: &Workspace, params: RepoMapParams, limit: Budget) -> Observation {
    let focus: Vec<String> = params
        .focus
        .unwrap_or_default()
        .into_iter()
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    let default = if focus.is_empty() { DEFAULT_TOKENS * NO_FOCUS_MULTIPLIER } else { DEFAULT_TOKENS };
    // The map must fit the observation cap with room for nothing else to be cut.
    let ceiling = (limit.tokens as u64).saturating_sub(64).max(MIN_TOKENS);
    let mut budget = params.tokens.unwrap_or(default).clamp(MIN_TOKENS, ceiling) as usize;
    let snapshot = ws.index().snapshot();
    let mut map = tack_indexer::repo_map_cached(&snapshot, &focus, budget, count_tokens);
    // A client that cuts by length gets a smaller map, never a map cut in the middle.
    let length_limit = match (limit.chars, limit.bytes) {
        (Some(c), Some(b)) => Some(c.min(b)),
        (c, b) => c.or(b),
    };
    if let Some(max_length) = length_limit {
        let room = max_length.saturating_sub(200);
        for _ in 0..4 {
            // Bytes bound characters from above, so one measure serves both limits.
            let length = map.text.len();
            if length <= room || budget <= MIN_TOKENS as usize {
                break;
            }
            budget = (budget * room / length * 9 / 10).max(MIN_TOKENS as usize);
            map = tack_indexer::repo_map_cached(&snapshot, &focus, budget, count_tokens);
        }
    }
    let out = RepoMapOutput {
        total_files: map.total_files as u64,
        total_definitions: map.total_defs as u64,
        shown_definitions: map.shown_defs as u64,
        tokens: map.tokens as u64,
        files: map.files.iter().cloned().map(MapFileOut::from).collect(),
    };
    Observation::ok(map.text.clone(), json!(out))
}
