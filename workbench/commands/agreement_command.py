"""``workbench agreement --table RELIABILITY.csv [--level nominal|ordinal|interval|ratio]``.

Prints Krippendorff's alpha of any reliability-data table (one row per coder, one column
per unit, empty cells missing; a header row of unit names and a first column of coder
names are recognised, see workbench/core/agreement/table.py), with a bootstrap 95 %
interval, the numbers of units and coders, percent agreement and, for two coders,
Cohen's kappa: the same tool for data coded elsewhere. cli.py wires it in with
``add_parser(subparsers)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from workbench.core.agreement.reliability import LEVELS, AgreementError, Reliability, reliability
from workbench.core.agreement.table import ReliabilityTable, parse_table
from workbench.core.terminal_text import terminal_safe
from workbench.export.agreement_report import (
    entries,
    row_note,
    write_agreement_csv,
    write_agreement_html,
)
from workbench.store import Project, ProjectError
from workbench.store.safety.outputs import check_project_output
from workbench.store.safety.whole_files import OutputRefused
from workbench.store.team import bring_in
from workbench.usecases.agreement import ProjectAgreement, project_agreement

EXIT_OK, EXIT_USAGE, EXIT_INPUT = 0, 2, 3
# A reliability table is coders x units; far below this. A bigger file is not one.
MAX_TABLE_BYTES = 64 * 2**20


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "agreement",
        help="inter-coder agreement (Krippendorff's alpha) of a reliability-data table",
        description="Compute Krippendorff's alpha, with a bootstrap 95%% confidence interval, "
                    "for a table of codes: one row per coder, one column per unit, an empty "
                    "cell where a coder did not code a unit. A header row of unit names and a "
                    "first column of coder names are recognised when present (names must not "
                    "be plain numbers). Two coders also get Cohen's kappa.",
    )
    parser.add_argument("projects", nargs="*", type=Path, metavar="PROJECT",
                        help="the lead's project (with its coders' work brought in), and any "
                             "coders' copies not brought in yet: agreement per tag over its "
                             "reliability sample (the files are only read)")
    parser.add_argument("--sample", metavar="NAME",
                        help="with PROJECT: the sample to score (default: the newest reliability "
                             "sample)")
    parser.add_argument("--csv", type=Path, metavar="OUT.csv",
                        help="with PROJECT: also write the table as CSV")
    parser.add_argument("--html", type=Path, metavar="OUT.html",
                        help="with PROJECT: also write a report for a methods section")
    parser.add_argument("--table", type=Path, metavar="RELIABILITY.csv",
                        help="a reliability-data table (CSV; semicolons or tabs also work)")
    parser.add_argument("--level", choices=LEVELS, default="nominal",
                        help="level of measurement of the codes (default nominal: categories; "
                             "ordinal, interval and ratio need numbers)")
    parser.add_argument("--draws", type=_draws, default=1000,
                        help="bootstrap resamplings of the units for the interval (default 1000; "
                             "0: no interval)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the bootstrap, so the interval can be reproduced (default 1)")
    parser.set_defaults(func=run)
    return parser


def _draws(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if not 0 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1,000,000, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    if args.projects and args.table is not None:
        return _fail("give either --table FILE.csv or project files, not both", EXIT_USAGE)
    if args.projects:
        return run_project(args)
    if args.csv is not None or args.html is not None or args.sample is not None:
        return _fail("--sample, --csv and --html go with a PROJECT", EXIT_USAGE)
    if args.table is None:
        return _fail("give a reliability table: --table FILE.csv (one row per coder, one column "
                     "per unit)", EXIT_USAGE)
    path: Path = args.table
    try:
        table = parse_table(read_table_text(path), args.level)
        result = reliability(table.matrix, args.level, draws=args.draws, seed=args.seed)
    except AgreementError as exc:
        return _fail(f"{terminal_safe(path)}: {terminal_safe(exc)}", EXIT_INPUT)
    for note in table.notes:
        print(f"workbench agreement: note: {terminal_safe(note)}", file=sys.stderr)
    print_result(path, table, result, sys.stdout)
    if result.alpha is None:
        return _fail(f"{terminal_safe(path)}: alpha is undefined: {result.undefined_reason}", EXIT_INPUT)
    return EXIT_OK


def run_project(args: argparse.Namespace) -> int:
    """Agreement per tag over a lead project's reliability sample, printed and, on request,
    written as CSV and HTML."""
    if args.level != "nominal":
        return _fail("a project's tags are categories: --level nominal only", EXIT_USAGE)
    lead, copies = args.projects[0], args.projects[1:]
    try:
        with Project.open(lead, backups=0, readonly=True) as project:
            outputs = [check_project_output(project, path) for path in (args.csv, args.html)
                       if path is not None]
            if not copies:
                found = project_agreement(project, args.sample, draws=args.draws, seed=args.seed)
            else:
                found = _with_copies(project, copies, args)
    except OutputRefused as exc:
        return _fail(terminal_safe(exc), EXIT_USAGE)
    except ProjectError as exc:
        return _fail(terminal_safe(exc), EXIT_INPUT)
    table, context = found.table, found.context
    print(terminal_safe(f"{found.sample.name} (seed {found.sample.seed}): {table.n_units} clusters, "
                        f"coders {', '.join(table.coders)}"))
    print(f"{'tag':<28} {'alpha':>6}  {'95% interval':<15} {'kappa':>6} {'agree':>6}  note")
    for name, _guid, uses, r in entries(table, context):
        ci = r.interval
        interval = f"{ci.low:.3f} to {ci.high:.3f}" if ci is not None else ""
        alpha = "–" if r.alpha is None else f"{r.alpha:.3f}"
        kappa = "–" if r.kappa is None else f"{r.kappa:.3f}"
        print(terminal_safe(f"{name[:28]:<28} {alpha:>6}  {interval:<15} {kappa:>6} "
                            f"{r.percent_agreement:>6.1%}  {row_note(table, uses, r)}"))
    try:
        for path in outputs:
            write = write_agreement_html if path == args.html else write_agreement_csv
            write(path, table, context)
            print(f"wrote {terminal_safe(path)}")
    except ProjectError as exc:
        return _fail(terminal_safe(exc), EXIT_INPUT)
    return EXIT_OK


def _with_copies(project: Project, copies: list[Path], args: argparse.Namespace) -> ProjectAgreement:
    """Agreement as if the copies were brought in, leaving every file as it was: they are
    brought into a throw-away copy of the lead's project (the same checks as Bring In:
    another project's or another run's copy is refused)."""
    with tempfile.TemporaryDirectory(prefix="workbench-agreement-") as folder:
        scratch = project.save_copy(Path(folder) / project.path.name)
        with Project.open(scratch, backups=0) as merged:
            for copy in copies:
                bring_in(merged, copy)
            found = project_agreement(merged, args.sample, draws=args.draws, seed=args.seed)
    return dataclasses.replace(found, context=dataclasses.replace(
        found.context, project=f"{project.path} with {', '.join(str(c) for c in copies)}"))


def _fail(message: str, status: int) -> int:
    print(f"workbench agreement: {message}", file=sys.stderr)
    return status


def read_table_text(path: Path) -> str:
    """The file's text: UTF-8 (a BOM allowed), else Windows-1252, as spreadsheets save
    CSV; AgreementError for a file that is missing, a folder, too big or not text."""
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_TABLE_BYTES + 1)
    except IsADirectoryError:
        raise AgreementError("that is a folder; give a CSV file") from None
    except FileNotFoundError:
        raise AgreementError("no such file") from None
    except OSError as exc:
        raise AgreementError(f"cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_TABLE_BYTES:
        raise AgreementError(f"over {MAX_TABLE_BYTES // 2**20} MB: not a reliability table")
    if b"\0" in data:
        raise AgreementError("not a text file (it holds NUL bytes); save the table as CSV")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise AgreementError("not readable as text (neither UTF-8 nor Windows-1252); save it as "
                             "CSV UTF-8") from None


def print_result(path: Path, table: ReliabilityTable, r: Reliability, out: TextIO) -> None:
    read_as = [part for part, found in (("a header row of unit names", table.has_header),
                                        ("a first column of coder names", table.has_coder_column))
               if found]
    print(f"{terminal_safe(path)}: {r.n_coders} coders, {r.n_units} units "
          f"({r.n_pairable_units} coded by two or more coders: {r.n_values} codes compared)", file=out)
    if read_as:
        print(f"read with {' and '.join(read_as)}", file=out)
    if table.categories is not None:
        print(f"categories: {terminal_safe(', '.join(table.categories))}", file=out)
    print(f"level of measurement:  {r.level}", file=out)
    if r.alpha is None:
        print("Krippendorff's alpha:  undefined", file=out)
    else:
        print(f"Krippendorff's alpha:  {r.alpha:.3f}", file=out)
    ci = r.interval
    if ci is not None:
        left_out = (f"; {ci.draws - ci.defined_draws:,} draws without variation left out"
                    if ci.defined_draws < ci.draws else "")
        print(f"{ci.level:.0%} interval:          {ci.low:.3f} to {ci.high:.3f} (bootstrap over units, "
              f"{ci.draws:,} draws, seed {ci.seed}{left_out})", file=out)
    if r.kappa is not None:
        # Unweighted: at the ordinal to ratio levels it still takes each code as a category.
        weighting = "" if r.level == "nominal" else " (unweighted: codes taken as categories)"
        print(f"Cohen's kappa:         {r.kappa:.3f}{weighting}", file=out)
    agreement_of = "units both coders coded" if r.n_coders == 2 else "mean over pairs of coders"
    print(f"percent agreement:     {r.percent_agreement:.1%} ({agreement_of})", file=out)
