#!/usr/bin/env python3
"""Create/delete pairs through the agent only, for scripts/cyclebench (CYCLEBENCH=scripts/pairbench).

Same signed request as ../shared/cyclebench/cycle.py (a new connection per request), but no start or
stop: PAIRS_WARM uncounted pairs (default 400), then PAIRS counted ones (default 300). Prints the
client's create and delete medians and, for the counted pairs only, read from the agent itself:
  - its CPU per pair by thread (/proc/<pid>/task), so the JIT's share is seen apart from the requests';
  - the mean of each engine call (dogama_docker_call_duration_seconds) and of each operation
    (dogama_lifecycle_operation_duration_seconds: the dispatch, without the front door and the audit
    lines);
  - with PAIRS_START=1 each pair also starts and stops its instance, and the same is printed for those;
  - each operation's own part: the operation's mean minus the means of its engine calls that run one
    after the other with it (the engine's create; a start's or stop's identity inspect and its engine
    call; a delete's inspect and remove). All are paired within one run, so the engine's drift between
    runs cancels out of them;
  - a create's and a delete's front door: the client's mean minus the operation's.
Usage (through scripts/cyclebench, which gives the first five arguments): cycle.py PORT SECRET SOCKET ROOT NETWORK [N]"""
import collections, json, os, re, statistics, subprocess, sys, time
port, secret_file, sock, root, net = sys.argv[1:6]
W = int(os.environ.get("PAIRS_WARM", "400"))
# PAIRS_START=1: each pair also starts and stops its instance (stop timeout 1 s, as cycle.py), between the two.
WITH_START = os.environ.get("PAIRS_START", "0") == "1"
N = int(os.environ.get("PAIRS", "300"))
# The signed request and the demo plan: scripts/benchlib.py, shared with scripts/floorbench.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib
agent = benchlib.signed_client(port, secret_file)
plan = lambda iid, hp: benchlib.demo_plan(iid, hp, root, net)

def metrics():
    s, d = agent("GET", "/v1/metrics")
    assert s == 200, s
    out = {}
    for line in d.decode().splitlines():
        m = re.match(r'dogama_(?:docker_call|lifecycle_operation)_duration_seconds_(sum|count)\{(.*)\} (\S+)$', line)
        if m:
            lab = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            k = lab.get("operation", "?") + ("/" + lab["outcome"] if "outcome" in lab else "")
            out.setdefault(k, [0.0, 0.0])[0 if m.group(1) == "sum" else 1] += float(m.group(3))
    return out

# The agent scripts/cyclebench started: the java process whose command line names this run's config.
work = os.path.dirname(os.path.dirname(os.path.dirname(root.rstrip("/"))))
pid = subprocess.check_output(["pgrep", "-f", "java.*" + work + "/config.json"]).split()[0].decode()
TCK = os.sysconf("SC_CLK_TCK")

def threads():
    out = collections.Counter()
    for t in os.listdir("/proc/%s/task" % pid):
        try:
            st = open("/proc/%s/task/%s/stat" % (pid, t)).read()
        except FileNotFoundError:
            continue
        name = re.sub(r"[0-9]+", "#", st[st.index("(") + 1:st.rindex(")")])
        f = st[st.rindex(")") + 2:].split()
        out[name] += (int(f[11]) + int(f[12])) / TCK
    return out

def run(n, tag):
    cr, de = [], []
    for i in range(n):
        iid = "pair-%s-%04d" % (tag, i)
        t = time.perf_counter(); s, d = agent("POST", "/v1/instances", plan(iid, 24000 + i % 500)); cr.append(time.perf_counter() - t)
        assert s == 201, (s, d)
        if WITH_START:
            s, d = agent("POST", "/v1/instances/%s/start" % iid); assert s == 200, d
            s, d = agent("POST", "/v1/instances/%s/stop" % iid, {"timeoutSeconds": 1}); assert s == 200, d
        t = time.perf_counter(); s, d = agent("DELETE", "/v1/instances/%s" % iid); de.append(time.perf_counter() - t)
        assert s == 204, d
    return cr, de

run(W, "w")
m0, c0 = metrics(), threads()
cr, de = run(N, "m")
m1, c1 = metrics(), threads()

print("%d pairs after %d uncounted: create median %.2f ms p90 %.2f; delete median %.2f ms"
      % (N, W, statistics.median(cr) * 1e3, sorted(cr)[int(N * .9)] * 1e3, statistics.median(de) * 1e3))
print("agent CPU per pair %.2f ms" % ((sum(c1.values()) - sum(c0.values())) / N * 1e3))
for k in sorted(c1, key=lambda k: -(c1[k] - c0.get(k, 0))):
    d = c1[k] - c0.get(k, 0)
    if d > 0:
        print("  thread %-28s %.2f ms/pair" % (k, d / N * 1e3))

def mean(k):
    return (m1[k][0] - m0.get(k, [0, 0])[0]) / (m1[k][1] - m0.get(k, [0, 0])[1]) * 1e3

for k in sorted(m1):
    c = m1[k][1] - m0.get(k, [0, 0])[1]
    if c:
        print("  %-34s %5d  mean %.3f ms" % (k, c, mean(k)))
print("own part of a create: %.3f ms" % (mean("create/ok") - mean("POST /containers/create")))
if WITH_START:
    for op in ("start", "stop"):
        # One inspect runs one after the other with it (the identity check); the answer's runs beside the
        # registry's write since session 32 (before, both were subtracted).
        print("own part of a %s: %.3f ms" % (op, mean(op + "/ok") - mean("POST /containers/{container}/" + op)
                                              - mean("GET /containers/{container}/json")))
print("own part of a delete: %.3f ms" % (mean("delete/ok") - mean("DELETE /containers/{container}")
                                         - mean("GET /containers/{container}/json")))
# Everything the client waited for outside the operation: the connection, the signed request's checks and its
# durable nonce, the audit's begin and end lines, the answer.
print("front door of a create: %.3f ms, of a delete: %.3f ms (the client's mean minus the operation's)"
      % (statistics.mean(cr) * 1e3 - mean("create/ok"), statistics.mean(de) * 1e3 - mean("delete/ok")))
