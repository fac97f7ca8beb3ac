"""A thin client of `wrapcheck guard` (docs/guard.md), standard library only.

    from wrapcheck_guard import Guard

    g = Guard.http("http://127.0.0.1:8377", token)      # or Guard.unix(path, token),
                                                         # or Guard.stdio(["wrapcheck", "guard", "spec.wrap"])
    g.open("run-1")
    d = g.step("run-1", "wrapper.verify", asked={"verifier": "pass"})
    if not d.allowed:
        ...  # do not take the step: d.reason, d.trace

Fail-closed: a decision the client cannot get (the guard is down, the answer
is not a decision) is a block, never an allow. Every step carries a request
id, and a step whose answer was lost is asked again with the same id, so that
the guard answers it again without taking it twice.
"""

import http.client
import json
import socket
import subprocess
import threading
import urllib.parse
import uuid

__all__ = ["Guard", "Decision"]


class Decision:
    """The guard's answer to one request; `allowed` is True only for an allow."""

    def __init__(self, obj):
        self.raw = obj if isinstance(obj, dict) else {}
        self.allowed = self.raw.get("decision") == "allow"
        self.reason = self.raw.get("reason", "")
        self.kind = self.raw.get("kind", "")
        self.property = self.raw.get("property", "")
        self.step = self.raw.get("step", 0)
        self.allowed_next = self.raw.get("allowed", [])
        self.ended = self.raw.get("ended", "")
        self.trace = self.raw.get("trace", [])

    @staticmethod
    def blocked(reason):
        return Decision({"decision": "block", "kind": "client", "reason": reason})

    def __repr__(self):
        return "Decision(%r)" % (self.raw,)


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self._path)
        self.sock = s


class Guard:
    """A connection to a guard. Use Guard.http, Guard.unix or Guard.stdio."""

    def __init__(self, send, retries=3):
        self._send = send
        self._retries = retries

    @classmethod
    def http(cls, url, token, timeout=10.0):
        """A guard serving HTTP on a loopback address (wrapcheck guard --listen)."""
        u = urllib.parse.urlsplit(url)
        host, port = u.hostname, u.port or 80
        return cls(_http_sender(lambda: http.client.HTTPConnection(host, port, timeout=timeout), u.netloc, token))

    @classmethod
    def unix(cls, path, token, timeout=10.0):
        """A guard serving HTTP on a Unix socket (wrapcheck guard --listen unix:PATH)."""
        return cls(_http_sender(lambda: _UnixConnection(path, timeout), "localhost", token))

    @classmethod
    def stdio(cls, argv):
        """A guard run as a child process that reads requests on its standard input."""
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        lock = threading.Lock()

        def send(body):
            with lock:
                proc.stdin.write(json.dumps(body) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
            if not line:
                raise OSError("the guard process ended")
            return json.loads(line)

        g = cls(send, retries=0)
        g.process = proc
        return g

    def request(self, body):
        """Sends one request and returns its Decision; any failure is a block."""
        last = "no answer"
        for _ in range(self._retries + 1):
            try:
                return Decision(self._send(body))
            except (OSError, ValueError, http.client.HTTPException) as e:
                last = "%s: %s" % (type(e).__name__, e)
        return Decision.blocked("no decision from the guard (%s): blocked" % last)

    def open(self, run, initial_state=None):
        body = {"op": "open", "run": run}
        if initial_state is not None:
            body["event"] = {"action": None, "state": initial_state}
        return self.request(body)

    def step(self, run, action, asked=None, state=None, id=None, traceparent=None):
        """Asks whether the run may take action (with the agents' answers it got).
        traceparent, the W3C trace context of the caller's span, makes the
        guard's span of the decision its child."""
        event = {"action": action}
        if asked:
            event["asked"] = asked
        if state:
            event["state"] = state
        body = {"run": run, "id": id or uuid.uuid4().hex, "event": event}
        if traceparent:
            body["traceparent"] = traceparent
        return self.request(body)

    def close(self, run):
        return self.request({"op": "close", "run": run})

    def shutdown(self):
        close_idle = getattr(self._send, "close_idle", None)
        if close_idle is not None:
            close_idle()
        proc = getattr(self, "process", None)
        if proc is not None:
            proc.stdin.close()
            proc.wait()


def _http_sender(connect, host, token, keep=8):
    """Sends each request on a kept-alive connection: an idle one when there
    is one (at most keep are kept), else a new one. A connection that fails
    is closed, and so is every idle one (the guard may have restarted:
    request's retries then connect afresh)."""
    idle = []
    lock = threading.Lock()

    def send(body):
        with lock:
            conn = idle.pop() if idle else None
        if conn is None:
            conn = connect()
        try:
            data = json.dumps(body).encode()
            conn.request("POST", "/v1/decide", body=data, headers={
                "Host": host,
                "Content-Type": "application/json",
                "X-Wrapcheck-Token": token,
            })
            resp = conn.getresponse()
            out = json.loads(resp.read())
        except BaseException:
            with lock:
                stale, idle[:] = idle[:], []
            for c in stale + [conn]:
                c.close()
            raise
        with lock:
            if not resp.will_close and len(idle) < keep:
                idle.append(conn)
                conn = None
        if conn is not None:
            conn.close()
        return out

    def close_idle():
        with lock:
            stale, idle[:] = idle[:], []
        for c in stale:
            c.close()

    send.close_idle = close_idle
    return send
