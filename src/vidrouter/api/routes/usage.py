"""GET /v1/usage: the calling account's generations, outcomes and cost over a time range.

`from` and `to` are ISO 8601 dates or date-times (UTC unless they carry an offset); the range
is [from, to). A date alone means its whole UTC day: `from=2026-11-01&to=2026-11-30` is all
of November 1 to 30. Default: the 30 days up to now. `group_by` is `model` (default),
`route` (the host that served it; null: none did), `resolution` (what it was made at; null:
made before resolutions were recorded) or `day`; only groups with generations
are listed. Deleted generations count: usage is history.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from vidrouter.api.deps import ClockDep, CurrentKey, UsageDep
from vidrouter.api.schemas import Cost, ErrorOut
from vidrouter.domain.catalog import CURRENCY
from vidrouter.domain.clock import isoformat
from vidrouter.domain.errors import InvalidRequest
from vidrouter.store.usage import GroupBy, UsageRow, UsageTotal

router = APIRouter(prefix="/v1/usage", tags=["usage"])

DEFAULT_RANGE = timedelta(days=30)
_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


class UsageTotalOut(BaseModel):
    generations: int = Field(description="Generations created in the range.")
    completed: int
    failed: int
    billed_seconds: float = Field(description="Seconds of video billed (completed only).")
    cost: Cost
    cached: int = Field(
        description="Of the completed, those answered by the cache (at no cost).", default=0
    )


class UsageItemOut(UsageTotalOut):
    model: str | None = Field(default=None, description="With group_by=model.")
    route: str | None = Field(
        default=None,
        description="With group_by=route: the host that served it (null: none did).",
    )
    resolution: str | None = Field(
        default=None,
        description="With group_by=resolution: what it was made at (null: not recorded).",
    )
    day: str | None = Field(default=None, description="With group_by=day: YYYY-MM-DD (UTC).")


class UsageOut(BaseModel):
    object: Literal["usage"] = "usage"
    from_: str = Field(alias="from", examples=["2026-11-01T00:00:00.000Z"])
    to: str = Field(examples=["2026-12-01T00:00:00.000Z"])
    group_by: GroupBy
    data: list[UsageItemOut]
    total: UsageTotalOut


_BOUND = "An ISO 8601 date (2026-11-01: its whole UTC day) or date-time (2026-11-01T00:00:00Z)"


@router.get(
    "",
    response_model=None,
    responses={200: {"model": UsageOut}, 400: {"model": ErrorOut}, 401: {"model": ErrorOut}},
)
async def get_usage(
    usage: UsageDep,
    clock: ClockDep,
    key: CurrentKey,
    from_: Annotated[
        str | None, Query(alias="from", max_length=64, description=f"Start: {_BOUND}.")
    ] = None,
    to: Annotated[
        str | None, Query(max_length=64, description=f"End (a date-time is excluded): {_BOUND}.")
    ] = None,
    group_by: GroupBy = "model",
) -> JSONResponse:
    """Generations of the calling account, their outcomes and cost in a time range
    (default: the last 30 days), by model, by route (host), by resolution or by UTC day."""
    start, end = time_range(from_, to, now=clock())
    report = await usage.report(key.account_id, start=start, end=end, group_by=group_by)
    return JSONResponse(
        {
            "object": "usage",
            "from": isoformat(start),
            "to": isoformat(end),
            "group_by": group_by,
            "data": [{group_by: r.group, **_amounts(r)} for r in report.rows],
            "total": _amounts(report.total),
        }
    )


def time_range(start: str | None, end: str | None, *, now: datetime) -> tuple[datetime, datetime]:
    """[from, to) in UTC; a missing end is now, a missing start is 30 days before the end.
    A range whose end is not after its start is empty (an OpenAPI document cannot say that
    `to` must follow `from`, so no such request is refused)."""
    stop = parse_bound(end, "to", end=True) if end is not None else now
    if start is not None:
        begin = parse_bound(start, "from", end=False)
    else:
        begin = stop - DEFAULT_RANGE if stop - _EARLIEST > DEFAULT_RANGE else _EARLIEST
    return begin, stop


def parse_bound(value: str, param: str, *, end: bool) -> datetime:
    """An ISO 8601 date or date-time as an aware UTC datetime. A date is the start of its
    UTC day, or, for the end of a range, the start of the next day (the day is included)."""
    text = value.strip()
    try:
        if not any(c in text for c in "T :"):
            day = date.fromisoformat(text)
            moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
            if end:
                return moment + timedelta(days=1) if day < date.max else _LATEST
            return moment
        if "T" in text:  # an unescaped "+" of an offset arrives as a space in a query string
            text = text.replace(" ", "+")
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            return moment.replace(tzinfo=UTC)
        try:
            return moment.astimezone(UTC)
        except OverflowError:  # an offset past year 1 or 9999: the earliest or latest moment
            return _EARLIEST if moment.year == 1 else _LATEST
    except ValueError:
        raise InvalidRequest(
            f"{param} must be an ISO 8601 date (2026-11-01) or date-time "
            f"(2026-11-01T00:00:00Z), not {value[:64]!r}",
            code="parameter_invalid",
            param=param,
        ) from None


def _amounts(r: UsageRow | UsageTotal) -> dict[str, object]:
    return {
        "generations": r.generations,
        "completed": r.completed,
        "failed": r.failed,
        "billed_seconds": r.billed_seconds,
        "cost": {"amount": r.cost, "currency": CURRENCY},
        "cached": r.cached,
    }
