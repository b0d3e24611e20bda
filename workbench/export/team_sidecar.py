"""The sidecar's team part: the coders, each sample and its rule, and the agreement at
export time, so a methods section can cite the figures the exported codes stood on."""

from __future__ import annotations

from typing import Any

from workbench.core.agreement.matrix import AgreementError
from workbench.core.agreement.reliability import Reliability
from workbench.export.agreement_report import entries
from workbench.store import Project, ProjectError
from workbench.store.team.codes import page_codes_by_coder
from workbench.store.team.samples import Sample, list_samples

# The agreement table's bootstrap, as the Agreement window and command use by default.
DRAWS, SEED = 1000, 1


def _figures(name: str, guid: str, r: Reliability) -> dict[str, Any]:
    ci = r.interval
    return {"tag": name, "guid": guid or None, "alpha": r.alpha,
            "alpha_ci": [ci.low, ci.high] if ci else None, "kappa": r.kappa,
            "percent_agreement": 100 * r.percent_agreement,
            "units_compared": r.n_pairable_units, "undefined_reason": r.undefined_reason}


def _agreement(project: Project, sample: Sample) -> dict[str, Any]:
    """Agreement per tag on a reliability sample; why there is none when it cannot be
    computed (fewer than two coders' work brought in, say)."""
    # Imported here: the agreement use case imports the export package (its report).
    from workbench.usecases.agreement import project_agreement

    try:
        found = project_agreement(project, sample.id, draws=DRAWS, seed=SEED)
    except (ProjectError, AgreementError) as exc:
        return {"not_computed": str(exc)}
    table = found.table
    return {"coders": list(table.coders), "units": table.n_units,
            "bootstrap": {"draws": table.draws, "seed": table.seed},
            "tags_mutually_exclusive": table.mutually_exclusive,
            "tags": [_figures(name, guid, r) for name, guid, _, r in entries(table, found.context)]}


def team_record(project: Project) -> dict[str, Any]:
    """``coders_with_own_codes`` (who brought tags in, by name) and ``samples`` (each with
    its rule in words and, for a reliability sample, the agreement now)."""
    from workbench.usecases.agreement import describe_rule  # see _agreement

    conn = project.reader()
    coded = {coder for codes in page_codes_by_coder(conn).values() for coder in codes}
    samples = []
    for sample in list_samples(conn):
        entry: dict[str, Any] = {
            "name": sample.name, "rule": describe_rule(sample), "seed": sample.seed,
            "reliability": sample.reliability, "clusters": len(sample.clusters),
            "drawn_at": sample.created_at, "rule_data": sample.rule}
        if sample.reliability:
            entry["agreement"] = _agreement(project, sample)
        samples.append(entry)
    return {"coders_with_own_codes": sorted(coded, key=lambda n: (n.casefold(), n)),
            "samples": samples}
