# The two set-up commands of the README: `make run` starts a switch, `make test` runs the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Byte-compile the project's own modules (pip compiles only the dependencies): every daemon is a
# process of its own, and with PYTHONDONTWRITEBYTECODE set (as on some CI machines) each one would
# compile ~44K lines from source at every start. Cheap when up to date (a stat per file).
COMPILE := $(BIN)/python -m compileall -q nos orchagent syncd_sim fastpath iccpd bench

.PHONY: run test bench conformance lint clean docker-image docker-test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	$(COMPILE)
	touch $(STAMP)

run: $(STAMP)
	$(COMPILE)
	$(BIN)/nos up $(ARGS)

test: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

conformance: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m tests.e2e.conformance $(ARGS)

bench: $(STAMP)
	$(COMPILE)
	$(BIN)/python -m bench $(ARGS)

# The docker-compose switch (README "docker-compose"): the image, built against the docker daemon in use
docker-image: $(STAMP)
	docker/image.sh

# As root: installs docker.io, docker-compose and mmdebstrap with apt, runs a private dockerd, builds the
# image, runs tests/docker/driver.py (the compose switch and lab), then stops dockerd and puts iptables
# and ip_forward back. Fails (saying why) where dockerd cannot start; never skips.
docker-test: $(STAMP)
	$(COMPILE)
	tests/docker/run.sh $(ARGS)

lint: $(STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	$(BIN)/ruff check nos orchagent syncd_sim fastpath iccpd tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
