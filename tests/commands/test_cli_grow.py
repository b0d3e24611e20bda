"""``workbench dedup CRAWL --project P --add``: reads only new and changed files, says how
many files were new, changed, removed and unchanged, and writes a full run's outputs."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import DEMO_ARCHIVE
from workbench.commands.cli import EXIT_OK, EXIT_USAGE, main


def test_add_writes_what_a_full_run_writes(tmp_path: Path, capsys) -> None:
    crawl = tmp_path / "crawl"
    shutil.copytree(DEMO_ARCHIVE, crawl)
    (crawl / "valleynews" / "harbour-strike.html").rename(tmp_path / "later.html")
    project = tmp_path / "study.wbproj"
    assert main(["dedup", str(crawl), "--project", str(project), "-q"]) == EXIT_OK
    assert Path(f"{project}.pages").exists()

    shutil.move(tmp_path / "later.html", crawl / "valleynews" / "harbour-strike.html")
    (crawl / "metroherald" / "library-hours.html").unlink()
    flood = crawl / "dailycourier" / "river-flood.html"
    flood.write_text(flood.read_text(encoding="utf-8").replace("</body>", "<p>Updated.</p></body>"),
                     encoding="utf-8")
    capsys.readouterr()
    outputs = {name: tmp_path / f"{name}-add.csv" for name in ("pairs", "clusters", "skipped")}
    assert main(["dedup", str(crawl), "--project", str(project), "--add", "-q",
                 *[a for name, path in outputs.items() for a in (f"--{name}", str(path))]]) == EXIT_OK
    out = capsys.readouterr().out
    assert "files:             1 new, 1 changed, 1 removed, 9 unchanged files (read in" in out
    assert "project:           run 2 saved to" in out

    full = {name: tmp_path / f"{name}-full.csv" for name in outputs}
    assert main(["dedup", str(crawl), "-q",
                 *[a for name, path in full.items() for a in (f"--{name}", str(path))]]) == EXIT_OK
    for name in outputs:
        assert outputs[name].read_bytes() == full[name].read_bytes(), name


def test_add_needs_a_project_and_spotsigs(tmp_path: Path, capsys) -> None:
    assert main(["dedup", str(DEMO_ARCHIVE), "--add", "-q"]) == EXIT_USAGE
    assert "--add adds a crawl's new files to a project's run" in capsys.readouterr().err
    project = tmp_path / "study.wbproj"
    assert main(["dedup", str(DEMO_ARCHIVE), "--project", str(project), "--add", "--method", "minhash",
                 "-q"]) == EXIT_USAGE
    assert "--add works with --method spotsigs only" in capsys.readouterr().err
