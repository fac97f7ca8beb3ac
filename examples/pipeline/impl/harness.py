"""Runs the pipeline of pipeline.py on tests written by `wrapcheck testgen --out`.

    python3 harness.py [--mutant RULE] TESTDIR...

For each TESTDIR (t01, t02, ...) it reads agents.json, the scripted
agents: every agent call of the run in order, with the answer to give,
and run.jsonl, the run of the spec the test is: its steps give the
schedule (which process moves: the wrapper's loop or the human) and its
last state the outcome. It drives the real wrapper code with its agents
answered from the fixture, and the test fails when

  - the wrapper asks an agent the fixture has no answer for, asks another
    agent than the next call names, or asks it at another step (the order
    of the calls is the behaviour under test);
  - a process the schedule moves has nothing to do, or a step takes
    another action than the spec's run, or calls are left over;
  - the outcome (phase, steps released, how, with which citations) is not
    the one of the spec's run.

Either way it writes the recording, TESTDIR/recorded.jsonl: the run as
`wrapcheck replay` reads it (each step's action, the answers the agents
gave and the wrapper's state mapped to the spec's variables), for the
other direction: replay checks that the spec allows what the code did.

It prints one JSON object a line: {"test", "pass", "why"}. The mutant is
--mutant RULE or PIPELINE_MUTANT=RULE: the rule of pipeline.RULES that is
switched off.
"""

import json
import os
import sys

import pipeline

# The spec's Clause members and the citations the documents carry.
CLAUSES = {"A5_9": "A.5.9", "C9_2": "9.2"}
SPEC_CLAUSE = {v: k for k, v in CLAUSES.items()}


class FixtureError(Exception):
    """The wrapper did something the test's fixture does not allow."""


class ScriptedAgents(pipeline.Agents):
    """Answers each call with the next answer of agents.json, and records
    the answers given (the spans of a real run)."""

    def __init__(self, calls):
        self.calls = calls
        self.next = 0
        self.step = 0  # the step of the schedule being run
        self.asked = {}  # agent -> the answer given in this step, as the spec writes it

    def answer(self, agent):
        if self.next == len(self.calls):
            raise FixtureError("step %d: the wrapper asks %s, but the fixture has no call left" % (self.step, agent))
        c = self.calls[self.next]
        if c["agent"] != agent or c["step"] != self.step:
            raise FixtureError("step %d: the wrapper asks %s, but call %d of the fixture is %s at step %d"
                               % (self.step, agent, c["call"], c["agent"], c["step"]))
        self.next += 1
        self.asked[agent] = c["answer"]
        return c["answer"]

    def planner(self, task):
        a = self.answer("planner")
        return {"task": task, "approved_citations": [CLAUSES[c] for c in a]}

    def executor(self, brief, issues):
        a = self.answer("executor")
        cites = ", ".join(CLAUSES[c] for c in a) or "no clause"
        return "Asset register policy (ISO/IEC 27001:2022, %s). Issues addressed: %d." % (cites, len(issues))

    def verifier(self, brief, draft):
        a = self.answer("verifier")
        if a["status"] == "outage":
            raise pipeline.Outage("verifier unreachable")
        if a["status"] == "garbled":
            return "Sure! Here is my verdict: the draft looks {pass: maybe"
        return json.dumps({"pass": a["pass"], "issues": ["clause 9.2 is not in the brief"] if a["issues"] else []})

    def approver(self, draft):
        return self.answer("approver")


def clauses(text):
    return sorted(SPEC_CLAUSE[c] for c in pipeline.citations(text or "") if c in SPEC_CLAUSE)


def verdict(v):
    if v is None:
        return {"status": "answered", "pass": False, "issues": False}
    return {"status": v.status, "pass": v.passed, "issues": bool(v.issues)}


def spec_state(p):
    """The refinement mapping: the wrapper's state as the spec's variables."""
    return {
        "phase": p.phase,
        "brief": sorted(SPEC_CLAUSE[c] for c in p.brief if c in SPEC_CLAUSE),
        "step": p.step,
        "draft": clauses(p.draft),
        "rerenders": p.rerenders,
        "glitches": p.glitches,
        "pending": p.pending,
        "approved": p.approved,
        "apprDraft": clauses(p.approved_draft),
        "insp": list(p.inspections),
        "rel": list(p.released),
        "evidence": [verdict(v) for v in p.evidence],
        "cites": [clauses(d) for d in p.released_draft],
        "apprCites": [clauses(d) for d in p.approved_of_released],
    }


OUTCOME = ("phase", "step", "rel", "cites")


def run_test(d, mutant):
    with open(os.path.join(d, "agents.json")) as f:
        calls = json.load(f)["calls"]
    with open(os.path.join(d, "run.jsonl")) as f:
        run = [json.loads(line) for line in f if line.strip()]
    agents = ScriptedAgents(calls)
    p = pipeline.Pipeline(agents, steps=len(run[0]["state"]["rel"]), mutant=mutant)
    rec = [{"state": spec_state(p)}]
    why = None
    try:
        for i, want in enumerate(run[1:], 1):
            agents.step, agents.asked = i, {}
            process = want["action"].split(".")[0]
            got = p.wrapper_step() if process == "wrapper" else p.human_step()
            if got is None:
                raise FixtureError("step %d: the schedule moves %s, which has nothing to do" % (i, process))
            line = {"action": got}
            if agents.asked:
                line["asked"] = dict(agents.asked)
            line["state"] = spec_state(p)
            rec.append(line)
            if got != want["action"]:
                raise FixtureError("step %d: the wrapper takes %s, the spec's run %s" % (i, got, want["action"]))
        if agents.next != len(calls):
            raise FixtureError("the run ends with %d calls of the fixture unasked" % (len(calls) - agents.next))
        last, final = run[-1]["state"], rec[-1]["state"]
        for k in OUTCOME:
            if final[k] != last[k]:
                raise FixtureError("outcome: %s is %s, the spec's run ends with %s" % (k, json.dumps(final[k]), json.dumps(last[k])))
    except FixtureError as e:
        why = str(e)
    with open(os.path.join(d, "recorded.jsonl"), "w") as f:
        for line in rec:
            f.write(json.dumps(line) + "\n")
    return {"test": os.path.basename(os.path.normpath(d)), "pass": why is None, "why": why}


def main(argv):
    mutant = os.environ.get("PIPELINE_MUTANT") or None
    if argv[:1] == ["--mutant"]:
        mutant, argv = argv[1], argv[2:]
    if not argv:
        sys.stderr.write("usage: harness.py [--mutant RULE] TESTDIR...\n")
        return 2
    failed = 0
    for d in argv:
        r = run_test(d, mutant)
        failed += not r["pass"]
        print(json.dumps(r))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
