"""``workbench handout | bringin | sample``: team coding without a display.

* ``handout PROJECT --coders ann,bob --out DIR [--clusters 3,7,9]``: one copy per coder;
* ``bringin PROJECT COPY...``: merge the coders' work back (each copy one undoable step);
* ``sample PROJECT (--n N | --share S) --seed K [--stratify size|site|month]
  [--singles] [--reliability] [--name NAME]``: draw and keep a sample of clusters.

cli.py wires them in with ``add_parsers(subparsers)``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.core.terminal_text import terminal_safe
from workbench.store import Project, ProjectError
from workbench.store.team import bring_in, draw_sample, hand_out
from workbench.store.team.samples import STRATA

EXIT_OK, EXIT_INPUT = 0, 3


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def _ids(text: str) -> list[int]:
    try:
        return [int(n) for n in _names(text)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"cluster ids are numbers, like 3,7,9, not {text!r}") from None


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("handout", help="write one copy of a project per coder, to code "
                                              "on their own and bring back in")
    p.add_argument("project", type=Path)
    p.add_argument("--coders", type=_names, required=True, help="comma-separated coder names")
    p.add_argument("--out", type=Path, required=True, help="folder for the copies")
    p.add_argument("--clusters", type=_ids, default=None,
                   help="comma-separated ids of the clusters assigned (default: all)")
    p.add_argument("--coder", default=None, help="who hands out (default: your login name)")
    p.set_defaults(func=_handout)

    p = subparsers.add_parser("bringin", help="bring coders' copies back into the project")
    p.add_argument("project", type=Path)
    p.add_argument("copies", type=Path, nargs="+")
    p.add_argument("--coder", default=None, help="who brings them in (default: your login name)")
    p.set_defaults(func=_bringin)

    p = subparsers.add_parser("sample", help="draw a reproducible sample of clusters and keep "
                                             "it in the project")
    p.add_argument("project", type=Path)
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--n", type=int, help="how many clusters")
    size.add_argument("--share", type=float, help="which share of the clusters (0.1: 10 %%)")
    p.add_argument("--seed", type=int, required=True, help="the random seed (kept with the sample)")
    p.add_argument("--stratify", choices=STRATA, default=None)
    p.add_argument("--singles", action="store_true", help="count single pages as clusters")
    p.add_argument("--reliability", action="store_true",
                   help="a reliability sample: every coder codes it, blind")
    p.add_argument("--name", default=None)
    p.add_argument("--coder", default=None, help="who draws it (default: your login name)")
    p.set_defaults(func=_sample)


def _fail(verb: str, exc: BaseException) -> int:
    print(f"workbench {verb}: {terminal_safe(exc)}", file=sys.stderr)
    return EXIT_INPUT


def _handout(args: argparse.Namespace) -> int:
    try:
        with Project.open(args.project, coder=args.coder) as project:
            paths = hand_out(project, args.coders, args.out, args.clusters)
    except ProjectError as exc:
        return _fail("handout", exc)
    for path in paths:
        print(terminal_safe(path))
    return EXIT_OK


def _bringin(args: argparse.Namespace) -> int:
    failed = False
    try:
        with Project.open(args.project, coder=args.coder) as project:
            for copy in args.copies:
                try:
                    report = bring_in(project, copy)
                except ProjectError as exc:  # the next copy may still come in
                    failed = True
                    _fail("bringin", exc)
                    continue
                news = "nothing new" if report.action_id is None else (
                    f"{report.new_actions} new actions, {report.codes_added} codes added, "
                    f"{report.codes_removed} taken back, {report.memos} memos, "
                    f"{report.dismissals} related dismissed, "
                    f"{report.dismissals_undone} dismissals taken back, "
                    f"{report.splits} splits, {report.splits_undone} splits undone, "
                    f"{report.merges} merges")
                print(terminal_safe(f"{copy}: {report.coder}: {news}"))
                for note in report.kept_aside:
                    print(terminal_safe(f"  kept aside: {note}"))
    except ProjectError as exc:
        return _fail("bringin", exc)
    return EXIT_INPUT if failed else EXIT_OK


def _sample(args: argparse.Namespace) -> int:
    try:
        with Project.open(args.project, coder=args.coder) as project:
            sample = draw_sample(project, args.n, args.share, seed=args.seed,
                                 stratify_by=args.stratify, include_singles=args.singles,
                                 reliability=args.reliability, name=args.name)
    except ProjectError as exc:
        return _fail("sample", exc)
    kind = "reliability sample" if sample.reliability else "sample"
    print(terminal_safe(f"{sample.name} ({kind}, seed {sample.seed}): "
                        f"{len(sample.clusters)} of {sample.rule['population']} clusters"))
    print(" ".join(str(c) for c in sample.clusters))
    return EXIT_OK
