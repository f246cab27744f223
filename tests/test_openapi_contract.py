"""The OpenAPI document is the truth: schemathesis fuzzes every operation of a real running
server (examples, coverage, fuzzing and stateful phases) and finds no 5xx, no undocumented
status, no response that violates its schema, no invalid request accepted, no valid request
refused, and a 405 with `Allow` for every method an operation does not list."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tests.support import images
from tests.support.harness import assert_error, running, test_settings
from tests.support.process import ServeProcess, cli_env, create_key

CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "response_headers_conformance",
        "negative_data_rejection",
        # What the outside clients found (issue 14): a request the document allows is
        # accepted, and a method it does not list is a 405 with Allow.
        "positive_data_acceptance",
        "unsupported_method",
    ]
)


async def test_openapi_document_has_no_422_and_declares_errors(tmp_path: Path) -> None:
    async with running(test_settings(tmp_path / "data"), workers=False) as app:
        doc = (await app.client.get("/openapi.json")).json()
    assert "HTTPValidationError" not in doc["components"]["schemas"]
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], (method, path)
            if path.startswith("/v1/") and "provider-callbacks" not in path:
                assert "401" in operation["responses"], (method, path)


async def test_schemathesis_finds_nothing(tmp_path: Path) -> None:
    binary = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    if binary is None:
        pytest.skip("schemathesis is not installed (it is in the dev extras)")
    env = cli_env(tmp_path / "data")
    # Limits no fuzzer reaches: with the default ones most operations answered 429 and
    # went untested behind it.
    key = create_key(env, "test", "--rpm", "1000000", "--max-concurrent", "100000")
    server = ServeProcess(env)
    try:
        await server.start()
        result = subprocess.run(
            [
                binary,
                "run",
                server.base_url + "/openapi.json",
                "-H",
                f"Authorization: Bearer {key['key']}",
                "--checks",
                CHECKS,
                "--max-examples",
                "15",
                "--seed",
                "20261122",
                "--no-color",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.support.schemathesis_hooks"},
            cwd=Path(__file__).parent.parent,
            timeout=600,
            check=False,
        )
    finally:
        server.stop()
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "passed" in result.stdout


async def test_the_form_says_which_type_takes_a_file_and_what_an_image_is(tmp_path: Path) -> None:
    """What a fuzzer cannot check in a multipart body (a rule over a file part) is said by
    branches, and an image data URI has the pattern the create checks."""
    async with running(test_settings(tmp_path / "data"), workers=False) as app:
        doc = (await app.client.get("/openapi.json")).json()
        create = doc["paths"]["/v1/videos"]["post"]["requestBody"]["content"]
        form = Draft202012Validator(create["multipart/form-data"]["schema"])
        body = {"model": "local-preview", "prompt": "p", "seconds": "4"}
        assert form.is_valid({**body, "input_reference": "file"})
        assert form.is_valid({**body, "type": "image-to-video", "input_reference": "file"})
        assert form.is_valid({"prompt": "p", "input_reference": "file"})  # the default model
        assert not form.is_valid({**body, "type": "text-to-video", "input_reference": "file"})
        assert not form.is_valid({**body, "type": "image-to-video"})
        for branch in create["multipart/form-data"]["schema"]["oneOf"]:
            assert "input_reference" not in str(branch.get("allOf", []))

        generations = doc["paths"]["/v1/generations"]["post"]["requestBody"]["content"]
        json = Draft202012Validator(generations["application/json"]["schema"])
        png = "data:image/png;base64," + base64.b64encode(images.png(8, 8)).decode()
        asked = {"model": "local-preview", "prompt": "p", "type": "image-to-video"}
        assert json.is_valid({**asked, "image_url": png})
        for broken in ("data:image/png;base64,", png[:-1], png.replace("iVBOR", "AAAA")):
            assert not json.is_valid({**asked, "image_url": broken})
            key = await app.new_key()
            refused = await app.create(key, **{**asked, "image_url": broken})
            assert assert_error(refused, 400, "image_url_invalid")["param"] == "image_url"
