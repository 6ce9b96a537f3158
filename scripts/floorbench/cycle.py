#!/usr/bin/env python3
"""The floor of a create, for scripts/cyclebench (CYCLEBENCH=scripts/floorbench).

Each round runs ../shared/cyclebench/cycle.py's two cycles (the agent's, then the same four engine calls
made directly), and a third cycle whose create does only what SPEC sections 8 and 10 require of any agent
before the engine's create, with no front door, no authentication, no audit and no second registry write:
  - the image looked up (its resolved digest, SPEC 8.2) and the running containers listed (the ports Docker
    already publishes, SPEC 8.4), both sent at once on two connections;
  - one forced append of a 300-byte record (the CREATING intent, persisted before the Docker mutation,
    SPEC 10) to a file in the agent's data directory's file system;
  - then the create, with the same body as the direct one.
Its start, stop and delete are made too (not counted) so that the engine and the disk are as busy as in the
other two cycles; the direct cycle and the floor's take turns at coming first. Prints each create's median, the
ratios to the direct create, and the agent's and engine's cycles as cycle.py does (not comparable to cycle.py's own
figures: each round here also makes the floor's cycle). Interleaved in one run: compare within a run only.
docs/performance.md, "Session 35", has the method and the figures.
Usage (through scripts/cyclebench, which gives the first five arguments): cycle.py PORT SECRET SOCKET ROOT NETWORK [N]"""
import http.client, json, os, socket, statistics, sys, tempfile, time, urllib.parse
port, secret_file, sock, root, net = sys.argv[1:6]
N = int(sys.argv[6]) if len(sys.argv) > 6 else 8
# The signed request and the demo plan: scripts/benchlib.py, shared with scripts/pairbench.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchlib
agent = benchlib.signed_client(port, secret_file)

class UConn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX); self.sock.connect(sock)

def engine(method, path, body=None):
    c = UConn("engine", timeout=60)
    raw = None if body is None else json.dumps(body).encode()
    c.request(method, "/v1.41" + path, raw, {"Content-Type": "application/json"} if raw else {})
    r = c.getresponse(); d = r.read(); c.close()
    return r.status, d

def engine_both(path_a, path_b):
    """Two GETs sent before either answer is read: the engine serves them beside each other."""
    ca, cb = UConn("engine", timeout=60), UConn("engine", timeout=60)
    ca.putrequest("GET", "/v1.41" + path_a); ca.endheaders()
    cb.putrequest("GET", "/v1.41" + path_b); cb.endheaders()
    out = []
    for c in (ca, cb):
        r = c.getresponse(); r.read(); c.close(); out.append(r.status)
    return out

plan = lambda iid, hp: benchlib.demo_plan(iid, hp, root, net)

def with_port(b, hp):
    b = dict(b); hc = dict(b["HostConfig"])
    hc["PortBindings"] = {"8080/tcp": [{"HostIp": "127.0.0.1", "HostPort": str(hp)}]}
    b["HostConfig"] = hc
    return b

# The intent's file: beside the agent's data directory (scripts/cyclebench makes ROOT and the data directory
# in one folder under /tmp), so on the same file system and disk.
intent_fd, intent_path = tempfile.mkstemp(prefix="floor-intent.", dir=os.path.dirname(os.path.dirname(os.path.dirname(root))))
record = b"x" * 299 + b"\n"
running = "/containers/json?filters=" + urllib.parse.quote(json.dumps({"status": ["running"]}))
ops = ("create", "start", "stop", "delete")
res = {side: {k: [] for k in ops} for side in ("agent", "engine")}
floor, reads, force = [], [], []
body_tpl = None
image_path = "/images/" + plan("x", 0)["image"] + "/json"
try:
    for i in range(N):
        iid = "cyc-%03d" % i
        t = time.perf_counter(); s, d = agent("POST", "/v1/instances", plan(iid, 24000 + i)); res["agent"]["create"].append(time.perf_counter() - t)
        assert s == 201, (s, d)
        if body_tpl is None:
            info = json.loads(engine("GET", "/containers/dogama-%s/json" % iid)[1])
            body_tpl = dict(info["Config"]); body_tpl["HostConfig"] = info["HostConfig"]
            body_tpl["NetworkingConfig"] = {"EndpointsConfig": {net: {}}}
            body_tpl["Labels"] = {}
        t = time.perf_counter(); s, d = agent("POST", "/v1/instances/%s/start" % iid); res["agent"]["start"].append(time.perf_counter() - t); assert s == 200, d
        t = time.perf_counter(); s, d = agent("POST", "/v1/instances/%s/stop" % iid, {"timeoutSeconds": 1}); res["agent"]["stop"].append(time.perf_counter() - t); assert s == 200, d
        t = time.perf_counter(); s, d = agent("DELETE", "/v1/instances/%s" % iid); res["agent"]["delete"].append(time.perf_counter() - t); assert s == 204, d
        # The direct cycle and the floor's one after the other, in turns, so that neither always follows the
        # other's delete (a create right after a removal is slower).
        for which in (("engine", "floor") if i % 2 == 0 else ("floor", "engine")):
            if which == "engine":
                name = "raw-%03d" % i
                t = time.perf_counter(); s, d = engine("POST", "/containers/create?name=" + name, with_port(body_tpl, 25000 + i)); res["engine"]["create"].append(time.perf_counter() - t); assert s == 201, d
                t = time.perf_counter(); s, d = engine("POST", "/containers/%s/start" % name); res["engine"]["start"].append(time.perf_counter() - t); assert s == 204, d
                t = time.perf_counter(); s, d = engine("POST", "/containers/%s/stop?t=1" % name); res["engine"]["stop"].append(time.perf_counter() - t); assert s == 204, d
                t = time.perf_counter(); s, d = engine("DELETE", "/containers/%s?force=1" % name); res["engine"]["delete"].append(time.perf_counter() - t); assert s == 204, d
                continue
            name = "floor-%03d" % i
            t = time.perf_counter()
            assert engine_both(image_path, running) == [200, 200]
            t1 = time.perf_counter()
            os.write(intent_fd, record); os.fsync(intent_fd)
            t2 = time.perf_counter()
            s, d = engine("POST", "/containers/create?name=" + name, with_port(body_tpl, 26000 + i)); floor.append(time.perf_counter() - t); assert s == 201, d
            reads.append(t1 - t); force.append(t2 - t1)
            assert engine("POST", "/containers/%s/start" % name)[0] == 204
            assert engine("POST", "/containers/%s/stop?t=1" % name)[0] == 204
            assert engine("DELETE", "/containers/%s?force=1" % name)[0] == 204
finally:
    os.close(intent_fd); os.unlink(intent_path)
med = lambda v: statistics.median(v) * 1000
a, e, f = med(res["agent"]["create"]), med(res["engine"]["create"]), med(floor)
print("create  agent %7.2f ms  engine %7.2f ms  floor %7.2f ms (reads %.2f, forced append %.2f)" % (a, e, f, med(reads), med(force)))
print("create  agent / engine %.2f   floor / engine %.2f   goal 1.30, so %.2f ms beside the engine's create, %.2f of them the floor's"
      % (a / e, f / e, 0.3 * e, f - e))
tot = {side: sum(statistics.median(v) for v in res[side].values()) for side in res}
print("cycle   agent %7.1f ms  engine %7.1f ms  ratio %.3f  (medians, %d rounds interleaved)" % (tot["agent"] * 1000, tot["engine"] * 1000, tot["agent"] / tot["engine"], N))
