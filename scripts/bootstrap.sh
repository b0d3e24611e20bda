#!/usr/bin/env bash
# Make ./.venv hold everything the workbench and its tests need, on a fresh machine.
# Idempotent and quick when nothing changed: it reinstalls only when pyproject.toml is newer
# than the last install. Sourced by ./run and ./test; not meant to be called by hand.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"

# Qt's xcb/offscreen platform plugins and fonts need a few shared libraries that a minimal
# Debian image may lack; xvfb is for the screenshot script. Install them once, as root, via apt.
need_debs=()
for lib in libEGL.so.1 libGL.so.1 libxkbcommon.so.0 libxkbcommon-x11.so.0 libfontconfig.so.1 \
    libdbus-1.so.3 libglib-2.0.so.0 libxcb-icccm.so.4 libxcb-keysyms.so.1 libxcb-cursor.so.0; do
  ldconfig -p 2>/dev/null | grep -q "$lib" || need_debs+=("$lib")
done
if [ ${#need_debs[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "bootstrap: installing system libraries for Qt (${need_debs[*]})" >&2
  apt-get update -qq >/dev/null
  # The xcb libraries are what Qt's xcb plugin needs to open a window on a real desktop.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libegl1 libgl1 libxkbcommon0 \
    libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-dejavu-core \
    libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0 \
    libxcb-randr0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 >/dev/null
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating $venv" >&2
  "$python" -m venv "$venv"
fi
stamp="$venv/.installed"
if [ ! -f "$stamp" ] || [ "$here/pyproject.toml" -nt "$stamp" ]; then
  echo "bootstrap: installing the workbench and its test tools into $venv" >&2
  "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
  "$venv/bin/python" -m pip install -q -e "$here[test,bench]"
  touch "$stamp"
fi
