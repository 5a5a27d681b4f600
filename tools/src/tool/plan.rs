//! The `state` group: `todo` (the plan, in Codex's `update_plan` shape), `done` (the gate's
//! verdict) and `handoff` (a note for the next session). The plan and the note belong to the
//! repository, not the session: they are JSON files in the state directory (outside the
//! repository), written atomically, so a new session or a new server reads them with one call.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::harness::Verification;
use crate::observe::observation::Observation;
use crate::session::Session;
use crate::tool::{Call, Group, RECORDS, Reply, Spec, Tool};
use crate::workspace::Workspace;

const PLAN_FILE: &str = "plan.json";
const HANDOFF_FILE: &str = "handoff.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

impl StepStatus {
    fn mark(self) -> &'static str {
        match self {
            StepStatus::Pending => "[ ]",
            StepStatus::InProgress => "[>]",
            StepStatus::Completed => "[x]",
        }
    }

    fn name(self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::InProgress => "in_progress",
            StepStatus::Completed => "completed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// What to do, in a few words.
    pub step: String,
    /// pending, in_progress (at most one step) or completed.
    pub status: StepStatus,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoParams {
    /// Why the plan is what it is, or what changed.
    #[serde(default)]
    pub explanation: Option<String>,
    /// The whole plan, replacing the saved one; omit it to read the saved plan.
    #[serde(default)]
    pub plan: Option<Vec<PlanStep>>,
}

/// The saved plan, and what `todo` answers.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    #[serde(default)]
    pub plan: Vec<PlanStep>,
}

impl Plan {
    fn open(&self) -> Vec<&PlanStep> {
        self.plan.iter().filter(|s| s.status != StepStatus::Completed).collect()
    }

    fn render(&self) -> String {
        if self.plan.is_empty() {
            return "no plan saved; write one with todo(plan=[{step, status}])\n".into();
        }
        let done = self.plan.len() - self.open().len();
        let mut text = format!("plan: {done} of {} steps completed\n", self.plan.len());
        if let Some(explanation) = &self.explanation {
            text.push_str(&format!("{}\n", explanation.trim()));
        }
        for step in &self.plan {
            text.push_str(&format!("{} {}\n", step.status.mark(), step.step.trim()));
        }
        text
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DoneParams {}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DoneOutput {
    /// True when a verify passed after the session's last write and the plan has no open step.
    pub done: bool,
    pub verified_since_last_edit: bool,
    /// The tree the last passing verify checked (16 hex digits over every indexed file's path
    /// and content), while nothing has changed since; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_tree: Option<String>,
    /// The checks that passing verify ran.
    pub checks_run: Vec<String>,
    /// Files changed after the last passing verify, by any hand.
    pub changed_since_verify: Vec<String>,
    /// The plan's steps that are not completed.
    pub open_steps: Vec<PlanStep>,
    /// Each condition that fails, with what to do.
    pub reasons: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoffParams {
    /// For the next session: what was done, what is left, what to watch for. Omit it to read the
    /// last note.
    #[serde(default)]
    pub note: Option<String>,
}

/// A saved handoff: the note plus what tack knows about the session that wrote it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Handoff {
    pub note: String,
    /// The last verify of the writing session, such as `failed: 3 passed, 1 failed`; absent when
    /// it ran none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_verify: Option<String>,
    /// Whether that session's last write was verified when the note was written.
    #[serde(default)]
    pub verified_since_last_edit: bool,
    /// The files that session changed through tack.
    #[serde(default)]
    pub changed_files: Vec<String>,
    /// The plan when the note was written.
    #[serde(default)]
    pub plan: Vec<PlanStep>,
}

/// What `handoff` answers: the note it saved or read, with what tack recorded beside it; an
/// empty object when no note was saved.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HandoffOutput {
    #[serde(flatten)]
    pub saved: Option<Handoff>,
}

impl Handoff {
    fn render(&self) -> String {
        let mut text = format!("handoff note:\n{}\n", self.note.trim_end());
        text.push_str(&format!(
            "last verify: {}{}\n",
            self.last_verify.as_deref().unwrap_or("none in that session"),
            if self.last_verify.is_some() && !self.verified_since_last_edit {
                " (files were changed after it)"
            } else {
                ""
            }
        ));
        if self.changed_files.is_empty() {
            text.push_str("changed files: none through tack\n");
        } else {
            text.push_str(&format!("changed files: {}\n", self.changed_files.join(", ")));
        }
        let open: Vec<&PlanStep> = self.plan.iter().filter(|s| s.status != StepStatus::Completed).collect();
        if !self.plan.is_empty() {
            text.push_str(&format!("plan: {} of {} steps open\n", open.len(), self.plan.len()));
            for step in open {
                text.push_str(&format!("{} {}\n", step.status.mark(), step.step.trim()));
            }
        }
        text
    }
}

pub(crate) struct Todo;

impl Tool for Todo {
    type Params = TodoParams;
    type Output = Plan;
    const SPEC: Spec = Spec {
        reads: false,
        annotations: RECORDS,
        ..Spec::reader(
            "todo",
            "Write or read the plan",
            Group::State,
            "Write the plan (plan=[{step, status: pending|in_progress|completed}], at most one \
             in_progress; explanation= why), replacing the saved one; without plan, read it back. Saved \
             for the repository, so a later session reads it.",
        )
    };

