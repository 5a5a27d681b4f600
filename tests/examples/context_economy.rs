//! One localization step for a task, five ways, through the real Claude Code and Codex with a
//! scripted model: what each client hands its model, in o200k tokens, and whether that shows the
//! gold file first and the gold function's body.
//!
//! The ways, per instance and client, each in its own client session on the fix's parent tree:
//! - `context`: tack's `context` with the commit message as the task, at its default budget;
//! - `search_read`: tack's `search` with the message, then `read_file` from ten lines above the
//!   first file's best hit (the default 100 lines);
//! - `grep`: `grep -rnI -E` of the message's identifiers through tack's `run`, then
//!   `sed -n 1,200p` of the file with the most matching lines;
//! - `codegraph`: `codegraph_explore` of npm `@colbymchenry/codegraph` (indexed first with
//!   `codegraph init -y`);
//! - `jcodemunch`: `get_ranked_context` of PyPI `jcodemunch-mcp` with `token_budget` 3000 and
//!   raw output, the form that carries source (indexed first with `jcodemunch-mcp index`); it
//!   refuses a query over 500 characters, so it gets the message's first 500.
//!
//! ```sh
//! cargo run --release -p tack-tests --example context_economy -- \
//!     --instances ../shared/bench/data/instances.jsonl --mirror-root /path/to/mirrors \
//!     --peers /tmp/peers [--ways context,search_read,grep,codegraph,jcodemunch] [--limit N] \
//!     [--clients claude,codex] [--dump DIR]
//! ```
//!
//! `--clients direct` sends tack's ways straight to a `tack serve` and counts what Claude Code
//! would hand its model (the JSON of `structuredContent`, else the text): a change to tack's
//! own results measured in seconds, without a client in between.
//!
//! `--peers DIR` holds the peers as installed: `DIR/cg/node_modules/.bin/codegraph` and
//! `DIR/jcm-venv/bin/jcodemunch-mcp`. Metrics, per instance and way:
//! - tokens: o200k counts of every tool result as the client handed it to its model;
//! - gold file first: the first file of the repository the results name is one the fix changed;
//! - gold function seen: some function the fix changed (as it stood in the parent tree) has its
//!   first line and at least one more non-trivial line of its body in the results, the body line
//!   after the first within the next 60 lines of the results (JSON string escapes undone);
//!   instances whose changed functions are all new in the fix are left out of this column and
//!   of tokens per gold function seen (their tokens over the instances that show one);
//! - call time: from the turn that asked for a call to the turn that carries its result.
//!
//! Prints one JSON line per instance, client and way on stdout, and the tables on stderr.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tack_indexer::{Lang, extract};
use tack_tests::bench::{extract_tree, first_hit, grep_step, mirror};
use tack_tests::clients::{self, Transport};
use tack_tests::model::{Api, ScriptedModel, ToolCall, call};
use tack_tools::count_tokens;

struct Args {
    instances: Vec<PathBuf>,
    mirror_root: PathBuf,
    peers: PathBuf,
    ways: Vec<String>,
    clients: Vec<String>,
    limit: usize,
    /// Where to write what each client handed its model, one file per instance, client and way.
    dump: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args {
        instances: Vec::new(),
        mirror_root: PathBuf::new(),
        peers: PathBuf::from("/tmp/peers"),
        ways: ["context", "search_read", "grep", "codegraph", "jcodemunch"].map(String::from).to_vec(),
        clients: ["claude", "codex"].map(String::from).to_vec(),
        limit: usize::MAX,
        dump: None,
    };
    let list = |v: Option<String>| v.expect("a comma list").split(',').map(String::from).collect();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--instances" => a.instances.push(it.next().map(PathBuf::from).expect("--instances FILE")),
            "--mirror-root" => a.mirror_root = it.next().map(PathBuf::from).expect("--mirror-root DIR"),
            "--peers" => a.peers = it.next().map(PathBuf::from).expect("--peers DIR"),
            "--ways" => a.ways = list(it.next()),
            "--clients" => a.clients = list(it.next()),
            "--dump" => a.dump = it.next().map(PathBuf::from),
            "--limit" => a.limit = it.next().and_then(|n| n.parse().ok()).expect("--limit N"),
            other => panic!("unknown argument {other}; see the module docs"),
        }
    }
    assert!(!a.instances.is_empty(), "--instances FILE (repeatable)");
    a
}

