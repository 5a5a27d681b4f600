//! The MCP server: tool listing and calls over rmcp, for stdio and streamable HTTP, with
//! per-session state keyed the way each transport identifies a session.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;
use tack_tools::{Across, CallContext, Observation, Session, ToolSpec, Work};

use crate::agents::{self, Agents};
use crate::repos::{self, Choice, Desk, Repos};
use crate::state::{Persist, PgState};
use crate::to_mcp;

/// How much lower the map workers' CPU priority is than the other threads' (nice values).
pub(crate) const MAP_NICE: i32 = 10;

/// Quick calls run side by side, sharing the cores, up to this many per core: a cheap call
/// then never waits for a slower one to finish (one worker per core, first come first served,
/// made reads wait behind edits and searches: BENCHMARKS.md, issue 14).
const QUICK_WORKERS_PER_CORE: usize = 16;

/// What every connection shares: the repositories (each a toolbox: root, configuration,
/// index), and the agents of 2026-07-28 requests over HTTP, which carry no session.
pub struct Shared {
    pub repos: Repos,
    agents: Agents,
    /// Where quick tools run (reads, searches, navigation, edits): [`QUICK_WORKERS_PER_CORE`]
    /// workers per core, one session's calls on at most one worker per core at once, sessions
    /// in turn; a call a worker would take at once runs on the runtime thread that got it.
    quick: crate::pool::FairPool,
    /// Where `repo_map` runs: one worker per core at a lower CPU priority, sessions in turn.
    maps: crate::pool::FairPool,
    /// Calls in flight: memory goes back to the system once they stop.
    calls: Arc<crate::memory::Calls>,
    /// Where agents' state is kept besides memory (`--state`), for other servers to serve them.
    state: Option<PgState>,
}

impl Shared {
    /// `idle`: how long an agent without a session keeps its state between calls; `max`: how
    /// many such agents live at once.
    pub fn new(repos: Repos, idle: std::time::Duration, max: usize, state: Option<PgState>) -> Arc<Self> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let quick = crate::pool::FairPool::new("tack-tools", QUICK_WORKERS_PER_CORE * cores, cores, 0, true);
        let maps = crate::pool::FairPool::new("tack-maps", cores, cores, MAP_NICE, false);
        Arc::new(Self {
            repos,
            agents: Agents::new(idle, max),
            quick,
            maps,
            calls: crate::memory::Calls::start(),
            state,
        })
    }
}

/// The rmcp handler. Over stdio the process is the session. Over HTTP rmcp makes one handler per
/// 2025 session, so the session's state lives in its handler and goes when rmcp drops the
/// session (idle timeout or DELETE): no table to outgrow, and a session whose state is gone is
/// one rmcp no longer knows (404). 2026-07-28 requests, which have no session, each name their
/// agent with the handle an earlier result gave (`agents`).
#[derive(Clone)]
pub struct TackServer {
    shared: Arc<Shared>,
    own: Arc<Desk>,
    stdio: bool,
}

impl TackServer {
    pub fn stdio(shared: Arc<Shared>) -> Self {
        Self { shared, own: Arc::new(Desk::new()), stdio: true }
    }

    pub fn http(shared: Arc<Shared>) -> Self {
        Self { shared, own: Arc::new(Desk::new()), stdio: false }
    }

    /// Whether the request stands alone: HTTP without a session id (2026-07-28).
    fn stateless(&self, context: &RequestContext<RoleServer>) -> bool {
        !self.stdio
            && !context
                .extensions
                .get::<axum::http::request::Parts>()
                .is_some_and(|parts| parts.headers.contains_key("mcp-session-id"))
    }
}

/// Takes the agent handle out of a call's arguments: at the top, or inside `call_tool`'s
/// `arguments`, where a model may put it too.
fn take_agent(args: &mut Value) -> Option<String> {
    let take = |object: &mut serde_json::Map<String, Value>| match object.remove(agents::ARGUMENT) {
        Some(Value::String(handle)) if !handle.trim().is_empty() => Some(handle),
        _ => None,
    };
    let Value::Object(object) = args else { return None };
    let top = take(object);
    let nested = match object.get_mut("arguments") {
        Some(Value::Object(inner)) => take(inner),
        _ => None,
    };
    top.or(nested)
}

/// The client's `clientInfo.name`: from `_meta` on 2026-07-28 (every request carries it), else
/// from the `initialize` handshake.
fn client_name(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .meta
        .client_info()
        .map(|info| info.name)
        .or_else(|| context.peer.peer_info().map(|info| info.client_info.name.clone()))
}

