# The README's commands. Each one sets up .venv from requirements.lock first, so a fresh
# clone needs only python3 (3.11+) and make. The venv is rebuilt only when the lock or
# pyproject.toml is newer than it: a second run installs nothing.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test check lock venv

demo: $(STAMP)
	$(BIN)/teamdeck demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

# Lint, formatting, types and the layer contracts.
check: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

venv: $(STAMP)

# Every pinned package is checked against its hash; teamdeck itself goes in editable,
# without build isolation (hatchling is in the lock), so nothing unpinned is fetched.
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r requirements.lock
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

# Regenerate the lock after changing a dependency in pyproject.toml (uv resolves for
# every Python >= 3.11 and platform at once; it is used for this and nothing else).
lock: $(STAMP)
	$(BIN)/python -m pip install -q --disable-pip-version-check uv
	$(BIN)/uv pip compile pyproject.toml --extra test --extra dev --universal \
		--python-version 3.11 --generate-hashes -o requirements.lock
