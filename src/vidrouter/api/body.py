"""Strict JSON bodies: no NaN or Infinity, no duplicate keys, valid UTF-8, an object."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

from vidrouter.domain import text
from vidrouter.domain.errors import InvalidRequest


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _bounded_int(digits: str) -> int:
    # int() of thousands of digits is slow and its error names Python internals.
    if len(digits.lstrip("-")) > text.MAX_INT_DIGITS:
        raise ValueError(f"a number has more than {text.MAX_INT_DIGITS} digits")
    return int(digits)


def parse_json(raw: bytes) -> object:
    if not raw.strip():
        raise InvalidRequest("the request body is empty; send a JSON object", code="invalid_json")
    try:
        decoded = json.loads(
            raw.decode("utf-8"),
            parse_constant=_no_constants,
            parse_int=_bounded_int,
            object_pairs_hook=_no_duplicates,
        )
    except UnicodeDecodeError as exc:
        raise InvalidRequest("the request body is not valid UTF-8", code="invalid_json") from exc
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(
            f"the request body is not valid JSON: {text.displayable(str(exc), 200)}",
            code="invalid_json",
        ) from exc
    text.check_json(decoded)
    return decoded


async def json_body(request: Request) -> object:
    return parse_json(await request.body())
