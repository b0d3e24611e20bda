"""The export's coding columns: "not this story" exceptions and memos."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.store.builders import cluster_ids, new_project, tag_id
from workbench.export import export_pages


def read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_excluded_pages_are_marked_and_carry_only_their_own_tags(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2], skipped=1)
    big, _ = cluster_ids(project)
    odd = project.members(big)[1]
    project.tag_clusters([big], [tag_id(project, "unions")])
    project.tag_pages([odd.page_id], [tag_id(project, "feminism")])
    project.set_excluded(big, [odd.page_id], True)
    rows = {r["path"]: r for r in read(export_pages(project, tmp_path / "all.csv",
                                                    coded_only=False).csv_path)}
    assert rows[odd.key]["excluded"] == "1" and rows[odd.key]["tags"] == "feminism"
    others = [r for k, r in rows.items() if k != odd.key and r["cluster"]]
    assert others and all(r["excluded"] == "0" for r in others)
    skipped = [r for r in rows.values() if not r["cluster"]]
    assert [r["excluded"] for r in skipped] == [""]
    assert sum(r["tags"] == "unions" for r in rows.values()) == 2


def test_cluster_and_page_memos_are_exported_oldest_first(tmp_path: Path) -> None:
    project = new_project(tmp_path, [3, 2])
    big, small = cluster_ids(project)
    page = project.members(small)[1]
    project.add_memo(big, "=cmd() looks like a formula")
    project.add_memo(small, "second story")
    project.merge([big, small])  # small's memo is now big's
    project.add_memo(big, "merged, check dates")
    project.add_page_memo(page.page_id, "paywalled copy")
    project.add_page_memo(page.page_id, "line\nbreak")
    rows = read(export_pages(project, tmp_path / "all.csv", coded_only=False).csv_path)
    assert {r["cluster_memo"] for r in rows} == {
        "'=cmd() looks like a formula | second story | merged, check dates"}
    by_path = {r["path"]: r["page_memo"] for r in rows}
    assert by_path.pop(page.key) == "paywalled copy | line\nbreak"
    assert set(by_path.values()) == {""}


def test_the_default_export_keeps_exceptions_and_memos_of_untagged_pages(tmp_path: Path) -> None:
    """A coder's judgement is in the default export even where no tag is: an untagged page
    marked "not this story", a page memo, a cluster memo (issue: A2)."""
    project = new_project(tmp_path, [3, 2, 2, 2])
    big, memo_cluster, memo_page_cluster, untouched = cluster_ids(project)
    odd = project.members(big)[1]
    project.tag_clusters([big], [tag_id(project, "unions")])
    project.set_excluded(big, [odd.page_id], True)  # marked, and no tag of its own
    noted = project.members(memo_page_cluster)[1]
    project.add_page_memo(noted.page_id, "paywalled copy")
    project.add_memo(memo_cluster, "two stories under one headline")
    rows = {r["path"]: r for r in read(export_pages(project, tmp_path / "coded.csv").csv_path)}
    assert rows[odd.key]["excluded"] == "1" and rows[odd.key]["tags"] == ""
    assert rows[noted.key]["page_memo"] == "paywalled copy"
    memo_rows = [r for r in rows.values() if r["cluster"] == str(memo_cluster)]
    assert len(memo_rows) == 2
    assert {r["cluster_memo"] for r in memo_rows} == {"two stories under one headline"}
    assert not any(r["cluster"] == str(untouched) for r in rows.values())
    other = project.members(memo_page_cluster)[0]
    assert other.key not in rows  # the memo is the page's, not its cluster's
    assert sum(r["tags"] == "unions" for r in rows.values()) == 2
