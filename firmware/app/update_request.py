"""An update asked for over MQTT (`{"do": "update", "url": ..., "sha256": ...}`), made ready for
root to carry out.

The service runs unprivileged (User=magboard, NoNewPrivileges, ProtectSystem): it cannot write
/opt nor restart itself. So it does what it can and leaves the rest: it downloads the wheel into
its state directory, checks its sha256 (a mismatch is refused and nothing is left behind), and
writes the request last, in one rename; magboard-update.path sees it and starts
magboard-update.service, `magboard update --request` as root (hardware/update.py), which checks
the wheel again and installs it, rolling back by itself if the board is not healthy on it.

Only over an authenticated broker connection: anyone who can publish on an open broker could
otherwise put any code on the board. The download happens in the loop's thread, bounded in time
and size (a wheel of magboard is about a megabyte), well inside the watchdog's 30 s.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from magboard.hardware.update import REQUEST, REQUESTS

DOWNLOAD_TIMEOUT = 15.0
MAX_WHEEL = 64 * 1024 * 1024
SHA256 = re.compile(r"^[0-9a-f]{64}$")
WHEEL = re.compile(r"^magboard-[A-Za-z0-9_.+!]+-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+\.whl$")
"""A wheel of magboard, as pip wants its file named (name-version-python-abi-platform)."""


class UpdateRefused(ValueError):
    """An update the board will not prepare; nothing was left behind."""


@dataclass(frozen=True)
class UpdateAsked:
    url: str
    sha256: str


Opener = Callable[[str, float], BinaryIO]


def _open(url: str, timeout: float) -> BinaryIO:
    return urllib.request.urlopen(url, timeout=timeout)


def asked(url: object, sha256: object) -> UpdateAsked:
    """The fields of an update command, checked: an http(s) URL of a magboard wheel and the
    lowercase hex sha256 of its bytes."""
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
        raise UpdateRefused("url is the http:// or https:// address of a magboard wheel")
    if not WHEEL.match(wheel_name(url)):
        raise UpdateRefused(f"url names no magboard wheel (magboard-VERSION-...whl): {url}")
    if not isinstance(sha256, str) or not SHA256.match(sha256):
        raise UpdateRefused("sha256 is the wheel's SHA-256, 64 lowercase hex digits")
    return UpdateAsked(url, sha256)


def wheel_name(url: str) -> str:
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def state_dir_of(environ: Mapping[str, str]) -> Path | None:
    """The service's state directory (the unit sets MAGBOARD_STATE), or None: run by hand."""
    state = environ.get("MAGBOARD_STATE")
    return Path(state) if state else None


def leave_request(
    update: UpdateAsked,
    *,
    authenticated: bool,
    state_dir: Path | None = None,
    opener: Opener = _open,
) -> Path:
    """Downloads and checks the wheel, then leaves the request; its path. Raises UpdateRefused
    having left nothing behind."""
    if not authenticated:
        raise UpdateRefused(
            "taken only over an authenticated broker connection (mqtt://USER:PASSWORD@HOST)"
        )
    state = state_dir if state_dir is not None else state_dir_of(os.environ)
    if state is None:
        raise UpdateRefused("this board is not run as the service (no MAGBOARD_STATE)")
    directory = state / REQUESTS
    if (directory / REQUEST).exists():
        raise UpdateRefused("an update is already waiting to be carried out")
    try:
        directory.mkdir(mode=0o750, parents=True, exist_ok=True)
    except OSError as error:
        raise UpdateRefused(f"cannot write {directory}: {error.strerror or error}") from None
    name = wheel_name(update.url)
    with tempfile.NamedTemporaryFile(dir=directory, prefix=".download-", delete=False) as file:
        partial = Path(file.name)
        try:
            digest = _download(update.url, file, opener)
        except UpdateRefused:
            partial.unlink(missing_ok=True)
            raise
    if digest != update.sha256:
        partial.unlink(missing_ok=True)
        raise UpdateRefused(f"the wheel's sha256 is {digest}, not {update.sha256}: not taken")
    partial.chmod(0o644)
    os.replace(partial, directory / name)
    request = {"wheel": name, "sha256": update.sha256, "url": update.url}
    with tempfile.NamedTemporaryFile(
        "w", dir=directory, prefix=".request-", delete=False, encoding="utf-8"
    ) as file:
        json.dump(request, file)
    Path(file.name).chmod(0o644)
    os.replace(file.name, directory / REQUEST)  # last: the path unit starts on it
    return directory / REQUEST


def _download(url: str, into: BinaryIO, opener: Opener) -> str:
    digest = hashlib.sha256()
    size = 0
    try:
        with opener(url, DOWNLOAD_TIMEOUT) as response:
            while chunk := response.read(1 << 16):
                size += len(chunk)
                if size > MAX_WHEEL:
                    raise UpdateRefused(f"the wheel is larger than {MAX_WHEEL >> 20} MB")
                digest.update(chunk)
                into.write(chunk)
    except UpdateRefused:
        raise
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise UpdateRefused(f"cannot download {url}: {reason}") from None
    return digest.hexdigest()
