#!/usr/bin/env bash
# Put the workbench in this user's application menu and make *.wbproj files open with it:
#   packaging/linux/install.sh [COMMAND]
# COMMAND: how to start the workbench (default: `workbench`, from `pip install`; for the
# PyInstaller bundle give its executable, e.g. ~/Apps/workbench/workbench). Installs the
# .desktop file, the icons and the project file type under ${XDG_DATA_HOME:-~/.local/share}.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
app_id=org.spotsigs.Workbench
command="${1:-workbench}"
if [ "$command" != workbench ]; then
  command="$(realpath "$command")"
  [ -x "$command" ] || { echo "install.sh: $command is not an executable file" >&2; exit 2; }
fi
data="${XDG_DATA_HOME:-$HOME/.local/share}"
mkdir -p "$data/applications" "$data/mime/packages" "$data/icons"
# A path with spaces must be quoted in Exec= (Desktop Entry spec, "The Exec key").
sed "s|^Exec=workbench |Exec=\"$command\" |" "$here/$app_id.desktop" > "$data/applications/$app_id.desktop"
cp "$here/$app_id.mime.xml" "$data/mime/packages/$app_id.xml"
cp -r "$here/icons/hicolor" "$data/icons/"
# Refresh the caches when their tools are there; desktops also rescan on their own later.
command -v update-mime-database >/dev/null && update-mime-database "$data/mime"
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications"
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "Installed: $data/applications/$app_id.desktop (starts: $command)"
