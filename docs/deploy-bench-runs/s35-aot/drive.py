#!/usr/bin/env python3
"""Starts the runtime with an AOT cache (or records a class list), then: health, listing, and (unless
READ_ONLY) a create / start / stop / delete, timing each request; prints JSON."""
import base64, datetime, hashlib, hmac, http.client, json, os, secrets, subprocess, sys, time, signal
RT = os.environ.get("RT", "/work/main/jlink/target/dogama-agent/bin/java")
W = "/tmp/aotx/work"
extra = sys.argv[1:]
read_only = os.environ.get("READ_ONLY") == "1"
key = base64.urlsafe_b64decode(open(W + "/secrets/hmac").read().split()[0] + "==")
b64u = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def agent(method, path, body=None):
    raw = b"" if body is None else json.dumps(body).encode()
    ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
    nonce = b64u(secrets.token_bytes(18))
    canon = "\n".join(["DOGAMA-HMAC-V1", method, path, ts, nonce, hashlib.sha256(raw).hexdigest()])
    h = {"Authorization": "DoGaMa-HMAC-SHA256 " + b64u(hmac.new(key, canon.encode(), hashlib.sha256).digest()),
         "X-DoGaMa-Timestamp": ts, "X-DoGaMa-Nonce": nonce, "Content-Length": str(len(raw))}
    if raw or method in ("POST", "PUT"):
        h["Content-Type"] = "application/json"
    c = http.client.HTTPConnection("127.0.0.1", 47900, timeout=60)
    t = time.perf_counter(); c.request(method, path, raw, h); r = c.getresponse(); d = r.read(); dt = time.perf_counter() - t; c.close()
    return r.status, d, dt * 1000
def plan(iid, hp):
    return {"instanceId": iid, "templateId": "demo-http", "templateVersion": "1.0.0", "image": "dogama/demo-http:1",
            "capAdd": [], "env": {"GREETING": "hi"},
            "mounts": [{"source": W + "/instances/cycle/data", "target": "/data", "readOnly": False}],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "tcp", "hostIp": "127.0.0.1", "hostPort": hp}],
            "resources": {"memoryBytes": 67108864, "nanoCpus": 500000000, "pidsLimit": 64},
            "user": "1000:1000", "labels": {}, "networks": ["dogama-aotx"]}
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
