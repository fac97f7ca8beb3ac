"""An agent loop that routes every tool call through `wrapcheck guard`.

The "model" proposes tool calls from a script; the wrapper asks the guard
before running each one, runs only what is allowed, and tells the model
what was blocked. Run (see docs/guard.md):

    wrapcheck guard --listen 127.0.0.1:0 --token-file tok examples/approval/toctou_fixed_revoke.wrap &
    python3 examples/guard/agent_loop.py --url http://127.0.0.1:PORT --token-file tok
    python3 examples/guard/agent_loop.py --stdio wrapcheck examples/approval/toctou_fixed_revoke.wrap
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
from wrapcheck_guard import Guard  # noqa: E402

# The tools the wrapper runs, as the spec's actions.
document = {"content": 0, "approved": None, "shipped": None}


def approve():
    document["approved"] = document["content"]


def edit():
    document["content"] += 1


def release():
    document["shipped"] = document["content"]


TOOLS = {"approver.approve": approve, "editor.edit": edit, "releaser.release": release}

# What the model proposes: it edits after the approval and tries to ship.
PLAN = ["approver.approve", "editor.edit", "releaser.release", "approver.approve", "releaser.release"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url")
    ap.add_argument("--unix")
    ap.add_argument("--token-file")
    ap.add_argument("--stdio", nargs=2, metavar=("WRAPCHECK", "SPEC"))
    args = ap.parse_args()
    if args.stdio:
        guard = Guard.stdio([args.stdio[0], "guard", args.stdio[1]])
    else:
        token = open(args.token_file).read().strip()
        guard = Guard.unix(args.unix, token) if args.unix else Guard.http(args.url, token)

    run = "doc-42"
    d = guard.open(run)
    if not d.allowed:
        print("cannot open the run:", d.reason)
        return 1
    for call in PLAN:
        d = guard.step(run, call)
        if not d.allowed:
            print("blocked %s: %s (allowed: %s)" % (call, d.reason, ", ".join(d.allowed_next)))
            continue  # the model is told; the tool does not run
        TOOLS[call]()
        print("ran %s" % call + (" (run %s)" % d.ended if d.ended else ""))
    print("shipped version %s, approved %s" % (document["shipped"], document["approved"]))
    guard.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
