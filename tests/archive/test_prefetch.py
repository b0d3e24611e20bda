"""A task's files are asked for before they are read; odd files never stop it."""

from __future__ import annotations

import os

import pytest

from workbench.archive import prefetch as prefetch_module
from workbench.archive.prefetch import PREFETCH_BYTES, prefetch

needs_fadvise = pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="no posix_fadvise here")


@needs_fadvise
def test_asks_for_the_start_of_each_file(tmp_path, monkeypatch):
    asked: list[tuple[str, int, int]] = []

    def advise(fd, offset, length, how):
        assert how == os.POSIX_FADV_WILLNEED
        asked.append((os.readlink(f"/proc/self/fd/{fd}"), offset, length))

    monkeypatch.setattr(prefetch_module.os, "posix_fadvise", advise)
    small, large = tmp_path / "a.html", tmp_path / "b.warc"
    small.write_bytes(b"x" * 10)
    large.write_bytes(b"")
    n = prefetch([(str(small), 10), (str(large), 5 * PREFETCH_BYTES)])
    assert n == 2
    assert asked == [(str(small), 0, 10), (str(large), 0, PREFETCH_BYTES)]


@needs_fadvise
def test_missing_files_and_fifos_are_left_to_the_real_read(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # opening it for reading without O_NONBLOCK would wait for a writer
    page = tmp_path / "p.html"
    page.write_bytes(b"<p>hi</p>")
    n = prefetch([(str(tmp_path / "gone.html"), 9), (str(fifo), 0), (str(page), 9)])
    assert n >= 1  # the page; a FIFO may refuse the advice, and that is fine


def test_does_nothing_without_posix_fadvise(tmp_path, monkeypatch):
    monkeypatch.delattr(prefetch_module.os, "posix_fadvise", raising=False)
    page = tmp_path / "p.html"
    page.write_bytes(b"<p>hi</p>")
    assert prefetch([(str(page), 9)]) == 0
