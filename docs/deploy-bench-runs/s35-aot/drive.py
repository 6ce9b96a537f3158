#!/usr/bin/env python3
"""Starts the runtime with an AOT cache (or records a class list), then: health, listing, and (unless
READ_ONLY) a create / start / stop / delete, timing each request; prints JSON."""
import http.client, json, os, subprocess, sys, time, signal
RT = os.environ.get("RT", "/work/main/jlink/target/dogama-agent/bin/java")
W = "/tmp/aotx/work"
extra = sys.argv[1:]
read_only = os.environ.get("READ_ONLY") == "1"
# The signed request: scripts/benchlib.py (this file ran with its own copy of the same function).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import benchlib
key = benchlib.read_key(W + "/secrets/hmac")
def agent(method, path, body=None):
    raw = b"" if body is None else json.dumps(body).encode()
    c = http.client.HTTPConnection("127.0.0.1", 47900, timeout=60)
    t = time.perf_counter(); c.request(method, path, raw, benchlib.signature_headers(key, method, path, raw)); r = c.getresponse(); d = r.read(); dt = time.perf_counter() - t; c.close()
    return r.status, d, dt * 1000
plan = lambda iid, hp: benchlib.demo_plan(iid, hp, W + "/instances/cycle/data", "dogama-aotx")
log = open("/tmp/aotx/agent.log", "w")
t0 = time.perf_counter()
p = subprocess.Popen([RT] + extra + ["-m", "io.dogama.agent.app/io.dogama.agent.app.Main", "--config", W + "/config.json"], stdout=log, stderr=subprocess.STDOUT)
out = {}
try:
    deadline = time.time() + 30
    while True:
        try:
            s, d, dt = agent("GET", "/v1/health")
            if s == 200: break
        except OSError:
            pass
        if time.time() > deadline or p.poll() is not None: raise SystemExit("agent did not answer: " + open("/tmp/aotx/agent.log").read()[-2000:])
        time.sleep(0.005)
    out["first_health_ms"] = (time.perf_counter() - t0) * 1000
    out["list_ms"] = agent("GET", "/v1/instances")[2]
    if not read_only:
        for n, iid in enumerate(("aotx-1", "aotx-2")):
            s, d, dt = agent("POST", "/v1/instances", plan(iid, 24500 + n)); assert s == 201, d; out["create%d_ms" % (n + 1)] = dt
            s, d, dt = agent("POST", "/v1/instances/%s/start" % iid); assert s == 200, d; out["start%d_ms" % (n + 1)] = dt
            s, d, dt = agent("POST", "/v1/instances/%s/stop" % iid, {"timeoutSeconds": 1}); assert s == 200, d; out["stop%d_ms" % (n + 1)] = dt
            s, d, dt = agent("DELETE", "/v1/instances/%s" % iid); assert s == 204, d; out["delete%d_ms" % (n + 1)] = dt
finally:
    p.send_signal(signal.SIGTERM); p.wait(30)
print(json.dumps({k: round(v, 1) for k, v in out.items()}))
