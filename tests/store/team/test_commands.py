"""``workbench handout``, ``bringin`` and ``sample`` on a real project file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.store.team.conftest import clusters, tag
from workbench.commands.cli import main
from workbench.store import Project


def test_hand_out_code_bring_in_twice_and_sample(demo_file: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "study.wbproj"
    shutil.copy(demo_file, project)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["sample", str(project), "--n", "2", "--seed", "1", "--reliability"]) == 0
    assert "Reliability sample 1 (reliability sample, seed 1): 2 of 4 clusters" in \
        capsys.readouterr().out
    assert main(["handout", str(project), "--coders", "ann,bob", "--out", str(out)]) == 0
    ann, bob = (out / "study-ann.wbproj", out / "study-bob.wbproj")
    assert capsys.readouterr().out.split() == [str(ann), str(bob)]
    with Project.open(ann, backups=0) as copy:
        copy.tag_clusters([clusters(copy)[0]], [tag(copy, "unions")])
    assert main(["bringin", str(project), str(ann), str(bob)]) == 0
    said = capsys.readouterr().out
    assert f"{ann}: ann: 1 new actions, 3 codes added" in said and f"{bob}: bob: nothing new" in said
    assert main(["bringin", str(project), str(ann)]) == 0
    assert "ann: nothing new" in capsys.readouterr().out
    assert main(["bringin", str(project), str(project)]) == 3
    assert "is the open project itself" in capsys.readouterr().err
