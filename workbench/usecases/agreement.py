"""Agreement over a project's reliability sample: each coder's own codes on the sample's
clusters (brought in from their copies), scored per tag, with what a report must say.

Shared by ``workbench agreement PROJECT`` and the window; no Qt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from workbench.core.agreement.tags import AgreementTable, tag_agreement
from workbench.export.agreement_report import ReportContext
from workbench.store import Project, ProjectError
from workbench.store.team.codes import coder_codes
from workbench.store.team.samples import Sample, get_sample, list_samples, sample_clusters


@dataclass(frozen=True)
class ProjectAgreement:
    sample: Sample
    units: tuple[int, ...]  # the sample's clusters, as they are in the current run
    table: AgreementTable
    context: ReportContext


def reliability_sample(project: Project, name: str | int | None = None) -> Sample:
    """The sample asked for, else the newest reliability sample; ProjectError with what to
    do when there is none."""
    conn = project.reader()
    if name is not None:
        found = get_sample(conn, name)
        if found is None:
            known = ", ".join(s.name for s in list_samples(conn)) or "none"
            raise ProjectError(f"{project.path} has no sample {name!r} (its samples: {known}).")
        return found
    reliable = [s for s in list_samples(conn) if s.reliability]
    if not reliable:
        raise ProjectError(
            f"{project.path} has no reliability sample: draw one (Detection ▸ Draw Sample…, or "
            "workbench sample PROJECT --n 20 --seed 1 --reliability), hand out copies and bring "
            "the coders' work in before computing agreement.")
    return max(reliable, key=lambda s: s.id)


def project_agreement(project: Project, sample: str | int | None = None, *, draws: int = 1000,
                      seed: int = 1) -> ProjectAgreement:
    """Alpha, kappa and percent agreement per tag (and on the tag set) over the sample's
    clusters, from every coder's own codes; ProjectError when fewer than two coders coded
    any of them."""
    chosen = reliability_sample(project, sample)
    units = tuple(sample_clusters(project.reader(), chosen.id))
    codes = coder_codes(project, units)
    if len(codes) < 2:
        who = ", ".join(sorted(codes)) or "no coder"
        raise ProjectError(
            f"Agreement needs two coders' work on {chosen.name}; {who} coded it so far. Bring in "
            "the coders' copies (File ▸ Bring In Coders' Work…, or workbench bringin).")
    names = {t.guid: t.name for t in project.codebook() if t.guid}
    used = {tag for by_unit in codes.values() for tags in by_unit.values() for tag in tags}
    # In the codebook's words, alphabetically: the same order on every run of the report.
    ordered = sorted(used, key=lambda guid: (names.get(guid, guid).casefold(), guid))
    table = tag_agreement(codes, units, ordered, draws=draws, seed=seed)
    run = project.current_run()
    settings: dict[str, object] = {"method": run.method, "run": run.id} if run else {}
    if run is not None:
        settings.update((k, v if isinstance(v, (int, float, str, bool)) else json.dumps(v))
                        for k, v in sorted(run.params.items()))
    context = ReportContext(
        project=str(project.path),
        sample_rule=describe_rule(chosen),
        sample_seed=chosen.seed,
        detection_settings=settings,
        tag_names=names,
    )
    return ProjectAgreement(chosen, units, table, context)


def describe_rule(sample: Sample) -> str:
    """The sample's rule in words, for a methods section: "Reliability sample 1: 20 of 412
    clusters at random, stratified by site, single pages included"."""
    rule = sample.rule
    drawn = f"{len(sample.clusters)} of {rule.get('population', '?')} clusters at random"
    if rule.get("share"):
        drawn += f" ({rule['share']:.0%})"
    parts = [drawn]
    if rule.get("stratify_by"):
        parts.append(f"stratified by {_STRATA.get(rule['stratify_by'], rule['stratify_by'])}")
    if rule.get("include_singles"):
        parts.append("single pages included")
    return f"{sample.name}: {', '.join(parts)}"


_STRATA = {"size": "cluster size", "site": "site", "month": "capture month"}
