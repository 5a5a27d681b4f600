//! Agents' state in PostgreSQL (`tack serve --state postgres://…`), so that another server (a
//! replica behind a load balancer, or this one restarted) serves an agent's next call with
//! everything it had: agent handles; per agent and repository its session (gate and last
//! verify, stall counters, the tools it found) and the texts of its cut results; per repository
//! the plan and the handoff note; and every call's trace line. Writes happen after each call,
//! only of what changed; a session is read the first time a server meets it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use tack_tools::{SavedSession, Session};

/// Serializes schema creation across servers starting together (a key of tack's own).
const SCHEMA_LOCK: i64 = 0x7461_636b_0001;

/// How long an agent nobody calls is kept.
const KEEP_DAYS: i32 = 7;

/// Cut results kept per session, as [`tack_tools`] keeps them in memory.
const KEEP_OUTPUTS: i64 = 32;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tack_agents (
    handle text PRIMARY KEY,
    used timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS tack_sessions (
    handle text NOT NULL REFERENCES tack_agents ON DELETE CASCADE,
    repo text NOT NULL,
    id text NOT NULL,
    enabled jsonb NOT NULL,
    harness jsonb NOT NULL,
    issued bigint NOT NULL,
    verify jsonb,
    version bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (handle, repo)
);
CREATE TABLE IF NOT EXISTS tack_outputs (
    handle text NOT NULL,
    repo text NOT NULL,
    id bigint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (handle, repo, id),
    FOREIGN KEY (handle, repo) REFERENCES tack_sessions ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS tack_repo_state (
    repo text NOT NULL,
    name text NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (repo, name)
);
CREATE TABLE IF NOT EXISTS tack_writes (
    repo text NOT NULL,
    n bigserial PRIMARY KEY,
    path text NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS tack_traces (
    session text NOT NULL,
    repo text NOT NULL,
    n bigserial,
    line text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session, n)
);
";

/// What one call leaves to save: taken from the session and workspace right after it ran.
pub struct Persist {
    pub repo: String,
    pub session: SavedSession,
    /// Results the call cut, each under its handle's number.
    pub outputs: Vec<(u64, Arc<str>)>,
    /// The plan and the note, when the call saved either.
    pub repo_state: Option<Vec<(String, Vec<u8>)>>,
    pub trace: Vec<String>,
    /// Files the call wrote, which every other server folds in before its next answer.
    pub written: Vec<String>,
    /// The session's count of verifies: with `session.verify`, the one that count reached.
    pub verifies: u64,
}

/// A hash of a session's counters, and the session's count of verifies, as last written.
type Written = ([u8; 32], u64);

/// A connection to the database that keeps the state.
pub struct PgState {
    /// One connection; a call's writes are one transaction on it, calls in turn.
    client: tokio::sync::Mutex<tokio_postgres::Client>,
    /// What was written last per agent and repository, so an unchanged part is not written
    /// again.
    written: Mutex<HashMap<(String, String), Written>>,
    /// Per repository, the last write (by any server) this server has folded in.
    seen: Mutex<HashMap<String, i64>>,
    /// Where to connect again when the connection closes (the database restarted).
    url: String,
}

/// A connection to `url`, its driving task spawned.
async fn open(url: &str) -> anyhow::Result<tokio_postgres::Client> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .with_context(|| format!("cannot connect to the state database {}", redact(url)))?;
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::error!("the state database connection ended: {err}");
        }
    });
    Ok(client)
}

