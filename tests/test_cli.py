"""The command line: keys on the same data dir as serve; the key works against the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer

from tests.support.harness import running, test_settings
from tests.support.process import cli_env, create_key, run_cli
from vidrouter.cli.remote import with_server


async def test_keys_create_list_revoke(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    made = create_key(env, "ci")
    assert set(made) >= {"id", "name", "key", "webhook_secret"}
    assert made["name"] == "ci"
    assert made["key"].startswith("vr_") and len(made["key"]) == 43
    assert made["webhook_secret"].startswith("whsec_")

    listed = run_cli(env, "keys", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["id"] for r in rows] == [made["id"]]
    assert made["key"] not in listed.stdout  # only the hash is stored, never shown again

    # The same data dir, opened by the service, accepts the key.
    settings = test_settings(tmp_path / "data")
    async with running(settings, workers=False) as app:
        ok = await app.client.get("/v1/models", headers=app.auth(made["key"]))
        assert ok.status_code == 200

    revoked = run_cli(env, "keys", "revoke", made["id"])
    assert revoked.returncode == 0, revoked.stderr
    again = run_cli(env, "keys", "revoke", made["id"])
    assert again.returncode == 1
    async with running(settings, workers=False) as app:
        refused = await app.client.get("/v1/models", headers=app.auth(made["key"]))
        assert refused.status_code == 401


def test_plain_output_and_help(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    out = run_cli(env, "keys", "create", "--name", "human")
    assert out.returncode == 0 and "vr_" in out.stdout and "whsec_" in out.stdout
    table = run_cli(env, "keys", "list")
    assert "human" in table.stdout
    assert run_cli(env, "--help").returncode == 0
    # The database file lives in the data dir given by the environment.
    assert (tmp_path / "data" / "vidrouter.sqlite3").exists()


def test_keys_set_cache_turns_the_cache_on_and_back_to_the_default(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    made = create_key(env, "cached")
    for setting, shown in (("on", True), ("off", False), ("default", None)):
        changed = run_cli(env, "keys", "set-cache", made["id"], setting)
        assert changed.returncode == 0, changed.stderr
        [row] = [json.loads(x) for x in run_cli(env, "keys", "list", "--json").stdout.splitlines()]
        assert row["cache"] is shown
    assert run_cli(env, "keys", "set-cache", "key_nope", "on").returncode == 1


def test_every_remote_command_takes_the_server_options(tmp_path: Path) -> None:
    """`cli/remote.with_server` gives each command that talks to a server the same four
    options, after its own; a command that does not take `server` is a programming error."""
    env = {**cli_env(tmp_path / "data"), "COLUMNS": "200", "NO_COLOR": "1"}
    for command in (
        ("models",),
        ("status",),
        ("generate",),
        ("characters", "create"),
        ("characters", "get"),
        ("characters", "delete"),
    ):
        shown = run_cli(env, *command, "--help")
        assert shown.returncode == 0, shown.stderr
        for option in ("--api-key", "--base-url", "--json", "--timeout"):
            assert option in shown.stdout, (command, option)

    def lonely(name: str = typer.Option("x")) -> None:
        return None

    with pytest.raises(TypeError, match="takes no `server: Server`"):
        with_server(lonely)
