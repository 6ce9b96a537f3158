#!/usr/bin/env python3
"""The soak of issue 15 (driven by scripts/soak, which prepares the agent's world): 32 signed
clients drive a mix of every route over 40 instances for MINUTES, with chaos: the engine restarted
at 30 %, the agent killed (-9) and started again at 60 %, the data directory (a tmpfs) full for 30 s
at 80 %. Every 10 s the agent's RSS, heap, threads and open files are sampled. At the end the
clients' beliefs are checked against the registry and the engine itself. Prints a Markdown report.
Usage: soak.py PORT SECRET_FILE ENGINE_SOCKET SOURCE_DIR NETWORK DATA_DIR MINUTES OUT -- AGENT_CMD..."""
import collections, http.client, json, os, random, signal, socket
import statistics, subprocess, sys, threading, time, urllib.parse

sep = sys.argv.index("--")
port, secret_file, sock, source, net, data, minutes, out = sys.argv[1:sep]
agent_cmd = sys.argv[sep + 1:]
port, minutes = int(port), float(minutes)
# The signed request: scripts/benchlib.py, shared with the benchmark harnesses.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib
key = benchlib.read_key(secret_file)
CLIENTS, INSTANCES = 32, 40
DURATION = minutes * 60
JCMD = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "jcmd")


def call(method, path, body=None, timeout=90):
    raw = b"" if body is None else json.dumps(body).encode()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, path, raw, benchlib.signature_headers(key, method, path, raw))
        r = c.getresponse()
        d = r.read()
        return r.status, d
    except OSError as e:
        return 0, str(e).encode()  # the agent is down (killed) or the connection broke
    finally:
        c.close()


def code(status, body):
    try:
        return json.loads(body).get("code", "") if status >= 400 else ""
    except ValueError:
        return ""


class UConn(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(sock)


def engine(method, path):
    c = UConn("engine", timeout=60)
    c.request(method, "/v1.41" + path)
    r = c.getresponse()
    d = r.read()
    c.close()
    return r.status, d


def plan(iid, greeting):
    return {"instanceId": iid, "templateId": "demo-http", "templateVersion": "1.0.0", "image": "dogama/demo-http:1",
            "capAdd": [], "env": {"GREETING": greeting},
            "mounts": [{"source": os.path.join(source, iid), "target": "/data", "readOnly": False}],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "tcp", "hostIp": "127.0.0.1",
                       "hostPort": 26000 + int(iid[-2:])}],
            "resources": {"memoryBytes": 33554432, "nanoCpus": 200000000, "pidsLimit": 64},
            "user": "1000:1000", "labels": {}, "networks": [net]}


# ---------------------------------------------------------------- the agent process
agent_log = open(os.path.join(out, "agent.log"), "ab")
proc = None


