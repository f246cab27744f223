"""The client's types (`vidrouter.client.types`) are its own copy of the wire format, so that
the client does not depend on the server's code; these tests hold the copy to the server's
OpenAPI document and to what the server really sends."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from tests.support.harness import Harness
from vidrouter.client import (
    Batch,
    BatchPage,
    BatchResult,
    ErrorObject,
    Generation,
    GenerationPage,
    Model,
    ModelList,
    Usage,
)
from vidrouter.client.types import TERMINAL

# Fields the server sends that its OpenAPI document does not describe (yet): the client
# reads them all the same. An entry here that the document gains later does no harm.
UNDOCUMENTED = {"Model": {"status"}, "Generation": {"route", "attempts"}}


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return _resolve(doc, schema["allOf"][0])
    return schema


def _response(doc: dict[str, Any], method: str, pattern: str) -> dict[str, Any]:
    """The 2xx JSON schema of the operation whose path matches `pattern` (found by shape, not
    by the server's Python class names, which may change)."""
    for path, operations in doc["paths"].items():
        if re.fullmatch(pattern, path) and method in operations:
            for status, response in operations[method]["responses"].items():
                if status.startswith("2"):
                    return _resolve(doc, response["content"]["application/json"]["schema"])
    raise AssertionError(f"no {method} {pattern} in the OpenAPI document")


def _fields(model: type[BaseModel]) -> dict[str, bool]:
    """The wire names of a client type and whether each is required."""
    return {(f.alias or name): f.is_required() for name, f in model.model_fields.items()}


def _assert_matches(
    doc: dict[str, Any], schema: dict[str, Any], model: type[BaseModel], nested: dict[str, Any]
) -> None:
    documented = set(schema["properties"])
    client = _fields(model)
    assert documented <= set(client), f"{model.__name__} lacks {documented - set(client)}"
    extra = set(client) - documented - UNDOCUMENTED.get(model.__name__, set())
    assert not extra, f"{model.__name__} has fields the server does not document: {extra}"
    for name, required in client.items():
        if required:  # the client never insists on something the document calls optional
            assert name in schema.get("required", []), f"{model.__name__}.{name}"
    for name, (inner, sub_model) in nested.items():
        _assert_matches(doc, _resolve(doc, schema["properties"][name] | inner), sub_model, {})


async def test_client_types_match_the_openapi_document(app: Harness) -> None:
    doc = (await app.client.get("/openapi.json")).json()
    generation = _response(doc, "get", r"/v1/generations/\{[^}/]+\}")
    _assert_matches(doc, generation, Generation, {})
    listing = _response(doc, "get", r"/v1/generations")
    _assert_matches(doc, listing, GenerationPage, {})
    assert _resolve(doc, listing["properties"]["data"]["items"]) == generation
    one_model = _response(doc, "get", r"/v1/models/\{[^}/]+\}")
    _assert_matches(doc, one_model, Model, {})
    _assert_matches(doc, _response(doc, "get", r"/v1/models"), ModelList, {})
    _assert_matches(doc, _response(doc, "get", r"/v1/usage"), Usage, {})
    batch = _response(doc, "get", r"/v1/batches/\{[^}/]+\}")
    _assert_matches(doc, batch, Batch, {})
    _assert_matches(doc, _response(doc, "get", r"/v1/batches"), BatchPage, {})
    status = generation["properties"]["status"]
    values = set(status.get("enum", [])) or {
        v for s in status.get("anyOf", []) for v in s.get("enum", [])
    }
    assert TERMINAL < values == {"queued", "in_progress", "completed", "failed", "canceled"}
    error = doc["components"]["schemas"]["ErrorOut"]["properties"]["error"]
    assert set(_resolve(doc, error)["properties"]) == set(_fields(ErrorObject))


async def test_client_types_read_every_field_the_server_sends(app: Harness) -> None:
    key = await app.new_key()
    made = await app.create(key, model="local-preview", prompt="schema", duration=1)
    done = await app.wait_for(key, made.json()["id"])
    assert set(done) <= set(_fields(Generation)), set(done) - set(_fields(Generation))
    parsed = Generation.model_validate(done)
    assert parsed.status == "completed" and parsed.attempts and parsed.cost is not None

    models = (await app.client.get("/v1/models", headers=app.auth(key))).json()
    for item in models["data"]:
        assert set(item) <= set(_fields(Model)), set(item) - set(_fields(Model))
    assert ModelList.model_validate(models).data

    usage = (await app.client.get("/v1/usage?group_by=day", headers=app.auth(key))).json()
    assert Usage.model_validate(usage).total.generations == 1
    line = {"custom_id": "x", "model": "local-preview", "prompt": "schema", "duration": 0.5}
    made = await app.client.post("/v1/batches", json={"lines": [line]}, headers=app.auth(key))
    assert set(made.json()) <= set(_fields(Batch)), set(made.json()) - set(_fields(Batch))
    assert Batch.model_validate(made.json()).total == 1
    listed = await app.client.get("/v1/batches", headers=app.auth(key))
    assert BatchPage.model_validate(listed.json()).data[0].id == made.json()["id"]
    results = await app.client.get(
        f"/v1/batches/{made.json()['id']}/results", headers=app.auth(key)
    )
    for text in results.text.splitlines():
        assert BatchResult.model_validate_json(text).custom_id == "x"
    refused = (await app.client.get("/v1/models", headers=app.auth("vr_nope"))).json()
    assert ErrorObject.model_validate(refused["error"]).code == "invalid_api_key"
