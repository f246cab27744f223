"""`X-Budget-Remaining-USD`: every /v1 response to a key with a budget (its own or its
account's) says what the key may still spend now, in USD: the least of what its budget and
its account's leave in their current periods. No header when neither has a budget.

The key is the one the authentication dependency found (`usecases.budgets.remember_key`);
the amount is summed when the response starts, so a create's answer already counts it.
The poll fast path leaves budgeted keys to the routed path, which passes through here.
"""

from __future__ import annotations

import logging
import math

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vidrouter.domain import money
from vidrouter.store.keys import ApiKey
from vidrouter.usecases.budgets import STATE_KEY, Budgets

HEADER = "X-Budget-Remaining-USD"
_RAW = HEADER.lower().encode()

log = logging.getLogger(__name__)


class BudgetHeader:
    """Pure ASGI middleware (outside the routes, inside the request id)."""

    def __init__(self, app: ASGIApp, budgets: Budgets) -> None:
        self.app = app
        self._budgets = budgets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return

        async def send_with_budget(message: Message) -> None:
            if message["type"] == "http.response.start":
                key = scope.get("state", {}).get(STATE_KEY)
                if isinstance(key, ApiKey) and key.budgeted:
                    value = await self._remaining(key)
                    if value is not None:
                        message["headers"] = [*message.get("headers", []), (_RAW, value)]
            await send(message)

        await self.app(scope, receive, send_with_budget)

    async def _remaining(self, key: ApiKey) -> bytes | None:
        try:
            left = await self._budgets.remaining(key)
        except Exception:  # a header must never fail the response (e.g. StoreError)
            log.warning("budget_header_failed", exc_info=True)
            return None
        if left is None or not math.isfinite(left):  # a row written before budgets were checked
            return None
        return money.decimal(left).encode()