    fn run(call: &Call<'_>, params: TodoParams) -> Reply {
        todo(call.ws, params).into()
    }
}

fn todo(ws: &Workspace, params: TodoParams) -> Observation {
    let store = ws.state();
    let Some(steps) = params.plan else {
        return match store.load::<Plan>(PLAN_FILE) {
            Ok(plan) => {
                let plan = plan.unwrap_or_default();
                Observation::ok(plan.render(), json!(plan))
            }
            Err(err) => Observation::error(err.to_string()),
        };
    };
    if let Some(i) = steps.iter().position(|s| s.step.trim().is_empty()) {
        return Observation::error(format!(
            "step {} of the plan is empty; give every step a few words. The plan was not saved",
            i + 1
        ));
    }
    let in_progress: Vec<&str> =
        steps.iter().filter(|s| s.status == StepStatus::InProgress).map(|s| s.step.trim()).collect();
    if in_progress.len() > 1 {
        return Observation::error(format!(
            "{} steps are in_progress ({}); at most one may be: mark the others pending or completed. The plan \
             was not saved",
            in_progress.len(),
            in_progress.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
        ));
    }
    let plan = Plan { explanation: params.explanation.filter(|e| !e.trim().is_empty()), plan: steps };
    if let Err(err) = store.save(PLAN_FILE, &plan) {
        return Observation::error(format!("{err}; the plan was not saved"));
    }
    Observation::ok(format!("saved; {}", plan.render()), json!(plan))
}

/// The gate's reasons, empty when the session may call its work finished.
fn verdict(ws: &Workspace, session: &Session) -> (DoneOutput, Option<String>) {
    let (mut verification, record) = {
        let harness = session.harness.lock().expect("harness lock");
        (harness.verification(), harness.last_verify().cloned())
    };
    let mut reasons = Vec::new();
    // What this session's writes say is not all: the tree itself may have changed since.
    let mut changed = Vec::new();
    if verification == Verification::Verified
        && let Some(record) = &record
    {
        changed = record.changed_in(&ws.tree());
        if !changed.is_empty() {
            verification = Verification::EditedSince { tool: String::new(), files: changed.clone() };
        }
    }
    match &verification {
        Verification::Verified => {}
        Verification::EditedSince { tool, files } if tool.is_empty() => {
            const SHOWN: usize = 8;
            let mut named = files.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
            if files.len() > SHOWN {
                named.push_str(&format!(" and {} more", files.len() - SHOWN));
            }
            reasons.push(format!(
                "not verified since the last change: {named} changed after the last passing verify \
                 (by run, another session or an editor); call verify"
            ))
        }
        Verification::NeverVerified { wrote: true } => reasons.push(
            "not verified since the last edit: no verify has run in this session; call verify".to_string(),
        ),
        Verification::NeverVerified { wrote: false } => {
            reasons.push("not verified: no verify has run in this session; call verify".to_string())
        }
        Verification::LastFailed { summary } => reasons
            .push(format!("the last verify failed ({summary}); fix the failures and call verify again")),
        Verification::EditedSince { tool, files } => reasons.push(format!(
            "not verified since the last edit ({tool} changed {}); call verify",
            if files.is_empty() { "files".to_string() } else { files.join(", ") }
        )),
    }
    if let Some(scope) = record.as_ref().filter(|r| r.ok).and_then(|r| r.scope.as_deref()) {
        reasons.push(format!(
            "the last verify ran only what scope {scope:?} selects; call verify without scope to check the whole work"
        ));
    }
    let (open_steps, plan_error) = match ws.state().load::<Plan>(PLAN_FILE) {
        Ok(plan) => (plan.unwrap_or_default().open().into_iter().cloned().collect::<Vec<_>>(), None),
        Err(err) => (Vec::new(), Some(err.to_string())),
    };
    if !open_steps.is_empty() {
        let listed: Vec<String> =
            open_steps.iter().map(|s| format!("{:?} ({})", s.step.trim(), s.status.name())).collect();
        reasons.push(format!(
            "the plan has {} open {}: {}; finish {}, then mark {} completed with todo (or drop steps that no \
             longer apply)",
            open_steps.len(),
            if open_steps.len() == 1 { "step" } else { "steps" },
            listed.join(", "),
            if open_steps.len() == 1 { "it" } else { "them" },
            if open_steps.len() == 1 { "it" } else { "them" },
        ));
    }
    let verified = verification == Verification::Verified;
    let out = DoneOutput {
        done: reasons.is_empty(),
        verified_since_last_edit: verified,
        verified_tree: record.as_ref().filter(|r| r.ok && verified).map(|r| r.tree_hash()),
        checks_run: record
            .as_ref()
            .filter(|r| r.ok && verified)
            .map(|r| r.checks.clone())
            .unwrap_or_default(),
        changed_since_verify: changed,
        open_steps,
        reasons,
    };
    (out, plan_error)
}

pub(crate) struct Done;

impl Tool for Done {
    type Params = DoneParams;
    type Output = DoneOutput;
    const SPEC: Spec = Spec {
        reads: false,
        ..Spec::reader(
            "done",
            "May the work be called finished?",
            Group::State,
            "Whether this session may call its work finished: a verify passed after its last \
             edit, and the plan has no open step. When not, names each failing condition and what to run.",
        )
    };

