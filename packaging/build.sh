#!/usr/bin/env bash
# Build the desktop bundle (PyInstaller, one folder) on Linux, by hand, not in CI:
#   packaging/build.sh            -> dist/workbench/workbench (copy the whole folder)
# A build venv (build/bundle-venv) gets the workbench and PyInstaller at the locked versions
# (constraints.txt); then the bundle is checked: it opens the demo archive offscreen, waits
# for the first run and quits (--smoke-test).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
venv="$repo/build/bundle-venv"
python="${PYTHON:-python3}"
start=$SECONDS

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# Not editable: the bundle must take the package (and its resources) as installed.
"$venv/bin/python" -m pip install -q -c "$repo/constraints.txt" "$repo[bundle]"
"$venv/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$repo/dist" --workpath "$repo/build/pyinstaller" "$here/workbench.spec"

bundle="$repo/dist/workbench"
echo "build.sh: built $bundle in $((SECONDS - start)) s, $(du -sh "$bundle" | cut -f1)" >&2
# The bundle must start without this venv: run it from elsewhere, with no Python path set.
(cd /tmp && env -u PYTHONPATH -u VIRTUAL_ENV QT_QPA_PLATFORM=offscreen "$bundle/workbench" --smoke-test)
