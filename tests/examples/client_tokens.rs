//! What one localization step costs the model's context through the real clients: for each
//! instance of the localization benchmark, Claude Code and Codex run a scripted step against
//! tack, and the tokens of what each client handed its model are counted (`o200k_base`).
//!
//! The step, three ways, per instance and client:
//! - `text`: `search` with the bug report, then `read_file` of the first hit's region (tack as
//!   it serves by default);
//! - `structured`: the same calls with `tack serve --structured`, which is what both clients
//!   showed their model before results were text-first (the JSON of `structuredContent`);
//! - `grep`: the same step done with `run`: `grep -rnI -E` of the report's identifiers, then
//!   `sed -n 1,200p` of the file with the most matching lines.
//!
//! ```sh
//! cargo run -p tack-tests --example client_tokens -- \
//!     --instances ../shared/bench/data/instances.jsonl --mirror-root /path/to/mirrors [--limit N]
//! ```
//!
//! A mirror is `<mirror-root>/<owner>+<name>.git` or `<mirror-root>/<owner>+<name>/repo` (a git
//! directory with the instance's commits). Prints one JSON line per instance and client on
//! stdout, and the summary table on stderr.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tack_tests::bench::{checkout, first_hit, grep_step, mirror};
use tack_tests::clients::{self, Transport};
use tack_tests::model::{Api, ScriptedModel, ToolCall, call};
use tack_tools::count_tokens;

struct Args {
    instances: PathBuf,
    mirror_root: PathBuf,
    limit: usize,
}

fn args() -> Args {
    let mut instances = None;
    let mut mirror_root = None;
    let mut limit = usize::MAX;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--instances" => instances = it.next().map(PathBuf::from),
            "--mirror-root" => mirror_root = it.next().map(PathBuf::from),
            "--limit" => limit = it.next().and_then(|n| n.parse().ok()).expect("--limit N"),
            other => panic!("unknown argument {other}; see the module docs"),
        }
    }
    Args {
        instances: instances.expect("--instances FILE"),
        mirror_root: mirror_root.expect("--mirror-root DIR"),
        limit,
    }
}

async fn client_run(api: Api, root: &Path, args: &[&str], script: Vec<ToolCall>) -> Vec<usize> {
    let n = script.len();
    let model = ScriptedModel::start(api, "tack", script).await;
    let transport =
        Transport::Stdio { root: root.to_path_buf(), args: args.iter().map(|s| s.to_string()).collect() };
    let run = clients::run(api, &model, &transport, root).await;
    let results = model.results();
    if !run.success || results.len() != n {
        eprintln!("client run incomplete ({} of {n} results)\n{}", results.len(), run.dump());
    }
    results.iter().map(|r| count_tokens(r)).collect()
}

#[tokio::main]
async fn main() {
    let args = args();
    let text = std::fs::read_to_string(&args.instances).expect("instances file");
    let instances: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    // (client, way) -> per-instance token totals and whether the file read was a gold file.
    let mut table: BTreeMap<(String, String), Vec<(usize, bool)>> = BTreeMap::new();
    for inst in instances.iter().take(args.limit) {
        let id = inst["id"].as_str().unwrap_or("?");
        let report = inst["query"].as_str().unwrap_or("");
        let gold: Vec<&str> =
            inst["gold_files"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let repo = checkout(
            &mirror(&args.mirror_root, inst["repo"].as_str().unwrap()),
            inst["base_commit"].as_str().unwrap(),
        );
        let root = repo.path();
        let Some((path, line)) = first_hit(root, report) else {
            eprintln!("{id}: search found nothing");
            continue;
        };
        let (grep, best) = grep_step(root, report);
        let tack_step = vec![
            call("search", json!({"query": report})),
            call("read_file", json!({"path": path, "start": line.saturating_sub(10).max(1)})),
        ];
        let mut grep_script = vec![call("run", json!({"command": grep}))];
        if let Some(best) = &best {
            grep_script.push(call("run", json!({"command": format!("sed -n 1,200p '{best}'")})));
        }
        for (api, client) in [(Api::Anthropic, "claude"), (Api::OpenAiResponses, "codex")] {
            let ways = [
                ("text", client_run(api, root, &[], tack_step.clone()).await, gold.contains(&path.as_str())),
                (
                    "structured",
                    client_run(api, root, &["--structured"], tack_step.clone()).await,
                    gold.contains(&path.as_str()),
                ),
                (
                    "grep",
                    client_run(api, root, &[], grep_script.clone()).await,
                    best.as_deref().is_some_and(|b| gold.contains(&b)),
                ),
            ];
            let mut line = json!({"id": id, "client": client});
            for (way, tokens, hit) in ways {
                let total: usize = tokens.iter().sum();
                line[way] = json!({"tokens": tokens, "total": total, "gold_file_read": hit});
                table.entry((client.to_string(), way.to_string())).or_default().push((total, hit));
            }
            println!("{line}");
        }
    }
    eprintln!("| client | step | instances | tokens mean | median | p90 | gold file read |");
    eprintln!("| --- | --- | --- | --- | --- | --- | --- |");
    for ((client, way), rows) in &table {
        let mut totals: Vec<usize> = rows.iter().map(|(t, _)| *t).collect();
        totals.sort_unstable();
        let n = totals.len().max(1);
        let mean = totals.iter().sum::<usize>() as f64 / n as f64;
        let median = totals[totals.len() / 2];
        let p90 = totals[(totals.len() * 9 / 10).min(totals.len() - 1)];
        let hits = rows.iter().filter(|(_, h)| *h).count() as f64 / n as f64;
        eprintln!("| {client} | {way} | {} | {mean:.0} | {median} | {p90} | {hits:.2} |", rows.len());
    }
}