def start_agent():
    global proc
    proc = subprocess.Popen(agent_cmd, stdout=agent_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:
        s, _ = call("GET", "/v1/health", timeout=5)
        if s in (200, 503):
            return
        if proc.poll() is not None:
            raise SystemExit("soak: the agent exited with %s" % proc.returncode)
        time.sleep(0.2)
    raise SystemExit("soak: the agent did not answer within 60 s")


# ---------------------------------------------------------------- beliefs and statistics
lock = threading.Lock()
belief = {}  # iid -> {"digest", "revision", "state"}  (state None: unknown after an engine restart)
locks = {"soak-%02d" % i: threading.Lock() for i in range(INSTANCES)}
answers = collections.Counter()  # (route, status, code)
latency = collections.defaultdict(list)  # route -> seconds
timeline = collections.defaultdict(collections.Counter)  # minute -> status
minute_latency = collections.defaultdict(list)  # minute -> seconds of the answered requests (status > 0)
samples = []
stop_at = time.time() + DURATION
t0 = time.time()
events = []


def note(route, status, body, seconds):
    with lock:
        answers[(route, status, code(status, body))] += 1
        latency[route].append(seconds)
        minute = int((time.time() - t0) // 60)
        timeline[minute][status] += 1
        if status:
            minute_latency[minute].append(seconds)


def client(n):
    rnd = random.Random(n)
    while time.time() < stop_at:
        iid = "soak-%02d" % rnd.randrange(INSTANCES)
        path = "/v1/instances/" + iid
        op = rnd.choices(["create", "start", "stop", "restart", "replace", "delete", "inspect", "stats", "list",
                          "check-ports", "check-disk"], [8, 8, 6, 3, 4, 3, 10, 4, 6, 2, 2])[0]
        with locks[iid]:
            b = belief.get(iid)
            t = time.perf_counter()
            if op == "create":
                s, d = call("POST", "/v1/instances", plan(iid, "g%d" % rnd.randrange(1000)))
            elif op in ("start", "stop", "restart"):
                s, d = call("POST", path + "/" + op, None if op == "start" else {"timeoutSeconds": 1})
            elif op == "replace":
                rev = b.get("revision", 0) if b else 0
                s, d = call("PUT", path, {"plan": plan(iid, "r%d" % rnd.randrange(1000)), "expectedRevision": rev})
            elif op == "delete":
                s, d = call("DELETE", path)
            elif op == "inspect":
                s, d = call("GET", path)
            elif op == "stats":
                s, d = call("GET", path + "/stats")
            elif op == "list":
                s, d = call("GET", "/v1/instances")
            elif op == "check-ports":
                s, d = call("POST", "/v1/check-ports", {"bindings": [{"hostIp": "127.0.0.1", "hostPort": 26000 + rnd.randrange(40), "protocol": "tcp"}]})
            else:
                s, d = call("POST", "/v1/check-disk", {"paths": [source]})
            note(op, s, d, time.perf_counter() - t)
            if s == 0:
                time.sleep(0.2)  # the agent is down (killed): a client backs off rather than spin
            with lock:
                if s == 0 and op in ("create", "start", "stop", "restart", "replace", "delete"):
                    # unanswered: it may or may not have happened; the next acknowledged answer says
                    belief[iid] = {"uncertain": True}
                elif op == "delete" and s == 204:
                    belief.pop(iid, None)
                elif s in (200, 201) and op in ("create", "start", "stop", "restart", "replace", "inspect"):
                    v = json.loads(d)
                    if op != "inspect" or iid in belief:
                        belief[iid] = {"digest": v["planDigest"], "revision": v["revision"], "state": v["state"]}
                elif op == "inspect" and s == 404 and code(s, d) == "unknown_instance":
                    belief.pop(iid, None)


def sample():
    while time.time() < stop_at + 1:
        pid = proc.pid if proc else None
        row = {"t": round(time.time() - t0)}
        try:
            status = open("/proc/%d/status" % pid).read()
            row["rss_mb"] = int([l for l in status.splitlines() if l.startswith("VmRSS")][0].split()[1]) // 1024
            # anonymous (heap, metaspace, code, malloc) and shared (the registry's mapping on the tmpfs)
            row["anon_mb"] = int([l for l in status.splitlines() if l.startswith("RssAnon")][0].split()[1]) // 1024
            row["shmem_mb"] = int([l for l in status.splitlines() if l.startswith("RssShmem")][0].split()[1]) // 1024
            row["threads"] = int([l for l in status.splitlines() if l.startswith("Threads")][0].split()[1])
            row["fds"] = len(os.listdir("/proc/%d/fd" % pid))
        except (OSError, IndexError, TypeError):
            pass
        row["heap_mb"] = heap_used_mb()
        # Once a minute a full collection first (jcmd GC.run), so the heap then in use is the live data:
        # garbage not yet collected makes the plain heap figure climb until the old generation fills.
        if pid and len(samples) % 6 == 5:
            r = subprocess.run([JCMD, str(pid), "GC.run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=30, check=False)
            if r.returncode == 0:
                row["live_mb"] = heap_used_mb()
        samples.append(row)
        time.sleep(10)


def heap_used_mb():
    s, d = call("GET", "/v1/metrics", timeout=10)
    if s == 200:
        for line in d.decode().splitlines():
            if line.startswith("dogama_jvm_memory_heap_used_bytes") or line.startswith("jvm_memory_heap_used_bytes"):
                return int(float(line.split()[-1])) // (1024 * 1024)
    return None


def chaos():
    def at(fraction):
        time.sleep(max(0.0, t0 + DURATION * fraction - time.time()))
    at(0.30)
    events.append((round(time.time() - t0), "engine restart"))
    subprocess.run(["scripts/dockerd", "stop"], check=False, stdout=subprocess.DEVNULL)
    subprocess.run(["scripts/dockerd"], check=True, stdout=subprocess.DEVNULL)
    with lock:  # the engine stopped every container (restart policy "no")
        for b in belief.values():
            if "state" in b:
                b["state"] = None
    events.append((round(time.time() - t0), "engine back"))
    at(0.60)
    events.append((round(time.time() - t0), "agent kill -9"))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    start_agent()
    events.append((round(time.time() - t0), "agent back"))
    at(0.80)
    events.append((round(time.time() - t0), "data directory full"))
    filler = os.path.join(data, "soak-filler")
    try:
        with open(filler, "wb") as f:
            while True:
                f.write(b"\0" * 65536)
    except OSError:
        pass
    time.sleep(30)
    os.remove(filler)
    events.append((round(time.time() - t0), "space back"))


def finish():
    if proc and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


import atexit
atexit.register(finish)
start_agent()
threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
threads += [threading.Thread(target=sample), threading.Thread(target=chaos)]
for t in threads:
    t.start()
for t in threads:
    t.join()

# ---------------------------------------------------------------- the end: beliefs against the truth
s, d = call("GET", "/v1/instances")
if s != 200:
    raise SystemExit("soak: the registry could not be listed at the end: %s %s" % (s, d[:200]))
registered = {i["instanceId"]: i for i in json.loads(d)["instances"]}
s, d = engine("GET", "/containers/json?all=1&filters=" + urllib.parse.quote(json.dumps({"label": ["io.dogama.managed=true"]})))
containers = collections.defaultdict(list)
for c in json.loads(d):
    name = c["Names"][0].lstrip("/")
    if name.startswith("dogama-soak-"):
        containers[c["Labels"].get("io.dogama.instance-id", name)].append(c)
lost, orphans, duplicates, mismatched = [], [], [], []
uncertain = [iid for iid, b in belief.items() if b.get("uncertain")]
for iid, b in belief.items():
    if b.get("uncertain"):
        continue
    r = registered.get(iid)
    if r is None:
        lost.append(iid)
        continue
    if r["planDigest"] != b["digest"] or r["revision"] != b["revision"]:
        mismatched.append((iid, b, r))
    if b["state"] is not None and r["state"] != b["state"]:
        mismatched.append((iid, b, r))
for iid, cs in containers.items():
    if iid not in registered:
        orphans.append(iid)
    elif len(cs) > 1 and registered[iid]["state"] not in ("INTERVENTION_REQUIRED", "REPLACING", "ROLLING_BACK"):
        duplicates.append(iid)

pct = lambda v, q: sorted(v)[min(len(v) - 1, int(q * len(v)))] * 1000 if v else 0
print("# Soak: %g minutes, %d clients, %d instances\n" % (minutes, CLIENTS, INSTANCES))
print("Chaos: " + "; ".join("%d s %s" % e for e in events) + "\n")
print("| route | answers | p50 ms | p99 ms |\n|---|---|---|---|")
for route in sorted(latency):
    print("| %s | %d | %.1f | %.1f |" % (route, len(latency[route]), pct(latency[route], 0.5), pct(latency[route], 0.99)))
print("\n| route | status | code | count |\n|---|---|---|---|")
for (route, status, c), n in sorted(answers.items()):
    print("| %s | %s | %s | %d |" % (route, status, c, n))
print("\n| minute | answers by status | p50 ms | p99 ms (answered requests, every route) |\n|---|---|---|---|")
for m in sorted(timeline):
    lat = minute_latency.get(m, [])
    print("| %d | %s | %s | %s |" % (m, ", ".join("%s: %d" % kv for kv in sorted(timeline[m].items())),
                                  "%.1f" % pct(lat, 0.5) if lat else "-", "%.1f" % pct(lat, 0.99) if lat else "-"))
print("\n| t s | RSS MB | of it anonymous | of it shared (tmpfs) | heap MB | live heap MB (after a full GC) | threads | fds |")
print("|---|---|---|---|---|---|---|---|")
for r in samples:
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (r["t"], r.get("rss_mb", "-"), r.get("anon_mb", "-"),
                                                   r.get("shmem_mb", "-"), r.get("heap_mb") or "-", r.get("live_mb") or "",
                                                   r.get("threads", "-"), r.get("fds", "-")))
half = [r for r in samples if r["t"] >= DURATION / 2]
for key, what in (("rss_mb", "RSS MB"), ("live_mb", "live heap MB"), ("threads", "threads"), ("fds", "open files")):
    values = [r[key] for r in half if r.get(key) is not None]
    if values:
        print("Last half, %s: %d to %d, last %d" % (what, min(values), max(values), values[-1]))
print("\nBelieved to exist: %d; registered: %d; engine containers of soak instances: %d" % (
    len(belief), len(registered), sum(len(v) for v in containers.values())))
print("Uncertain (last mutation unanswered, e.g. in flight at the kill): %d %s" % (len(uncertain), uncertain))
print("Lost registrations: %d %s" % (len(lost), lost))
print("Mismatched (digest, revision or run state): %d %s" % (len(mismatched), mismatched[:5]))
print("Orphan containers: %d %s; duplicates: %d %s" % (len(orphans), orphans, len(duplicates), duplicates))
print("500s: %d" % sum(n for (r, st, c), n in answers.items() if st == 500))
failures = len(lost) + len(mismatched) + len(orphans) + len(duplicates) + \
    sum(n for (r, st, c), n in answers.items() if st == 500)
if failures:
    # The harness's verdict: any of these is a broken promise, not a figure to read.
    raise SystemExit("soak: FAILED: lost registrations, mismatches, orphans, duplicates or 500s (above)")
print("soak: passed (no lost registration, mismatch, orphan, duplicate or 500)")
