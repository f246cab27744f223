"""`vidrouter batch run | status | results` (in the test's process) against a real server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import CliResult, invoke_cli
from tests.support.live_server import LiveServer, live_server
from vidrouter.client import Client


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(
        tmp_path_factory.mktemp("cli-batch"), VIDROUTER_BATCH_POLL_SECONDS="0.1"
    ) as live:
        yield live


def run(server: LiveServer, cwd: Path, *args: str) -> CliResult:
    env = {"VIDROUTER_BASE_URL": server.base_url, "VIDROUTER_API_KEY": server.key}
    return invoke_cli({**env, "COLUMNS": "200"}, *args, cwd=cwd)


def test_batch_run_writes_the_results_and_a_second_run_follows_the_same_batch(
    server: LiveServer, tmp_path: Path
) -> None:
    lines = [
        {"custom_id": f"c{i}", "model": "local-preview", "prompt": f"p{i}", "duration": 0.5,
         "resolution": "480p"}
        for i in range(3)
    ]  # fmt: skip
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    first = run(
        server, tmp_path, "batch", "run", "in.jsonl", "--output", "out.jsonl", "--poll", "0.2"
    )
    assert first.returncode == 0, first.stderr
    assert "submitted: 3 lines" in first.stderr and "completed" in first.stderr
    results = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["custom_id"] for r in results] == ["c0", "c1", "c2"]
    assert {r["status"] for r in results} == {"completed"}
    batch_id = json.loads((tmp_path / "in.jsonl.batch").read_text())["batch_id"]

    again = run(server, tmp_path, "batch", "run", "in.jsonl", "--poll", "0.2")
    assert again.returncode == 0, again.stderr
    assert f"following batch {batch_id}" in again.stderr
    assert [json.loads(x)["custom_id"] for x in again.stdout.splitlines()] == ["c0", "c1", "c2"]
    with Client(server.key, base_url=server.base_url) as api:
        assert [b.id for b in api.batches().data] == [batch_id]  # nothing submitted twice

    status = run(server, tmp_path, "batch", "status", batch_id, "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["counts"]["completed"] == 3
    shown = run(server, tmp_path, "batch", "results", batch_id)
    assert [json.loads(x)["status"] for x in shown.stdout.splitlines()] == ["completed"] * 3


def test_batch_run_of_a_bad_file_names_the_line_and_submits_nothing(
    server: LiveServer, tmp_path: Path
) -> None:
    (tmp_path / "bad.jsonl").write_text(
        '{"custom_id": "a", "model": "local-preview", "prompt": "p"}\n\n'
        '{"custom_id": "b", "model": "local-preview", "prompt": "p", "duration": 99}\n'
    )
    result = run(server, tmp_path, "batch", "run", "bad.jsonl")
    assert result.returncode == 1
    assert "line 3: duration 99 exceeds" in result.stderr, result.stderr
    assert not (tmp_path / "bad.jsonl.batch").exists()
