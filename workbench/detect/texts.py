"""Pages as the text every detector reads (:class:`PageText`), with their records.

SpotSigs keeps its own path (signatures are found in the workers, per block, so site
boilerplate can be dropped later); every other detector starts from the same extraction:
the kept blocks of :func:`workbench.detect.spotsigs.signatures.kept_blocks`, so all methods compare
the same text and differ only in how they compare it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.archive.tasks import Scan, scan
from workbench.core.progress import ProgressFn, no_progress
from workbench.core.records import PageInfo, RawPage, SkipRecord
from workbench.detect.detector import Detector, PageText
from workbench.detect.spotsigs.boilerplate import site_of
from workbench.detect.spotsigs.extract import extract_page_text
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.detect.workers.parallel import read_and_extract
from workbench.text.site_titles import retitle_site_labels


@dataclass(slots=True)
class TextPage:
    """A page's record and the text detectors compare (or, when a worker featurized it,
    the detector's features of that text instead)."""

    info: PageInfo
    text: PageText | Any
    note: SkipRecord | None = None  # what of the page was left unread, if anything


@dataclass(slots=True)
class Texts:
    """Every page of a crawl as text (or features), in reading order, and the inputs that
    gave no page."""

    pages: list[PageInfo] = field(default_factory=list)
    texts: list[Any] = field(default_factory=list)
    skipped: list[SkipRecord] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class TextJob:
    """What a worker does with each page: extract its text with ``params`` and, with a
    ``detector``, hand back that detector's features instead of the text (features are
    what the main process needs, and usually far smaller)."""

    params: SpotSigsParams
    detector: Detector | None = None


def extract_texts_batch(batch: list[RawPage], job: TextJob | SpotSigsParams) -> list[TextPage | str]:
    """Each page's text or features (or the reason it could not be read), in a worker."""
    if isinstance(job, SpotSigsParams):
        job = TextJob(job)
    out: list[TextPage | str] = []
    for raw in batch:
        try:
            info, text, note = extract_page_text(raw, job.params)
            value = text if job.detector is None else job.detector.featurize(text)
        except Exception as exc:  # noqa: BLE001 - one bad page must never end a run
            out.append(f"could not extract text: {type(exc).__name__}: {exc}")
            continue
        out.append(TextPage(info, value, note))
    return out


def read_texts(
    root: Path | str,
    params: SpotSigsParams | None = None,
    progress: ProgressFn = no_progress,
    workers: int | None = None,
    pages: Iterable[RawPage | SkipRecord] | None = None,
    detector: Detector | None = None,
) -> Texts:
    """Read ``root`` (or the given pages) into texts; large crawls are read by workers.

    With a ``detector``, ``Texts.texts`` holds each page's features, computed in the
    workers, instead of its text.
    """
    params = params or SpotSigsParams()
    job = TextJob(params, detector)
    root = Path(root)
    if pages is None and not root.exists():
        raise FileNotFoundError(f"no such file or folder: {root}")
    workers = workers or os.cpu_count() or 1
    out = Texts()
    items = pages if pages is not None else scan(root, progress)
    if isinstance(items, Scan) and workers > 1:
        done = read_and_extract(root, job, progress, workers, process=extract_texts_batch)
        if done is not None:
            results, skipped = done
            out.skipped.extend(skipped)
            for page in results:
                _take(out, page)
            return _retitled(out)
    batch: list[RawPage] = []
    for item in items:
        if isinstance(item, SkipRecord):
            out.skipped.append(item)
            continue
        batch.append(item)
        if len(batch) >= 24:
            _take_batch(out, batch, job, progress)
            batch = []
    _take_batch(out, batch, job, progress)
    return _retitled(out)


def _retitled(out: Texts) -> Texts:
    """The pages with their sites' labels replaced as a SpotSigs run replaces them
    (workbench.text.site_titles), copies of one story told by their texts' word triples
    (or their features' ids)."""
    sets: dict[int, set[int | str]] = {}  # feature ids, or word triples

    def of(i: int) -> set[int | str]:
        if i not in sets:
            item = out.texts[i]
            ids = getattr(item, "ids", None)
            if ids is not None:
                sets[i] = set(ids.tolist())
            else:
                words = str(getattr(item, "text", item)).lower().split()
                sets[i] = {" ".join(words[k:k + 3]) for k in range(max(0, len(words) - 2))}
        return sets[i]

    def similarity(i: int, j: int) -> float:
        a, b = of(i), of(j)
        return len(a & b) / len(a | b) if a or b else 0.0

    retitle_site_labels(out.pages, site_of, similarity)
    return out


def _take_batch(out: Texts, batch: list[RawPage], job: TextJob, progress: ProgressFn) -> None:
    for raw, res in zip(batch, extract_texts_batch(batch, job), strict=True):
        if isinstance(res, str):
            out.skipped.append(SkipRecord(raw.source, res, raw.offset))
        else:
            _take(out, res)
    progress("extract", len(out.pages), None)


def _take(out: Texts, page: TextPage) -> None:
    out.pages.append(page.info)
    out.texts.append(page.text)
    if page.note is not None:
        out.skipped.append(page.note)
