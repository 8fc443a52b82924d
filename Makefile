# The README's commands. Each one sets up .venv from requirements.lock first, so a fresh
# clone needs only python3 (3.11+) and make. The venv is rebuilt only when the lock or
# pyproject.toml is newer than it: a second run installs nothing.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast check lock venv claude-code claude-code-lock ripperdoc ripperdoc-lock stress

demo: $(STAMP)
	$(BIN)/teamdeck demo

# PYTEST_ARGS goes on to pytest in either run: what it reports (CI passes
# --durations=25) or what it selects (-k, a path).
PYTEST_ARGS ?=

test: $(STAMP) claude-code ripperdoc
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)

# C17 at the catalogue's size (8 writers x 1,000 sends into one inbox; make test runs 400 each).
stress: $(STAMP)
	TEAMDECK_STRESS_SENDS=1000 $(BIN)/python -m pytest -n 0 tests/unit/reliability/test_inbox_stress.py $(PYTEST_ARGS)

# The unit lane (tests/unit, marked unit by its folder), for feedback while editing;
# make test is what CI runs.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m unit $(PYTEST_ARGS)

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

# The Claude Code version the conformance tests (tests/conformance) run, installed with
# `npm ci` from its lock (integrity hashes) into .cache/claude-code, again only when the
# lock is newer than the install. Without npm (or when npm ci fails, e.g. offline) those
# tests skip, saying why; under CI=true that fails the run instead.
CC_PIN := tests/conformance
CC_DIR := .cache/claude-code
CC_STAMP := $(CC_DIR)/.installed

claude-code:
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm not found: the Claude Code conformance tests will skip (install Node 20+ with npm)" >&2; \
		[ "$$CI" != true ]; \
	elif ! $(MAKE) -s --no-print-directory $(CC_STAMP); then \
		echo "npm ci failed: the Claude Code conformance tests will skip" >&2; \
		[ "$$CI" != true ]; \
	fi

$(CC_STAMP): $(CC_PIN)/package.json $(CC_PIN)/package-lock.json
	rm -rf $(CC_DIR) && mkdir -p $(CC_DIR)
	cp $(CC_PIN)/package.json $(CC_PIN)/package-lock.json $(CC_DIR)/
	cd $(CC_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Pin another Claude Code version: `make claude-code-lock VERSION=2.1.340` rewrites the
# pin and its lock, installs it; then `make test` tells what changed.
claude-code-lock:
	@test -n "$(VERSION)" || { echo "usage: make claude-code-lock VERSION=x.y.z" >&2; exit 2; }
	cd $(CC_PIN) && npm pkg set "dependencies.@anthropic-ai/claude-code=$(VERSION)" \
		&& npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error
	$(MAKE) --no-print-directory $(CC_STAMP)

# The Ripperdoc version the conformance tests run (tests/conformance/test_ripperdoc_*.py),
# a Python client: its own venv in .cache/ripperdoc from its own hashed lock, rebuilt
# only when the lock is newer than the install. Offline (pip fails) those tests skip,
# saying why; under CI=true that fails the run instead.
RD_PIN := tests/conformance/ripperdoc
RD_DIR := .cache/ripperdoc
RD_STAMP := $(RD_DIR)/.installed

ripperdoc:
	@if ! $(MAKE) -s --no-print-directory $(RD_STAMP); then \
		echo "installing Ripperdoc failed: the Ripperdoc conformance tests will skip" >&2; \
		[ "$$CI" != true ]; \
	fi

$(RD_STAMP): $(RD_PIN)/requirements.lock
	rm -rf $(RD_DIR)
	$(PYTHON) -m venv $(RD_DIR)
	$(RD_DIR)/bin/python -m pip install -q --disable-pip-version-check --require-hashes --no-deps -r $(RD_PIN)/requirements.lock
	touch $@

# Pin another Ripperdoc version: edit $(RD_PIN)/requirements.in, then
# `make ripperdoc-lock` rewrites the hashed lock and installs it.
ripperdoc-lock: $(STAMP)
	$(BIN)/python -m pip install -q --disable-pip-version-check uv
	$(BIN)/uv pip compile $(RD_PIN)/requirements.in --universal --python-version 3.11 \
		--generate-hashes -o $(RD_PIN)/requirements.lock
	$(MAKE) --no-print-directory $(RD_STAMP)
