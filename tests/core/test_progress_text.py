"""Progress as text: units, rates and time left, written in place or as log lines."""

from __future__ import annotations

import io

from workbench.core.progress_text import MB, ProgressLine, ProgressWriter, duration


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_reading_shows_megabytes_of_total_pages_rate_and_time_left():
    clock = FakeClock()
    line = ProgressLine(clock)
    line.update("read", 0, 50 * MB)
    clock.now += 5
    line.update("read", 10 * MB, 50 * MB)
    line.update("extract", 340, None)
    assert line.text() == ("reading: 10.0 of 50.0 MB (20%), 340 pages extracted, 2.0 MB/s, "
                           "about 20 s left")


def test_extraction_with_a_known_total_and_no_byte_counts_gives_pages_per_second():
    clock = FakeClock()
    line = ProgressLine(clock)
    line.update("extract", 0, 1000)
    clock.now += 10
    line.update("extract", 250, 1000)
    assert line.text() == "reading, 250 of 1,000 pages extracted, 25 pages/s, about 30 s left"


def test_no_rate_in_the_first_second():
    clock = FakeClock()
    line = ProgressLine(clock)
    line.update("read", 1 * MB, 3 * MB)
    clock.now += 0.5
    assert line.text() == "reading: 1.0 of 3.0 MB (33%), 0 pages extracted"


def test_matching_counts_pages_and_other_stages_say_their_name():
    clock = FakeClock()
    line = ProgressLine(clock)
    line.update("filter", 0, None)
    assert line.text() == "filtering..."
    line.update("match", 0, 2000)
    clock.now += 4
    line.update("match", 500, 2000)
    assert line.text() == "matching: 500 of 2,000 pages (25%), 125 pages/s, about 12 s left"


def test_a_clusters_tasks_show_beside_their_stage_and_go_with_it():
    """dedup --dask reports its Dask tasks as stage "tasks": shown on the stage's line,
    without starting a stage of their own, and gone when the next stage starts."""
    clock = FakeClock()
    line = ProgressLine(clock)
    line.update("read", 0, 50 * MB)
    clock.now += 5
    assert not line.update("tasks", 40, 84)
    line.update("read", 10 * MB, 50 * MB)
    line.update("extract", 340, None)
    assert line.text() == ("reading: 10.0 of 50.0 MB (20%), 340 pages extracted, 2.0 MB/s, "
                           "about 20 s left, 40 of 84 tasks done")
    line.update("filter", 0, None)
    assert line.text() == "filtering..."
    line.update("tasks", 3, 79)
    line.update("match", 0, 2000)
    assert line.text() == "matching: 0 of 2,000 pages (0%)"  # the tasks reported before it went


def test_durations_read_like_a_person_says_them():
    assert [duration(s) for s in (0.4, 45, 150, 3900)] == ["0 s", "45 s", "2 min", "1 h 5 min"]


def test_a_log_gets_plain_lines_at_most_every_interval_plus_stage_changes():
    clock = FakeClock()
    out = io.StringIO()
    write = ProgressWriter(out, tty=False, clock=clock, interval=5.0)
    for k in range(1, 101):  # 100 reports over 10 s
        clock.now += 0.1
        write("read", k * MB, 100 * MB)
    write("match", 0, 10)
    write.finish()
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    reading = [line for line in lines if line.startswith("reading")]
    assert 2 <= len(reading) <= 4  # the first, one every 5 s, and the last before matching
    assert reading[-1].startswith("reading: 100.0 of 100.0 MB (100%)")
    assert lines[-1] == "matching: 0 of 10 pages (0%)"


def test_a_terminal_gets_one_line_rewritten_in_place_and_cleared():
    clock = FakeClock()
    out = io.StringIO()
    write = ProgressWriter(out, tty=True, clock=clock, tty_interval=0.2)
    write("read", 1 * MB, 10 * MB)
    clock.now += 0.05
    write("read", 2 * MB, 10 * MB)  # too soon to redraw
    clock.now += 2
    write("read", 5 * MB, 10 * MB)
    write.finish()
    text = out.getvalue()
    assert "\n" not in text
    assert text.count("\r") == 4  # two lines drawn, then blanked: carriage return, spaces, return
    assert "2.0 of 10.0" not in text
    assert "reading: 5.0 of 10.0 MB (50%)" in text
    assert text.endswith("\r") and text.rsplit("\r", 2)[-2].strip() == ""  # blanked at the end
