"""Detection ▸ Draw Sample…: ask for the rule, draw (one undoable step), and show the
sample in the cluster list (the filter bar's sample choice)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from workbench.gui.coding.feedback import count_of
from workbench.gui.host import CodingWindow
from workbench.store import ProjectError
from workbench.store.team import Sample, copy_of, draw_sample


class _SampleChoice(Protocol):
    def findData(self, data: object) -> int: ...  # noqa: N802 - Qt's name

    def setCurrentIndex(self, index: int) -> None: ...  # noqa: N802 - Qt's name


class _Filters(Protocol):
    sample: _SampleChoice


@runtime_checkable
class SampleWindow(CodingWindow, Protocol):
    """What drawing a sample uses of the window: the filter bar (to list the sample)."""

    filters: _Filters


def draw_sample_dialog(window: SampleWindow) -> Sample | None:
    if not window.may_code():
        return None
    project = window.project
    assert project is not None
    if copy_of(project) is not None:
        window.prompter.error("Cannot draw a sample", "This is a coder's copy. The lead draws "
                              "samples in the project the copies were made from, then hands "
                              "the work out again.")
        return None
    options = window.prompter.sample_options(project.count_clusters())
    if options is None:
        return None
    try:
        sample = draw_sample(project, options.n, options.share, seed=options.seed,
                             stratify_by=options.stratify_by,
                             include_singles=options.include_singles,
                             reliability=options.reliability, name=options.name or None)
    except ProjectError as exc:
        window.prompter.error("Cannot draw the sample", str(exc))
        return None
    window.refresh()  # the filter bar lists the new sample
    index = window.filters.sample.findData(sample.id)
    if index >= 0:
        window.filters.sample.setCurrentIndex(index)  # and the list shows it
    kind = "reliability sample (coded blind)" if sample.reliability else "sample"
    window.statusBar().showMessage(
        f"Drew {kind} {sample.name}: {count_of(len(sample.clusters), 'cluster', 'clusters')}, "
        f"seed {sample.seed} (Ctrl+Z takes it back)", 8000)
    return sample
