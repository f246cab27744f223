"""Real components for the scale-out tests: an S3-compatible server (moto's server mode, in
its own process on a free loopback port), a small full disk (a tmpfs, as root), and a
catalog of one model behind an OpenAI-style upstream (the chaos fake)."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.support.chaos import KEY, KEY_ENV, chaos_catalog
from tests.support.servers import free_port

S3_KEY_ID = "testing-key"
S3_SECRET = "testing-secret"
S3_REGION = "us-east-1"
UPSTREAM_KEY_ENV, UPSTREAM_KEY = KEY_ENV, KEY


@dataclass
class S3Server:
    port: int
    proc: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": S3_KEY_ID,
            "AWS_SECRET_ACCESS_KEY": S3_SECRET,
            "AWS_REGION": S3_REGION,
        }

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(self.endpoint + "/moto-api/", timeout=1)
                return
            except httpx.TransportError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto server did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def new_bucket(self) -> str:
        """A new bucket of a fresh name."""
        name = "vr-" + secrets.token_hex(4)
        self.create_bucket(name)
        return name

    def create_bucket(self, name: str) -> None:
        import boto3

        boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=S3_KEY_ID,
            aws_secret_access_key=S3_SECRET,
            region_name=S3_REGION,
        ).create_bucket(Bucket=name)

    def object_keys(self, bucket: str) -> list[str]:
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=S3_KEY_ID,
            aws_secret_access_key=S3_SECRET,
            region_name=S3_REGION,
        )
        keys: list[str] = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            keys += [item["Key"] for item in page.get("Contents", [])]
        return keys


@contextlib.contextmanager
def s3_server() -> Iterator[S3Server]:
    server = S3Server(free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def can_mount() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and sys.platform.startswith("linux")


@contextlib.contextmanager
def small_disk(path: Path, size_kib: int = 4096) -> Iterator[Path]:
    """A tmpfs of `size_kib` at `path`: a disk that really fills (no blocks reserved for
    root, unlike ext4's 5%), for the disk-full tests. Needs root."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(path)], check=True
    )
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte; remove the returned file to free it."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for block in (65536, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * block)
    finally:
        os.close(fd)
    return filler


def upstream_catalog(path: Path, url: str) -> Path:
    """One model, one route: the generic OpenAI-style adapter pointed at a fake upstream."""
    route = {"id": "upstream", "url": url, "timeout": 10}
    return chaos_catalog(path, [route], description="A model behind a fake upstream.")


def local_videos(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and p.suffix in (".mp4", ".part")]
