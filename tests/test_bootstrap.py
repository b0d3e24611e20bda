"""scripts/bootstrap.sh decides which system libraries are missing without a pipe race.

The script's library step runs with stand-ins first on PATH: ``ldconfig`` prints a cache
file written here (large, so a reader that stops early makes the writer die of SIGPIPE),
``id`` says root, and ``apt-get``/``sudo`` only record that they were called. Nothing is
installed and the network is never touched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bootstrap.sh is for Linux")

SCRIPT = REPO / "scripts" / "bootstrap.sh"
LIBS = ["libEGL.so.1", "libGL.so.1", "libxkbcommon.so.0", "libxkbcommon-x11.so.0",
        "libfontconfig.so.1", "libdbus-1.so.3", "libglib-2.0.so.0", "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1", "libxcb-cursor.so.0"]


def _fake_tools(tmp: Path, present: list[str]) -> tuple[dict[str, str], Path]:
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    cache = tmp / "ld.so.cache.txt"
    lines = [f"{len(present) + 3000} libs found in cache `/etc/ld.so.cache'"]
    lines += [f"\t{lib} (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/{lib}" for lib in present]
    # The rest of a big cache: what the writer is still printing when a reader quits early.
    lines += [f"\tlibfiller{n}.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libfiller{n}.so.1"
              for n in range(3000)]
    cache.write_text("\n".join(lines) + "\n")
    calls = tmp / "calls.log"
    scripts = {
        "ldconfig": f'#!/bin/sh\ncat "{cache}"\n',
        "id": "#!/bin/sh\necho 0\n",
        "apt-get": f'#!/bin/sh\necho "apt-get $*" >> "{calls}"\n',
        "sudo": f'#!/bin/sh\necho "sudo $*" >> "{calls}"\n',
        # The packaging validators, present (the script looks for them on PATH).
        "appstreamcli": "#!/bin/sh\nexit 0\n",
        "desktop-file-validate": "#!/bin/sh\nexit 0\n",
        "update-mime-database": "#!/bin/sh\nexit 0\n",
    }
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    return env, calls


def _run_library_step(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), "--system-only"], env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def test_no_install_when_every_library_is_present(tmp_path):
    env, calls = _fake_tools(tmp_path, LIBS)
    for attempt in range(50):
        done = _run_library_step(env)
        assert done.returncode == 0, done.stderr
        assert not calls.exists(), (f"launch {attempt + 1} of 50 ran apt-get with every library "
                                    f"present: {calls.read_text()!r}; stderr {done.stderr!r}")


def test_a_missing_library_is_installed(tmp_path):
    # The stand-ins are honest: with one library really missing, apt-get is called.
    env, calls = _fake_tools(tmp_path, [lib for lib in LIBS if lib != "libxcb-cursor.so.0"])
    done = _run_library_step(env)
    assert done.returncode == 0, done.stderr
    assert "libxcb-cursor.so.0" in done.stderr
    assert "apt-get install" in calls.read_text()


def test_no_network_is_not_fatal(tmp_path):
    env, calls = _fake_tools(tmp_path, LIBS[:-1])
    (tmp_path / "bin" / "apt-get").write_text(
        f'#!/bin/sh\necho "apt-get $*" >> "{calls}"\necho "Temporary failure resolving" >&2\n'
        "exit 100\n")
    done = _run_library_step(env)
    assert done.returncode == 0, done.stderr
    assert "could not install" in done.stderr
