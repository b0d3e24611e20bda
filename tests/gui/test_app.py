"""The entry point, dialogs and the PySide6 work-around, outside the main flows."""

from __future__ import annotations

import sys

from PySide6.QtCore import QSettings

from tests.gui.app_loop import run_app_until
from workbench.detect.spotsigs.params import SpotSigsParams
from workbench.gui.compat import protect_none
from workbench.gui.dialogs import ExportDialog, SettingsDialog
from workbench.gui.project.locations import APP_NAME, ORG_NAME


def test_run_app_opens_the_demo_archive_without_arguments(qtbot, tmp_path, monkeypatch):
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    QSettings(ORG_NAME, APP_NAME).setValue("coder", "Entry Point")
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))

    def ready(win):
        if win.job is None and win.model.rowCount():
            return {"clusters": win.model.rowCount(), "coder": win.coder, "project": win.project.path}
        return None

    seen = run_app_until(ready, first_poll_ms=50)
    assert seen["clusters"] == 5 and seen["coder"] == "Entry Point"
    assert seen["project"].parent == tmp_path / "data" / "projects"


def test_settings_dialog_paper_defaults_and_validation(qtbot):
    dialog = SettingsDialog(SpotSigsParams())
    qtbot.addWidget(dialog)
    assert dialog.params() == SpotSigsParams()
    dialog.paper_defaults()
    p = dialog.params()
    assert p.tau == 0.44 and {(s.distance, s.chain) for s in p.specs} == {(2, 3)}
    assert (p.idf_low, p.idf_high, p.min_sigs) == (0.2, 0.85, 5)
    dialog.pair_floor.setValue(0.1)
    assert dialog.params().pair_floor == 0.1  # kept for Detection ▸ Calibrate
    dialog.main_content.setChecked(False)
    dialog.languages.setChecked(False)
    assert (dialog.params().main_content, dialog.params().languages) == (False, False)
    dialog.specs.item(0, 1).setText("0")
    dialog._accept()
    assert "Row 1" in dialog.error.text() and dialog.result() == 0


def test_export_dialog_options(qtbot, tmp_path):
    dialog = ExportDialog(tmp_path / "x.csv")
    qtbot.addWidget(dialog)
    dialog.every.setChecked(True)
    dialog.excel.setChecked(True)
    opts = dialog.options()
    assert (opts.path, opts.coded_only, opts.wide, opts.excel) == (tmp_path / "x.csv", False, False, True)


def test_none_stays_alive_through_many_void_calls():
    from PySide6.QtCore import QObject

    # With a binding that drops None references (PySide6 6.12.0 on 3.11) and no
    # protection, 100,000 calls take None's count (about 50,000) to zero and abort.
    protect_none()
    probe = QObject()
    for _ in range(100_000):
        probe.setObjectName("x")
    assert sys.getrefcount(None) > 1_000


def test_pages_are_read_again_from_warc_records():
    from tests.conftest import shared_path
    from workbench.archive import scan
    from workbench.core.records import RawPage
    from workbench.gui.sidebyside.pagetext import read_raw

    root = shared_path("warc")
    checked = 0
    for item in scan(root):
        if isinstance(item, RawPage) and item.offset is not None and item.revisit_of is None:
            again = read_raw(root, item.source, item.offset)
            assert again is not None and again.data == item.data, item.key
            checked += 1
            if checked == 8:
                break
    assert checked == 8


def test_settings_dialog_keeps_multi_chain_specs_and_reads_typed_steps(qtbot):
    from workbench.detect.spotsigs.params import AntecedentSpec

    multi = (AntecedentSpec("is", multi=(3, 4)), AntecedentSpec("the", 1, 2))
    dialog = SettingsDialog(SpotSigsParams(specs=multi))
    qtbot.addWidget(dialog)
    assert dialog.params().specs == multi
    dialog.specs.item(1, 3).setText("2, 5")
    assert dialog.params().specs[1] == AntecedentSpec("the", multi=(2, 5))
    dialog.specs.item(1, 3).setText("2,x")
    dialog._accept()
    assert "Row 2" in dialog.error.text() and dialog.result() == 0


def test_settings_dialog_sets_corroborate_below(qtbot):
    """A τ under corroborate_below adds no cluster of two pages: Settings can change it."""
    dialog = SettingsDialog(SpotSigsParams(corroborate_below=0.3))
    qtbot.addWidget(dialog)
    assert dialog.corroborate.value() == 0.3
    dialog.corroborate.setValue(0.0)
    assert dialog.params().corroborate_below == 0.0
    assert dialog.corroborate.text() == "off"
    dialog.load(SpotSigsParams())
    assert dialog.params().corroborate_below == SpotSigsParams().corroborate_below
