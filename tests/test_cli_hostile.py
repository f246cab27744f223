"""`vidrouter models | status | generate` (in the test's process) against a hostile loopback server:
every client error is one line on stderr and exit 1 (never a traceback), a dripping server
cannot hold a command past `--timeout`, and `generate` writes only a file name of its own
choosing, in the working directory, and only an MP4."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CliResult, invoke_cli
from tests.support.hostile import Exchange, answer, drip, generation_body, hostile_server

pytestmark = pytest.mark.integration

MP4 = b"\x00\x00\x00\x18ftypisom" + b"\x00" * 64


def generation(gid: str, video_url: str, **fields: Any) -> dict[str, Any]:
    return generation_body(id=gid, video_url=video_url, **fields)


DRIPPED: list[float] = []  # how long the dripping server was listened to
# What the server says, keyed by the API key each command sends.
IDS = {"vr_up": "../pwned", "vr_abs": "/tmp/elsewhere/abs", "vr_html": "gen_html"}


def script(exchange: Exchange, sock: socket.socket, stopping: threading.Event) -> None:
    key = exchange.headers.get("authorization", "").removeprefix("Bearer ")
    video_url = f"http://{exchange.headers['host']}/video/{key}.mp4"
    if exchange.target.startswith("/video/"):
        html = exchange.target == "/video/vr_html.mp4"
        answer(sock, 200, b"<html>login</html>" if html else MP4, "video/mp4")
    elif key == "vr_drip":
        began = time.monotonic()
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n")
        drip(sock, b"{" * 500, 0.2, stopping)  # 100 s, unless the client hangs up
        DRIPPED.append(time.monotonic() - began)
    elif key == "vr_shape":
        answer(sock, 200, generation("gen_x", video_url, status="exploded"))
    elif key == "vr_markup":
        message = "[red]bad[/red] [link=file:///etc]x[/link]\nsecond line\x1b[2J"
        answer(sock, 400, {"error": {"type": "t", "code": "[bold]c", "message": message}})
    elif key in IDS:
        answer(sock, 202, generation(IDS[key], video_url))
    else:
        answer(sock, 200, "<html><body>Sign in</body></html>", "text/html")


@dataclass
class Run:
    args: tuple[str, ...]
    cwd: Path
    result: CliResult


def start(base_url: str, key: str, cwd: Path, *args: str) -> Run:
    cwd.mkdir(parents=True)
    env = {"VIDROUTER_BASE_URL": base_url, "VIDROUTER_API_KEY": key, "COLUMNS": "200"}
    return Run(args, cwd, invoke_cli(env, *args, cwd=cwd))


def finish(run: Run) -> tuple[int, str, str]:
    return run.result.returncode, run.result.stdout, run.result.stderr


def assert_one_line_error(run: Run, *, after_progress: bool = False) -> str:
    """The command failed with exit 1 and one line of error (after `generate`'s progress
    lines, when it got that far); that line."""
    code, out, err = finish(run)
    assert code == 1, (run.args, code, out, err)
    lines = err.strip().splitlines()
    assert "Traceback" not in err and (after_progress or len(lines) == 1), err
    assert lines[-1].startswith("Error"), err
    return lines[-1]


def test_every_client_error_is_one_line_and_generate_writes_only_its_own_names(
    tmp_path: Path,
) -> None:
    with hostile_server(script) as server:
        url = server.base_url
        runs = {
            "html": start(url, "vr_login", tmp_path / "html", "status", "gen_x"),
            "shape": start(url, "vr_shape", tmp_path / "shape", "status", "gen_x"),
            "markup": start(url, "vr_markup", tmp_path / "markup", "models"),
            "drip": start(url, "vr_drip", tmp_path / "drip", "status", "gen_x", "--timeout", "1"),
            "up": start(url, "vr_up", tmp_path / "a" / "up", "generate", "x", "-m", "m"),
            "abs": start(url, "vr_abs", tmp_path / "abs", "generate", "x", "-m", "m"),
            "video": start(url, "vr_html", tmp_path / "video", "generate", "x", "-m", "m"),
        }
        assert "vidrouter" in assert_one_line_error(runs["html"])
        assert "status" in assert_one_line_error(runs["shape"])
        shown = assert_one_line_error(runs["markup"])
        assert "[red]bad[/red] [link=file:///etc]x[/link] second line" in shown, shown
        assert "\x1b" not in shown and "[bold]c" in shown
        assert "timed out" in assert_one_line_error(runs["drip"])
        assert "not an MP4" in assert_one_line_error(runs["video"], after_progress=True)
        assert list((tmp_path / "video").iterdir()) == []
        for name, saved in (("up", "pwned.mp4"), ("abs", "tmp_elsewhere_abs.mp4")):
            code, _, err = finish(runs[name])
            assert code == 0, err
            assert [p.name for p in runs[name].cwd.iterdir()] == [saved], err
            assert (runs[name].cwd / saved).read_bytes() == MP4
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["up"]  # nothing beside
    assert not Path("/tmp/elsewhere").exists()
    # Each try (the first and the client's three retries) hung up once its second was over,
    # not when the server was done dripping.
    assert 1 <= len(DRIPPED) <= 4 and max(DRIPPED) < 5, DRIPPED
