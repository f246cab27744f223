"""Budgets are finite amounts of USD, shown as money: the CLI refuses Infinity, NaN, 1e400
and amounts below a micro-dollar (exit 2, as a subprocess), the store refuses them too, and
the API's `X-Budget-Remaining-USD` is a plain decimal, never `inf`."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import update

from tests.support.harness import running, test_settings
from tests.support.process import VIDROUTER, cli_env
from vidrouter.store.budgets import Budget, BudgetStore
from vidrouter.store.tables import api_keys

pytestmark = pytest.mark.system
HEADER = "X-Budget-Remaining-USD"


def test_the_cli_refuses_budgets_that_are_not_money_and_prints_money(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    refused = [
        ("keys", "set-limits", "{key}", "--budget-usd", "inf"),
        ("keys", "set-limits", "{key}", "--budget-usd", "nan"),
        ("keys", "set-limits", "{key}", "--budget-usd", "1e-320"),
        ("accounts", "set-budget", "{account}", "--budget-usd", "Infinity"),
    ]
    created = subprocess.run(
        [*VIDROUTER, "keys", "create", "--name", "n", "--json"], env=env, capture_output=True,
        text=True, timeout=120, check=True,
    )  # fmt: skip
    made = json.loads(created.stdout)
    names = {"key": made["id"], "account": made["account_id"]}
    accepted = [
        ("keys", "set-limits", "{key}", "--budget-usd", "0.000123", "--json"),
        ("keys", "set-limits", "{key}", "--budget-usd", "0.000123"),
    ]
    procs = [
        subprocess.Popen(
            [*VIDROUTER, *(a.format(**names) for a in args)],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for args in refused + accepted[:1]
    ]
    results = [(p.wait(120), *p.communicate()) for p in procs]
    for args, (code, out, err) in zip(refused, results, strict=False):
        assert code == 2, (args, code, out, err)
        assert "budget" in err and "Traceback" not in err, err
    code, out, err = results[-1]
    assert code == 0, err
    assert json.loads(out)["budget"]["limit_usd"] == 0.000123  # JSON, not Infinity
    human = subprocess.run(
        [*VIDROUTER, *(a.format(**names) for a in accepted[1])], env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert human.returncode == 0, human.stderr
    assert "$0.000123" in human.stdout and "e-" not in human.stdout, human.stdout


async def test_the_store_refuses_what_json_cannot_carry(tmp_path: Path) -> None:
    async with running(test_settings(tmp_path / "data"), workers=False) as app:
        key = await app.new_key()
        budgets = BudgetStore(app.service.db)
        for amount in (math.inf, math.nan, 1e400, 1e-320, -1.0):
            with pytest.raises(ValueError, match="budget"):
                await budgets.set_key_budget(key.key.id, Budget(amount, "total"))
        assert await budgets.set_key_budget(key.key.id, Budget(0.000001, "total"))
        response = await app.client.get("/v1/models", headers=app.auth(key))
        assert response.headers[HEADER] == "0.000001"


async def test_a_row_holding_infinity_sends_no_header_rather_than_inf(tmp_path: Path) -> None:
    settings = test_settings(tmp_path / "data", key_cache_seconds=0.0)
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        # As a CLI before budgets were checked wrote it.
        async with app.service.db.write() as conn:
            values = {"budget_usd": math.inf, "budget_period": "total"}
            await conn.execute(update(api_keys).where(api_keys.c.id == key.key.id).values(values))
        response = await app.client.get("/v1/models", headers=app.auth(key))
        assert response.status_code == 200 and HEADER not in response.headers
