"""Issue 15: a hostile-input fuzz pass over both APIs, on both databases.

Our own generator (schemathesis, in test_openapi_contract.py, draws from the schema and so
rarely from what the schema forbids): lone surrogates, NUL, invalid UTF-8, huge and tiny
numbers, over-long strings, invisible text and wrong types, in every field of both create
APIs (JSON and multipart), every path id and every query parameter. Deterministic (a fixed
seed) and bounded (a few hundred requests per database, without workers, so nothing is
rendered). Every answer must be below 500 and every 4xx the documented error object.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.harness import Harness, running, test_settings

SEED = 15
ROUNDS = 40

HOSTILE_TEXT = [
    "\ud800",
    "a\udfffb",
    "\udbff\udc00\ud800",
    "\x00",
    "gen_\x00",
    "a\x00b",
    "x" * 100_000,
    "\u200b\u200c\u200d\u2060\ufeff",
    "",
    " \t\n",
    "\U0001f600" * 2000,
    "\uffff\ufffe",
    "%00",
    "../../../etc/passwd",
    "data:image/png;base64,\x00",
    "data:image/png;base64," + "A" * 50_000,
    "http://127.0.0.1/\x00",
    "https://example.com/" + "a" * 3000,
    "\\u0000",
    "'; DROP TABLE generations; --",
]
VALID_TEXT = ["local-preview", "a red fox", "16:9", "4", "1280x720", "https://example.com/a.png"]
NUMBERS = [
    "1e400",
    "-1e400",
    "1e-300",
    "0.001",
    "-0",
    "0",
    "1",
    "1.5",
    "1e308",
    "1" + "0" * 40,
    "9" * 5000,
    "-" + "9" * 4301,
    "123456789012345678901234567890",
]
OTHER = [
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '{"a": {"b": [1, "\\u0000"]}}',
    "[" * 40 + "]" * 40,
    # Shaped like the inputs (references, a source), broken inside; no URL a fetch could
    # leave this machine for.
    '[{"type": "image", "url": "data:image/png;base64,!!"}]',
    '[{"type": "video", "url": {"url": [null]}}, 5]',
    '{"generation_id": "gen_\\u0000"}',
    '{"url": "data:video/mp4;base64,AAAA"}',
    '{"url": {"url": {"url": []}}}',
]

GENERATION_FIELDS = [
    "model",
    "prompt",
    "duration",
    "aspect_ratio",
    "image_url",
    "end_image_url",
    "webhook_url",
    "metadata",
    "type",
    "references",
    "video",
]
VIDEO_FIELDS = [
    "model",
    "prompt",
    "seconds",
    "size",
    "input_reference",
    "type",
    "references",
    "video",
]
FORM_BYTES = [b"\xff\xfe", b"\xed\xa0\x80", b"\x00", b"a" * 200_000, b"\xc3", b"4", b"p"]


def text_token(rng: random.Random) -> str:
    return json.dumps(rng.choice(HOSTILE_TEXT + VALID_TEXT), ensure_ascii=True)


def value_token(rng: random.Random, depth: int = 0) -> str:
    kind = rng.random()
    if kind < 0.5:
        return text_token(rng)
    if kind < 0.75:
        return rng.choice(NUMBERS)
    if kind < 0.9 or depth > 1:
        return rng.choice(OTHER)
    pairs = [f"{text_token(rng)}: {value_token(rng, depth + 1)}" for _ in range(rng.randint(0, 3))]
    return "{" + ", ".join(pairs) + "}"


def body(rng: random.Random, fields: list[str]) -> bytes:
    names = rng.sample(fields, rng.randint(1, len(fields)))
    if rng.random() < 0.2:
        names.append(rng.choice(HOSTILE_TEXT))  # an unknown field, named hostilely
    pairs = [f"{json.dumps(n, ensure_ascii=True)}: {value_token(rng)}" for n in names]
    return ("{" + ", ".join(pairs) + "}").encode("ascii")


def path_part(rng: random.Random) -> str:
    raw = rng.choice([*HOSTILE_TEXT, "gen_" + "a" * 24, "gen_", "gen_%", "gen_/x"])
    return quote(raw[:1000].encode("utf-8", "surrogatepass"), safe="")  # httpx: URLs < 64 KiB


def query(rng: random.Random, names: list[str]) -> dict[str, str]:
    values = [*HOSTILE_TEXT[:6], *NUMBERS, "", "queued", "gen_x", "asc", "day", "2026-01-01"]
    chosen = rng.sample(names, rng.randint(1, len(names)))
    return {n: quote(rng.choice(values).encode("utf-8", "surrogatepass"), safe="") for n in chosen}


def requests(rng: random.Random) -> list[tuple[str, str, dict[str, Any]]]:
    out: list[tuple[str, str, dict[str, Any]]] = []
    for _ in range(ROUNDS):
        out.append(("POST", "/v1/generations", {"content": body(rng, GENERATION_FIELDS)}))
        out.append(("POST", "/v1/videos", {"content": body(rng, VIDEO_FIELDS)}))
        form = {
            name: (None, rng.choice(FORM_BYTES))
            for name in rng.sample([*VIDEO_FIELDS, "input_reference[image_url]", "x\x00"], 3)
        }
        out.append(("POST", "/v1/videos", {"files": form}))
        part = path_part(rng)
        out.append(("GET", f"/v1/generations/{part}", {}))
        out.append(("POST", f"/v1/generations/{part}/cancel", {}))
        out.append(("GET", f"/v1/videos/{part}", {}))
        out.append(("DELETE", f"/v1/videos/{part}", {}))
        out.append(("GET", f"/v1/videos/{part}/content", {}))
        out.append(("GET", f"/v1/models/{part}", {}))
        out.append(("GET", f"/content/videos/{part}.mp4", {"query": query(rng, ["expires"])}))
        names = ["limit", "after", "status", "model"]
        out.append(("GET", "/v1/generations", {"query": query(rng, names)}))
        out.append(("GET", "/v1/videos", {"query": query(rng, ["limit", "after", "order"])}))
        out.append(("GET", "/v1/usage", {"query": query(rng, ["from", "to", "group_by"])}))
    return out


@pytest.fixture
async def api(tmp_path: Path, database_url: str) -> AsyncIterator[Harness]:
    settings = test_settings(tmp_path / "data", database_url)
    async with running(settings, workers=False) as harness:
        yield harness


async def test_hostile_input_never_gets_a_500(api: Harness) -> None:
    key = await api.new_key()
    rng = random.Random(SEED)
    answered = 0
    for method, path, options in requests(rng):
        url = path
        if "query" in options:
            url += "?" + "&".join(f"{n}={v}" for n, v in options["query"].items())
        # All bytes: httpx's headers are typed all str or all bytes (the raw key is bytes).
        headers = {name.encode(): value.encode() for name, value in api.auth(key).items()}
        if method == "POST" and rng.random() < 0.3:
            keys = [b"k", b"\x7f", b"\x00", b"k" * 300, "é".encode("latin-1")]
            headers[b"Idempotency-Key"] = rng.choice(keys)
        response = await api.client.request(
            method,
            url,
            content=options.get("content"),
            files=options.get("files"),
            headers=headers,
        )
        where = f"{method} {url[:200]} {str(options)[:300]}"
        assert response.status_code < 500, f"{where}: {response.status_code} {response.text[:500]}"
        if response.status_code >= 400:
            error = response.json()["error"]
            assert set(error) == {"type", "code", "message", "param"}, where
            assert all(isinstance(error[k], str) for k in ("type", "code", "message")), where
            assert "sys.set_int_max_str_digits" not in error["message"], where
        answered += 1
    assert answered == ROUNDS * 13
