"""`vidrouter generate | models | status` against a real server: in the test's process, but
for what only a real process shows (the entry point end to end, Ctrl-C with and without a
terminal)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import CliResult, invoke_cli
from tests.support.live_server import LiveServer, live_server
from tests.support.process import VIDROUTER
from tests.support.video import clear_rgb, decode, frame_rgb
from vidrouter.client import Client


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("cli")) as live:
        yield live


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """No workers: a generation stays queued, so an interrupt always lands while waiting."""
    with live_server(tmp_path_factory.mktemp("idle"), VIDROUTER_WORKERS="0") as live:
        yield live


def env_for(server: LiveServer, key: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIDROUTER_")}
    env["VIDROUTER_BASE_URL"] = server.base_url
    env["VIDROUTER_API_KEY"] = key or server.key
    env["COLUMNS"] = "200"
    return env


def run(env: dict[str, str], cwd: Path, *args: str) -> CliResult:
    return invoke_cli(env, *args, cwd=cwd)


def test_generate_writes_a_playable_mp4(server: LiveServer, tmp_path: Path) -> None:
    """The one run of a whole `vidrouter` process here: the entry point, end to end."""
    result = subprocess.run([*VIDROUTER, "generate", "a fox", "--model", "local-preview",
                             "--output", "fox.mp4"], env=env_for(server), cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    video = decode((tmp_path / "fox.mp4").read_bytes(), tmp_path)
    assert video.codec == "h264" and video.frames > 0 and video.duration > 4
    assert "Saved fox.mp4" in result.stderr and "cost 0.00 USD" in result.stderr
    assert "completed" in result.stderr  # the progress bar's last state


def test_generate_defaults_the_file_name_and_speaks_json(
    server: LiveServer, tmp_path: Path
) -> None:
    result = run(env_for(server), tmp_path, "generate", "an owl", "-m", "local-preview",
                 "--duration", "1", "--aspect-ratio", "9:16", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["status"] == "completed" and body["aspect_ratio"] == "9:16"
    assert body["output"] == f"{body['id']}.mp4"
    video = decode((tmp_path / body["output"]).read_bytes(), tmp_path)
    assert video.height > video.width


def test_generate_sends_the_controls(server: LiveServer, tmp_path: Path) -> None:
    result = run(env_for(server), tmp_path, "generate", "a hare", "-m", "local-preview",
                 "--duration", "0.5", "--resolution", "480p", "--seed", "11", "--no-audio",
                 "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert (body["resolution"], body["seed"], body["generate_audio"]) == ("480p", 11, False)
    assert decode((tmp_path / body["output"]).read_bytes(), tmp_path).height == 480
    refused = run(env_for(server), tmp_path, "generate", "x", "-m", "local-preview",
                  "--negative-prompt", "fog", "--json")  # fmt: skip
    assert refused.returncode == 1 and "400 control_unsupported" in refused.stderr
    assert json.loads(refused.stdout)["error"]["param"] == "negative_prompt"


def test_a_bad_key_exits_non_zero_with_the_message(server: LiveServer, tmp_path: Path) -> None:
    env = env_for(server, key="vr_" + "0" * 40)
    result = run(env, tmp_path, "generate", "a fox", "--model", "local-preview")
    assert result.returncode == 1
    assert "401 invalid_api_key" in result.stderr
    assert "the API key is not valid" in result.stderr
    assert not list(tmp_path.glob("*.mp4"))
    assert "0" * 40 not in result.stderr  # the key is never echoed

    missing = env_for(server)
    del missing["VIDROUTER_API_KEY"]
    result = run(missing, tmp_path, "models")
    assert result.returncode == 2 and "No API key" in result.stderr


def test_invalid_requests_show_code_and_message(server: LiveServer, tmp_path: Path) -> None:
    result = run(env_for(server), tmp_path, "generate", "x", "--model", "local-preview",
                 "--duration", "999", "--json")  # fmt: skip
    assert result.returncode == 1
    assert "400 duration_too_long" in result.stderr
    assert json.loads(result.stdout)["error"]["param"] == "duration"


def test_a_local_image_is_sent_as_a_data_uri(server: LiveServer, tmp_path: Path) -> None:
    """A local file reaches the server intact (a data URI): local-preview starts the video on
    it; an unreadable path never leaves."""
    from PIL import Image

    Image.new("RGB", (8, 8), (20, 40, 230)).save(tmp_path / "first.png")
    env = env_for(server)
    sent = run(env, tmp_path, "generate", "x", "-m", "local-preview", "--image", "first.png",
               "--duration", "0.5", "-o", "from.mp4", "--json")  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["type"] == "image-to-video"
    r, g, b = clear_rgb(frame_rgb((tmp_path / "from.mp4").read_bytes(), tmp_path))
    assert b > 180 and r < 70 and g < 90, (r, g, b)  # the blue image is the first frame
    missing = run(env, tmp_path, "generate", "x", "-m", "local-preview", "--image", "nope.png")
    assert missing.returncode == 1 and "cannot read the image nope.png" in missing.stderr


def test_models_and_status(server: LiveServer, tmp_path: Path) -> None:
    env = env_for(server)
    table = run(env, tmp_path, "models")
    assert table.returncode == 0, table.stderr
    assert "local-preview" in table.stdout and "16:9" in table.stdout
    assert "720p" in table.stdout and "seed" in table.stdout  # resolutions, supports
    lines = run(env, tmp_path, "models", "--json").stdout.splitlines()
    assert "local-preview" in {json.loads(line)["id"] for line in lines}

    with Client(server.key, base_url=server.base_url) as client:
        made = client.generate("local-preview", "for status", duration=1)
    shown = run(env, tmp_path, "status", made.id)
    assert shown.returncode == 0 and "completed" in shown.stdout and made.id in shown.stdout
    as_json = json.loads(run(env, tmp_path, "status", made.id, "--json").stdout)
    assert as_json["id"] == made.id and as_json["video_url"]
    unknown = run(env, tmp_path, "status", "gen_nothere0000000000000000")
    assert unknown.returncode == 1 and "404 generation_not_found" in unknown.stderr


def _start(env: dict[str, str], cwd: Path, *args: str, **io: int) -> subprocess.Popen[bytes]:
    streams = io or {
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
    }
    return subprocess.Popen([*VIDROUTER, *args], env=env, cwd=cwd, **streams)  # type: ignore[call-overload, no-any-return]


def _read_until(fd: int, marker: bytes, seen: bytearray) -> None:
    """Read `fd` until `marker` appears in the text without its terminal styling (a bounded
    wait for the process, not a timed assertion)."""
    deadline = time.monotonic() + 120
    while marker not in _plain(seen):
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {marker!r}; last output: {_plain(seen)[-300:]!r}")
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: a pty whose other end has closed
                chunk = b""
            if not chunk:
                raise AssertionError(f"output ended before {marker!r}: {_plain(seen)[-300:]!r}")
            seen.extend(chunk)


def _plain(raw: bytes | bytearray) -> bytes:
    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", bytes(raw))


def _created_id(raw: bytes) -> str:
    text = _plain(raw)
    start = text.index(b"gen_")
    return text[start : start + 28].decode()


@pytest.mark.parametrize("flag", [None, "cancel"])
def test_ctrl_c_without_a_terminal(
    idle_server: LiveServer, tmp_path: Path, flag: str | None
) -> None:
    """No terminal: nobody to ask, so the generation is left running unless
    `--on-interrupt cancel` said otherwise; either way the command says which and exits 130."""
    extra = ["--on-interrupt", flag] if flag else []
    proc = _start(env_for(idle_server), tmp_path, "generate", "wait", "-m", "local-preview", *extra)
    assert proc.stderr is not None
    seen = bytearray()
    _read_until(proc.stderr.fileno(), b"Created gen_", seen)
    _read_until(proc.stderr.fileno(), b")", seen)
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=60)
    output = _plain(bytes(seen) + rest).decode()
    assert proc.returncode == 130, output
    generation_id = _created_id(bytes(seen))
    with Client(idle_server.key, base_url=idle_server.base_url) as client:
        status = client.get(generation_id).status
    if flag == "cancel":
        assert status == "canceled" and f"Canceled {generation_id}" in output
    else:
        assert status == "queued"
        assert "no terminal to ask" in output and f"Left {generation_id} running" in output


@pytest.mark.parametrize("answer", [b"y", b"n"])
def test_ctrl_c_at_a_terminal_asks(idle_server: LiveServer, tmp_path: Path, answer: bytes) -> None:
    master, slave = pty.openpty()
    try:
        proc = _start(env_for(idle_server), tmp_path, "generate", "ask me", "-m", "local-preview",
                      stdin=slave, stdout=slave, stderr=slave)  # fmt: skip
        os.close(slave)
        seen = bytearray()
        _read_until(master, b"Created gen_", seen)
        _read_until(master, b")", seen)
        proc.send_signal(signal.SIGINT)
        _read_until(master, b"Cancel gen_", seen)
        os.write(master, answer + b"\n")
        assert proc.wait(60) == 130
        generation_id = _created_id(bytes(seen))
    finally:
        os.close(master)
    with Client(idle_server.key, base_url=idle_server.base_url) as client:
        status = client.get(generation_id).status
    assert status == ("canceled" if answer == b"y" else "queued")


def test_references_and_a_source_video(server: LiveServer, tmp_path: Path) -> None:
    """`--reference` (repeatable, local files sent as data URIs), `--video` (an edit) and
    `--extend` (more of it, the whole video saved), each by a generation id."""
    from PIL import Image

    Image.new("RGB", (32, 32), "red").save(tmp_path / "ball.png")
    env = env_for(server)
    made = run(env, tmp_path, "generate", "a ball", "-m", "local-preview",
               "--duration", "1", "--reference", "ball.png", "--reference", "ball.png",
               "-o", "ref.mp4", "--json")  # fmt: skip
    assert made.returncode == 0, made.stderr
    first = json.loads(made.stdout)
    assert first["type"] == "reference-to-video" and len(first["references"]) == 2
    source = decode((tmp_path / "ref.mp4").read_bytes(), tmp_path)
    edit = run(env, tmp_path, "generate", "at night", "-m", "local-preview",
               "--video", first["id"], "-o", "edit.mp4", "--json")  # fmt: skip
    assert edit.returncode == 0, edit.stderr
    assert json.loads(edit.stdout)["type"] == "video-to-video"
    assert decode((tmp_path / "edit.mp4").read_bytes(), tmp_path).frames == source.frames
    more = run(env, tmp_path, "generate", "on", "-m", "local-preview",
               "--extend", first["id"], "--duration", "0.5", "-o", "more.mp4", "--json")  # fmt: skip
    assert more.returncode == 0, more.stderr
    assert decode((tmp_path / "more.mp4").read_bytes(), tmp_path).frames == source.frames + 12
    both = run(env, tmp_path, "generate", "x", "-m", "local-preview", "--video", first["id"],
               "--extend", first["id"])  # fmt: skip
    assert both.returncode == 1 and "not both" in both.stderr
