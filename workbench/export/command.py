"""``workbench export PROJECT --out tagged.csv [--all|--coded] [--wide] [--coders] [--excel]
[--no-passages] [--workers N]``.

cli.py wires this in with ``add_parser(subparsers)``; the parser's default
``func`` is :func:`run`, which returns the process exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from workbench.core.terminal_text import terminal_safe
from workbench.export.pages import damage_report, export_pages
from workbench.export.passage_columns import unread_report
from workbench.store import Project, ProjectError
from workbench.store.safety.whole_files import OutputRefused

# The command line's exit statuses (as cli.py's): 2 bad parameters, 3 unusable input.
EXIT_USAGE, EXIT_INPUT = 2, 3


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "export",
        help="write a project's tagged pages as CSV (one row per page)",
        description="Write one CSV row per page of the project's current detection run "
                    "with its cluster, tags, coder and provenance, plus OUT.run.json "
                    "recording the run parameters, software version and codebook.",
    )
    parser.add_argument("project", type=Path, help="the project file")
    parser.add_argument("--out", "-o", type=Path, required=True, help="CSV file to write")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--coded", dest="coded_only", action="store_true", default=True,
                       help="only pages a coder has judged: tagged, marked 'not this story' "
                            "or with a memo (theirs or their cluster's) (default)")
    which.add_argument("--all", dest="coded_only", action="store_false",
                       help="every page, including untagged and skipped ones")
    parser.add_argument("--wide", action="store_true",
                        help="add one 0/1 column per codebook tag")
    parser.add_argument("--coders", action="store_true",
                        help="add one tags_<coder> column per coder (the tags each coder gave "
                             "the page in their copy) and a samples column; tags stays the "
                             "final (settled) codes")
    parser.add_argument("--no-passages", dest="passages", action="store_false",
                        help="leave share_from_reference and share_of_reference empty instead of "
                             "reading every member and its reference again from the archive "
                             "(about 5 ms a member row)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes reading the members again for the shares, when there are "
                             "2,000 member rows or more (default: all cores)")
    parser.add_argument("--excel", action="store_true",
                        help="UTF-8 with BOM so Excel reads accents correctly")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    if workers < 1:
        print(f"workbench export: --workers must be 1 or more, not {args.workers}", file=sys.stderr)
        return EXIT_USAGE
    try:
        # Read-only and no backup: exporting changes nothing, and works beside a window
        # that has the project open, on a read-only disk or file too.
        with Project.open(args.project, backups=0, readonly=True) as project:
            result = export_pages(project, args.out, coded_only=args.coded_only,
                                  wide=args.wide, excel=args.excel, coders=args.coders,
                                  passages=args.passages, workers=workers)
            root = project.archive_root
    except OutputRefused as exc:  # --out names a file that must not be written
        print(f"workbench export: {terminal_safe(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except ProjectError as exc:  # a project that is missing, damaged or has no run
        print(f"workbench export: {terminal_safe(exc)}", file=sys.stderr)
        return EXIT_INPUT
    print(f"Wrote {result.rows} rows to {terminal_safe(result.csv_path)} "
          f"(and {terminal_safe(result.sidecar_path.name)})")
    if result.damaged:
        # Done (exit 0): every row is in the file. The sidecar lists the cells too.
        print(f"workbench export: warning: {terminal_safe(damage_report(result.damaged))}",
              file=sys.stderr)
    if result.passages_unread:
        print(f"workbench export: warning: {terminal_safe(unread_report(result.passages_unread, root))}",
              file=sys.stderr)
    return 0
