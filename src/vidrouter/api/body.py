"""Strict JSON bodies: no NaN or Infinity, no duplicate keys, valid UTF-8, an object."""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request

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


def parse_json(raw: bytes) -> object:
    if not raw.strip():
        raise InvalidRequest("the request body is empty; send a JSON object", code="invalid_json")
    try:
        text = raw.decode("utf-8")
        return json.loads(text, parse_constant=_no_constants, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        raise InvalidRequest("the request body is not valid UTF-8", code="invalid_json") from exc
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(
            f"the request body is not valid JSON: {exc}", code="invalid_json"
        ) from exc


async def json_body(request: Request) -> object:
    return parse_json(await request.body())
