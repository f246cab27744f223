"""The OpenAPI document, made true: FastAPI's 422 shape never leaves this service, and
every route declares the error statuses it can really answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from vidrouter.api import openapi_requests as requests
from vidrouter.domain.catalog import ListedModel
from vidrouter.domain.create_schema import prompt as prompt_schema
from vidrouter.domain.create_schema import shown_controls

_ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
_ERROR_SCHEMA = {
    "title": "ErrorOut",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "code", "message", "param"],
            "properties": {
                "type": {"type": "string"},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "param": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        }
    },
}
_DESCRIPTIONS = {
    "400": "Invalid request",
    "401": "Missing or invalid API key",
    "403": "Invalid or expired signature",
    "404": "Not found",
    "405": "Method not allowed",
    "409": "Conflict",
    "413": "Body too large",
    "429": "Rate or concurrency limit",
    "500": "Internal error (a bug)",
    "503": "No healthy provider for the model",
}


def _error(status: str) -> dict[str, Any]:
    return {
        "description": _DESCRIPTIONS.get(status, "Error"),
        "content": {"application/json": {"schema": _ERROR_REF}},
    }


def install(
    app: FastAPI,
    *,
    models: Callable[[], list[ListedModel]],
    max_prompt_chars: int,
    max_batch_lines: int,
) -> None:
    """`models`: those listed on this server (the create bodies are described per model)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        components = doc.setdefault("components", {})
        schemas = components.setdefault("schemas", {})
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        schemas["ErrorOut"] = _ERROR_SCHEMA
        for shape in ("GenerationOut", "VideoOut"):
            _show_controls(schemas[shape])
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        for path, operations in doc.get("paths", {}).items():
            for method, operation in operations.items():
                _complete(path, method, operation)
        _describe_requests(doc, models(), max_prompt_chars, max_batch_lines)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def _describe_requests(
    doc: dict[str, Any], models: list[ListedModel], max_chars: int, max_lines: int
) -> None:
    """The request shapes this server really accepts (see `openapi_requests`)."""
    paths = doc["paths"]
    body = paths["/v1/generations"]["post"]["requestBody"]["content"]["application/json"]
    body["schema"] = requests.generation_create(models, max_chars)
    body = paths["/v1/batches"]["post"]["requestBody"]["content"]["application/json"]
    body["schema"] = requests.batch_create(models, max_chars, max_lines)
    content = paths["/v1/videos"]["post"]["requestBody"]["content"]
    videos = requests.video_create(models, max_chars)
    content["application/json"]["schema"], content["multipart/form-data"]["schema"] = videos
    _describe_video_ops(paths, models, max_chars)
    for operations in paths.values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    _no_nul(parameter["schema"])
    for parameter in paths["/v1/usage"]["get"]["parameters"]:
        if parameter["name"] in ("from", "to"):
            parameter["schema"] = {**requests.USAGE_BOUND, "description": parameter["description"]}


def _describe_video_ops(paths: dict[str, Any], models: list[ListedModel], max_chars: int) -> None:
    """The prompt of remix, edits and extensions as on a create; an extension's `seconds`:
    those every listed model that extends takes (the source's model is not known here)."""
    extending = [m for m in models if "video-extend" in m.capabilities]
    taken = [set(requests.seconds_of(m)) for m in extending]
    seconds = sorted(set.intersection(*taken) if taken else set(), key=float)
    for path in ("/v1/videos/{video_id}/remix", "/v1/videos/edits", "/v1/videos/extensions"):
        body = paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        body["properties"]["prompt"] = prompt_schema(max_chars)
        if "seconds" in body["properties"]:
            body["properties"]["seconds"] = {"type": "string", "enum": seconds or ["4"]}


def _show_controls(schema: dict[str, Any]) -> None:
    """The controls, from their declaration, in a response object that shows them."""
    shown = shown_controls()
    schema["properties"] = {**shown, **schema["properties"]}
    schema["required"] = [*shown, *schema.get("required", [])]


def _no_nul(schema: dict[str, Any]) -> None:
    """A free string query parameter cannot hold NUL (refused before any route: the
    databases refuse it)."""
    for branch in schema.get("anyOf", [schema]):
        if branch.get("type") == "string" and not {"enum", "const", "pattern", "format"} & set(
            branch
        ):
            branch["pattern"] = requests.NO_NUL


def _complete(path: str, method: str, operation: dict[str, Any]) -> None:
    responses: dict[str, Any] = operation.setdefault("responses", {})
    responses.pop("422", None)
    statuses = {"400", "413", "500"}
    if path.startswith("/v1/") and not path.startswith("/v1/provider-callbacks"):
        operation["security"] = [{"bearer": []}]
        statuses |= {"401", "429"}
    if "{" in path:
        statuses.add("404")
    if path.startswith("/v1/provider-callbacks"):
        statuses.add("404")
    for status in statuses:
        existing = responses.get(status)
        if existing is None or "content" not in existing:
            responses[status] = _error(status)
        else:
            existing["content"] = {"application/json": {"schema": _ERROR_REF}}
