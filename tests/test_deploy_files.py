"""The deployment files a self-hoster starts from: deploy/compose.yaml validates with
docker-compose, and deploy/kubernetes/ renders with kustomize (`kubectl kustomize`) and
validates against the Kubernetes 1.31 schemas, strictly (no unknown field)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
KUBERNETES_VERSION = "1.31.0"


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        reason = f"{name} is not installed (Debian: apt-get install {package})"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    return path


def _compose_config(directory: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    compose = _tool("docker-compose", "docker-compose")
    secrets = ("POSTGRES_PASSWORD", "MINIO_ROOT_PASSWORD")
    clean = {k: v for k, v in os.environ.items() if k not in secrets}
    return subprocess.run(
        [compose, "--file", str(directory / "compose.yaml"), "config"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def compose_dir(tmp_path: Path) -> Path:
    """deploy/ as a user has it after the quick start's first step (providers.env made)."""
    shutil.copy(DEPLOY / "compose.yaml", tmp_path / "compose.yaml")
    shutil.copy(DEPLOY / "providers.env.example", tmp_path / "providers.env")
    return tmp_path


def test_the_compose_file_validates_with_the_production_shape(compose_dir: Path) -> None:
    result = _compose_config(
        compose_dir, {"POSTGRES_PASSWORD": "pg-secret", "MINIO_ROOT_PASSWORD": "s3-secret"}
    )
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert {"api", "worker", "postgres", "minio", "bucket", "lb"} <= set(services)
    assert services["api"]["command"] == ["serve", "--role", "api"]
    assert services["worker"]["command"] == ["serve", "--role", "worker"]
    for name in ("api", "worker", "postgres", "minio"):
        assert "healthcheck" in services[name], name
    for name in ("api", "worker"):
        service = services[name]
        env = service["environment"]
        assert env["VIDROUTER_DATABASE_URL"].startswith("postgresql+asyncpg://")
        assert "pg-secret" in env["VIDROUTER_DATABASE_URL"]
        assert env["VIDROUTER_STORAGE_URL"] == "s3://vidrouter"
        assert env["AWS_SECRET_ACCESS_KEY"] == "s3-secret"
        assert service["depends_on"]["bucket"]["condition"] == "service_completed_successfully"
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        # A scalable service publishes no port of its own (the load balancer does).
        assert "ports" not in service
    # The bucket is created by a one-shot service.
    assert "mc mb" in " ".join(services["bucket"]["command"])


def test_the_compose_file_has_no_default_secrets(compose_dir: Path) -> None:
    result = _compose_config(compose_dir, {})
    assert result.returncode != 0
    assert "POSTGRES_PASSWORD" in result.stderr


def _rendered() -> list[dict[str, Any]]:
    kubectl = _tool("kubectl", "kubernetes-client")
    result = subprocess.run(
        [kubectl, "kustomize", str(DEPLOY / "kubernetes")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def test_the_kubernetes_manifests_render_and_validate_strictly() -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    documents = _rendered()
    for document in documents:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
    kinds = sorted(d["kind"] for d in documents)
    assert kinds == [
        "ConfigMap",
        "Deployment",
        "Deployment",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "PodDisruptionBudget",
        "Service",
    ]


def test_strict_validation_refuses_an_unknown_field() -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    deployment = next(d for d in _rendered() if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


def test_the_deployments_probe_limit_and_harden_their_pods() -> None:
    documents = _rendered()
    deployments = {d["metadata"]["name"]: d for d in documents if d["kind"] == "Deployment"}
    assert set(deployments) == {"vidrouter-api", "vidrouter-worker"}
    config = next(d for d in documents if d["kind"] == "ConfigMap")
    for name, role in (("vidrouter-api", "api"), ("vidrouter-worker", "worker")):
        pod = deployments[name]["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["terminationGracePeriodSeconds"] >= 20
        (container,) = pod["containers"]
        assert container["args"] == ["serve", "--role", role]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert {"cpu", "memory"} <= set(container["resources"]["requests"])
        assert {"cpu", "memory"} <= set(container["resources"]["limits"])
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        # Settings from the (generated) ConfigMap, keys from a Secret made outside these
        # files: never a literal value.
        sources = container["envFrom"]
        assert {"configMapRef": {"name": config["metadata"]["name"]}} in sources
        assert {"secretRef": {"name": "vidrouter-secrets"}} in sources
        assert "env" not in container
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        assert {"/data", "/tmp"} <= mounts
    assert not [d for d in documents if d["kind"] == "Secret"]
    service = next(d for d in documents if d["kind"] == "Service")
    assert service["spec"]["selector"]["app.kubernetes.io/component"] == "api"
    hpa = next(d for d in documents if d["kind"] == "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == "vidrouter-api"


def test_the_lock_pins_every_dependency_within_its_range_with_hashes() -> None:
    """requirements.lock (what the image installs) agrees with pyproject.toml: `make lock`
    was run after the last dependency change."""
    import tomllib

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    lock = (REPO / "requirements.lock").read_text()
    pinned: dict[str, str] = {}
    lines = lock.splitlines()
    for line, following in zip(lines, [*lines[1:], ""], strict=True):
        if "==" in line and not line.startswith((" ", "#")):
            name, version = line.split(" ")[0].split(";")[0].split("==")
            pinned[canonicalize_name(name.split("[")[0])] = version
            assert following.strip().startswith("--hash=sha256:"), f"{line}: no hash"
    for dependency in project["dependencies"]:
        requirement = Requirement(dependency)
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not in requirements.lock: run `make lock`"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{name}=={pinned[name]} is outside {requirement.specifier}: run `make lock`"
        )
