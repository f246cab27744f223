"""Every rule of POST /v1/generations: a 400 error object naming the param, never a 422/500."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.catalogs import TEXT_ONLY_MODEL, text_only_catalog
from tests.support.harness import Harness, running, test_settings

BASE = {"model": "local-preview", "prompt": "a cat"}


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"type", "code", "message", "param"}, body
    assert body["error"]["message"]
    return body["error"]  # type: ignore[no-any-return]


CASES: list[tuple[dict[str, Any], str, str]] = [
    # (body, param, code)
    ({"prompt": "x"}, "model", "parameter_missing"),
    ({"model": None, "prompt": "x"}, "model", "parameter_missing"),
    ({"model": 5, "prompt": "x"}, "model", "parameter_invalid_type"),
    ({"model": "no-such-model", "prompt": "x"}, "model", "model_not_found"),
    ({"model": "local-preview"}, "prompt", "parameter_missing"),
    ({**BASE, "prompt": ""}, "prompt", "prompt_empty"),
    ({**BASE, "prompt": "   \n"}, "prompt", "prompt_empty"),
    ({**BASE, "prompt": ["a"]}, "prompt", "parameter_invalid_type"),
    ({**BASE, "prompt": "x" * 4001}, "prompt", "prompt_too_long"),
    ({**BASE, "prompt": "a\x00b"}, "prompt", "prompt_invalid"),
    ({**BASE, "duration": "5"}, "duration", "parameter_invalid_type"),
    ({**BASE, "duration": True}, "duration", "parameter_invalid_type"),
    ({**BASE, "duration": 0}, "duration", "duration_invalid"),
    ({**BASE, "duration": -1}, "duration", "duration_invalid"),
    ({**BASE, "duration": 21}, "duration", "duration_too_long"),
    ({**BASE, "duration": 1e308}, "duration", "duration_too_long"),
    ({**BASE, "aspect_ratio": "4:3"}, "aspect_ratio", "aspect_ratio_unsupported"),
    ({**BASE, "aspect_ratio": 1.77}, "aspect_ratio", "parameter_invalid_type"),
    ({**BASE, "webhook_url": "not a url"}, "webhook_url", "url_invalid"),
    ({**BASE, "webhook_url": "ftp://example.com/x"}, "webhook_url", "url_invalid"),
    ({**BASE, "webhook_url": "/relative/path"}, "webhook_url", "url_invalid"),
    ({**BASE, "webhook_url": "https://u:p@example.com/x"}, "webhook_url", "url_invalid"),
    ({**BASE, "webhook_url": "https://example.com/" + "a" * 2048}, "webhook_url", "url_invalid"),
    ({**BASE, "webhook_url": 12}, "webhook_url", "parameter_invalid_type"),
    ({**BASE, "metadata": "x"}, "metadata", "parameter_invalid_type"),
    ({**BASE, "metadata": {"a": 1}}, "metadata.a", "metadata_invalid"),
    ({**BASE, "metadata": {str(i): "v" for i in range(17)}}, "metadata", "metadata_invalid"),
    ({**BASE, "metadata": {"k" * 41: "v"}}, "metadata." + "k" * 40, "metadata_invalid"),
    ({**BASE, "durtion": 5}, "durtion", "parameter_unknown"),
]


@pytest.mark.parametrize(
    ("body", "param", "code"), CASES, ids=[c[2] + ":" + c[1][:20] for c in CASES]
)
async def test_field_rule(app: Harness, body: dict[str, Any], param: str, code: str) -> None:
    key = await app.new_key()
    response = await app.create(key, **body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert error["type"] == "invalid_request_error"
    assert (error["param"], error["code"]) == (param, code)


async def test_duration_error_message_names_model_and_limit(app: Harness) -> None:
    key = await app.new_key()
    error = error_of(await app.create(key, **BASE, duration=25))
    assert error["message"] == "duration 25 exceeds max_duration 20 of model local-preview"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8080/hook",
        "http://10.0.0.5/hook",
        "http://192.168.1.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://2130706433/hook",
        "http://0177.0.0.1/hook",
        "http://0.0.0.0/hook",
        "http://100.64.0.1/hook",
        "http://[fd00:ec2::254]/hook",
        "http://app.localhost/hook",
    ],
)
async def test_private_webhook_urls_are_refused_by_default(tmp_path: Any, url: str) -> None:
    from tests.support.harness import running, test_settings

    settings = test_settings(tmp_path / "d", allow_private_webhook_urls=False)
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        error = error_of(await app.create(key, **BASE, webhook_url=url))
        assert (error["param"], error["code"]) == ("webhook_url", "url_forbidden")


async def test_an_image_for_a_model_that_takes_none_is_refused(tmp_path: Path) -> None:
    """`local-preview` takes every input now: a text-only model refuses the image, and
    `local-preview` accepts it."""
    settings = test_settings(tmp_path / "d", catalog=text_only_catalog(tmp_path))
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        image = {"image_url": "https://example.com/a.png"}
        error = error_of(await app.create(key, **{**BASE, **image, "model": TEXT_ONLY_MODEL}))
        assert (error["param"], error["code"]) == ("image_url", "image_not_supported")
        taken = await app.create(key, **BASE, **image)
        assert taken.status_code == 202 and taken.json()["type"] == "image-to-video", taken.text


async def test_public_webhook_url_is_accepted_when_private_ones_are_refused(tmp_path: Any) -> None:
    from tests.support.harness import running, test_settings

    settings = test_settings(tmp_path / "d", allow_private_webhook_urls=False)
    async with running(settings, workers=False) as app:
        key = await app.new_key()
        response = await app.create(key, **BASE, webhook_url="https://example.com/hook")
        assert response.status_code == 202, response.text


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"", "invalid_json"),
        (b"{", "invalid_json"),
        (b"[1, 2]", "invalid_body"),
        (b'"a string"', "invalid_body"),
        (b'{"model": "local-preview", "prompt": "x", "duration": NaN}', "invalid_json"),
        (b'{"model": "local-preview", "prompt": "x", "duration": Infinity}', "invalid_json"),
        (b'{"model": "local-preview", "prompt": "x", "prompt": "y"}', "invalid_json"),
        (b'{"model": "local-preview", "prompt": "\xff\xfe"}', "invalid_json"),
    ],
)
async def test_malformed_bodies(app: Harness, raw: bytes, code: str) -> None:
    key = await app.new_key()
    response = await app.client.post(
        "/v1/generations",
        content=raw,
        headers={**app.auth(key), "content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert error_of(response)["code"] == code


async def test_body_over_the_limit_is_413(app: Harness) -> None:
    key = await app.new_key()
    response = await app.client.post(
        "/v1/generations",
        content=b'{"model": "local-preview", "prompt": "' + b"x" * 1_100_000 + b'"}',
        headers={**app.auth(key), "content-type": "application/json"},
    )
    assert response.status_code == 413
    assert error_of(response)["code"] == "body_too_large"


async def test_defaults_fill_duration_and_aspect_ratio(app: Harness) -> None:
    key = await app.new_key()
    response = await app.create(key, **BASE)
    assert response.status_code == 202
    assert (response.json()["duration"], response.json()["aspect_ratio"]) == (5, "16:9")


async def test_fractional_duration_is_kept(app: Harness) -> None:
    key = await app.new_key()
    response = await app.create(key, **BASE, duration=2.5, aspect_ratio="1:1")
    assert response.status_code == 202
    assert (response.json()["duration"], response.json()["aspect_ratio"]) == (2.5, "1:1")


@pytest.mark.parametrize(
    ("path", "param"),
    [
        ("/v1/generations?limit=0", "limit"),
        ("/v1/generations?limit=101", "limit"),
        ("/v1/generations?limit=abc", "limit"),
        ("/v1/generations?status=done", "status"),
    ],
)
async def test_bad_query_parameters_are_400(app: Harness, path: str, param: str) -> None:
    key = await app.new_key()
    response = await app.client.get(path, headers=app.auth(key))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert error["param"] == param
    assert error["type"] == "invalid_request_error"


async def test_unknown_route_and_method_have_the_error_shape(app: Harness) -> None:
    key = await app.new_key()
    r = await app.client.get("/v1/nothing", headers=app.auth(key))
    assert r.status_code == 404 and error_of(r)["type"] == "not_found_error"
    r = await app.client.delete("/v1/models", headers=app.auth(key))
    assert r.status_code == 405 and error_of(r)["code"] == "method_not_allowed"
