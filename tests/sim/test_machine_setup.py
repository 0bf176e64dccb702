"""What the emulated machine's setup works out on the host, without booting it: the wheelhouse's
requirements and the phases read from pip's log."""

from __future__ import annotations

from magboard.sim.machine import build, deploy

PIP_LOG = """\
2026-11-27T13:56:01,011 Using pip 23.0.1 from /opt/magboard/.venv/lib/python3.11/site-packages/pip
2026-11-27T13:56:01,608   Installing build dependencies: started
2026-11-27T13:56:06,874   Installing collected packages: setuptools, pycparser, cffi
2026-11-27T13:56:12,942   Successfully installed cffi-2.1.1 pycparser-3.12 setuptools-84.2.1
2026-11-27T13:56:13,372   Installing build dependencies: finished with status 'done'
2026-11-27T13:56:37,254 Building wheels for collected packages: magboard
2026-11-27T13:56:37,270   Building wheel for magboard (pyproject.toml): started
continued output without a stamp
2026-11-27T13:57:23,857   Building wheel for magboard (pyproject.toml): finished with status 'done'
2026-11-27T13:57:23,886   Created wheel for magboard: filename=magboard-0.1.0-cp311-cp311.whl
2026-11-27T13:57:29,527 Installing collected packages: sysv_ipc, pyserial, magboard
2026-11-27T13:58:17,075 Successfully installed magboard-0.1.0 pyserial-3.5 sysv_ipc-1.2.0
2026-11-27T13:58:17,077 Removed build tracker: '/tmp/pip-build-tracker-t_q3n12i'
"""


def test_the_phases_of_pips_log() -> None:
    phases = {name: round(seconds, 3) for name, seconds in deploy.pip_phases(PIP_LOG).items()}
    assert phases == {
        "pip": 136.066,
        "build dependencies": 11.764,
        "metadata and resolution": 23.882,
        "wheel": 46.616,
        "install": 47.548,
    }


def test_no_log_no_phases() -> None:
    assert deploy.pip_phases("") == {}
    installed = deploy.Installed(("unchanged group gpio",), 2.5)
    assert installed.timings() == "2 s in all"


def test_the_wheelhouse_holds_the_build_system_the_dependencies_and_the_pi_extra() -> None:
    wanted = build.requirements()
    assert wanted[:2] == ["setuptools>=70", "cffi>=1.17"]
    names = {requirement.split(">")[0].split(";")[0].strip() for requirement in wanted}
    assert {"adafruit-blinka", "paho-mqtt", "rpi-lgpio", "gpiod"} <= names
