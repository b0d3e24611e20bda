"""The agreement table as CSV and as a short HTML report for a methods section.

Both take plain data: the :class:`~workbench.core.agreement.tags.AgreementTable` and a
:class:`ReportContext` (tag names, the sample's rule and seed, the detection settings the
clusters came from), so the window and ``workbench agreement PROJECT`` feed them alike.
Both files are written whole or not at all (whole_files); every CSV cell goes through the
formula-escaping writer, every HTML text through ``html.escape``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench import __version__
from workbench.core.agreement.reliability import Reliability
from workbench.core.agreement.tags import AgreementTable
from workbench.export.cells import csv_writer
from workbench.store.clock import utc_now
from workbench.store.safety.whole_files import whole_file

TAG_SET = "(tag set)"  # the row of the tag set taken as one nominal variable
CSV_COLUMNS = ["tag", "tag_guid", "codes_with_tag", "units_in_sample", "units_compared", "coders",
               "alpha", "alpha_ci_low", "alpha_ci_high", "kappa", "percent_agreement", "note",
               "sample_rule", "sample_seed", "bootstrap_draws", "bootstrap_seed"]


@dataclass(frozen=True)
class ReportContext:
    """What the report says besides the figures. ``tag_names``: tag GUID -> name (a tag
    without one shows its GUID); ``detection_settings``: name -> value, in order;
    ``written_at``: a UTC time (default: when the report is written)."""

    project: str
    sample_rule: str
    sample_seed: int | None
    detection_settings: Mapping[str, object] = field(default_factory=dict)
    tag_names: Mapping[str, str] = field(default_factory=dict)
    written_at: str = ""


def _rounded(value: float | None, digits: int = 4) -> float | str:
    """A figure for the CSV: a number (never a text cell, so a negative alpha is not taken
    for a formula and quoted), or empty when there is none."""
    return "" if value is None else round(value, digits)


def _shown(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def note(r: Reliability, uses: int | None = None) -> str:
    """Why a figure is missing, or how many bootstrap draws the interval is over; ``uses``:
    how often the row's tag was given (None: the tag-set row)."""
    if r.alpha is None:
        if uses == 0:
            return "alpha undefined: no coder gave this tag in the sample"
        if uses is not None:
            return "alpha undefined: every coder gave this tag to every cluster they coded"
        return f"alpha undefined: {r.undefined_reason}"
    ci = r.interval
    if ci is not None and ci.defined_draws < ci.draws:
        return (f"interval over the {ci.defined_draws:,} of {ci.draws:,} bootstrap draws with "
                "variation")
    return ""


NOT_EXCLUSIVE = ("some clusters got two tags or more: the tags were not used as mutually "
                 "exclusive, so this row is no single category's agreement")


def row_note(table: AgreementTable, uses: int | None, r: Reliability) -> str:
    """The note of a row: :func:`note`, and on the tag-set row whether the tags were used
    as mutually exclusive."""
    said = note(r, uses)
    if uses is None and not table.mutually_exclusive:
        return f"{said}; {NOT_EXCLUSIVE}" if said else NOT_EXCLUSIVE
    return said


def entries(table: AgreementTable, context: ReportContext) -> list[tuple[str, str, int | None, Reliability]]:
    """(name, GUID, codes with the tag, figures) per tag, then the tag set (no GUID, no count)."""
    rows: list[tuple[str, str, int | None, Reliability]] = [
        (context.tag_names.get(t.tag, t.tag), t.tag, t.uses, t.reliability) for t in table.tags]
    rows.append((TAG_SET, "", None, table.tag_set))
    return rows


def table_rows(table: AgreementTable, context: ReportContext) -> list[list[object]]:
    """One row per tag, then the tag set, under :data:`CSV_COLUMNS`."""
    coders = "; ".join(table.coders)
    rows: list[list[object]] = []
    for name, guid, uses, r in entries(table, context):
        ci = r.interval
        rows.append([name, guid, "" if uses is None else uses, r.n_units, r.n_pairable_units, coders,
                     _rounded(r.alpha), _rounded(ci.low if ci else None), _rounded(ci.high if ci else None),
                     _rounded(r.kappa), round(100 * r.percent_agreement, 1), row_note(table, uses, r),
                     context.sample_rule, "" if context.sample_seed is None else context.sample_seed,
                     table.draws, table.seed])
    return rows


