"""Entry point: ``workbench`` / ``python -m workbench``.

With a sub-command (dedup, eval, export) or an option it is the CLI. With no argument, or
the path of an existing archive folder, archive file or project file, it opens the desktop
window on it (no argument: the bundled demo archive), and falls back to a headless summary
when the GUI is not available. Any other first argument (a typo, a command of a newer
version) is a command-line error that lists the commands: it never opens a window on a
folder that does not exist.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

# Before the rest: its fallback clock starts here.
from workbench.commands.process_clock import process_started
from workbench.resources import DEMO_ARCHIVE

SMOKE_TEST = "--smoke-test"
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    # Older macOS gave an app Finder started a process serial number ("-psn_0_1234"): it is
    # no option of ours, and must not make the start a command-line error.
    args = [arg for arg in (sys.argv[1:] if argv is None else argv) if not arg.startswith("-psn_")]
    if (refused := _start_method_refused()) is not None:
        return refused
    a_dedup_process = args[:1] == ["dedup"] and argv is None  # not a test calling main()
    # A run on a Dask cluster (dedup --dask) starts no worker pool here.
    on_dask = any(arg == "--dask" or arg.startswith("--dask=") for arg in args)
    if a_dedup_process and not on_dask:
        from workbench.detect.workers.pool import start_fork_server

        start_fork_server()
    from workbench.commands import cli

    if args and args[0] == SMOKE_TEST:
        return _smoke_test(args[1:])
    if a_dedup_process:
        from workbench.commands.process_exit import exit_now

        exit_now(cli.main(args, started=process_started()))
    if args and (args[0] in cli.command_names() or args[0].startswith("-")):
        return cli.main(args, started=process_started() if argv is None else None)
    if args and not Path(args[0]).exists():
        return _not_a_command(args[0], cli.command_names())
    target = args[0] if args else str(DEMO_ARCHIVE)
    try:
        from workbench.gui.app import run_app  # type: ignore[attr-defined]
    except ImportError:
        run_app = None
    if run_app is not None:
        # No argument: run_app opens the demo archive itself, unless the system asked it
        # to open a file as it started (macOS Finder sends no argument: gui.fileopen).
        return run_app(args)
    print(f"SpotSigs Workbench: near-duplicate clusters in {target}\n")
    return cli.main(["dedup", target, *args[1:]])


def _start_method_refused() -> int | None:
    """A clear message (before any window or run) for a WORKBENCH_START_METHOD we do not know."""
    from workbench.detect.workers.start_method import StartMethodError, start_method

    try:
        start_method()
    except StartMethodError as error:
        print(f"workbench: {error}", file=sys.stderr)
        return EXIT_USAGE
    return None


def _not_a_command(word: str, commands: Sequence[str]) -> int:
    print(f"workbench: {word!r} is neither a command nor an existing file or folder.\n"
          f"Commands: {', '.join(commands)} (workbench COMMAND --help says more).\n"
          f"To open the window, give the path of an archive folder or a .wbproj project file, "
          f"or nothing for the demo archive.", file=sys.stderr)
    return EXIT_USAGE


def _smoke_test(args: list[str]) -> int:
    """Open an archive (default: the demo) in the real window, wait for its run, quit."""
    if len(args) > 1 or (args and not Path(args[0]).exists()):
        print(f"workbench: {SMOKE_TEST} takes at most one existing archive folder or file, "
              f"not {' '.join(args)!r}", file=sys.stderr)
        return EXIT_USAGE
    from workbench.gui.smoke import run_smoke_test

    return run_smoke_test(Path(args[0]) if args else None)


if __name__ == "__main__":
    sys.exit(main())
