"""whole_file: an output replaces the old file whole, or leaves it as it was."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from workbench.store.safety.whole_files import OutputRefused, whole_file


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    with pytest.raises(RuntimeError), whole_file(out) as fh:
        fh.write("half a row,")
        raise RuntimeError("stopped mid-file")
    assert out.read_text() == "old\n" and os.listdir(tmp_path) == ["out.csv"]


@pytest.mark.skipif(sys.platform == "win32", reason="Unix permissions")
def test_the_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    out = tmp_path / "private.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    with whole_file(out) as fh:
        fh.write("new\n")
    assert out.read_text() == "new\n" and out.stat().st_mode & 0o777 == 0o600


def test_links_and_folders_are_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    link = tmp_path / "link.csv"
    link.symlink_to(victim)
    with pytest.raises(OutputRefused, match="symbolic link"), whole_file(link) as fh:
        fh.write("x")
    with pytest.raises(OutputRefused, match="is a folder"), whole_file(tmp_path) as fh:
        fh.write("x")
    with pytest.raises(OutputRefused, match="no folder"), whole_file(tmp_path / "no" / "x") as fh:
        fh.write("x")
    assert victim.read_text() == "keep\n"
