"""What the Python harnesses in scripts/ (pairbench, floorbench, soak.py) share: the signed request of SPEC section 3, sent
the way ../shared/cyclebench/cycle.py sends it (a new connection per request), and the demo plan they create.
One copy here, so that the benchmarks cannot drift from each other; the agent's own definition of the signed
string is io.dogama.agent.auth.internal.Signer, and a harness whose signature were wrong would get 401s."""
import base64, datetime, hashlib, hmac, http.client, json, secrets


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def read_key(secret_file):
    """@return the current secret: the first line of the secret file, base64url without padding."""
    return base64.urlsafe_b64decode(open(secret_file).read().split()[0] + "==")


def signature_headers(key, method, path, raw):
    """@return the headers that sign one request with a fresh nonce, timestamped now (and its content type)."""
    ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
    nonce = b64u(secrets.token_bytes(18))
    canon = "\n".join(["DOGAMA-HMAC-V1", method, path, ts, nonce, hashlib.sha256(raw).hexdigest()])
    h = {"Authorization": "DoGaMa-HMAC-SHA256 " + b64u(hmac.new(key, canon.encode(), hashlib.sha256).digest()),
         "X-DoGaMa-Timestamp": ts, "X-DoGaMa-Nonce": nonce, "Content-Length": str(len(raw))}
    if raw or method in ("POST", "PUT"):
        h["Content-Type"] = "application/json"
    return h


def signed_client(port, secret_file):
    """@return agent(method, path, body=None) -> (status, body bytes): one signed request on a new connection."""
    key = read_key(secret_file)

    def agent(method, path, body=None):
        raw = b"" if body is None else json.dumps(body).encode()
        c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=60)
        c.request(method, path, raw, signature_headers(key, method, path, raw))
        r = c.getresponse(); d = r.read(); c.close()
        return r.status, d

    return agent


def demo_plan(iid, host_port, source, network):
    """The demo template's plan, as ../shared/cyclebench/cycle.py makes it."""
    return {"instanceId": iid, "templateId": "demo-http", "templateVersion": "1.0.0", "image": "dogama/demo-http:1",
            "capAdd": [], "env": {"GREETING": "hi"},
            "mounts": [{"source": source, "target": "/data", "readOnly": False}],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "tcp", "hostIp": "127.0.0.1",
                       "hostPort": host_port}],
            "resources": {"memoryBytes": 67108864, "nanoCpus": 500000000, "pidsLimit": 64},
            "user": "1000:1000", "labels": {}, "networks": [network]}
