"""The file name rules of Windows and macOS, simulated on Linux (pure string functions)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.store.safety.portable_names import (
    MADE_NAME_BYTES,
    collision_key,
    long_path,
    name_problem,
    portable_name,
    reserved_device,
    unique_names,
    windows_problem,
)

RESERVED = ["CON", "con", "Con.txt", "aux.html", "AUX.tar.gz", "nul", "PRN.csv", "COM1",
            "com9.wbproj", "LPT1.log", "lpt0", "COM\u00b9", "CONIN$", "conout$.txt",
            "CON .txt", "aux ", "NUL."]


@pytest.mark.parametrize("name", RESERVED)
def test_windows_reserves_device_names_whatever_follows(name):
    assert windows_problem(name) is not None
    assert name_problem(name, "win32") is not None


@pytest.mark.parametrize("name", ["CONSOLE.txt", "aux_1.html", "COM10", "LPT", "my-con.csv",
                                  "con-tent.html", "index.html", "ok-ü.html", "x.CON"])
def test_names_that_only_look_like_devices_are_fine(name):
    assert not reserved_device(name)
    assert windows_problem(name) is None


@pytest.mark.parametrize("name, says", [
    ("a:b.warc", "':'"), ("a\\b.html", "'\\\\'"), ('say "hi".csv', "'\"'"),
    ("what?.csv", "'?'"), ("a*b", "'*'"), ("a|b", "'|'"), ("<x>", "'<' '>'"),
    ("tab\there", "'\\t'"), ("bell\x07", "'\\x07'"),
    ("notes.", "dot or space at the end"), ("notes ", "dot or space at the end"),
    ("..", "not a file name"), ("", "not a file name"),
    ("é" * 256, "longer than Windows allows"),
])
def test_windows_problems_say_what_is_wrong(name, says):
    assert says in windows_problem(name)


def test_the_running_systems_rules_elsewhere():
    # Linux and macOS take what Windows refuses; only '/', NUL and length matter.
    for name in RESERVED + ["a:b.warc", "a\\b", "notes.", "what?.csv"]:
        assert name_problem(name, "linux") is None
        assert name_problem(name, "darwin") is None
    assert name_problem("a/b", "linux") is not None
    assert name_problem("é" * 128, "darwin") is not None  # 256 bytes of UTF-8
    assert name_problem("é" * 127, "darwin") is None


@pytest.mark.parametrize("text, made", [
    ("CON", "_CON"), ("aux.html", "_aux.html"), ("com1", "_com1"), ("Anna", "Anna"),
    ("a:b\\c", "a_b_c"), ("notes. . ", "notes"), (".hidden", "hidden"), ("  ", "file"),
    ("...", "file"), ("x\ny", "x_y"), ("caf\udce9", "caf_"), ("Jos\u0065\u0301", "José"),
])
def test_portable_name(text, made):
    assert portable_name(text) == made


@given(st.text(max_size=300))
def test_a_portable_name_is_valid_everywhere(text):
    name = portable_name(text)
    for platform in ("win32", "darwin", "linux"):
        assert name_problem(name, platform) is None, (platform, name)
    assert len(name.encode("utf-8")) <= MADE_NAME_BYTES
    assert unicodedata.is_normalized("NFC", name)


def test_a_long_name_is_cut_between_characters():
    name = portable_name("ü" * 200, max_bytes=41)
    assert name == "ü" * 20  # 40 bytes: the 41st would split a character


@pytest.mark.parametrize("a, b", [
    ("Anna", "anna"), ("STRASSE", "straße"), ("Jos\u00e9", "Jos\u0065\u0301"),
    ("ÉCOLE", "école"), ("Aux.HTML", "aux.html"),
])
def test_names_one_file_on_windows_or_macos_share_a_key(a, b):
    assert a != b
    assert collision_key(a) == collision_key(b)


def test_unique_names_differ_however_the_disk_compares():
    names = unique_names(["Anna", "anna", "ANNA", "Bob", "Jos\u00e9", "Jos\u0065\u0301", "anna-2"])
    assert names == ["Anna", "anna-2", "ANNA-3", "Bob", "Jos\u00e9", "Jos\u0065\u0301-2",
                     "anna-2-2"]
    assert len({collision_key(n) for n in names}) == len(names)
    assert unique_names(["study"], taken=["Study"]) == ["study-2"]


@pytest.mark.parametrize("path, long", [
    ("C:\\" + "d\\" * 130 + "p.wbproj", "\\\\?\\C:\\" + "d\\" * 130 + "p.wbproj"),
    ("\\\\server\\share\\" + "d\\" * 130 + "p.wbproj",
     "\\\\?\\UNC\\server\\share\\" + "d\\" * 130 + "p.wbproj"),
    ("C:/" + "d/" * 130 + "p.wbproj", "\\\\?\\C:\\" + "d\\" * 130 + "p.wbproj"),
    ("C:\\x\\..\\" + "d\\" * 130 + "p", "\\\\?\\C:\\" + "d\\" * 130 + "p"),
])
def test_long_windows_paths_get_the_long_form(path, long):
    assert long_path(path, "win32") == long
    assert long_path(long, "win32") == long  # once is enough


@pytest.mark.parametrize("path", ["C:\\short\\p.wbproj", "relative\\" * 40 + "p",
                                  "\\\\server\\share\\p"])
def test_short_or_relative_windows_paths_stay(path):
    assert long_path(path, "win32") == path


def test_long_path_is_a_no_op_elsewhere():
    deep = "/home/a/" + "d/" * 200 + "p.wbproj"
    assert long_path(deep, "linux") == deep
    assert long_path(deep, "darwin") == deep
