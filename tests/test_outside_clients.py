"""What clients nobody here wrote found (issue 14, point 5): every 405 names the allowed
methods (OpenAI's video operations too), and /openapi.json is as strict as
the server, so a client generated from it never sends a request that always fails."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.harness import Harness
from vidrouter.domain.catalog import load_catalog
from vidrouter.domain.create_request import URL_PATTERN, RequestLimits, parse_create
from vidrouter.domain.errors import InvalidRequest


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("POST", "/v1/videos/gen_x", "DELETE, GET"),
        ("PUT", "/v1/videos", "GET, POST"),
        ("DELETE", "/v1/models", "GET"),
        ("PATCH", "/v1/generations/gen_x/cancel", "POST"),
        ("POST", "/healthz", "GET"),
    ],
)
async def test_every_405_names_the_allowed_methods(
    app: Harness, method: str, path: str, allow: str
) -> None:
    key = await app.new_key()
    response = await app.client.request(method, path, headers=app.auth(key))
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow
    assert response.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize("name", ["edits", "extensions", "characters"])
async def test_openais_video_operations_are_served_and_405_other_methods(
    app: Harness, name: str
) -> None:
    """They fall inside /v1/videos/{video_id}: a PUT is a 405 naming POST, not a 404, and a
    POST is served (here refused for what it lacks, naming it)."""
    key = await app.new_key()
    put = await app.client.put(f"/v1/videos/{name}", headers=app.auth(key))
    assert put.status_code == 405, put.text
    assert put.headers["allow"] == "POST"
    post = await app.client.post(f"/v1/videos/{name}", json={}, headers=app.auth(key))
    assert post.status_code in (400, 415), post.text
    assert post.json()["error"]["code"] != "route_not_found"


async def test_openapi_is_as_strict_as_the_server(app: Harness) -> None:
    doc = (await app.client.get("/openapi.json")).json()
    create = doc["paths"]["/v1/videos"]["post"]["requestBody"]["content"]
    for media in ("application/json", "multipart/form-data"):
        for branch in create[media]["schema"]["oneOf"]:
            assert branch["additionalProperties"] is False
            assert branch["properties"]["prompt"]["minLength"] == 1
    content = doc["paths"]["/v1/videos/{video_id}/content"]["get"]
    [variant] = [p for p in content["parameters"] if p["name"] == "variant"]
    assert variant["schema"]["enum"] == ["video", "thumbnail", "spritesheet"]
    usage = doc["paths"]["/v1/usage"]["get"]["parameters"]
    for bound in (p for p in usage if p["name"] in ("from", "to")):
        assert {f["format"] for f in bound["schema"]["anyOf"]} == {"date", "date-time"}

    # And the server refuses what the document refuses.
    key = await app.new_key()
    for body in ({"prompt": "a fox", "colour": "red"}, {"prompt": ""}):
        response = await app.client.post("/v1/videos", json=body, headers=app.auth(key))
        assert response.status_code == 400, response.text


_URLS = re.compile(URL_PATTERN)
_LOCAL = load_catalog().find_listed("local-preview", lambda route: True)


@settings(max_examples=300, suppress_health_check=list(HealthCheck), deadline=None)
@given(url=st.from_regex(_URLS).filter(lambda u: len(u) <= 2048))
def test_every_url_the_document_allows_the_server_takes(url: str) -> None:
    """The document's URL pattern and the server's rule are one: anything it generates
    passes every other check the server makes (host, port, credentials, spaces)."""
    body = {"model": "local-preview", "prompt": "x", "webhook_url": url, "image_url": None}
    limits = RequestLimits(allow_private_webhook_urls=True)
    try:
        parse_create(body, lambda model_id: _LOCAL, limits)
    except InvalidRequest as exc:
        raise AssertionError(f"{url!r}: {exc.message}") from exc
