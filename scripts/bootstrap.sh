#!/usr/bin/env bash
# Make ./.venv hold everything the workbench and its tests need, on a fresh machine.
# Idempotent and quick when nothing changed: it reinstalls only when pyproject.toml or the lock
# (constraints.txt: the exact versions the tests passed with) is newer than the last install.
# Run by ./run and ./test; not meant to be called by hand.
# --system-only: only look for (and, as root, install) the system libraries Qt needs, then
# stop; the tests run that step with stand-ins for apt-get on PATH.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"

# Qt's xcb/offscreen platform plugins and fonts need a few shared libraries that a minimal
# Debian image may lack; xvfb is for the screenshot script. Install them once, as root, via apt.
# The cache is read once into a variable and searched there: `ldconfig -p | grep -q` under
# pipefail fails whenever grep stops at its first match while ldconfig is still writing
# (SIGPIPE, status 141), which made present libraries look missing in some launches.
ld_cache="$(ldconfig -p 2>/dev/null || true)"
need_debs=()
for lib in libEGL.so.1 libGL.so.1 libxkbcommon.so.0 libxkbcommon-x11.so.0 libfontconfig.so.1 \
    libdbus-1.so.3 libglib-2.0.so.0 libxcb-icccm.so.4 libxcb-keysyms.so.1 libxcb-cursor.so.0; do
  [[ "$ld_cache" == *"$lib"* ]] || need_debs+=("$lib")
done
# The validators the packaging tests run on packaging/linux (desktop entry, AppStream
# metainfo, MIME type): without them those tests would only skip.
tool_debs=()
for tool in appstreamcli:appstream desktop-file-validate:desktop-file-utils \
    update-mime-database:shared-mime-info; do
  command -v "${tool%%:*}" >/dev/null || tool_debs+=("${tool#*:}")
done
if [ $(( ${#need_debs[@]} + ${#tool_debs[@]} )) -gt 0 ] && command -v apt-get >/dev/null \
    && [ "$(id -u)" = 0 ]; then
  echo "bootstrap: installing system packages (${need_debs[*]} ${tool_debs[*]})" >&2
  # The xcb libraries are what Qt's xcb plugin needs to open a window on a real desktop.
  # Without a network this fails: say so and go on (the tests run offscreen without most).
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libegl1 \
      libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0 \
      fonts-dejavu-core libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 \
      libxcb-render-util0 libxcb-randr0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 \
      ${tool_debs[@]+"${tool_debs[@]}"}; } >/dev/null
  then
    echo "bootstrap: could not install the system libraries (no network?); the window may" \
      "not open until you run: apt-get install libegl1 libgl1 libxkbcommon-x11-0" \
      "libfontconfig1 libxcb-cursor0" >&2
  fi
fi
if [ "${1:-}" = --system-only ]; then
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating $venv" >&2
  "$python" -m venv "$venv"
fi
stamp="$venv/.installed"
lock="$here/constraints.txt"
if [ ! -f "$stamp" ] || [ "$here/pyproject.toml" -nt "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
  echo "bootstrap: installing the workbench and its test tools into $venv" >&2
  "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
  "$venv/bin/python" -m pip install -q -c "$lock" -e "$here[test,bench]"
  touch "$stamp"
fi
# Python reads compiled modules (.pyc) where it may not write them, as under
# PYTHONDONTWRITEBYTECODE=1, but an editable install leaves none: every run then compiled
# about a hundred of the workbench's modules again, in the command and again in its fork
# server (3 % of a dev Gold Set run). Up to date, this takes 0.04 s.
"$venv/bin/python" -m compileall -q "$here/workbench" >/dev/null || true
# Compile the numba loops now, not in the user's first detection (there they cost 15 s of a
# 20 s first run on the dev Gold Set: benchmarks/bench_first_run.py). Again after an install
# (a new numba) or when a file holding a cached loop changed (numba keys its cache on the
# file's content); otherwise this is a `find` over the sources. About 20 s from nothing.
warmed="$venv/.compiled-ahead"
if [ ! -f "$warmed" ] || [ "$stamp" -nt "$warmed" ] || [ -n "$(find "$here/workbench" -name '*.py' \
    -newer "$warmed" -exec grep -l 'cache=True' {} + 2>/dev/null | head -n 1)" ]; then
  echo "bootstrap: compiling the numba loops ahead of the first detection" >&2
  if "$venv/bin/python" -m workbench.detect.compile_ahead --quiet; then
    touch "$warmed"
  else
    echo "bootstrap: compiling ahead failed; the first detection compiles them instead" >&2
  fi
fi
