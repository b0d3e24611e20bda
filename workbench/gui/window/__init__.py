"""The main window's parts, one idea each: commands and menus, detection runs, the cluster
list's selection, keyboard focus."""
