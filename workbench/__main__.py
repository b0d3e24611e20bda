"""Entry point: ``workbench`` / ``python -m workbench``.

With a sub-command (dedup, eval, export) it is the CLI. Otherwise it opens the given
folder (or the bundled demo archive) in the desktop window when the GUI is available,
and falls back to a headless summary when it is not.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

DEMO_ARCHIVE = Path(__file__).resolve().parent.parent / "resources" / "demo-archive"
SUBCOMMANDS = {"dedup", "eval", "export", "-h", "--help", "--version"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from workbench import cli

    if args and args[0] in SUBCOMMANDS:
        return cli.main(args)
    target = args[0] if args else str(DEMO_ARCHIVE)
    try:
        from workbench.gui.app import run_app  # type: ignore[attr-defined]
    except ImportError:
        run_app = None
    if run_app is not None:
        return run_app([target, *args[1:]])
    print(f"SpotSigs Workbench: near-duplicate clusters in {target}\n")
    return cli.main(["dedup", target, *args[1:]])


if __name__ == "__main__":
    sys.exit(main())
