# The two set-up commands of the README: `make run` starts a switch, `make test` runs the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench conformance lint clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/nos up $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

conformance: $(STAMP)
	$(BIN)/python -m tests.e2e.conformance $(ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench $(ARGS)

lint: $(STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	$(BIN)/ruff check nos orchagent syncd_sim tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
