# Two commands on a fresh machine: `make run` and `make test`. Everything else is set up on demand.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NATIVE := firmware/native/.built

.PHONY: setup browser poppler systemd mosquitto openspiel run test test-fast test-ha bench strength perft-deep \
	lint clean hil-packages hil-machine hil hil-arm64

setup: $(STAMP) $(NATIVE)

# The virtual environment, with the project installed editable (this also builds the extension).
$(STAMP): pyproject.toml setup.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $@

# Rebuild the cffi extensions in place whenever their C or build scripts change, or one is missing
# (each `firmware/native/build_NAME.py` makes `_NAME.*.so`).
NATIVE_BUILDS := $(wildcard firmware/native/build_*.py)
# Stripped: foreach leaves a space for each extension that is there, and a blank list must count as
# empty, or every run would rebuild them all.
NATIVE_MISSING := $(strip $(foreach b,$(NATIVE_BUILDS),$(if $(wildcard firmware/native/_$(patsubst build_%.py,%,$(notdir $(b))).*.so),,$(b))))
ifneq ($(NATIVE_MISSING),)
.PHONY: $(NATIVE)
endif
$(NATIVE): $(wildcard firmware/native/*.c firmware/native/*.h) firmware/native/cffi_build.py $(NATIVE_BUILDS) | $(STAMP)
	@for b in $(NATIVE_BUILDS); do $(BIN)/python $$b || exit 1; done
	@touch $@

run: setup
	$(BIN)/magboard sim --board mini --game tic-tac-toe

# The browser tests drive Debian's Chromium through Playwright (Playwright's own browser download
# does not work everywhere); the overlay tests render PDFs with poppler's pdftoppm. Installed where
# this can be done (root, or sudo without a password, with apt); elsewhere those tests say why
# they are skipped.
browser:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  if command -v apt-get >/dev/null && $$SUDO true 2>/dev/null; then \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is not installed and cannot be here: browser tests will be skipped"; fi; }

poppler:
	@command -v pdftoppm >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  if command -v apt-get >/dev/null && $$SUDO true 2>/dev/null; then \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq poppler-utils >/dev/null; \
	  else echo "pdftoppm is not installed and cannot be here: overlay tests will be skipped"; fi; }

# The install tests (tests/hardware/test_install.py) verify the unit with systemd-analyze and
# build the project offline with Debian's python3, its venv module and its own setuptools, wheel
# and cffi. Installed where this can be done, as above; elsewhere those tests say why they skip.
systemd:
	@{ command -v systemd-analyze && /usr/bin/python3 -c 'import ensurepip, wheel, cffi'; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  if command -v apt-get >/dev/null && $$SUDO true 2>/dev/null; then \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq systemd python3-venv python3-wheel python3-cffi >/dev/null; \
	  else echo "systemd-analyze or Debian's python3-venv, python3-wheel and python3-cffi are not installed and cannot be here: install tests will be skipped"; fi; }

# The MQTT tests (tests/support/broker.py) start a real Mosquitto broker, with mosquitto_passwd's
# password file and a TLS listener signed by a test CA made with openssl. Installed where this can
# be done, as above; elsewhere those tests say why they are skipped.
mosquitto:
	@{ { command -v mosquitto || test -x /usr/sbin/mosquitto; } && command -v mosquitto_passwd && command -v openssl; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  if command -v apt-get >/dev/null && $$SUDO true 2>/dev/null; then \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq mosquitto openssl >/dev/null; \
	  else echo "mosquitto is not installed and cannot be here: MQTT tests will be skipped"; fi; }

# The OpenSpiel adapter's tests (tests/host/test_openspiel.py) need the `openspiel` extra: installed
# where a wheel of open_spiel exists for this machine (never built from source); elsewhere those
# tests say why they are skipped.
openspiel: setup
	@$(BIN)/python -c 'import pyspiel' 2>/dev/null || \
	  $(BIN)/python -m pip install --quiet --disable-pip-version-check --only-binary open_spiel \
	    -e '.[dev,openspiel]' || \
	  echo "open_spiel does not install here: the OpenSpiel tests will be skipped"

test: setup browser poppler systemd mosquitto openspiel
	$(BIN)/python -m pytest -n auto
	MAGBOARD_NATIVE=python $(BIN)/python -m pytest -n auto -m 'not deep and not backend_free'

# The quick loop while changing code: one pass with the C kernels, without the tests marked
# `slow` (soaks, the browser, installs, the year of journalling); `make test` runs everything.
test-fast: setup
	$(BIN)/python -m pytest -n auto -q -m 'not deep and not slow'

# Home Assistant's own MQTT discovery schemas and template engine read every configuration a
# board publishes, and Home Assistant itself, its MQTT integration on a real Mosquitto, shows and
# drives a simulated board (tests/ha, left out of `make test`): in a venv of their own,
# $(HA_VENV), made once (homeassistant 2024.3.3, the newest for Python 3.11, and its MQTT
# integration's requirements; two to three minutes) and kept. The project is not installed
# there: tests/ha/conftest.py maps `magboard` to this checkout, and the board runs in $(VENV). Where homeassistant cannot be
# installed (no network), this says so and the tests are skipped.
HA_VENV  := .venv-ha
HA_STAMP := $(HA_VENV)/.installed
HA_PACKAGES := homeassistant==2024.3.3 paho-mqtt==1.6.1 janus==1.0.0 pytest

$(HA_STAMP): Makefile
	@test -x $(HA_VENV)/bin/python || $(PYTHON) -m venv $(HA_VENV)
	@$(HA_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(HA_PACKAGES)
	@touch $@

test-ha: setup mosquitto
	@if $(MAKE) -s $(HA_STAMP); then \
	  MAGBOARD_BOARD_PYTHON="$(abspath $(BIN))/python" $(HA_VENV)/bin/python -m pytest \
	    -p no:cacheprovider --confcutdir=tests/ha -W ignore::DeprecationWarning tests/ha; \
	else echo "homeassistant cannot be installed here: make test-ha skipped"; fi

bench: setup
	$(BIN)/magboard bench lines
	$(BIN)/magboard bench perft
	$(BIN)/magboard bench ai
	$(BIN)/magboard bench thinking
	$(BIN)/magboard bench pipeline
	$(BIN)/magboard bench scan

# How well the board plays, every game and seat: strong against random (200 games) and easy (100).
# Long (tens of minutes on two cores); `magboard strength --help` for shorter runs.
strength: setup
	$(BIN)/magboard strength

# Perft too deep for `make test`: Meeple Maneuver's depth 3 (4,129,536), engine against model.
perft-deep: setup
	$(BIN)/python -m pytest -m deep

# The emulated machine for the hardware-in-the-loop tests (sim/machine/): a QEMU PC (TCG, no KVM)
# booting a kernel built from Debian's linux-source and a Debian root file system made by
# mmdebstrap, with a wheelhouse of what the project installs there from PyPI (the machine has no
# internet), cached outside the repository in $MAGBOARD_HIL_CACHE (~/.cache/magboard/hil). Its
# packages are installed where this can be done, as above; building the root file system needs
# root. `hil-machine` builds what is missing (a kernel takes minutes), then boots the machine once
# and shows what the tests rely on; `hil` runs the tests that boot it (never part of `make test`).
# `hil-arm64` does the same on the Pi's architecture (MAGBOARD_HIL_ARCH=arm64): QEMU's `virt`
# board, the kernel cross-compiled, the root file system made through qemu-user-static.
export MAGBOARD_HIL_ARCH ?= x86_64
HIL_PACKAGES_x86_64 := qemu-system-x86
HIL_PACKAGES_arm64 := qemu-system-arm gcc-aarch64-linux-gnu qemu-user-static binfmt-support \
	arch-test
HIL_PACKAGES := qemu-utils mmdebstrap linux-source e2fsprogs systemd \
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod \
	$(HIL_PACKAGES_$(MAGBOARD_HIL_ARCH))

hil-packages:
	@missing=; for p in $(HIL_PACKAGES); do \
	  [ "$$(dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null)" = installed ] || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO="sudo -n"; fi; \
	  if command -v apt-get >/dev/null && $$SUDO true 2>/dev/null; then \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	  else echo "the emulated machine needs$$missing, which cannot be installed here"; exit 1; fi; fi

hil-machine: setup hil-packages
	nice $(BIN)/python -m magboard.sim.machine.build
	$(BIN)/python -m magboard.sim.machine.vm

hil: hil-machine
	$(BIN)/python -m pytest tests/hil

hil-arm64:
	$(MAKE) hil MAGBOARD_HIL_ARCH=arm64

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) $(HA_VENV) build *.egg-info firmware/native/_*.so $(NATIVE)
