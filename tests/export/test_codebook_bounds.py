"""Codebook imports are bounded: a file over 20 MB or of more than 5,000 tags is refused with
a message before anything changes (a 200 MB CSV made 8,160,000 tags; a 19 MB .qdc of
231,000 codes froze the window for 40 s)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from workbench.export.codebook_csv import read_codebook
from workbench.export.codebook_file import read_codebook_file
from workbench.export.qdc import NAMESPACE, read_qdc
from workbench.store import Project, ProjectError, TagSpec
from workbench.store.coding.codebook import MAX_CODEBOOK_BYTES, MAX_IMPORT_TAGS


def csv_codebook(path: Path, tags: int, description: str = "") -> Path:
    rows = "".join(f"tag {n},{description},,,\r\n" for n in range(tags))
    path.write_text("name,description,colour,shortcut,parent\r\n" + rows, encoding="utf-8")
    return path


def qdc_codebook(path: Path, codes: int) -> Path:
    body = "".join(f'<Code guid="{uuid.UUID(int=n + 1)}" name="code {n}" isCodable="true"/>'
                   for n in range(codes))
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?><CodeBook xmlns="{NAMESPACE}">'
                    f"<Codes>{body}</Codes></CodeBook>", encoding="utf-8")
    return path


def test_a_csv_over_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    # About 21 MB of well-formed rows: without the bound, 40,000 tags of 500 bytes each.
    big = csv_codebook(tmp_path / "big.csv", 40_000, "x" * 525)
    assert big.stat().st_size > MAX_CODEBOOK_BYTES
    with pytest.raises(ProjectError, match=r"big\.csv is 2\d\.\d MB; a codebook file may be at most 20 MB"):
        read_codebook(big)


def test_a_qdc_over_the_size_bound_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.qdc"
    with big.open("wb") as fh:
        fh.truncate(MAX_CODEBOOK_BYTES + 1)  # sparse: nothing to write
    with pytest.raises(ProjectError, match="a codebook file may be at most 20 MB"):
        read_codebook_file(big)


@pytest.mark.parametrize("suffix", [".csv", ".qdc"])
def test_more_tags_than_the_bound_are_refused(tmp_path: Path, suffix: str) -> None:
    write = csv_codebook if suffix == ".csv" else qdc_codebook
    at_bound = write(tmp_path / f"ok{suffix}", MAX_IMPORT_TAGS)
    assert len(read_codebook_file(at_bound).specs) == MAX_IMPORT_TAGS
    over = write(tmp_path / f"over{suffix}", MAX_IMPORT_TAGS + 1)
    with pytest.raises(ProjectError, match=f"holds {MAX_IMPORT_TAGS + 1:,} tags or more; one "
                                           f"codebook import takes at most {MAX_IMPORT_TAGS:,}"):
        read_codebook_file(over)


def test_qdc_of_many_codes_is_refused_by_count(tmp_path: Path) -> None:
    """The issue's file: far more codes than the bound, under the size bound."""
    many = qdc_codebook(tmp_path / "many.qdc", 60_000)
    assert many.stat().st_size < MAX_CODEBOOK_BYTES
    with pytest.raises(ProjectError, match="holds 60,000 tags"):
        read_qdc(many)


def test_the_store_refuses_a_larger_import_and_changes_nothing(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p.wbproj", "/crawl", coder="ann") as project:
        project.add_tag("kept")
        specs = [TagSpec(f"t{n}") for n in range(MAX_IMPORT_TAGS + 1)]
        with pytest.raises(ProjectError, match="one codebook import takes at most 5,000"):
            project.import_codebook(specs)
        assert [t.name for t in project.codebook()] == ["kept"]
