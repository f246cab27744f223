"""Docker for the container tests: the image built from the repository's Dockerfile on a
base made here (no image registry needed), and containers run on the host network.

The base comes from `scripts/build_test_base.sh` (debootstrap) and is cached outside the
repository, keyed by that script's hash: in `VIDROUTER_TEST_CACHE`, else
`~/.cache/vidrouter-tests`. Docker's own layer cache keeps the image's dependency layer
between runs, so a rebuild after a source change takes seconds.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
BASE_SCRIPT = REPO / "scripts" / "build_test_base.sh"
IMAGE = "vidrouter:test"
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
# What the Dockerfile builds from; everything else stays out of the test's build context.
CONTEXT_FILES = (
    "Dockerfile",
    ".dockerignore",
    "pyproject.toml",
    "README.md",
    "LICENSE",
    "requirements.lock",
)
CONTEXT_DIRS = ("src", "deploy/ca-certificates")
_ENV = {**os.environ, "DOCKER_BUILDKIT": "0"}  # the classic builder: no buildx needed


def cache_dir() -> Path:
    path = Path(os.environ.get("VIDROUTER_TEST_CACHE") or Path.home() / ".cache/vidrouter-tests")
    path.mkdir(parents=True, exist_ok=True)
    return path


def docker(*args: str, timeout: float = 120, check: bool = True) -> str:
    result = subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, env=_ENV, check=False
    )
    if check and result.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])} failed: {result.stderr[-3000:]}")
    return result.stdout.strip()


def unavailable() -> str | None:
    """Why the container tests cannot run here, or None."""
    if shutil.which("docker") is None:
        return "docker is not installed (Debian: apt-get install docker.io)"
    result = subprocess.run(
        ["docker", "info", "--format", "{{.ServerVersion}}"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    if result.returncode != 0:
        return f"the docker daemon is not reachable: {result.stderr.strip()[:300]}"
    if not _image_exists(base_tag()) and not _base_tar().exists():
        if shutil.which("debootstrap") is None:
            return "debootstrap is not installed (Debian: apt-get install debootstrap)"
        if os.geteuid() != 0:
            return "building the test base image (debootstrap) needs root"
    return None


def base_tag() -> str:
    key = hashlib.sha256(BASE_SCRIPT.read_bytes()).hexdigest()[:12]
    return f"vidrouter-test-base:{key}"


def _base_tar() -> Path:
    return cache_dir() / f"base-{base_tag().split(':')[1]}.tar"


def _image_exists(tag: str) -> bool:
    return bool(docker("images", "--quiet", tag, check=False))


def base_image() -> str:
    """The base image's tag: imported from the cache, built first when it is not there."""
    tag = base_tag()
    with _locked(cache_dir() / "base.lock"):
        if _image_exists(tag):
            return tag
        tar = _base_tar()
        if not tar.exists():
            subprocess.run(["sh", str(BASE_SCRIPT), str(tar)], check=True, timeout=1200)
        with tar.open("rb") as handle:
            subprocess.run(
                ["docker", "import", "-", tag], stdin=handle, check=True, timeout=300, env=_ENV
            )
    return tag


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def build_image(context: Path, extra_certificates: dict[str, bytes]) -> str:
    """Build the repository's Dockerfile on the test base, with these `*.crt` files in
    deploy/ca-certificates/ (this machine's CA bundle among them). Returns the tag."""
    for name in CONTEXT_FILES:
        shutil.copy2(REPO / name, context / name)
    for name in CONTEXT_DIRS:
        shutil.copytree(
            REPO / name,
            context / name,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.crt"),
        )
    for name, pem in extra_certificates.items():
        (context / "deploy/ca-certificates" / name).write_bytes(pem)
    docker(
        "build",
        "--network",
        "host",
        "--build-arg",
        f"PYTHON_IMAGE={base_image()}",
        "--tag",
        IMAGE,
        str(context),
        timeout=1200,
    )
    return IMAGE


def image_size(tag: str) -> int:
    return int(docker("image", "inspect", "--format", "{{.Size}}", tag))


@dataclass
class Container:
    """One `docker run -d` of the image on the host network (listening on loopback)."""

    image: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    volume: str | None = None
    # As Kubernetes runs it (readOnlyRootFilesystem): only /data and a /tmp are writable.
    read_only: bool = False
    name: str = field(default_factory=lambda: "vr-test-" + secrets.token_hex(4))

    def start(self) -> Container:
        flags = ["--detach", "--network", "host", "--name", self.name]
        for key, value in self.env.items():
            flags += ["--env", f"{key}={value}"]
        if self.volume:
            flags += ["--volume", f"{self.volume}:/data"]
        if self.read_only:
            flags += ["--read-only", "--tmpfs", "/tmp", "--tmpfs", "/data:uid=10001,gid=10001"]
        docker("run", *flags, self.image, *self.args)
        return self

    def wait_ready(self, url: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    return
            if not self.running() or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} is not ready:\n{self.logs()}")
            time.sleep(0.2)

    def wait_healthy(self, timeout: float = 60) -> None:
        """Until the image's HEALTHCHECK reports the container healthy."""
        deadline = time.monotonic() + timeout
        while True:
            health = docker("inspect", "--format", "{{.State.Health.Status}}", self.name)
            if health == "healthy":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} is {health}:\n{self.logs()}")
            time.sleep(0.5)

    def running(self) -> bool:
        state = docker("inspect", "--format", "{{.State.Running}}", self.name, check=False)
        return state == "true"

    def stop(self, timeout: int = 30) -> tuple[int, float]:
        """`docker stop`: the exit code and how long it took."""
        started = time.monotonic()
        docker("stop", "--time", str(timeout), self.name, timeout=timeout + 30)
        elapsed = time.monotonic() - started
        return int(docker("inspect", "--format", "{{.State.ExitCode}}", self.name)), elapsed

    def logs(self) -> str:
        result = subprocess.run(
            ["docker", "logs", "--tail", "60", self.name],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return result.stdout + result.stderr

    def remove(self) -> None:
        docker("rm", "--force", "--volumes", self.name, check=False)


def run_once(
    image: str,
    *args: str,
    env: dict[str, str],
    volume: str | None = None,
    entrypoint: str | None = None,
) -> str:
    """`docker run --rm IMAGE ARGS...`: its standard output."""
    flags = ["--rm", "--network", "host"]
    if entrypoint:
        flags += ["--entrypoint", entrypoint]
    for key, value in env.items():
        flags += ["--env", f"{key}={value}"]
    if volume:
        flags += ["--volume", f"{volume}:/data"]
    return docker("run", *flags, image, *args)


@contextlib.contextmanager
def named_volume() -> Iterator[str]:
    name = docker("volume", "create", "vr-test-" + secrets.token_hex(4))
    try:
        yield name
    finally:
        docker("volume", "rm", "--force", name, check=False)
