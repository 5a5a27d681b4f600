//! The `tack` binary: reads the command line and the configuration, opens the workspace, and
//! serves it over MCP or runs one command. It wires; the libraries decide.

mod agents;
mod http;
mod listener;
mod mcp;
mod memory;
mod pool;
mod repos;
mod sessions;
mod settings;
mod setup;
mod state;
mod stdio;
mod to_mcp;
mod watch;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use tack_indexer::LoadOutcome;
use tack_tools::{CallContext, Profile, Session, Toolbox};

/// A line of a command's output on stdout; a reader that went away (`tack index | head -1`)
/// ends nothing but the output, where `println!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// Output on stdout without a line's end, as [`say!`] writes it.
macro_rules! say_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

#[derive(Parser)]
#[command(
    name = "tack",
    version,
    about = "An MCP server that gives coding agents a better interface to a repository"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the repository over MCP: stdio by default, streamable HTTP with --http.
    Serve {
        #[command(flatten)]
        root: RootArg,
        /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (such as 127.0.0.1:8765).
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// Which tools are listed from the start.
        #[arg(long, value_enum, default_value_t = ProfileArg::Core)]
        profile: ProfileArg,
        /// Remove `run` and every tool that writes.
        #[arg(long)]
        read_only: bool,
        #[command(flatten)]
        overrides: OutputFlags,
        /// A file holding the token every HTTP request must carry as `Authorization: Bearer
        /// TOKEN`: a regular file of yours that no one else may read or write (mode 0600).
        /// Also from the variable TACK_HTTP_TOKEN. Without either, tack makes a token and saves
        /// it (mode 0600) as `<index dir>/state/http-token`, reused at the next start, and logs
        /// that path; clients pass it as a header (Claude Code: `claude mcp add --transport http
        /// tack URL --header "Authorization: Bearer $(cat PATH)"`).
        #[arg(long, value_name = "PATH", conflicts_with_all = ["no_auth", "token"])]
        token_file: Option<PathBuf>,
        /// The token itself; every local user can read it in tack's command line (ps,
        /// /proc/PID/cmdline), so prefer --token-file or TACK_HTTP_TOKEN.
        #[arg(long, value_name = "TOKEN", conflicts_with = "no_auth")]
        token: Option<String>,
        /// Serve HTTP on a loopback address without a token, as before tack asked for one there:
        /// then any local user or process can call run as you. Refused beyond loopback.
        #[arg(long)]
        no_auth: bool,
        /// Close an HTTP session idle this many seconds, freeing its state; its id then answers
        /// 404 and the client starts a new session.
        #[arg(long, value_name = "SECS", default_value_t = 300)]
        session_timeout: u64,
        /// Keep at most this many HTTP sessions, and as many agents of requests without a
        /// session; past it, the one idle longest is closed (its id then answers 404).
        #[arg(long, value_name = "N", default_value_t = sessions::MAX_SESSIONS)]
        max_sessions: usize,
        /// With several repositories, keep at most this many open (their indexes in memory and
        /// watched); the least recently used closes, and opens again from its saved index when
        /// a call names it.
        #[arg(long, value_name = "N", default_value_t = 8)]
        max_open: usize,
        /// Keep every agent's state (handles, sessions' gates and verifies, cut results, plans,
        /// handoff notes, traces) in this PostgreSQL database, `postgres://USER@HOST:PORT/DB`,
        /// instead of the index folder, so another server can serve an agent's next call.
        /// Prefer a password in ~/.pgpass or PGPASSWORD to one in the URL.
        #[arg(long, value_name = "URL")]
        state: Option<String>,
        #[command(flatten)]
        from: FromBundle,
    },
    /// Print the repository map, as the `repo_map` tool shows it.
    Map {
        #[command(flatten)]
        root: RootArg,
        /// A path, symbol name or word to center the map on (repeatable).
        #[arg(long)]
        focus: Vec<String>,
        /// Token budget (default 1024 with a focus, 8192 without).
        #[arg(long)]
        tokens: Option<u64>,
        #[command(flatten)]
        from: FromBundle,
    },
    /// Build or refresh the saved index (symbols and search), with a progress bar on a terminal.
    Index {
        #[command(flatten)]
        root: RootArg,
        /// Also write the index as one bundle file, for another machine or checkout to start
        /// from (`serve --bundle`): the same tree gives the same bytes wherever it sits.
        #[arg(long, value_name = "FILE")]
        bundle: Option<PathBuf>,
    },
    /// Search the repository as the `search` tool does, and print the result.
    Search {
        /// What to look for.
        query: String,
        #[command(flatten)]
        root: RootArg,
        /// How many files to show (at most 50).
        #[arg(long, default_value_t = 10)]
        limit: u64,
        /// `auto`, `text`, `regex` or `symbol`.
        #[arg(long, default_value = "auto")]
        mode: String,
        /// Only files under this folder or matching this glob.
        #[arg(long)]
        path: Option<String>,
        /// Print the structured result as JSON instead of the text an agent reads.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        from: FromBundle,
    },
    /// Add tack to Claude Code's or Codex's configuration (a second run changes nothing).
    Setup {
        /// `claude` (through `claude mcp add` when it is on PATH, else ~/.claude.json) or
        /// `codex` (its config.toml, comments and order kept).
        #[arg(value_enum)]
        client: ClientArg,
        /// Point the client at `tack serve --http` running at this URL (such as
        /// http://127.0.0.1:8765/mcp), with the token that server asks for as a header;
        /// by default the client starts `tack serve` itself over stdio.
        #[arg(long, value_name = "URL")]
        http: Option<String>,
        /// Write the repository's own configuration (`.mcp.json`, `.codex/config.toml`)
        /// instead of the user's; over HTTP it then names the token by the variable
        /// TACK_HTTP_TOKEN instead of holding it.
        #[arg(long)]
        project: bool,
        /// Print what would change, and change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Start `tack serve --context-window N`, for a model with a small window.
        #[arg(long, value_name = "TOKENS")]
        context_window: Option<usize>,
        #[command(flatten)]
        root: RootArg,
    },
    /// Summarize a session's trace: calls per tool, tokens sent, time, edits, verifies, failures.
    Trace {
        /// The session id (the trace file's name without `.jsonl`), or a path to a trace file;
        /// default: the most recent session of this repository.
        session: Option<String>,
        #[command(flatten)]
        root: RootArg,
        /// Read the trace from the database a `serve --state URL` kept it in.
        #[arg(long, value_name = "URL")]
        state: Option<String>,
    },
}

