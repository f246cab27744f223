"""Each test's cost class, found from what it uses, so that nobody marks tests by hand.

- `system`: starts processes of its own (`vidrouter serve`, moto's S3 server, a browser, a
  spawned renderer, docker): the slowest; a module's run one after another.
- `integration`: the real app, a database or a server on a loopback port, in the test's
  own process.
- `unit`: plain code in the test's process, nothing served, no database.

The class is read from the names the test's code uses, with those of its fixtures and of the
test helpers (anything under `tests`) they call, two calls deep: a test whose code reaches
`subprocess` or `ServeProcess` is a system test, one that reaches `running` or `Database` an
integration test. A hand-written `pytest.mark.system` / `integration` / `unit` wins.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import pytest

COSTS = ("system", "integration", "unit")

SYSTEM_NAMES = frozenset(
    {
        "subprocess",
        "create_subprocess_exec",
        "Popen",
        "multiprocessing",
        "ServeProcess",
        "LiveServer",
        "live_server",
        "lossy_proxy",
        "sync_playwright",
        "async_playwright",
        "S3Server",
        "s3_server",
        "docker",
    }
)
INTEGRATION_NAMES = frozenset(
    {
        "running",
        "Harness",
        "serve_app",
        "serve_app_in_thread",
        "image_host",
        "Database",
        "fresh_pg_database",
        "create_pg_database",
        "ASGITransport",
        "create_app",
        "uvicorn",
        "asyncpg",
        "aiosqlite",
        "invoke_cli",  # a CLI command in the test's process: a database, a server's client
    }
)
# conftest's fixtures that are a database or the app by themselves.
INTEGRATION_FIXTURES = frozenset(
    {"app", "app_any_db", "db", "database_url", "pg_name", "postgres_url", "images"}
)
DEPTH = 2


def classify(item: pytest.Item) -> str:
    """The item's cost class: its own mark if it has one, else what its code uses."""
    for cost in COSTS:
        if item.get_closest_marker(cost) is not None:
            return cost
    names = used_names(item)
    if names & SYSTEM_NAMES:
        return "system"
    if names & INTEGRATION_NAMES or INTEGRATION_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "integration"
    return "unit"


def used_names(item: pytest.Item) -> set[str]:
    roots: list[Any] = []
    if (function := getattr(item, "function", None)) is not None:
        roots.append(function)
    if (info := getattr(item, "_fixtureinfo", None)) is not None:
        for name, defs in info.name2fixturedefs.items():
            for fixturedef in defs:
                if _ours(fixturedef.func):
                    roots.append(fixturedef.func)
                    roots.append(name)  # a fixture named like a system helper (`live_server`)
    names: set[str] = set()
    seen: set[int] = set()
    for root in roots:
        if isinstance(root, str):
            names.add(root)
        else:
            _walk(root, DEPTH, names, seen)
    return names


def _walk(obj: Any, depth: int, names: set[str], seen: set[int]) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    own = _code_names(obj)
    names.update(own)
    if depth == 0:
        return
    namespace = _namespace(obj)
    for name in own:
        found = namespace.get(name)
        if found is not None and _ours(found):
            _walk(found, depth - 1, names, seen)


def _code_names(obj: Any) -> set[str]:
    """The global and attribute names the object's code refers to, nested functions and a
    class's methods included."""
    obj = inspect.unwrap(obj) if inspect.isfunction(obj) else obj
    if inspect.isclass(obj):
        codes = [_code(member) for member in vars(obj).values()]
    else:
        codes = [_code(obj)]
    names: set[str] = set()
    while codes:
        code = codes.pop()
        if code is None:
            continue
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return names


def _code(obj: Any) -> types.CodeType | None:
    obj = getattr(obj, "__func__", obj)  # static and class methods
    obj = getattr(obj, "fget", obj)  # properties
    code = getattr(inspect.unwrap(obj) if callable(obj) else obj, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


def _namespace(obj: Any) -> dict[str, Any]:
    function = inspect.unwrap(obj) if inspect.isfunction(obj) else obj
    found = getattr(function, "__globals__", None)
    if isinstance(found, dict):
        return found
    module = inspect.getmodule(obj)
    return vars(module) if module is not None else {}


def _ours(obj: Any) -> bool:
    """A function or class of the test suite (not of vidrouter or a library)."""
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return False
    module = getattr(obj, "__module__", "") or ""
    return module == "conftest" or module.split(".")[0] in ("tests", "conftest")
