"""The fail-closed, blind-verifier document pipeline of ../pipeline.wrap, as code.

This is the wrapper a team would ship: the control logic around four agents
(planner, executor, verifier, and the human approver). The agents sit behind
the Agents interface, so that the same code runs with real models or with
scripted answers (harness.py). Standard library only.

The wrapper's rules, each one a name in RULES:

  strict_parse     a verdict counts only if it is a JSON object with a
                   boolean "pass" and an "issues" list; anything else is a
                   glitch, never a pass
  pass_agrees      ... and only if pass <=> the issues list is empty
  rerender         a failed verdict gets a re-render with the issues (not a
                   caveat release at once)
  one_rerender     exactly one re-render; a second failure releases the step
                   with a caveat, after two inspections
  stop_on_glitch   an outage or unusable verdict gets one retry; a second
                   one stops the run, the step in flight never released
  closed_list      the wrapper's own check: a draft citing a clause outside
                   the brief's approved set never passes, is never released
  withdraw_approval  a re-render withdraws the human approval of the
                   previous draft

A mutant switches exactly one rule off: Pipeline(agents, mutant=NAME), or
PIPELINE_MUTANT=NAME in the environment of harness.py.
"""

import json
import re

RULES = (
    "strict_parse",
    "pass_agrees",
    "rerender",
    "one_rerender",
    "stop_on_glitch",
    "closed_list",
    "withdraw_approval",
)

TASK = "asset_register_policy"


class Outage(Exception):
    """The verifier could not be reached (timeout, 5xx, refused)."""


class Agents:
    """The agents the wrapper calls. Real models implement these; every
    answer is untrusted."""

    def planner(self, task):
        """Returns the reasoning brief: a dict with "approved_citations"."""
        raise NotImplementedError

    def executor(self, brief, issues):
        """Returns the draft of the current step (text), re-rendered with
        the issues list when it is not empty."""
        raise NotImplementedError

    def verifier(self, brief, draft):
        """Returns the verdict as raw text (it should be a JSON object);
        raises Outage. Blind: it sees the brief and the draft only."""
        raise NotImplementedError

    def approver(self, draft):
        """The human: True approves the draft, False vetoes it."""
        raise NotImplementedError


# Citations of ISO/IEC 27001:2022 the wrapper recognises in a draft: Annex A
# controls (A.5.9) and clauses (9.2).
CITATION = re.compile(r"\b(A\.\d+\.\d+|\d+\.\d+)\b")


def citations(text):
    """The clauses a draft cites, found mechanically (no judgement)."""
    return set(CITATION.findall(text))


class Verdict:
    """A verdict the wrapper accepted: status "answered" for a parsed one
    (a mutant may accept others)."""

    def __init__(self, status, passed, issues):
        self.status = status
        self.passed = passed
        self.issues = issues


class Pipeline:
    """The wrapper. Two processes share it: the wrapper's own loop
    (wrapper_step) and the human reviewer (human_step); the caller
    schedules them. Each step returns the name of the action it took, as
    the spec names it, or None when the process has nothing to do."""

    def __init__(self, agents, steps=2, mutant=None):
        if mutant is not None and mutant not in RULES:
            raise ValueError("unknown mutant %r (want one of %s)" % (mutant, ", ".join(RULES)))
        self.agents = agents
        self.steps = steps
        self.rules = set(RULES) - {mutant}
        self.phase = "planning"
        self.brief = set()
        self.step = 0
        self.draft = ""
        self.rerenders = 0
        self.glitches = 0
        self.issues = []
        self.pending = "unreleased"
        self.approved = False
        self.approved_draft = None
        # the release log, per step
        self.inspections = [0] * steps
        self.released = ["unreleased"] * steps
        self.evidence = [None] * steps
        self.released_draft = [None] * steps
        self.approved_of_released = [None] * steps

    def on(self, rule):
        return rule in self.rules

    # --- the wrapper's loop ---

    def wrapper_step(self):
        if self.phase == "planning":
            brief = self.agents.planner(TASK)
            self.brief = set(brief.get("approved_citations", [])) if isinstance(brief, dict) else set()
            self.phase = "rendering"
            return "wrapper.plan"
        if self.phase == "rendering":
            self.draft = self.agents.executor(sorted(self.brief), list(self.issues))
            self.phase = "verifying"
            return "wrapper.render"
        if self.phase == "verifying":
            self.verify()
            return "wrapper.verify"
        if self.phase == "ready" and self.approved:
            self.release()
            return "wrapper.release"
        return None

    def parse(self, text):
        """The verdict in text, or None when it is not a usable one."""
        try:
            obj = json.loads(text)
        except (TypeError, ValueError):
            if not self.on("strict_parse"):
                return Verdict("garbled", True, [])  # MUTANT: no objection read as a pass
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("pass"), bool) or not isinstance(obj.get("issues"), list):
            return None
        if self.on("pass_agrees") and obj["pass"] == bool(obj["issues"]):
            return None
        return Verdict("answered", obj["pass"], obj["issues"])

    def verify(self):
        try:
            text = self.agents.verifier(sorted(self.brief), self.draft)
        except Outage:
            text = None
        v = self.parse(text) if text is not None else None
        if v is None:
            self.glitches += 1
            if self.glitches == 2:
                if self.on("stop_on_glitch"):
                    self.phase = "stopped"  # the step in flight is never released
                else:
                    self.pending = "caveat"  # MUTANT: released flagged instead
                    self.evidence[self.step] = Verdict("garbled", False, [])
                    self.phase = "ready"
            return
        if v.status == "answered":
            self.inspections[self.step] += 1
        inside = citations(self.draft) <= self.brief if self.on("closed_list") else True
        if v.passed and inside:
            self.pending = "clean"
            self.evidence[self.step] = v
            self.phase = "ready"
        elif self.rerenders == 0 and self.on("rerender") or self.rerenders == 1 and not self.on("one_rerender"):
            self.rerenders += 1
            self.issues = list(v.issues) or ["citations outside the brief's approved set"]
            if self.on("withdraw_approval"):
                self.approved = False  # the new draft needs a new approval
                self.approved_draft = None
            self.phase = "rendering"
        elif inside:
            self.pending = "caveat"  # twice failed: flagged, after two inspections
            self.evidence[self.step] = v
            self.phase = "ready"
        else:
            self.phase = "stopped"  # citations outside the brief are never released

    def release(self):
        i = self.step
        self.released[i] = self.pending
        self.released_draft[i] = self.draft
        self.approved_of_released[i] = self.approved_draft
        self.step += 1
        self.phase = "done" if self.step == self.steps else "rendering"
        self.draft = ""
        self.rerenders = 0
        self.glitches = 0
        self.issues = []
        self.pending = "unreleased"
        self.approved = False
        self.approved_draft = None

    # --- the human reviewer ---

    def human_step(self):
        if self.phase not in ("verifying", "ready") or self.approved:
            return None
        if self.agents.approver(self.draft):
            self.approved = True
            self.approved_draft = self.draft
        else:
            self.phase = "stopped"  # a veto stops the run
        return "human.approve"
