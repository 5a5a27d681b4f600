//! The `tack` binary: reads the command line and the configuration, opens the workspace, and
//! serves it over MCP or runs one command. It wires; the libraries decide.

mod config;
mod http;
mod mcp;
mod stdio;
mod to_mcp;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use tack_tools::{CallContext, Profile, Session, Toolbox};

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
        /// `auto`, `text` or `regex`.
        #[arg(long, default_value = "auto")]
        mode: String,
        /// Only files under this folder or matching this glob.
        #[arg(long)]
        path: Option<String>,
        /// Print the structured result as JSON instead of the text an agent reads.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
struct RootArg {
    /// The repository root (default: the git top level of the current directory, else the
    /// current directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ProfileArg {
    Core,
    Full,
}

fn main() -> ExitCode {
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
        Command::Serve { root, http, profile, read_only } => {
            let profile = match profile {
                ProfileArg::Core => Profile::Core,
                ProfileArg::Full => Profile::Full,
            };
            let toolbox = open(&root, profile, read_only)?;
            let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            runtime.block_on(serve(toolbox, http))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Search { query, root, limit, mode, path, json } => {
            let toolbox = open(&root, Profile::Core, true)?;
            let args = serde_json::json!({"query": query, "limit": limit, "mode": mode, "path": path});
            let outcome = toolbox.call(&Session::new(), "search", args, &CallContext::default());
            let obs = outcome.observation;
            if json && !obs.is_error {
                println!("{}", serde_json::to_string_pretty(&obs.structured).unwrap_or_default());
            } else {
                print!("{}", obs.text);
            }
            Ok(if obs.is_error { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
    }
}

/// Finds the root, reads `tack.toml`, and opens the toolbox.
fn open(root: &RootArg, profile: Profile, read_only: bool) -> anyhow::Result<Toolbox> {
    let root = match &root.root {
        Some(dir) => dir.clone(),
        None => config::default_root()?,
    };
    let config = config::load(&root)?;
    let toolbox = Toolbox::new(&root, config, profile, read_only)?;
    tracing::info!(root = %toolbox.root().path().display(), "workspace open");
    Ok(toolbox)
}

async fn serve(toolbox: Toolbox, http: Option<SocketAddr>) -> anyhow::Result<()> {
    let shared = mcp::Shared::new(toolbox);
    match http {
        Some(addr) => http::serve(shared, addr).await,
        None => stdio::serve(mcp::TackServer::stdio(shared)).await,
    }
}
