"""Strict JSON bodies: valid UTF-8, then `domain.json_text` (bounded depth, no NaN or
Infinity, no duplicate keys), then storable text."""

from __future__ import annotations

from fastapi import Request

from vidrouter.domain import json_text, text
from vidrouter.domain.errors import InvalidRequest


def parse_json(raw: bytes) -> object:
    if not raw.strip():
        raise InvalidRequest("the request body is empty; send a JSON object", code="invalid_json")
    try:
        decoded = json_text.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidRequest("the request body is not valid UTF-8", code="invalid_json") from exc
    except json_text.JsonTextError as exc:
        raise InvalidRequest(
            f"the request body is not valid JSON: {exc}", code="invalid_json"
        ) from exc
    text.check_json(decoded)
    return decoded


async def json_body(request: Request) -> object:
    return parse_json(await request.body())