impl PgState {
    /// Connects, creates the tables (one server at a time) and drops agents unused for a week.
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let client = open(url).await?;
        client.execute("SELECT pg_advisory_lock($1)", &[&SCHEMA_LOCK]).await?;
        let made = client.batch_execute(SCHEMA).await;
        client.execute("SELECT pg_advisory_unlock($1)", &[&SCHEMA_LOCK]).await?;
        made.context("cannot create tack's tables in the state database")?;
        let gone = client
            .execute("DELETE FROM tack_agents WHERE used < now() - make_interval(days => $1)", &[&KEEP_DAYS])
            .await?;
        tracing::info!(url = %redact(url), dropped = gone, "agents' state is kept in PostgreSQL");
        client.execute("DELETE FROM tack_writes WHERE at < now() - interval '1 day'", &[]).await?;
        Ok(Self {
            client: tokio::sync::Mutex::new(client),
            written: Mutex::default(),
            seen: Mutex::default(),
            url: url.to_string(),
        })
    }

    /// The connection, made again first if it closed (the database restarted or was out of
    /// reach): a call then fails only while the database is away.
    async fn client(&self) -> anyhow::Result<tokio::sync::MutexGuard<'_, tokio_postgres::Client>> {
        let mut client = self.client.lock().await;
        if client.is_closed() {
            tracing::warn!(url = %redact(&self.url), "the state database connection closed: connecting again");
            *client = open(&self.url).await?;
        }
        Ok(client)
    }

    /// Records a new agent.
    pub async fn new_agent(&self, handle: &str) -> anyhow::Result<()> {
        let client = self.client().await?;
        client
            .execute("INSERT INTO tack_agents (handle) VALUES ($1) ON CONFLICT DO NOTHING", &[&handle])
            .await?;
        Ok(())
    }

    /// Whether `handle` names a known agent; one that does is marked used.
    pub async fn agent_exists(&self, handle: &str) -> anyhow::Result<bool> {
        let client = self.client().await?;
        let n = client.execute("UPDATE tack_agents SET used = now() WHERE handle = $1", &[&handle]).await?;
        Ok(n > 0)
    }

    /// The agent's session in `repo`, with its cut results and its version, if one was saved
    /// after version `known` (this server's copy; `None`: it has none).
    pub async fn load_session(
        &self,
        handle: &str,
        repo: &str,
        known: Option<i64>,
    ) -> anyhow::Result<Option<(Session, i64)>> {
        let client = self.client().await?;
        let Some(row) = client
            .query_opt(
                "SELECT id, enabled, harness, issued, verify, version FROM tack_sessions
                 WHERE handle = $1 AND repo = $2 AND version > $3",
                &[&handle, &repo, &known.unwrap_or(0)],
            )
            .await?
        else {
            return Ok(None);
        };
        let version: i64 = row.get(5);
        // What this server wrote last of it is no longer what the database holds.
        self.written.lock().expect("written lock").remove(&(handle.to_string(), repo.to_string()));
        let enabled: serde_json::Value = row.get(1);
        let saved = SavedSession {
            id: row.get(0),
            enabled: serde_json::from_value(enabled).unwrap_or_default(),
            harness: row.get(2),
            issued: row.get::<_, i64>(3).max(0) as u64,
            verify: row.get(4),
        };
        let outputs = client
            .query(
                "SELECT id, body FROM tack_outputs WHERE handle = $1 AND repo = $2 ORDER BY id",
                &[&handle, &repo],
            )
            .await?
            .into_iter()
            .map(|row| {
                let body: Vec<u8> = row.get(1);
                (row.get::<_, i64>(0).max(0) as u64, String::from_utf8_lossy(&body).into_owned())
            })
            .collect();
        Ok(Some((Session::restored(saved, outputs), version)))
    }

    /// The plan and the note of `repo`, by name.
    pub async fn repo_state(&self, repo: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        let client = self.client().await?;
        let rows = client.query("SELECT name, body FROM tack_repo_state WHERE repo = $1", &[&repo]).await?;
        Ok(rows.into_iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    /// The files of `repo` that other servers' calls wrote since this server last asked (none
    /// the first time: this server's index was built from the tree as they left it).
    pub async fn writes_since(&self, repo: &str) -> anyhow::Result<Vec<String>> {
        let seen = self.seen.lock().expect("seen lock").get(repo).copied();
        let client = self.client().await?;
        let Some(seen) = seen else {
            let last: Option<i64> =
                client.query_one("SELECT max(n) FROM tack_writes WHERE repo = $1", &[&repo]).await?.get(0);
            self.seen.lock().expect("seen lock").insert(repo.to_string(), last.unwrap_or(0));
            return Ok(Vec::new());
        };
        let rows = client
            .query("SELECT n, path FROM tack_writes WHERE repo = $1 AND n > $2 ORDER BY n", &[&repo, &seen])
            .await?;
        let mut paths: Vec<String> = rows.iter().map(|row| row.get(1)).collect();
        if let Some(last) = rows.last().map(|row| row.get::<_, i64>(0)) {
            let mut seen = self.seen.lock().expect("seen lock");
            let at = seen.entry(repo.to_string()).or_default();
            *at = (*at).max(last);
        }
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// The trace of `session`, or of the newest session in `repo`: its id and its lines as
    /// JSONL, if there is one.
    pub async fn trace(&self, repo: &str, session: Option<&str>) -> anyhow::Result<Option<(String, String)>> {
        let client = self.client().await?;
        let id: Option<String> = match session {
            Some(id) => Some(id.to_string()),
            None => client
                .query_opt(
                    "SELECT session FROM tack_traces WHERE repo = $1 ORDER BY n DESC LIMIT 1",
                    &[&repo],
                )
                .await?
                .map(|row| row.get(0)),
        };
        let Some(id) = id else { return Ok(None) };
        let rows = client.query("SELECT line FROM tack_traces WHERE session = $1 ORDER BY n", &[&id]).await?;
        if rows.is_empty() {
            return Ok(None);
        }
        let mut text = String::new();
        for row in rows {
            text.push_str(row.get::<_, &str>(0));
            text.push('\n');
        }
        Ok(Some((id, text)))
    }

    /// How many of its session's verifies this server wrote for agent `handle` in `repo` (none
    /// yet, or none since it read the session): a call writes the last verify when it differs.
    pub fn verifies_written(&self, handle: &str, repo: &str) -> Option<u64> {
        self.written.lock().expect("written lock").get(&(handle.to_string(), repo.to_string())).map(|w| w.1)
    }

    /// Saves what a call of agent `handle` changed, in one transaction; the session's version
    /// after it, when the session was written.
    pub async fn save(&self, handle: &str, persist: Persist) -> anyhow::Result<Option<i64>> {
        let Persist { repo, session, outputs, repo_state, trace, written, verifies } = persist;
        let counters = serde_json::json!([session.enabled, session.harness, session.issued]);
        let now = (*blake3::hash(counters.to_string().as_bytes()).as_bytes(), verifies);
        let key = (handle.to_string(), repo.clone());
        let before = self.written.lock().expect("written lock").get(&key).copied();
        let session_changed = before.is_none_or(|b| b.0 != now.0);
        let verify_changed = session.verify.is_some();
        if !session_changed
            && !verify_changed
            && outputs.is_empty()
            && repo_state.is_none()
            && trace.is_empty()
            && written.is_empty()
        {
            return Ok(None);
        }
        let enabled = serde_json::json!(session.enabled);
        let issued = session.issued as i64;
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let mut version = None;
        if session_changed || verify_changed {
            let row = tx.query_one(
                "INSERT INTO tack_sessions (handle, repo, id, enabled, harness, issued, verify)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (handle, repo) DO UPDATE SET id = $3, enabled = $4, harness = $5, issued = $6,
                 verify = CASE WHEN $8 THEN $7 ELSE tack_sessions.verify END, version = tack_sessions.version + 1
                 RETURNING version",
                &[
                    &handle,
                    &repo,
                    &session.id,
                    &enabled,
                    &session.harness,
                    &issued,
                    &session.verify,
                    &verify_changed,
                ],
            )
            .await?;
            version = Some(row.get(0));
        }
        for (id, body) in &outputs {
            tx.execute(
                "INSERT INTO tack_outputs (handle, repo, id, body) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                &[&handle, &repo, &(*id as i64), &body.as_bytes()],
            )
            .await?;
        }
        if !outputs.is_empty() {
            tx.execute(
                "DELETE FROM tack_outputs WHERE handle = $1 AND repo = $2 AND id <= $3",
                &[&handle, &repo, &(issued - KEEP_OUTPUTS)],
            )
            .await?;
        }
        for (name, body) in repo_state.iter().flatten() {
            tx.execute(
                "INSERT INTO tack_repo_state (repo, name, body) VALUES ($1, $2, $3)
                 ON CONFLICT (repo, name) DO UPDATE SET body = $3",
                &[&repo, name, body],
            )
            .await?;
        }
        if !trace.is_empty() {
            tx.execute(
                "INSERT INTO tack_traces (session, repo, line) SELECT $1, $2, unnest($3::text[])",
                &[&session.id, &repo, &trace],
            )
            .await?;
        }
        if !written.is_empty() {
            tx.execute(
                "INSERT INTO tack_writes (repo, path) SELECT $1, unnest($2::text[])",
                &[&repo, &written],
            )
            .await?;
        }
        tx.execute("UPDATE tack_agents SET used = now() WHERE handle = $1", &[&handle]).await?;
        tx.commit().await?;
        self.written.lock().expect("written lock").insert(key, now);
        Ok(version)
    }
}

/// The URL without its password, for logs and errors.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_never_reaches_a_log() {
        assert_eq!(
            redact("postgres://tack:s3cret@127.0.0.1:5433/tack"),
            "postgres://tack:***@127.0.0.1:5433/tack"
        );
        assert_eq!(redact("postgres://tack@127.0.0.1/tack"), "postgres://tack@127.0.0.1/tack");
        assert_eq!(redact("host=/tmp user=tack"), "host=/tmp user=tack");
    }
}
