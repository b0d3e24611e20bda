"""packaging/lock.py: the lock pins other, tested versions where the tested ones have no wheel
(numba and its stack on Intel Macs), under markers that hold on exactly one side."""

from __future__ import annotations

import importlib.util
import sys
import tomllib

import pytest
from packaging.requirements import Requirement

from tests.conftest import REPO

# PEP 508 marker variables as each system's Python reports them.
SYSTEMS = {
    "linux": {"sys_platform": "linux", "platform_machine": "x86_64"},
    "windows": {"sys_platform": "win32", "platform_machine": "AMD64"},
    "macos-arm64": {"sys_platform": "darwin", "platform_machine": "arm64"},
    "macos-x86_64": {"sys_platform": "darwin", "platform_machine": "x86_64"},
}


@pytest.fixture(scope="module")
def lock():
    spec = importlib.util.spec_from_file_location("workbench_lock", REPO / "packaging" / "lock.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["workbench_lock"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("workbench_lock", None)


def _pins(lines: list[str], system: str) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    for line in lines:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(SYSTEMS[system]):
            seen.setdefault(requirement.name, []).append(str(requirement.specifier))
    return seen


def test_intel_macs_get_the_older_numba_stack_and_every_other_system_the_tested_one(lock):
    lines = lock.lock_lines({"numba": "0.68.1", "llvmlite": "0.50.0", "numpy": "2.4.6", "six": "1.17.0"})
    assert "six==1.17.0" in lines
    for system in SYSTEMS:
        pins = _pins(lines, system)
        assert all(len(versions) == 1 for versions in pins.values()), (system, pins)  # one pin each
        intel_mac = system == "macos-x86_64"
        assert pins["numba"] == ["==0.62.1" if intel_mac else "==0.68.1"]
        assert pins["llvmlite"] == ["==0.45.1" if intel_mac else "==0.50.0"]
        assert pins["numpy"] == ["==2.3.5" if intel_mac else "==2.4.6"]
        assert pins["six"] == ["==1.17.0"]


def test_the_committed_lock_has_the_intel_mac_pins(lock):
    lines = [line for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#")]
    assert _pins(lines, "macos-x86_64")["numba"] == ["==0.62.1"]
    assert _pins(lines, "linux")["numba"] != ["==0.62.1"]


def test_the_older_versions_are_within_the_projects_ranges(lock):
    """pyproject.toml's ranges (for people installing the wheel) admit what Intel Macs get."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    ranges = {Requirement(text).name.lower(): Requirement(text).specifier for text in project["dependencies"]}
    for pins in lock.PLATFORM_PINS:
        for name, version in pins.versions.items():
            if name in ranges:
                assert ranges[name].contains(version), f"{name} {version} is outside {ranges[name]}"
