"""Amounts of USD as the service takes and shows them: a budget is a finite number of
dollars, kept to micro-dollars (the precision spend is rounded to), never Infinity or NaN
(which JSON cannot carry and a header should not); an amount is shown as money, `$0.50` or
`$0.000123`, never in exponent notation."""

from __future__ import annotations

import math

MAX_BUDGET_USD = 1_000_000_000.0
_DECIMALS = 6  # micro-dollars: what spend and remainders are rounded to


def check_budget(value: float) -> float:
    """`value` rounded to micro-dollars when it is a budget we can keep and show; else
    ValueError saying why (a positive amount below a micro-dollar would be kept as 0, which
    means nothing may be spent: not what was asked)."""
    if not math.isfinite(value):
        raise ValueError(f"a budget is a finite number of USD, not {value}")
    if not 0 <= value <= MAX_BUDGET_USD:
        raise ValueError(f"a budget is between 0 and {MAX_BUDGET_USD:,.0f} USD, not {value:g}")
    kept = round(value, _DECIMALS)
    if value > 0 and kept == 0:
        raise ValueError(f"a budget is at least $0.000001 (or 0), not {value:g}")
    return kept + 0.0


def usd(amount: float) -> str:
    """`$12.50`, `$0.000123`: cents always, micro-dollars when there are some."""
    return "$" + decimal(amount, cents=True)


def decimal(amount: float, *, cents: bool = False) -> str:
    """The amount as a plain decimal rounded to micro-dollars (`0.6`, or `0.60` with
    `cents`), never in exponent notation."""
    text = f"{round(amount, _DECIMALS) + 0.0:.{_DECIMALS}f}".rstrip("0")
    whole, _, fraction = text.partition(".")
    if cents:
        return f"{whole}.{fraction.ljust(2, '0')}"
    return f"{whole}.{fraction}" if fraction else whole