/// Whether the client's protocol revision lets the tool list change during a connection.
fn list_can_change(context: &RequestContext<RoleServer>) -> bool {
    match context.protocol_version() {
        Some(version) => version.as_str() < ProtocolVersion::V_2026_07_28.as_str(),
        None => true,
    }
}

impl TackServer {
    /// The toolbox's instructions; over HTTP, with how an agent without a session keeps its state.
    fn instructions(&self) -> String {
        let mut text = self.shared.repos.lead().instructions();
        if let Some(repos) = self.shared.repos.instructions() {
            text.push_str(&repos);
        }
        if !self.stdio {
            text.push_str(
                "\nWithout an HTTP session (protocol 2026-07-28), your first result names an agent handle: pass it \
                 as agent on every later call, or each call starts afresh, without your outputs, undo and verification.",
            );
        }
        text
    }
}

impl ServerHandler for TackServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("tack", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let stateless = self.stateless(&context);
        // A request without a session lists what a new agent sees; an agent in several
        // repositories sees what `find_tools` revealed in any of them.
        let desk = if stateless { Arc::new(Desk::new()) } else { self.own.clone() };
        let lead = self.shared.repos.lead();
        let mut sessions = desk.sessions();
        if sessions.is_empty() {
            sessions.push(Arc::new(Session::new()));
        }
        let can_change = list_can_change(&context);
        let listed: std::collections::HashSet<&str> =
            sessions.iter().flat_map(|s| lead.listed(s, can_change)).map(|spec| spec.name).collect();
        let tools = lead
            .specs()
            .filter(|spec| listed.contains(spec.name))
            .map(|spec| {
                let tool = self.protocol_tool(spec);
                // With the state kept, a session may resume an agent by its handle too.
                if stateless || self.shared.state.is_some() {
                    to_mcp::with_agent_argument(tool)
                } else {
                    tool
                }
            })
            .collect();
        Ok(ListToolsResult { tools, ..Default::default() })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.shared.repos.lead().spec(name).map(|spec| self.protocol_tool(spec))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let lead = self.shared.repos.lead();
        if lead.spec(&name).is_none() {
            return Err(McpError::invalid_params(
                format!("unknown tool: {name}; tools/list names the tools, find_tools describes them"),
                None,
            ));
        }
        let refuse = |text: String| Ok(to_mcp::result(Observation::error(text), lead.structured()).into());
        let mut args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let state = self.shared.state.as_ref();
        let (desk, started, kept) = match self.agent_of(&mut args, &context).await {
            Ok(found) => found,
            Err(text) => return refuse(text),
        };
        // With one repository, `repo` is no argument of any tool (and is refused as any unknown one).
        let given = if self.shared.repos.len() > 1 { repos::take_repo(&mut args) } else { None };
        let named = given.is_some();
        let choice = match self.shared.repos.choose(given, &desk) {
            Ok(choice) => choice,
            Err(text) => return refuse(text),
        };
        // With the state kept elsewhere, the agent's session in this repository, and the
        // repository's plan and note, are read before the call (another server may have changed them).
        let mut repo_state = None;
        let session_at = match &choice {
            Choice::One(at) => *at,
            Choice::Many(_) => desk.default_repo(),
        };
        if let (Some(state), Some(handle)) = (state, desk.handle()) {
            let at = session_at;
            let repo = self.shared.repos.name(at);
            // Another server may have served this agent since: its newer session replaces ours.
            match state.load_session(&handle, repo, desk.version(at)).await {
                Ok(Some((session, version))) => desk.restore(at, session, version),
                Ok(None) => {}
                Err(err) => {
                    return refuse(format!(
                        "cannot read this agent's state from the state database: {err:#}"
                    ));
                }
            }
            if let Choice::One(_) = choice {
                match state.repo_state(repo).await {
                    Ok(rows) => repo_state = Some(rows),
                    Err(err) => {
                        return refuse(format!(
                            "cannot read the plan and note from the state database: {err:#}"
                        ));
                    }
                }
            }
        }
        // Files other servers' calls wrote are folded in before this one answers, so no answer
        // depends on which server gives it.
        let mut written_elsewhere = Vec::new();
        if let (Some(state), Choice::One(at)) = (state, &choice) {
            match state.writes_since(self.shared.repos.name(*at)).await {
                Ok(paths) => written_elsewhere = paths,
                Err(err) => {
                    return refuse(format!(
                        "cannot read other servers' writes from the state database: {err:#}"
                    ));
                }
            }
        }
        let keep = match (state, desk.handle()) {
            (Some(state), Some(handle)) => {
                Some(state.verifies_written(&handle, self.shared.repos.name(session_at)))
            }
            _ => None,
        };
        let progress = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            let runtime = tokio::runtime::Handle::current();
            Box::new(move |progress: f64, total: Option<f64>, message: &str| {
                let mut param = ProgressNotificationParam::new(token.clone(), progress).with_message(message);
                if let Some(total) = total {
                    param = param.with_total(total);
                }
                let peer = peer.clone();
                runtime.spawn(async move {
                    let _ = peer.notify_progress(param).await;
                });
            }) as tack_tools::Progress
        });
        let ctx = CallContext {
            cancel: context.ct.clone(),
            progress,
            list_can_change: list_can_change(&context),
            client: client_name(&context),
        };
        let work = lead.spec_of_call(&name, &args).map_or(Work::Quick, |t| t.work);
        let owner = Arc::as_ptr(&desk) as usize;
        let shared = self.shared.clone();
        let tool_name = name.clone();
        let running = self.shared.calls.begin();
        let handle = desk.handle();
        let kept_desk = desk.clone();
        let call = move || {
            let _running = running;
            let repos = &shared.repos;
            match choice {
                Choice::One(at) => {
                    if named {
                        desk.named(at);
                    }
                    let opened = match repos.get(at) {
                        Ok(opened) => opened,
                        Err(err) => {
                            let observation = Observation::error(format!(
                                "cannot open the repository {}: {err}",
                                repos.name(at)
                            ));
                            return (tack_tools::CallOutcome { observation, tools_changed: false }, None);
                        }
                    };
                    if !written_elsewhere.is_empty() {
                        opened.toolbox.workspace().files_changed(&written_elsewhere);
                    }
                    let plans = opened.toolbox.workspace().shared_state();
                    for (name, bytes) in repo_state.into_iter().flatten() {
                        plans.import(&name, bytes);
                    }
                    let saves = plans.saves();
                    let session = desk.session(at);
                    let outcome = kept_call(&session, keep, |session| {
                        opened.toolbox.call(session, &tool_name, args, &ctx)
                    });
                    let persist = outcome.1.map(|mut persist| {
                        persist.repo = repos.name(at).to_string();
                        persist.repo_state = (plans.saves() != saves).then(|| plans.export());
                        persist
                    });
                    (outcome.0, persist)
                }
                Choice::Many(chosen) => {
                    let names: Vec<String> = chosen.iter().map(|&at| repos.name(at).to_string()).collect();
                    let visit = |k: usize, each: &mut dyn FnMut(&tack_tools::Workspace)| {
                        let opened = repos.get(chosen[k])?;
                        each(opened.toolbox.workspace());
                        Ok(())
                    };
                    let across = Across { names: &names, visit: &visit };
                    let home = desk.default_repo();
                    let session = desk.session(home);
                    let (outcome, persist) = kept_call(&session, keep, |session| {
                        repos.lead().call_across(session, &across, &tool_name, args, &ctx)
                    });
                    let persist = persist.map(|mut persist| {
                        persist.repo = repos.name(home).to_string();
                        persist
                    });
                    (outcome, persist)
                }
            }
        };
        let (outcome, persist) = match work {
            // Each waits its session's turn: a map behind other maps, never behind other tools.
            Work::Quick => self.shared.quick.run(owner, call).await,
            Work::Heavy => self.shared.maps.run(owner, call).await,
            Work::Waits => tokio::task::spawn_blocking(call).await.ok(),
        }
        .ok_or_else(|| McpError::internal_error(format!("tool {name} failed"), None))?;
        if outcome.tools_changed
            && let Err(err) = context.peer.notify_tool_list_changed().await
        {
            tracing::debug!("could not send tools/list_changed: {err}");
        }
        let mut observation = outcome.observation;
        if let (Some(state), Some(persist), Some(handle)) = (state, persist, handle) {
            match state.save(&handle, persist).await {
                Ok(Some(version)) => kept_desk.kept(session_at, version),
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!("cannot save agent {handle}'s state: {err:#}");
                    push_line(
                        &mut observation.text,
                        &format!(
                            "[tack] this call's state was not saved to the state database ({err}); another server would not see it"
                        ),
                    );
                }
            }
        }
        let handle_line = match (&started, &kept) {
            (Some(handle), _) => Some((handle.clone(), self.shared.agents.started_line(handle))),
            (None, Some(handle)) => Some((handle.clone(), Agents::kept_line(handle))),
            _ => None,
        };
        if let Some((handle, line)) = handle_line {
            push_line(&mut observation.text, &line);
            // With --structured, Claude Code and Codex show their model only the data.
            if let Some(Value::Object(data)) = &mut observation.structured {
                data.insert(agents::ARGUMENT.into(), Value::String(handle));
            }
        }
        Ok(to_mcp::result(observation, lead.structured()).into())
    }
}

