"""--corroborate-below: why a lower --tau adds no cluster of two pages, and how to change it."""

from __future__ import annotations

import random
from pathlib import Path

from workbench.commands.cli import build_parser, main


def _two_pages_a_third_alike(folder: Path) -> Path:
    """Two pages sharing 5 of their 10 sentences: similarity 1/3, under the default 0.4."""
    rng = random.Random(7)
    words = [f"w{rng.randrange(10**6)}" for _ in range(3000)]

    def sentence() -> str:
        return " ".join(f"the {rng.choice(words)} {rng.choice(words)} is {rng.choice(words)} "
                        f"{rng.choice(words)}" for _ in range(4)) + "."

    shared = [sentence() for _ in range(5)]
    for name in ("a", "b"):
        body = "".join(f"<p>{s}</p>" for s in shared + [sentence() for _ in range(5)])
        (folder / f"{name}.html").write_text(f"<html><head><title>{name}</title></head><body>"
                                             f"<article>{body}</article></body></html>")
    return folder


def _clusters_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("clusters:"))


def test_a_tau_under_corroborate_below_makes_no_pair_cluster_until_the_option_is_lowered(tmp_path, capsys):
    folder = _two_pages_a_third_alike(tmp_path)
    assert main(["dedup", str(folder), "--tau", "0.2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "pairs >= 0.2:      1" in out  # the pair is found ...
    assert _clusters_line(out).startswith("clusters:          0")  # ... and makes no cluster
    assert main(["dedup", str(folder), "--tau", "0.2", "--corroborate-below", "0.3", "-q"]) == 0
    assert _clusters_line(capsys.readouterr().out).startswith("clusters:          1 covering 2")
    assert main(["dedup", str(folder), "--tau", "0.2", "--corroborate-below", "0", "-q"]) == 0
    assert _clusters_line(capsys.readouterr().out).startswith("clusters:          1 covering 2")


def test_help_says_what_tau_does_not_change_and_names_the_option(capsys):
    for command in ("dedup", "eval"):
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command").choices[command]
        text = " ".join(sub.format_help().split())
        assert "--corroborate-below" in text
        assert "no new cluster of two pages" in text
        assert "does not change which pages are read or what is compared" in text
