"""The layer rule of docs/architecture.md, checked on the source: imports point down.

Every top-level package of `vidrouter` has a floor; a module may import its own package and
packages on lower floors, nothing else. Read from the import statements (`ast`), so an
import under `if TYPE_CHECKING:` or inside a function counts as well.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "vidrouter"

# The floors, lowest first; keep in step with the table in docs/architecture.md.
FLOORS: dict[str, int] = {
    "__init__": 0,  # the version
    "domain": 0,
    "catalog": 0,  # the shipped catalog files (data)
    "settings": 1,
    "net": 1,
    "storage": 1,
    "store": 1,
    "observability": 1,
    "client": 1,  # the Python client: talks HTTP to a server, shares only domain values
    "providers": 2,
    "webhooks": 2,
    "server": 2,  # the HTTP server's protocol (uvicorn subclasses); serves any ASGI app
    "engine": 3,
    "usecases": 4,
    "api": 5,
    "console": 6,  # served by the API's app, beside the routes
    "composition": 7,
    "cli": 8,
}
# Lower floors that a package still must not use.
FORBIDDEN: dict[str, set[str]] = {
    "api": {"engine"},  # the API reaches the engine's work only through the use-cases
    "console": {"engine"},
    "providers": {"store", "storage"},  # adapters translate; the engine keeps state
    "server": {"net", "storage", "store", "observability", "client"},  # bytes and sockets only
    "client": {"net", "storage", "store", "settings", "observability"},
}


def _package_of(path: Path) -> str:
    first = path.relative_to(SRC).parts[0]
    return first.removesuffix(".py")


def _imports(source: str, here: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """(line, imported top-level vidrouter package) for each import of ours in the source
    of module `here` (its path under vidrouter/, without .py)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "vidrouter":
                    yield node.lineno, parts[1] if len(parts) > 1 else "__init__"
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = list(here[: len(here) - node.level])
                parts = [*base, *(node.module or "").split(".")] if node.module else base
                parts = [p for p in parts if p]
                yield node.lineno, parts[0] if parts else "__init__"
                continue
            parts = (node.module or "").split(".")
            if parts[0] != "vidrouter":
                continue
            if len(parts) > 1:
                yield node.lineno, parts[1]
            else:  # from vidrouter import x: x is a package or a name of __init__
                for alias in node.names:
                    yield node.lineno, alias.name if alias.name in FLOORS else "__init__"


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "migrations" not in p.parts)


def test_every_package_has_a_floor() -> None:
    packages = {_package_of(p) for p in _modules()}
    unknown = sorted(packages - FLOORS.keys())
    assert not unknown, f"give these packages a floor in FLOORS and docs/architecture.md: {unknown}"


def _violations(package: str, imports: Iterator[tuple[int, str]]) -> list[str]:
    floor = FLOORS[package]
    return [
        f"line {line}: {package} imports {target}"
        for line, target in imports
        if target != package
        and (
            target not in FLOORS
            or FLOORS[target] >= floor
            or target in FORBIDDEN.get(package, set())
        )
    ]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_point_down(path: Path) -> None:
    package = _package_of(path)
    if package not in FLOORS:
        pytest.skip(f"{package} has no floor (see test_every_package_has_a_floor)")
    here = path.relative_to(SRC).with_suffix("").parts
    wrong = _violations(package, _imports(path.read_text(), here))
    assert not wrong, "imports must point down (docs/architecture.md): " + "; ".join(wrong)


def test_the_checker_finds_upward_and_forbidden_imports() -> None:
    """The rule is not vacuous: each kind of wrong import is found, a right one is not."""
    store = "from vidrouter.api.deps import ApiParts\nimport vidrouter.engine.loop\n"
    assert _violations("store", _imports(store, ("store", "probe"))) == [
        "line 1: store imports api",
        "line 2: store imports engine",
    ]
    api = "from vidrouter.engine.circuits import Circuits\nfrom ..domain import ids\n"
    assert _violations("api", _imports(api, ("api", "routes", "probe"))) == [
        "line 1: api imports engine"
    ]
    relative = "from . import generation\nfrom ..store import keys\n"
    assert _violations("domain", _imports(relative, ("domain", "probe"))) == [
        "line 2: domain imports store"
    ]


MAX_LINES = 400  # a module a reader takes in at once (docs/architecture.md, the layer rule)


def test_no_module_is_longer_than_a_reader_takes_in() -> None:
    long = {
        str(path.relative_to(SRC)): lines
        for path in SRC.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long
