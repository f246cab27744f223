# The two commands of the README (run, test) and the maintainers' (lint, fmt, lock, image).
# Each one sets up what it needs (idempotently) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

# Test processes side by side (pytest-xdist); each module's system tests stay together on one
# of them. Four, not one per core: the suite waits on servers, subprocesses and timers more
# than it computes (two processes kept 2 cores 40 % busy: 677 s; four: under 500 s).
TEST_WORKERS ?= 4

.PHONY: run test lint fmt lock image bench clean

CODE := src tests benchmarks scripts

run: $(STAMP)
	$(BIN)/vidrouter serve

test: lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup

# What CI checks besides the tests (also the pre-commit hooks): lint, format, types.
lint: $(STAMP)
	$(BIN)/ruff check $(CODE)
	$(BIN)/ruff format --check $(CODE)
	$(BIN)/mypy
	$(BIN)/mypy tests

# Fix what can be fixed: lint autofixes and formatting.
fmt: $(STAMP)
	$(BIN)/ruff check --fix $(CODE)
	$(BIN)/ruff format $(CODE)

# requirements.lock: the image's dependencies, pinned with their hashes, from pyproject.toml
# (run after changing a dependency there; commit the result).
lock: $(STAMP)
	$(BIN)/uv pip compile --native-tls --universal --python-version 3.11 --generate-hashes \
		--custom-compile-command "make lock" --index-url https://pypi.org/simple \
		pyproject.toml deploy/build-requirements.in -o requirements.lock

image:
	docker build -t vidrouter .

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

$(STAMP): pyproject.toml
	@$(PYTHON) scripts/check_python.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
