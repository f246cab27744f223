"""Logs: human-readable lines (default) or, with `VIDROUTER_LOG_FORMAT=json`, one JSON object
per line with the request id, generation id and route of whatever the line is about.

Every line, in either format, goes out with its URLs' query strings and credentials redacted
(`observability/redact.py`), and httpx's and httpcore's loggers (a line per request, the URL
whole) are kept to warnings.

Those three come from context variables set where the work starts (the HTTP middleware, the
generation worker), so every log call inside sees them without passing them down; an
`extra={"generation_id": ...}` given to one call wins over the context.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, Literal

from vidrouter.observability.redact import redact_urls

LogFormat = Literal["text", "json"]

request_id_var: ContextVar[str | None] = ContextVar("vidrouter_request_id", default=None)
generation_id_var: ContextVar[str | None] = ContextVar("vidrouter_generation_id", default=None)
route_var: ContextVar[str | None] = ContextVar("vidrouter_route", default=None)

# The attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "taskName",
}


@contextmanager
def log_context(*, generation_id: str | None = None, route: str | None = None) -> Iterator[None]:
    """Lines logged inside are about this generation (and route, when known)."""
    tokens = [generation_id_var.set(generation_id)]
    if route is not None:
        tokens.append(route_var.set(route))
    try:
        yield
    finally:
        if route is not None:
            route_var.reset(tokens.pop())
        generation_id_var.reset(tokens[0])


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name, var in (
            ("request_id", request_id_var),
            ("generation_id", generation_id_var),
            ("route", route_var),
        ):
            value = var.get()
            if value is not None:
                line[name] = value
        for name, value in record.__dict__.items():
            if name not in _STANDARD and not name.startswith("_"):
                line[name] = value if _plain(value) else repr(value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return redact_urls(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return redact_urls(super().format(record))


_QUIET = ("httpx", "httpcore")


def _plain(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool | list | dict)


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    """The root logger's one handler, on stderr; uvicorn's loggers propagate to it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Their INFO and DEBUG lines are one per request (a webhook, a provider poll): noise, and
    # each carries the URL whole. Warnings still come through (redacted, as every line).
    for noisy in _QUIET:
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