def write_agreement_csv(path: Path | str, table: AgreementTable, context: ReportContext) -> Path:
    """The table as CSV, one row per tag and one for the tag set; returns the path."""
    with whole_file(path) as fh:
        writer = csv_writer(fh)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(table_rows(table, context))
    return Path(path)


def methods_sentence(table: AgreementTable, context: ReportContext) -> str:
    """A sentence a coder can adapt for the methods section."""
    seed = f", seed {context.sample_seed}" if context.sample_seed is not None else ""
    return (f"Inter-coder reliability was assessed on a sample of {table.n_units:,} clusters "
            f"({context.sample_rule}{seed}) coded independently by {len(table.coders)} coders. "
            f"For each tag, its presence or absence per cluster was compared with Krippendorff's "
            f"alpha (nominal), with a 95 % confidence interval from {table.draws:,} bootstrap "
            f"resamplings of the clusters (seed {table.seed})"
            + (", and with Cohen's kappa" if len(table.coders) == 2 else "")
            + " and percent agreement.")


_STYLE = """
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child, td.note { text-align: left; }
th { background: #eee; }
tr.tagset td { font-style: italic; }
p.small, td.note { font-size: 0.9em; color: #555; }
"""


def report_html(table: AgreementTable, context: ReportContext) -> str:
    """The report as one self-contained HTML page."""
    e = html.escape
    rows = []
    for name, guid, uses, r in entries(table, context):
        ci = r.interval
        interval = "–" if ci is None else f"{ci.low:.3f} to {ci.high:.3f}"
        kind = ' class="tagset"' if not guid else ""
        rows.append(f"<tr{kind}><td>{e(name)}</td><td>{'' if uses is None else uses}</td>"
                    f"<td>{r.n_pairable_units}</td><td>{_shown(r.alpha)}</td><td>{interval}</td>"
                    f"<td>{_shown(r.kappa)}</td><td>{100 * r.percent_agreement:.1f} %</td>"
                    f"<td class=\"note\">{e(row_note(table, uses, r))}</td></tr>")
    settings = "".join(f"<li>{e(str(k))}: {e(str(v))}</li>" for k, v in context.detection_settings.items())
    seed = "none recorded" if context.sample_seed is None else str(context.sample_seed)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Inter-coder agreement: {e(context.project)}</title><style>{_STYLE}</style></head>
<body>
<h1>Inter-coder agreement</h1>
<p>Project: {e(context.project)}<br>
Sample: {e(context.sample_rule)} (seed {e(seed)}), {table.n_units:,} clusters<br>
Coders: {e(", ".join(table.coders))}</p>
<table>
<tr><th>Tag</th><th>Codes with tag</th><th>Clusters compared</th><th>Krippendorff's &alpha;</th>
<th>95 % CI</th><th>Cohen's &kappa;</th><th>Agreement</th><th>Note</th></tr>
{chr(10).join(rows)}
</table>
<p>{e(methods_sentence(table, context))}</p>
<p class="small">&alpha;: Krippendorff's alpha, nominal, over the clusters two or more coders
coded; each tag is present (1) or absent (0) per cluster and coder, and the last row takes
each distinct set of tags as one category (for mutually exclusive tags). CI: percentile
bootstrap over clusters, {table.draws:,} draws, seed {table.seed}. &kappa;: Cohen's kappa, two
coders only. Agreement: the share of clusters two coders coded alike (the mean over pairs
of coders).</p>
<h2>Detection settings the clusters came from</h2>
<ul>{settings or "<li>none recorded</li>"}</ul>
<p class="small">SpotSigs Workbench {e(__version__)}, {e(context.written_at or utc_now())}.</p>
</body></html>
"""


def write_agreement_html(path: Path | str, table: AgreementTable, context: ReportContext) -> Path:
    """The report as an HTML file a coder can attach to a methods section; returns the path."""
    with whole_file(path) as fh:
        fh.write(report_html(table, context))
    return Path(path)