/// A function the fix changed, as it stood in the parent tree.
struct Gold {
    signature: String,
    body: Vec<String>,
}

/// The changed functions that exist in the parent tree, found by qualified name (`::` and `.`
/// alike), else by name when the file defines it once.
fn gold_functions(root: &Path, names: &[&str]) -> Vec<Gold> {
    let mut out = Vec::new();
    for name in names {
        let Some((path, qualified)) = name.split_once("::") else { continue };
        let Some(lang) = Lang::from_path(Path::new(path)) else { continue };
        let Ok(source) = std::fs::read_to_string(root.join(path)) else { continue };
        let symbols = extract(lang, &source);
        let norm = |q: &str| q.replace("::", ".");
        let wanted = norm(qualified);
        let last = wanted.rsplit('.').next().unwrap_or(&wanted).to_string();
        let defs: Vec<_> = symbols.defs.iter().collect();
        let def = defs
            .iter()
            .find(|d| norm(d.qualified()) == wanted)
            .or_else(|| defs.iter().find(|d| norm(d.qualified()).ends_with(&format!(".{wanted}"))))
            .or_else(|| {
                let named: Vec<_> = defs.iter().filter(|d| d.name() == last).collect();
                (named.len() == 1).then(|| named[0])
            });
        let Some(def) = def else { continue };
        let lines: Vec<&str> = source.lines().collect();
        let at = |l: u32| lines.get((l as usize).wrapping_sub(1)).map_or("", |t| t.trim()).to_string();
        let signature = at(def.line);
        let body: Vec<String> = (def.line + 1..=def.end_line)
            .map(at)
            .filter(|l| l.chars().filter(|c| c.is_alphanumeric()).count() >= 4)
            .collect();
        if !signature.is_empty() && !body.is_empty() {
            out.push(Gold { signature, body });
        }
    }
    out
}

/// JSON string escapes undone, for results that carry source inside JSON.
fn unescaped(text: &str) -> String {
    text.replace("\\n", "\n").replace("\\t", "\t").replace("\\\"", "\"").replace("\\\\", "\\")
}

/// Whether `text` shows a gold function: its first line, then one of its body lines within the
/// next 60 lines.
fn shows(text: &str, gold: &Gold) -> bool {
    // A very long first line is matched by its start (tools cut long lines).
    let sig: String = gold.signature.chars().take(80).collect();
    for form in [text.to_string(), unescaped(text)] {
        let lines: Vec<&str> = form.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains(&sig) {
                continue;
            }
            let after = &lines[i + 1..(i + 61).min(lines.len())];
            if after.iter().any(|l| {
                gold.body.iter().any(|b| l.contains(b.chars().take(80).collect::<String>().as_str()))
            }) {
                return true;
            }
        }
    }
    false
}

/// The first file of the tree that `text` names (the earliest mention; the longest path wins a
/// tie, so `src/a/b.py` beats `b.py`).
fn first_file<'a>(text: &str, files: &'a [String]) -> Option<&'a str> {
    files
        .iter()
        .filter_map(|f| text.find(f.as_str()).map(|at| (at, std::cmp::Reverse(f.len()), f.as_str())))
        .min()
        .map(|(_, _, f)| f)
}

fn tree_files(git_dir: &Path, commit: &str) -> Vec<String> {
    let out = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["ls-tree", "-r", "--name-only", commit])
        .output()
        .expect("git ls-tree");
    String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect()
}

