"""One bounded JSON parser for every entry point: a JSON body and the JSON of a form field
refuse alike (depth, duplicate keys) with a 400 in our words, never a 500."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.harness import Harness, assert_error, running, test_settings

DEEP = 3000


@pytest.fixture
async def idle(tmp_path: Path) -> AsyncIterator[Harness]:
    async with running(test_settings(tmp_path / "data"), workers=False) as harness:
        yield harness


def deep_routing(depth: int) -> str:
    return '{"sort": ' * depth + '"price"' + "}" * depth


@pytest.mark.parametrize("encoding", ["multipart", "urlencoded"])
@pytest.mark.parametrize(
    ("routing", "says"),
    [
        (deep_routing(DEEP), "deeper than"),
        ("[" * DEEP + "]" * DEEP, "deeper than"),
        ('{"sort":"price","sort":"speed"}', "duplicate key 'sort'"),
        ('{"sort": NaN}', "NaN"),
        ("{", "Expecting"),
    ],
)
async def test_the_routing_form_field_is_parsed_like_a_json_body(
    idle: Harness, encoding: str, routing: str, says: str
) -> None:
    key = await idle.new_key()
    fields = {"model": "local-preview", "prompt": "a fox", "routing": routing}
    if encoding == "multipart":
        files = {name: (None, value) for name, value in fields.items()}
        response = await idle.client.post("/v1/videos", files=files, headers=idle.auth(key))
    else:
        response = await idle.client.post("/v1/videos", data=fields, headers=idle.auth(key))
    error = assert_error(response, 400, "parameter_invalid_type")
    assert error["param"] == "routing" and says in error["message"], error
    assert "recursion" not in error["message"]


@pytest.mark.parametrize("path", ["/v1/generations", "/v1/videos"])
@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('{"metadata": ' * 5000 + "{}" + "}" * 5000, "nests deeper than 32 levels"),
        ("[" * 100_000, "nests deeper than 32 levels"),
        ('{"model": "local-preview", "model": "x", "prompt": "p"}', "duplicate key 'model'"),
        # Brackets inside strings are text, not nesting.
        (json.dumps({"prompt": "[" * 5000, "model": "local-preview", "x": 1}), "'x'"),
    ],
)
async def test_json_bodies_refuse_depth_and_duplicates_in_our_words(
    idle: Harness, path: str, body: str, says: str
) -> None:
    key = await idle.new_key()
    headers = {**idle.auth(key), "Content-Type": "application/json"}
    response = await idle.client.post(path, content=body.encode(), headers=headers)
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert says in message and "recursion" not in message, message


async def test_a_routing_field_at_the_usual_depth_still_routes(idle: Harness) -> None:
    key = await idle.new_key()
    fields = {"model": "local-preview", "prompt": "a fox", "routing": '{"sort": "price"}'}
    response = await idle.client.post("/v1/videos", data=fields, headers=idle.auth(key))
    assert response.status_code == 200, response.text
    generation_id = response.json()["id"]
    stored = await idle.client.get(f"/v1/generations/{generation_id}", headers=idle.auth(key))
    assert stored.json()["routing"]["sort"] == "price"
