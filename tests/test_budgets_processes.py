"""Budgets through real processes: the CLI that sets them (`vidrouter keys set-limits
--budget-usd`, `vidrouter accounts set-budget | show`), and the race across two `vidrouter
serve` processes on one PostgreSQL database, which must still hold after a kill -9."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.budgets import CATALOG, EACH, HEADER, write_catalog
from tests.support.cli import CliResult
from tests.support.harness import running, test_settings
from tests.support.process import VIDROUTER, ServeProcess, cli_env, create_key, run_cli

BODY = {"model": "house-paid", "prompt": "a paid fox"}


class ApiOnlyServer(ServeProcess):
    """`vidrouter serve` with VIDROUTER_WORKERS=0: /readyz says 503 without workers, so it
    is up once /healthz answers."""

    async def start(self, timeout: float = 30.0) -> None:
        self.proc = subprocess.Popen(
            [*VIDROUTER, "serve"],
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        async with httpx.AsyncClient() as client:
            for _ in range(int(timeout / 0.1)):
                assert self.proc.poll() is None, self.log.read_text()[-2000:]
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get(self.base_url + "/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise TimeoutError(self.log.read_text()[-2000:])


def ok_json(result: CliResult) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    out: dict[str, Any] = json.loads(result.stdout)
    return out


async def test_cli_sets_key_and_account_budgets_and_the_server_obeys(tmp_path: Path) -> None:
    catalog = write_catalog(tmp_path)
    env = cli_env(tmp_path / "data", VIDROUTER_CATALOG=str(catalog))
    made = create_key(env, "cli")
    account = str(made["account_id"])

    key = ok_json(
        run_cli(
            env, "keys", "set-limits", made["id"], "--budget-usd", "0.8",
            "--budget-period", "day", "--json",
        )
    )  # fmt: skip
    assert key["budget"] == {
        "limit_usd": 0.8,
        "period": "day",
        "spent_usd": 0.0,
        "remaining_usd": 0.8,
        "resets_at": key["budget"]["resets_at"],
    }
    assert str(key["budget"]["resets_at"]).endswith("T00:00:00.000Z")
    assert key["requests_per_minute"] is None  # rate limits untouched

    shown = ok_json(
        run_cli(
            env, "accounts", "set-budget", account, "--budget-usd", "10",
            "--budget-period", "total", "--json",
        )
    )  # fmt: skip
    assert shown["budget"]["limit_usd"] == 10.0
    assert shown["budget"]["resets_at"] is None

    settings = test_settings(tmp_path / "data", catalog=catalog)
    async with running(settings, workers=False) as app:
        auth = app.auth(str(made["key"]))
        for _ in range(2):
            created = await app.client.post("/v1/generations", json=BODY, headers=auth)
            assert created.status_code == 202, created.text
        over = await app.client.post("/v1/generations", json=BODY, headers=auth)
        assert over.status_code == 402 and over.json()["error"]["code"] == "budget_exceeded"

    shown = ok_json(run_cli(env, "accounts", "show", account, "--json"))
    assert shown["budget"]["spent_usd"] == pytest.approx(2 * EACH)
    assert shown["budget"]["remaining_usd"] == pytest.approx(10 - 2 * EACH)
    (listed,) = shown["keys"]
    assert listed["id"] == made["id"] and listed["budget"]["remaining_usd"] == 0.0
    human = run_cli(env, "accounts", "show", account)
    assert human.returncode == 0 and "per UTC day" in human.stdout and "in total" in human.stdout

    cleared = ok_json(run_cli(env, "keys", "set-limits", made["id"], "--clear-budget", "--json"))
    assert cleared["budget"] is None
    async with running(settings, workers=False) as app:
        auth = app.auth(str(made["key"]))
        again = await app.client.post("/v1/generations", json=BODY, headers=auth)
        assert again.status_code == 202  # only the account's $10 applies now
        assert float(again.headers[HEADER]) == pytest.approx(10 - 3 * EACH)

    # Refusals: an unknown account, contradictory flags, nothing to change.
    assert run_cli(env, "accounts", "set-budget", "acct_nope", "--budget-usd", "1").returncode == 1
    assert run_cli(env, "accounts", "show", "acct_nope").returncode == 1
    both = run_cli(env, "accounts", "set-budget", account, "--budget-usd", "1", "--clear-budget")
    assert both.returncode == 2
    assert run_cli(env, "keys", "set-limits", made["id"]).returncode == 2
    bad = run_cli(
        env, "keys", "set-limits", made["id"], "--budget-usd", "1", "--budget-period", "week"
    )
    assert bad.returncode == 2


@pytest.mark.postgres
async def test_two_processes_accept_exactly_the_budget_and_kill_9_keeps_it(
    tmp_path: Path, postgres_url: str
) -> None:
    assert "house-paid" in CATALOG
    env = cli_env(
        tmp_path / "data",
        postgres_url,
        VIDROUTER_CATALOG=str(write_catalog(tmp_path)),
        VIDROUTER_WORKERS="0",  # generations stay unfinished: their estimates are the spend
    )
    made = create_key(env, "two processes")
    limits = run_cli(env, "keys", "set-limits", made["id"], "--budget-usd", str(10 * EACH))
    assert limits.returncode == 0, limits.stderr
    servers = [ApiOnlyServer(env), ApiOnlyServer(env)]
    headers = {"Authorization": f"Bearer {made['key']}"}
    try:
        await asyncio.gather(*(s.start() for s in servers))
        async with httpx.AsyncClient(timeout=30) as http:
            answers = await asyncio.gather(
                *(
                    http.post(
                        f"{servers[i % 2].base_url}/v1/generations", json=BODY, headers=headers
                    )
                    for i in range(20)
                )
            )
            codes = sorted(r.status_code for r in answers)
            assert codes == [202] * 10 + [402] * 10, [r.text for r in answers]

            # The reservations are rows: a kill -9 of one process loses none of them.
            servers[0].kill9()
            left = await http.get(f"{servers[1].base_url}/v1/models", headers=headers)
            assert left.headers[HEADER] == "0"
            more = await http.post(
                f"{servers[1].base_url}/v1/generations", json=BODY, headers=headers
            )
            assert more.status_code == 402
            listed = await http.get(
                f"{servers[1].base_url}/v1/generations?limit=100", headers=headers
            )
            assert len(listed.json()["data"]) == 10
    finally:
        for server in servers:
            server.stop()