    fn run(call: &Call<'_>, params: DoneParams) -> Reply {
        done(call.ws, call.session, params).into()
    }

    /// The gate's whole verdict.
    fn trace(structured: Option<&Value>) -> Option<(&'static str, Value)> {
        Some(("gate", structured.cloned().unwrap_or(Value::Null)))
    }
}

fn done(ws: &Workspace, session: &Session, _params: DoneParams) -> Observation {
    let (out, plan_error) = verdict(ws, session);
    if let Some(err) = plan_error {
        return Observation::error(err);
    }
    let text = if out.done {
        format!(
            "done: a verify passed after the last edit and the plan has no open steps; the work is verified (tree {}, {})\n",
            out.verified_tree.as_deref().unwrap_or("?"),
            out.checks_run.join(", ")
        )
    } else {
        let mut text = format!(
            "not done: {} {} failed\n",
            out.reasons.len(),
            if out.reasons.len() == 1 { "condition" } else { "conditions" }
        );
        for reason in &out.reasons {
            text.push_str(&format!("- {reason}\n"));
        }
        text
    };
    Observation::ok(text, json!(out))
}

pub(crate) struct HandoffTool;

impl Tool for HandoffTool {
    type Params = HandoffParams;
    type Output = HandoffOutput;
    const SPEC: Spec = Spec {
        reads: false,
        annotations: RECORDS,
        ..Spec::reader(
            "handoff",
            "Leave or read a note for the next session",
            Group::State,
            "Leave a note for the next session (note= what was done, what is left); tack adds the \
             last verify result, the changed files and the plan. Without note, read the last one.",
        )
    };

    fn run(call: &Call<'_>, params: HandoffParams) -> Reply {
        handoff(call.ws, call.session, params).into()
    }
}

fn handoff(ws: &Workspace, session: &Session, params: HandoffParams) -> Observation {
    let store = ws.state();
    let Some(note) = params.note.filter(|n| !n.trim().is_empty()) else {
        return match store.load::<Handoff>(HANDOFF_FILE) {
            Ok(Some(handoff)) => Observation::ok(handoff.render(), json!(handoff)),
            Ok(None) => Observation::ok(
                "no handoff note saved; write one with handoff(note=\"what was done, what is left\")\n",
                json!(HandoffOutput { saved: None }),
            ),
            Err(err) => Observation::error(err.to_string()),
        };
    };
    let plan = match store.load::<Plan>(PLAN_FILE) {
        Ok(plan) => plan.unwrap_or_default().plan,
        Err(_) => Vec::new(),
    };
    let handoff = {
        let harness = session.harness.lock().expect("harness lock");
        Handoff {
            note,
            last_verify: harness.last_verify().map(|v| v.summary.clone()),
            verified_since_last_edit: harness.verified_since_last_edit(),
            changed_files: harness.changed_files(),
            plan,
        }
    };
    if let Err(err) = store.save(HANDOFF_FILE, &handoff) {
        return Observation::error(format!("{err}; the note was not saved"));
    }
    Observation::ok(format!("saved; {}", handoff.render()), json!(handoff))
}