/// Runs a peer's indexer for `root`; its wall time.
fn index_peer(way: &str, peers: &Path, root: &Path, jcm_store: &Path) -> Duration {
    let started = Instant::now();
    let status = match way {
        "codegraph" => Command::new(peers.join("cg/node_modules/.bin/codegraph"))
            .args(["init", "-y"])
            .arg(root)
            .env("DO_NOT_TRACK", "1")
            .env("CODEGRAPH_NO_DAEMON", "1")
            .env("HOME", peers.join("home"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status(),
        _ => Command::new(peers.join("jcm-venv/bin/jcodemunch-mcp"))
            .args(["index", "--no-ai-summaries"])
            .arg(root)
            .envs(jcm_env(jcm_store))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status(),
    };
    assert!(status.is_ok_and(|s| s.success()), "{way} could not index {}", root.display());
    started.elapsed()
}

fn jcm_env(store: &Path) -> Vec<(String, String)> {
    [
        ("CODE_INDEX_PATH", store.display().to_string()),
        ("JCODEMUNCH_SHARE_SAVINGS", "0".into()),
        ("JCODEMUNCH_USE_AI_SUMMARIES", "false".into()),
        ("JCODEMUNCH_NO_VERSION_HINT", "1".into()),
        ("JCODEMUNCH_TOOL_SURFACE", "full".into()),
        ("JCODEMUNCH_DEFAULT_FORMAT", "raw".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// One way's run through one client: each result's tokens, its text, and each call's time.
struct Run {
    tokens: Vec<usize>,
    texts: Vec<String>,
    times: Vec<Duration>,
    complete: bool,
}

async fn client_run(api: Api, root: &Path, transport: Transport, script: Vec<ToolCall>) -> Run {
    let n = script.len();
    let model = ScriptedModel::start(api, "tack", script).await;
    let run = clients::run(api, &model, &transport, root).await;
    let texts = model.results();
    let complete = run.success && texts.len() == n;
    if !complete {
        eprintln!("client run incomplete ({} of {n} results)\n{}", texts.len(), run.dump());
    }
    Run {
        tokens: texts.iter().map(|t| count_tokens(t)).collect(),
        times: model.call_times(),
        texts,
        complete,
    }
}

/// The script's calls sent straight to a `tack serve` over stdio, each result taken as Claude
/// Code hands it to its model (the JSON of `structuredContent`, else the text): for measuring
/// a change of tack's own results without a client in between (`--clients direct`).
async fn direct_run(root: &Path, script: &[ToolCall]) -> Run {
    use rmcp::ServiceExt;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let store = tempfile::tempdir().expect("index dir");
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(tack_tests::tack_binary()).configure(|cmd| {
            cmd.arg("serve")
                .arg("--root")
                .arg(root)
                .arg("--index-dir")
                .arg(store.path())
                .env("TACK_LOG", "error");
        }))
        .expect("tack starts");
    let client = ().serve(transport).await.expect("handshake");
    let (mut texts, mut times) = (Vec::new(), Vec::new());
    for step in script {
        let started = Instant::now();
        let result = tack_tests::call(&client, &step.name, step.arguments.clone()).await;
        times.push(started.elapsed());
        texts.push(match &result.structured_content {
            Some(structured) => structured.to_string(),
            None => result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect(),
        });
    }
    let _ = client.cancel().await;
    Run {
        tokens: texts.iter().map(|t| count_tokens(t)).collect(),
        times,
        complete: texts.len() == script.len(),
        texts,
    }
}

#[derive(Default)]
struct Tally {
    instances: usize,
    tokens: Vec<usize>,
    file_first: usize,
    with_gold: usize,
    /// Tokens over the instances with a gold function in the parent tree.
    gold_tokens: usize,
    seen: usize,
    call_ms: Vec<f64>,
    incomplete: usize,
}

#[tokio::main]
async fn main() {
    let args = args();
    let mut instances: Vec<Value> = Vec::new();
    for file in &args.instances {
        let text = std::fs::read_to_string(file).expect("instances file");
        instances.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str::<Value>(l).expect("json")),
        );
    }
    // (repository, client, way) -> tally; "all" sums the repositories.
    let mut table: BTreeMap<(String, String, String), Tally> = BTreeMap::new();
    let mut index_times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for inst in instances.iter().take(args.limit) {
        let id = inst["id"].as_str().unwrap_or("?");
        let repo = inst["repo"].as_str().unwrap_or("?");
        let report = inst["query"].as_str().unwrap_or("");
        let commit = inst["base_commit"].as_str().unwrap();
        let gold_files: Vec<&str> =
            inst["gold_files"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let gold_names: Vec<&str> =
            inst["gold_functions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let git_dir = mirror(&args.mirror_root, repo);
        let scratch = tempfile::tempdir().expect("scratch");
        // A plain folder name: jcodemunch names the repository after it.
        let name: String = id.chars().map(|c| if c.is_alphanumeric() { c } else { '-' }).collect();
        let root = scratch.path().join(&name);
        extract_tree(&git_dir, commit, &root);
        let files = tree_files(&git_dir, commit);
        let golds = gold_functions(&root, &gold_names);
        let jcm_store = scratch.path().join("jcm-index");

        let first = first_hit(&root, report);
        let (grep, best) = grep_step(&root, report);
        let mut scripts: Vec<(String, Transport, Vec<ToolCall>)> = Vec::new();
        let tack = Transport::Stdio { root: root.clone(), args: Vec::new() };
        for way in &args.ways {
            let script = match way.as_str() {
                "context" => vec![call("context", json!({"task": report}))],
                "search_read" => {
                    // A search that finds nothing is the step, and a miss.
                    let mut s = vec![call("search", json!({"query": report}))];
                    if let Some((path, line)) = &first {
                        s.push(call(
                            "read_file",
                            json!({"path": path, "start": line.saturating_sub(10).max(1)}),
                        ));
                    }
                    s
                }
                "grep" => {
                    let mut s = vec![call("run", json!({"command": grep}))];
                    if let Some(best) = &best {
                        s.push(call("run", json!({"command": format!("sed -n 1,200p '{best}'")})));
                    }
                    s
                }
                "codegraph" | "jcodemunch" => continue,
                other => panic!("unknown way {other}"),
            };
            scripts.push((way.clone(), tack.clone(), script));
        }
        // The peers index after tack's ways ran through every client: codegraph writes
        // `.codegraph/` into the tree.
        run_phase(&args, &scripts, &root, &files, &golds, &gold_files, id, repo, &name, &mut table).await;
        let peers = peer_scripts(&args, &root, &name, report, &jcm_store, &mut index_times);
        run_phase(&args, &peers, &root, &files, &golds, &gold_files, id, repo, &name, &mut table).await;
    }
    print_tables(&table, &index_times);
}

/// Indexes `root` for each peer among the ways, and the scripts that call their task tools.
fn peer_scripts(
    args: &Args,
    root: &Path,
    name: &str,
    report: &str,
    jcm_store: &Path,
    index_times: &mut BTreeMap<String, Vec<f64>>,
) -> Vec<(String, Transport, Vec<ToolCall>)> {
    let mut scripts = Vec::new();
    for way in args.ways.iter().filter(|w| *w == "codegraph" || *w == "jcodemunch") {
        let took = index_peer(way, &args.peers, root, jcm_store);
        index_times.entry(way.clone()).or_default().push(took.as_secs_f64());
        let (transport, script) = if way == "codegraph" {
            (
                Transport::Command {
                    program: args.peers.join("cg/node_modules/.bin/codegraph"),
                    args: ["serve", "--mcp", "--no-watch", "--path"]
                        .map(String::from)
                        .into_iter()
                        .chain([root.display().to_string()])
                        .collect(),
                    env: vec![
                        ("DO_NOT_TRACK".into(), "1".into()),
                        ("CODEGRAPH_NO_DAEMON".into(), "1".into()),
                        ("HOME".into(), args.peers.join("home").display().to_string()),
                    ],
                },
                vec![call("codegraph_explore", json!({"query": report}))],
            )
        } else {
            (
                Transport::Command {
                    program: args.peers.join("jcm-venv/bin/jcodemunch-mcp"),
                    args: ["serve", "--log-level", "ERROR"].map(String::from).to_vec(),
                    env: jcm_env(jcm_store),
                },
                // It refuses a query over 500 characters: the report's first 500 stand in.
                vec![call(
                    "get_ranked_context",
                    json!({"repo": name, "query": report.chars().take(500).collect::<String>(), "token_budget": 3000}),
                )],
            )
        };
        scripts.push((way.clone(), transport, script));
    }
    scripts
}

/// Runs each script through each client and tallies what the model received.
#[allow(clippy::too_many_arguments)]
async fn run_phase(
    args: &Args,
    scripts: &[(String, Transport, Vec<ToolCall>)],
    root: &Path,
    files: &[String],
    golds: &[Gold],
    gold_files: &[&str],
    id: &str,
    repo: &str,
    name: &str,
    table: &mut BTreeMap<(String, String, String), Tally>,
) {
    for client in &args.clients {
        let api = if client == "claude" { Api::Anthropic } else { Api::OpenAiResponses };
        for (way, transport, script) in scripts {
            let run = if client == "direct" {
                direct_run(root, script).await
            } else {
                client_run(api, root, transport.clone(), script.clone()).await
            };
            let all = run.texts.join("\n");
            if let Some(dir) = &args.dump {
                std::fs::create_dir_all(dir).expect("dump dir");
                std::fs::write(dir.join(format!("{name}.{client}.{way}.txt")), &all).expect("dump");
            }
            let first = run.texts.first().and_then(|t| first_file(t, files));
            let file_first = first.is_some_and(|f| gold_files.contains(&f));
            let seen = golds.iter().any(|g| shows(&all, g));
            let total: usize = run.tokens.iter().sum();
            let ms: f64 = run.times.iter().map(|t| t.as_secs_f64() * 1000.0).sum();
            println!(
                "{}",
                json!({"id": id, "repo": repo, "client": client, "way": way, "tokens": run.tokens,
                           "total": total, "first_file": first, "gold_file_first": file_first,
                           "gold_functions": golds.len(), "gold_function_seen": seen,
                           "call_ms": run.times.iter().map(|t| t.as_millis() as u64).collect::<Vec<_>>(),
                           "complete": run.complete})
            );
            for key in [repo.to_string(), "all".to_string()] {
                let t = table.entry((key, client.clone(), way.clone())).or_default();
                t.instances += 1;
                t.tokens.push(total);
                t.file_first += usize::from(file_first);
                t.with_gold += usize::from(!golds.is_empty());
                t.gold_tokens += if golds.is_empty() { 0 } else { total };
                t.seen += usize::from(seen && !golds.is_empty());
                t.call_ms.push(ms);
                t.incomplete += usize::from(!run.complete);
            }
        }
    }
}

/// The tables, one row per repository (and "all"), client and way; the peers' indexing times.
fn print_tables(table: &BTreeMap<(String, String, String), Tally>, index_times: &BTreeMap<String, Vec<f64>>) {
    eprintln!(
        "| repository | client | way | instances | tokens mean | median | gold file first | gold function seen | tokens per gold function seen | call ms median |"
    );
    eprintln!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for ((repo, client, way), t) in table {
        let mut tokens = t.tokens.clone();
        tokens.sort_unstable();
        let sum: usize = tokens.iter().sum();
        let mean = sum as f64 / tokens.len().max(1) as f64;
        let median = tokens.get(tokens.len() / 2).copied().unwrap_or(0);
        let mut ms = t.call_ms.clone();
        ms.sort_by(f64::total_cmp);
        let ms_median = ms.get(ms.len() / 2).copied().unwrap_or(0.0);
        let per_seen =
            if t.seen > 0 { format!("{:.0}", t.gold_tokens as f64 / t.seen as f64) } else { "∞".into() };
        let incomplete =
            if t.incomplete > 0 { format!(" ({} incomplete)", t.incomplete) } else { String::new() };
        eprintln!(
            "| {repo} | {client} | {way} | {}{incomplete} | {mean:.0} | {median} | {}/{} | {}/{} ({:.2}) | {per_seen} | {ms_median:.0} |",
            t.instances,
            t.file_first,
            t.instances,
            t.seen,
            t.with_gold,
            t.seen as f64 / t.with_gold.max(1) as f64
        );
    }
    for (way, times) in index_times {
        let mut t = times.clone();
        t.sort_by(f64::total_cmp);
        eprintln!("{way} indexing: median {:.1} s over {} checkouts", t[t.len() / 2], t.len());
    }
}
