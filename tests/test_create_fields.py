"""The create request is declared once (`domain/create_fields.py`): the parser's accepted
fields, the generation's controls, the OpenAPI document's create bodies, the `/v1/videos`
mapping and the Python client's keywords all follow from that declaration."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any, get_type_hints

import pytest

from tests.support.harness import running, test_settings
from vidrouter.api import openai_videos_map as videos
from vidrouter.client._core import CreateOptions
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.controls import CONTROL_FIELDS, OPTIONAL_CONTROLS, Controls
from vidrouter.domain.create_fields import (
    CONTROLS,
    CREATE_FIELDS,
    FIELD_NAMES,
    SAME,
    CreateBody,
    Kind,
    Rule,
    declared,
)
from vidrouter.domain.create_request import RequestLimits, parse_create
from vidrouter.domain.errors import InvalidRequest


def test_the_declaration_lists_every_field_once_in_order() -> None:
    # The order an unknown field's error lists them in.
    assert ", ".join(FIELD_NAMES) == (
        "model, prompt, duration, aspect_ratio, type, image_url, references, video, webhook_url, "
        "metadata, routing, cache, resolution, negative_prompt, seed, generate_audio, end_image_url, "
        "enhance_prompt"
    )
    assert [f.name for f in CREATE_FIELDS if f.required] == ["model", "prompt"]
    # The generation's controls are the declared ones, one attribute each.
    assert {f.name for f in fields(Controls)} == set(CONTROL_FIELDS)
    assert tuple(f.name for f in CONTROLS) == CONTROL_FIELDS
    assert tuple(f.name for f in CONTROLS if f.rule.supports) == OPTIONAL_CONTROLS


def test_a_new_field_is_one_declared_key() -> None:
    class WithCamera(CreateBody, total=False):
        camera_fixed: Annotated[bool | None, Rule(Kind.FLAG, supports=True)]

    [*same, camera] = declared(WithCamera, controls={*CONTROL_FIELDS, "camera_fixed"})
    assert same == list(CREATE_FIELDS)
    assert (camera.name, camera.json_type, camera.required, camera.control) == (
        "camera_fixed",
        "boolean",
        False,
        True,
    )
    assert camera.rule.videos == SAME  # taken by /v1/videos under its own name


def test_the_parser_accepts_the_declared_fields_and_names_them() -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_create({"model": "m", "prompt": "p", "colour": 1}, lambda _: None, RequestLimits())
    assert refused.value.param == "colour"
    assert refused.value.message.endswith("accepted: " + ", ".join(FIELD_NAMES))


def test_the_videos_api_takes_the_declared_fields_under_openais_names() -> None:
    expected = []
    for f in CREATE_FIELDS:
        if f.rule.videos is not None:
            expected.append(f.name if f.rule.videos == SAME else f.rule.videos)
    assert tuple(expected) == videos.FIELDS
    assert "webhook_url" not in videos.FIELDS and "seconds" in videos.FIELDS


def test_the_client_offers_every_optional_field_with_its_declared_type() -> None:
    offered = get_type_hints(CreateOptions)
    declared_types = get_type_hints(CreateBody)
    for f in CREATE_FIELDS:
        if f.required:  # positional: create(model, prompt, ...)
            assert f.name not in offered
            continue
        assert offered[f.name] == declared_types[f.name], f.name
    assert set(offered) - set(FIELD_NAMES) == {"image", "idempotency_key"}


async def test_the_openapi_create_bodies_document_the_declared_fields(tmp_path: Path) -> None:
    async with running(test_settings(tmp_path / "data"), workers=False) as app:
        doc = (await app.client.get("/openapi.json")).json()
        listed: list[ListedModel] = app.service.models.listed()
    paths = doc["paths"]
    generations = paths["/v1/generations"]["post"]["requestBody"]["content"]
    branches: list[dict[str, Any]] = generations["application/json"]["schema"]["oneOf"]
    assert [b["properties"]["model"]["const"] for b in branches] == [m.id for m in listed]
    documented = [f.name for f in CREATE_FIELDS if f.rule.documented]
    for branch in branches:
        assert list(branch["properties"]) == documented
    # The objects that show a generation show each declared control.
    for shape in ("GenerationOut", "VideoOut"):
        shown = doc["components"]["schemas"][shape]
        assert set(CONTROL_FIELDS) <= set(shown["properties"]) & set(shown["required"])
    video = paths["/v1/videos"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    for branch in video["oneOf"]:
        undocumented = {f.name for f in CREATE_FIELDS if not f.rule.documented}
        assert set(branch["properties"]) == set(videos.FIELDS) - undocumented