#[derive(clap::Args)]
struct RootArg {
    /// The repository root (default: the git top level of the current directory, else the
    /// current directory). `serve` takes several, each a repository named by its folder;
    /// without any, the user's config may list them as `[[repositories]]`.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Where the index is saved (default: the user cache directory, keyed by the root); with
    /// several repositories, each one's is in a folder of this one named as the repository.
    #[arg(long, value_name = "DIR")]
    index_dir: Option<PathBuf>,
}

impl RootArg {
    /// The one root a command other than `serve` works on.
    fn one(&self) -> anyhow::Result<PathBuf> {
        match self.root.as_slice() {
            [] => settings::default_root(),
            [root] => Ok(root.clone()),
            _ => anyhow::bail!("this command takes one --root; only serve takes several"),
        }
    }
}

/// Where a command that reads the index may start from.
#[derive(Default, clap::Args)]
struct FromBundle {
    /// An index bundle (`tack index --bundle`) to start from when the store holds no index yet:
    /// files whose content matches it are not parsed again. A damaged bundle, or one from
    /// another tack, is refused and the index built from nothing.
    #[arg(long, value_name = "FILE")]
    bundle: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ClientArg {
    Claude,
    Codex,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    Core,
    Full,
}

fn main() -> ExitCode {
    memory::limit_arenas();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TACK_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("tack: {err:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve {
            root,
            http,
            profile,
            read_only,
            overrides,
            token_file,
            token,
            no_auth,
            session_timeout,
            max_sessions,
            max_open,
            state,
            from,
        } => {
            if let Some(url) = &state
                && !(url.starts_with("postgres://") || url.starts_with("postgresql://"))
            {
                eprintln!(
                    "tack: --state takes a PostgreSQL URL such as postgres://tack@127.0.0.1:5432/tack, not {}",
                    state::redact(url)
                );
                return Ok(ExitCode::from(2));
            }
            if no_auth && let Some(addr) = http.filter(|addr| !addr.ip().is_loopback()) {
                eprintln!(
                    "tack: --no-auth is refused beyond loopback ({addr}): anyone who reaches it could run commands in the root; drop --no-auth and pass the saved token, or bind 127.0.0.1"
                );
                return Ok(ExitCode::from(2));
            }
            // The token given is checked before the workspace opens, so a refused file fails fast.
            let mut given = None;
            if http.is_some() && !no_auth {
                match http::given_token(token, token_file.as_deref()) {
                    Ok(auth) => given = auth,
                    Err(err) => {
                        eprintln!("tack: {err:#}");
                        return Ok(ExitCode::from(2));
                    }
                }
            }
            let profile = match profile {
                ProfileArg::Core => Profile::Core,
                ProfileArg::Full => Profile::Full,
            };
            let specs = match repositories(&root, from.bundle) {
                Ok(specs) => specs,
                Err(err) => {
                    eprintln!("tack: {err:#}");
                    return Ok(ExitCode::from(2));
                }
            };
            // The first map counts its tokens: the tokenizer loads on a core of its own while
            // the saved index is read, instead of on the first map's time.
            tack_tools::warm_tokenizer();
            let kept = state.is_some();
            // The first repository's configuration is read once (its warnings said once) for the
            // lead and its first opening; a later opening reads it again.
            let config = config_for(&specs[0].root, &overrides)?;
            let lead = Toolbox::new(&specs[0].root, config.clone(), profile, read_only)?;
            let first = std::sync::Mutex::new(Some((specs[0].name.clone(), config)));
            let state_dir = specs[0].store.as_ref().map(|store| store.join("state"));
            let opener: Box<repos::Opener> = Box::new(move |spec: &repos::RepoSpec| {
                let read = first.lock().expect("config lock").take_if(|(name, _)| *name == spec.name);
                let config = match read {
                    Some((_, config)) => config,
                    None => config_for(&spec.root, &overrides)?,
                };
                open_repository(spec, config, profile, read_only, kept)
            });
            let repos = repos::Repos::new(specs, max_open, lead, opener);
            // One repository opens now, so its index is ready by the first call; several open
            // as calls name them.
            if repos.len() == 1 {
                repos.get(0).map_err(anyhow::Error::msg)?;
            }
            let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            let session_timeout = std::time::Duration::from_secs(session_timeout.max(1));
            let limits = SessionLimits { idle: session_timeout, max: max_sessions.max(1) };
            runtime.block_on(serve(repos, state_dir, http, Token { given, no_auth }, limits, state))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Map { root, focus, tokens, from } => {
            let toolbox =
                open_with(&root, Profile::Core, true, &OutputFlags::default(), from.bundle.as_deref())?;
            let mut args = serde_json::json!({"focus": focus});
            if let Some(tokens) = tokens {
                args["tokens"] = tokens.into();
            }
            let obs = toolbox.call(&Session::new(), "repo_map", args, &CallContext::default()).observation;
            say_part!("{}", obs.text);
            save(&toolbox);
            Ok(if obs.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Command::Index { root, bundle } => {
            let toolbox = open(&root, Profile::Core, true)?;
            let ws = toolbox.workspace();
            let bar = progress_bar();
            // The search index is built, and the symbol index saved, before the graph and name
            // resolution are (one after the other holds less at once).
            let stats = ws.index().refresh_with(
                &|done, total| {
                    if let Some(bar) = &bar {
                        bar.set_length(total as u64);
                        bar.set_position(done as u64);
                    }
                },
                &|snapshot| {
                    std::thread::scope(|scope| {
                        scope.spawn(|| {
                            if let Err(err) = ws.index().save_snapshot(snapshot) {
                                tracing::warn!("cannot save the index: {err}");
                            }
                        });
                        if let Err(err) = ws.text_index(snapshot) {
                            tracing::warn!("{err}");
                        }
                    });
                },
            );
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let snapshot = ws.index().snapshot();
            // An unchanged index (nothing to install) still brings the search index in step.
            let edges = std::thread::scope(|scope| {
                scope.spawn(|| save(&toolbox));
                scope.spawn(|| {
                    if let Err(err) = ws.text_index(&snapshot) {
                        tracing::warn!("{err}");
                    }
                });
                snapshot.graph().n_edges()
            });
            say!(
                "{} files, {} symbols, {} references, {} edges in {:.2} s ({} parsed, {} reused)",
                stats.files,
                snapshot.n_defs(),
                snapshot.n_refs(),
                edges,
                stats.seconds,
                stats.parsed,
                stats.reused
            );
            if let Some(out) = bundle {
                let summary = tack_indexer::write_bundle(ws.root().path(), &snapshot, &out)?;
                say!(
                    "bundle {}: {} files{}, {} bytes",
                    out.display(),
                    summary.files,
                    summary.commit.map(|c| format!(" at {c}")).unwrap_or_default(),
                    summary.bytes
                );
            }
            // Everything is saved: let the process exit free the index, not a walk over it.
            std::mem::forget(snapshot);
            std::mem::forget(toolbox);
            Ok(ExitCode::SUCCESS)
        }
        Command::Setup { client, http, project, dry_run, context_window, root: args } => {
            let root = args.one()?;
            let root =
                root.canonicalize().with_context(|| format!("cannot open the root {}", root.display()))?;
            // The token the server at that URL asks for, if it serves this root: saved where
            // `tack serve --http` finds it, so starting the server later keeps it.
            let auth = match &http {
                Some(_) => {
                    let state = store_dir(&args, &root).map(|store| store.join("state"));
                    Some(http::saved_token(state.as_deref())?)
                }
                None => None,
            };
            let home = std::env::var_os("HOME").map(PathBuf::from).context("HOME is not set")?;
            let codex_home = std::env::var_os("CODEX_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(".codex"));
            let request = setup::Request {
                client: match client {
                    ClientArg::Claude => setup::Client::Claude,
                    ClientArg::Codex => setup::Client::Codex,
                },
                root,
                http,
                token: auth.as_ref().filter(|_| !project).map(|auth| auth.token.clone()),
                project,
                dry_run,
                context_window,
                binary: std::env::current_exe().context("cannot find the tack binary's path")?,
                home,
                codex_home,
                claude: setup::on_path("claude"),
            };
            let outcome = setup::run(&request)?;
            say!("{}", outcome.message());
            if let Some(auth) = auth.filter(|_| project) {
                let file = auth.file().map_or("<the token tack printed>".into(), |f| f.display().to_string());
                say!(
                    "the client reads the token from ${var}: export {var}=\"$(cat {file})\"",
                    var = setup::TOKEN_VAR
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Trace { session, root, state: Some(url) } => {
            // The repository's name as `serve` gives it: its folder's.
            let dir = root.one()?;
            let dir =
                dir.canonicalize().with_context(|| format!("cannot open the root {}", dir.display()))?;
            let repo = dir.file_name().and_then(|n| n.to_str()).unwrap_or("root").to_string();
            let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            let found = runtime.block_on(async {
                state::PgState::connect(&url).await?.trace(&repo, session.as_deref()).await
            })?;
            let Some((id, text)) = found else {
                anyhow::bail!(
                    "no trace of {} in the state database {}",
                    session.as_deref().unwrap_or(&repo),
                    state::redact(&url)
                );
            };
            say!("session {id}");
            say_part!("{}", tack_tools::summarize_trace(&text));
            Ok(ExitCode::SUCCESS)
        }
        Command::Trace { session, root, state: None } => {
            let path = trace_file(&root, session.as_deref())?;
            let text =
                std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
            say!("session {}", path.file_stem().and_then(|s| s.to_str()).unwrap_or("?"));
            say_part!("{}", tack_tools::summarize_trace(&text));
            Ok(ExitCode::SUCCESS)
        }
        Command::Search { query, root, limit, mode, path, json, from } => {
            let toolbox =
                open_with(&root, Profile::Core, true, &OutputFlags::default(), from.bundle.as_deref())?;
            let args = serde_json::json!({"query": query, "limit": limit, "mode": mode, "path": path});
            let outcome = toolbox.call(&Session::new(), "search", args, &CallContext::default());
            let obs = outcome.observation;
            if json && !obs.is_error {
                say!("{}", serde_json::to_string_pretty(&obs.structured).unwrap_or_default());
            } else {
                say_part!("{}", obs.text);
            }
            Ok(if obs.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
    }
}

/// Where the index, the plan, the handoff note and the traces of this root are kept.
fn store_dir(args: &RootArg, root: &std::path::Path) -> Option<PathBuf> {
    match &args.index_dir {
        Some(dir) => Some(dir.clone()),
        None => tack_indexer::default_store(root),
    }
}

/// The trace file `session` names (an id or a path), or the newest one of this repository.
fn trace_file(args: &RootArg, session: Option<&str>) -> anyhow::Result<PathBuf> {
    if let Some(given) = session.map(PathBuf::from).filter(|p| p.is_file()) {
        return Ok(given);
    }
    let root = args.one()?;
    let root = root.canonicalize().with_context(|| format!("cannot open the root {}", root.display()))?;
    let dir = store_dir(args, &root)
        .context("no cache directory (HOME unset): pass --index-dir, as the server was given")?
        .join("state")
        .join("traces");
    if let Some(id) = session {
        let path = dir.join(format!("{id}.jsonl"));
        anyhow::ensure!(
            path.is_file(),
            "no trace {} (sessions are listed in {})",
            path.display(),
            dir.display()
        );
        return Ok(path);
    }
    let newest = std::fs::read_dir(&dir)
        .with_context(|| format!("no traces yet in {}", dir.display()))?
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok());
    newest.map(|e| e.path()).with_context(|| format!("no traces yet in {}", dir.display()))
}

/// `serve`'s flags that override `tack.toml`, or set what a repository may not.
#[derive(Default, Clone, clap::Args)]
struct OutputFlags {
    /// Also send `structuredContent` and list output schemas, for programmatic clients
    /// (Claude Code and Codex would then show their model only the JSON, not the text).
    #[arg(long)]
    structured: bool,
    /// The model's context window in tokens, for small models: no result takes more than
    /// an eighth of it, and read_file and search show less by default.
    #[arg(long, value_name = "TOKENS")]
    context_window: Option<usize>,
    /// Let commands (run, verify) see this credential-like environment variable, which
    /// tack otherwise removes (repeatable; *KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *AUTH* …).
    #[arg(long, value_name = "NAME")]
    pass_env: Vec<String>,
    /// Let commands (run, verify) reach the network; by default each has only its own
    /// loopback, where the kernel allows a network namespace.
    #[arg(long)]
    allow_network: bool,
    /// Let commands (run, verify) write beneath this folder too (repeatable); by default
    /// they may write only inside the root and their TMPDIR, where the kernel has Landlock.
    #[arg(long, value_name = "PATH")]
    writable: Vec<PathBuf>,
    /// Let commands (run, verify) read this credential store after all (repeatable): by
    /// default ~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc, ~/.npmrc and the like read empty.
    #[arg(long, value_name = "PATH")]
    readable: Vec<PathBuf>,
    /// Let the writing tools and commands change tack.toml, git's hooks and config,
    /// .cargo/config.toml, .pre-commit-config.yaml and .vscode/ (refused by default).
    #[arg(long)]
    allow_protected_writes: bool,
    /// Replace secrets in every result with `[redacted: KIND]`: known credential shapes,
    /// private keys, quoted values of secret-named settings, tack's own credential variables.
    #[arg(long)]
    redact_secrets: bool,
}

/// Finds the root, reads `tack.toml`, and opens the toolbox with its saved index.
fn open(args: &RootArg, profile: Profile, read_only: bool) -> anyhow::Result<Toolbox> {
    open_with(args, profile, read_only, &OutputFlags::default(), None)
}

/// [`open`] for a command's one root, with `serve`'s flags and a bundle to start from.
fn open_with(
    args: &RootArg,
    profile: Profile,
    read_only: bool,
    flags: &OutputFlags,
    bundle: Option<&std::path::Path>,
) -> anyhow::Result<Toolbox> {
    let root = args.one()?;
    open_root(&root, config_for(&root, flags)?, args.index_dir.clone(), profile, read_only, bundle, false)
}

/// The configuration of `root`: the user's, the repository's `tack.toml`, then `serve`'s flags.
fn config_for(root: &std::path::Path, flags: &OutputFlags) -> anyhow::Result<tack_tools::Config> {
    let mut config = settings::load(root)?;
    config.output.structured |= flags.structured;
    if flags.context_window.is_some() {
        config.output.context_window = flags.context_window;
    }
    config.run.pass_env.extend(flags.pass_env.iter().cloned());
    config.run.network |= flags.allow_network;
    config.run.writable.extend(flags.writable.iter().cloned());
    config.run.readable.extend(flags.readable.iter().cloned());
    config.allow_protected_writes |= flags.allow_protected_writes;
    config.output.redact_secrets |= flags.redact_secrets;
    Ok(config)
}

/// Opens the toolbox on `root` with `config` and its index saved in `store` (default: the user cache,
/// keyed by the root), started from `bundle` when the store holds none.
fn open_root(
    root: &std::path::Path,
    config: tack_tools::Config,
    store: Option<PathBuf>,
    profile: Profile,
    read_only: bool,
    bundle: Option<&std::path::Path>,
    state_kept: bool,
) -> anyhow::Result<Toolbox> {
    let toolbox = Toolbox::new(root, config, profile, read_only)?;
    let store = store.or_else(|| tack_indexer::default_store(toolbox.workspace().root().path()));
    if let Some(bundle) = bundle {
        start_from_bundle(bundle, toolbox.workspace().root().path(), store.as_deref());
    }
    let toolbox = match store {
        Some(store) => {
            // The plan, the handoff note and the traces sit beside the index, outside the
            // repository; with the state kept in a database, they are copied there instead.
            let toolbox = if state_kept { toolbox } else { toolbox.with_state_dir(&store.join("state")) };
            let (toolbox, outcome) = toolbox.with_index_store(&store);
            match outcome {
                LoadOutcome::Loaded { files } => {
                    tracing::info!(files, store = %store.display(), "reusing the saved index")
                }
                LoadOutcome::Rebuilt { reason } => {
                    tracing::warn!(store = %store.display(), "rebuilding the index: {reason}")
                }
                LoadOutcome::Seeded { from, files, reason } => {
                    if let Some(reason) = reason {
                        tracing::warn!(store = %store.display(), "the saved index is unusable: {reason}")
                    }
                    tracing::info!(
                        files,
                        from = %from.root.display(),
                        "starting from another worktree's index: files whose content matches are not parsed again"
                    )
                }
                LoadOutcome::NoSavedIndex | LoadOutcome::InMemory => {
                    tracing::info!(store = %store.display(), "no saved index yet")
                }
            }
            toolbox
        }
        None => {
            tracing::warn!(
                "no cache directory (HOME unset): the index, the plan and the handoff note live in memory; pass --index-dir to keep them"
            );
            toolbox
        }
    };
    tracing::info!(root = %toolbox.workspace().root().path().display(), "workspace open");
    Ok(toolbox)
}

/// The repositories `serve` serves: its `--root`s, else the user's `[[repositories]]`, else the
/// current one. Each is named by its folder unless the configuration names it; two of one name,
/// or a name that reads as a choice of several (`*`, a comma), are refused.
fn repositories(args: &RootArg, bundle: Option<PathBuf>) -> anyhow::Result<Vec<repos::RepoSpec>> {
    let listed: Vec<settings::Repository> = if !args.root.is_empty() {
        args.root
            .iter()
            .map(|root| settings::Repository { root: root.clone(), name: None, bundle: None })
            .collect()
    } else {
        let configured = settings::repositories()?;
        if configured.is_empty() {
            vec![settings::Repository { root: settings::default_root()?, name: None, bundle: None }]
        } else {
            configured
        }
    };
    let several = listed.len() > 1;
    anyhow::ensure!(
        !(several && bundle.is_some()),
        "--bundle starts one repository; with several, give each its bundle as `bundle = \"FILE\"` in its [[repositories]] entry of the user's config"
    );
    let mut specs: Vec<repos::RepoSpec> = Vec::new();
    for entry in listed {
        let root = entry
            .root
            .canonicalize()
            .with_context(|| format!("cannot open the root {}", entry.root.display()))?;
        let name = match entry.name {
            Some(name) => name,
            None => root.file_name().and_then(|n| n.to_str()).unwrap_or("root").to_string(),
        };
        anyhow::ensure!(
            !name.trim().is_empty() && name != "*" && !name.contains(','),
            "the repository at {} cannot be named {name:?} (a name is not empty, not \"*\" and has no comma): name it in [[repositories]] of the user's config",
            root.display()
        );
        if let Some(other) = specs.iter().find(|s| s.name == name) {
            anyhow::bail!(
                "two repositories are named {name:?} ({} and {}): list them as [[repositories]] in the user's config, each with its own name = \"...\"",
                other.root.display(),
                root.display()
            );
        }
        let store = match &args.index_dir {
            Some(dir) if several => Some(dir.join(&name)),
            Some(dir) => Some(dir.clone()),
            None => tack_indexer::default_store(&root),
        };
        let bundle = entry.bundle.or_else(|| bundle.clone());
        specs.push(repos::RepoSpec { name, root, store, bundle });
    }
    Ok(specs)
}

/// Opens one repository for `serve`: its toolbox and saved index, the watcher, and the first
/// refresh in the background (the call that opened it waits for the index, not the others).
fn open_repository(
    spec: &repos::RepoSpec,
    config: tack_tools::Config,
    profile: Profile,
    read_only: bool,
    state_kept: bool,
) -> anyhow::Result<repos::Opened> {
    let toolbox = open_root(
        &spec.root,
        config,
        spec.store.clone(),
        profile,
        read_only,
        spec.bundle.as_deref(),
        state_kept,
    )?;
    let index = toolbox.workspace().index().clone();
    // Watch first, so a change made during the first scan is not missed; then index in
    // the background: the handshake does not wait, the first query does.
    let watching = match watch::start(index.clone()) {
        Ok(watching) => Some(watching),
        Err(err) => {
            tracing::warn!("not watching for changes ({err}); the index refreshes only on tack's own edits");
            None
        }
    };
    std::thread::Builder::new().name("tack-index".into()).spawn(move || {
        let stats = index.refresh(&|_, _| {});
        tracing::info!(
            files = stats.files,
            parsed = stats.parsed,
            reused = stats.reused,
            seconds = stats.seconds,
            "index ready"
        );
        if let Err(err) = index.save() {
            tracing::warn!("cannot save the index: {err}");
        }
        // What every map shares (name resolution, the map's tables), made now rather
        // than by the first focused map or the first edit, at the maps' priority: the
        // first unfocused map reads the ranks saved with the index instead of waiting
        // for this, and shares the cores with it as an equal, not behind it.
        let started = std::time::Instant::now();
        pool::in_background("tack-prepare", mcp::MAP_NICE, || index.snapshot().prepare_maps());
        tracing::debug!(ms = started.elapsed().as_millis() as u64, "maps prepared");
    })?;
    Ok(repos::Opened::new(toolbox, watching))
}

/// Seeds an empty store from `bundle`; a store that holds an index already keeps it (it is at
/// least as new as this checkout's last index). What happened is logged; a refused bundle
/// leaves the index to be built from nothing.
fn start_from_bundle(bundle: &std::path::Path, root: &std::path::Path, store: Option<&std::path::Path>) {
    let Some(store) = store else {
        tracing::warn!("no store to unpack the bundle into (HOME unset): pass --index-dir");
        return;
    };
    if store.join("index.bin").exists() {
        tracing::info!(store = %store.display(), "the store holds an index already: the bundle is not read");
        return;
    }
    match tack_indexer::unpack_bundle(bundle, root, store) {
        Ok(summary) => tracing::info!(
            files = summary.files,
            commit = summary.commit.as_deref().unwrap_or("-"),
            bundle = %bundle.display(),
            "starting from the bundle: files whose content matches it are not parsed again"
        ),
        Err(refused) => tracing::warn!("the bundle is refused ({refused}); indexing from nothing"),
    }
}

fn save(toolbox: &Toolbox) {
    if let Err(err) = toolbox.workspace().index().save() {
        tracing::warn!("cannot save the index: {err}");
    }
}

/// A progress bar on stderr when it is a terminal; none in pipes and logs.
fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("indexing {bar:40} {pos}/{len} files {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// How long HTTP sessions and agents without one live idle, and how many at most.
struct SessionLimits {
    idle: std::time::Duration,
    max: usize,
}

/// How HTTP requests are authenticated: the token given (`--token-file`, `TACK_HTTP_TOKEN`,
/// `--token`), else the saved one, or none with `--no-auth` (loopback only, checked before the
/// workspace opens).
struct Token {
    given: Option<http::Auth>,
    no_auth: bool,
}

/// `state_dir`: the first repository's, where a token tack makes is saved.
async fn serve(
    repos: repos::Repos,
    state_dir: Option<PathBuf>,
    http: Option<SocketAddr>,
    token: Token,
    limits: SessionLimits,
    state: Option<String>,
) -> anyhow::Result<()> {
    let state = match state {
        Some(url) => Some(state::PgState::connect(&url).await?),
        None => None,
    };
    let shared = mcp::Shared::new(repos, limits.idle, limits.max, state);
    match http {
        Some(addr) => {
            let auth = match token {
                Token { no_auth: true, .. } => {
                    tracing::warn!(
                        %addr,
                        "--no-auth: HTTP requests need no token, so any local user or process can call run as this user"
                    );
                    None
                }
                Token { given: Some(auth), .. } => Some(auth),
                Token { given: None, .. } => Some(http::saved_token(state_dir.as_deref())?),
            };
            http::serve(shared, addr, auth, limits.idle, limits.max).await
        }
        None => stdio::serve(mcp::TackServer::stdio(shared)).await,
    }
}
