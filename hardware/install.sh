#!/bin/sh
# Installs magboard as a systemd service: `sudo hardware/install.sh` (see install.py, or --help).
exec python3 "$(dirname "$0")/install.py" "$@"