/// Runs `call` on `session`, and with `keep` takes what the state database should keep of it:
/// the session's saved form, the results it cut, its trace lines (the repository is named by
/// the caller).
/// `keep`: the state is kept, and this server last wrote the session's verifies up to this
/// count (`None`: never, or not since it read the session); a later verify is written.
fn kept_call(
    session: &Session,
    keep: Option<Option<u64>>,
    call: impl FnOnce(&Session) -> tack_tools::CallOutcome,
) -> (tack_tools::CallOutcome, Option<Persist>) {
    let Some(verifies_written) = keep else { return (call(session), None) };
    session.keep_trace_lines();
    let issued = session.issued();
    let outcome = call(session);
    let verifies = session.verifies();
    let persist = Persist {
        repo: String::new(),
        session: session.saved(verifies_written != Some(verifies)),
        verifies,
        outputs: session.outputs_after(issued),
        repo_state: None,
        trace: session.take_trace_lines(),
        written: session.last_call_wrote(),
    };
    (outcome, Some(persist))
}

/// Ends `text` with `line` on a line of its own.
fn push_line(text: &mut String, line: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
}

impl TackServer {
    /// The agent a call is for, the handle of one it started (requests without a session), and
    /// the handle of a session's agent made now, whose state is kept (`--state`). A handle
    /// another server gave, with the state kept, is the same agent here.
    async fn agent_of(
        &self,
        args: &mut Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Arc<Desk>, Option<String>, Option<String>), String> {
        let state = self.shared.state.as_ref();
        let stateless = self.stateless(context);
        let asked = if stateless || state.is_some() { take_agent(args) } else { None };
        if stateless {
            return match self.shared.agents.find(asked.as_deref()) {
                Ok(found) => {
                    if let (Some(state), Some(handle)) = (state, &found.started)
                        && let Err(err) = state.new_agent(handle).await
                    {
                        return Err(format!("cannot record a new agent in the state database: {err:#}"));
                    }
                    Ok((found.desk, found.started, None))
                }
                Err(unknown) => match asked.as_deref() {
                    Some(handle) if self.known(handle).await? => {
                        Ok((self.shared.agents.adopt(handle), None, None))
                    }
                    _ => Err(unknown.to_string()),
                },
            };
        }
        let Some(state) = state else { return Ok((self.own.clone(), None, None)) };
        if let Some(handle) = asked.as_deref() {
            if !self.known(handle).await? {
                return Err(format!(
                    "agent \"{handle}\" is unknown to the state database (an agent is kept 7 days after its last call); call without agent to start afresh"
                ));
            }
            self.own.resume(handle);
            return Ok((self.own.clone(), None, None));
        }
        if self.own.handle().is_some() {
            return Ok((self.own.clone(), None, None));
        }
        let handle = agents::new_handle();
        state
            .new_agent(&handle)
            .await
            .map_err(|err| format!("cannot record a new agent in the state database: {err:#}"))?;
        self.own.set_handle(&handle);
        Ok((self.own.clone(), None, Some(handle)))
    }

    /// Whether the state database knows the agent `handle` (never, without one).
    async fn known(&self, handle: &str) -> Result<bool, String> {
        match &self.shared.state {
            Some(state) => state
                .agent_exists(handle)
                .await
                .map_err(|err| format!("cannot read the state database: {err:#}")),
            None => Ok(false),
        }
    }

    /// A tool as listed: with several repositories, it takes `repo`.
    fn protocol_tool(&self, spec: &ToolSpec) -> Tool {
        let tool = to_mcp::tool(spec, self.shared.repos.lead().structured());
        if self.shared.repos.len() > 1 { to_mcp::with_repo_argument(tool, spec.across) } else { tool }
    }
}
