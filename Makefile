# Two commands on a fresh machine: `make run` and `make test`. Everything else is set up on demand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NATIVE := firmware/native/.built

.PHONY: setup run test test-python bench lint clean

setup: $(STAMP) $(NATIVE)

# The virtual environment, with the project installed editable (this also builds the extension).
$(STAMP): pyproject.toml setup.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

# Rebuild the cffi extension in place whenever the C or its build script changes, or it is missing.
ifeq ($(wildcard firmware/native/_lines.*.so),)
.PHONY: $(NATIVE)
endif
$(NATIVE): firmware/native/lines.c firmware/native/lines.h firmware/native/build_lines.py | $(STAMP)
	$(BIN)/python firmware/native/build_lines.py
	@touch $@

run: setup
	$(BIN)/magboard demo tic-tac-toe --board mini

test: setup
	$(BIN)/python -m pytest
	MAGBOARD_NATIVE=python $(BIN)/python -m pytest

bench: setup
	$(BIN)/magboard bench lines
	$(BIN)/magboard bench pipeline

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info firmware/native/_lines.*.so $(NATIVE)
