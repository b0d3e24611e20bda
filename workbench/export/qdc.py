"""The codebook as a REFI-QDA codebook (``.qdc``, QDA-XML codebook 1.0), both ways.

MAXQDA, ATLAS.ti, NVivo, QualCoder and Taguette read and write this format, so a
codebook can come from, or go to, the tool a team codes its interviews in. A code has
a GUID (kept per tag, so a code that goes out and comes back is the same tag), a name,
an optional ``#RRGGBB`` colour and description, and nested codes as its children.

Our codebook has one level below the top: a code nested deeper is attached to its
top-level ancestor, and ``<Sets>`` (groups of codes) have no counterpart; the
:class:`QdcImport` notes say so, for the coder to read before importing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from workbench import __version__
from workbench.store import ProjectError, Tag, TagSpec
from workbench.store.coding.codebook import (
    check_file_size,
    check_import_size,
    clean_colour,
    clean_guid,
    clean_name,
)
from workbench.store.safety.whole_files import whole_file

NAMESPACE = "urn:QDA-XML:codebook:1.0"
_Q = f"{{{NAMESPACE}}}"
_RGB = re.compile(r"^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")
_BOOLEAN = {"true", "false", "1", "0"}


@dataclass(frozen=True, slots=True)
class QdcImport:
    """What :func:`read_qdc` found: ``specs`` to give ``Project.import_codebook`` (parents
    first), and ``notes`` for the coder on what could not be kept as it was (empty when
    everything was)."""

    specs: list[TagSpec]
    notes: list[str] = field(default_factory=list)


def write_qdc(tags: Sequence[Tag], path: Path | str) -> int:
    """Write the codebook as a ``.qdc`` file (children nested in their parents); return
    the number of codes. Shortcuts have no place in the format and are left out."""
    path = Path(path)
    if not tags:
        raise ProjectError("The codebook is empty: a .qdc file needs at least one code.")
    children: dict[int | None, list[Tag]] = {}
    known = {t.id for t in tags}
    for tag in tags:
        parent = tag.parent_id if tag.parent_id in known else None
        children.setdefault(parent, []).append(tag)
    root = etree.Element(_Q + "CodeBook", nsmap={None: NAMESPACE},
                         origin=f"SpotSigs Workbench {__version__}")
    codes = etree.SubElement(root, _Q + "Codes")

    def add(parent: etree._Element, tag: Tag, seen: set[int]) -> None:
        seen.add(tag.id)
        code = etree.SubElement(parent, _Q + "Code", guid=_guid_of(tag), name=tag.name,
                                isCodable="true")
        if tag.colour:
            code.set("color", tag.colour.upper())
        if tag.description:
            etree.SubElement(code, _Q + "Description").text = tag.description
        for child in children.get(tag.id, []):
            if child.id not in seen:
                add(code, child, seen)

    seen: set[int] = set()
    for tag in children.get(None, []):
        add(codes, tag, seen)
    with whole_file(path, text=False) as fh:
        etree.ElementTree(root).write(fh, xml_declaration=True, encoding="utf-8",
                                      pretty_print=True)
    return len(seen)


def _guid_of(tag: Tag) -> str:
    guid = clean_guid(tag.guid)
    if guid is None:  # a Tag made by hand, not read from a project
        raise ProjectError(f"Tag {tag.name!r} has no GUID; read the codebook from the project.")
    return guid.upper()


def read_qdc(path: Path | str) -> QdcImport:
    """Read a ``.qdc`` codebook. ProjectError, naming the file and what is wrong, for a
    file that cannot be read, is not XML, is not a REFI-QDA codebook or breaks its rules
    (the checks of Codebook.xsd that matter here); nothing is imported then."""
    path = Path(path)
    try:
        check_file_size(path)  # a codebook is a few KB; a huge file is refused unread
        # No entities, no network, no DTD: a codebook needs none of them.
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                                 remove_comments=True, remove_pis=True)
        root = etree.parse(str(path), parser).getroot()
    except OSError as exc:
        raise ProjectError(f"Cannot read codebook {path}: {exc}") from exc
    except etree.XMLSyntaxError as exc:
        raise ProjectError(f"{path} is not a valid XML file ({exc}), so it cannot be a "
                           "REFI-QDA codebook.") from exc
    if root.tag != _Q + "CodeBook":
        raise ProjectError(
            f"{path} is not a REFI-QDA codebook: its root element is "
            f"{etree.QName(root).localname!r}" + _namespace_hint(root) +
            f", not 'CodeBook' in the namespace {NAMESPACE}. (A .qdpx project is a zip "
            "file: export the codebook alone as .qdc.)")
    # Counted before a code is checked or kept: a file of 231,000 codes is refused at once.
    check_import_size(sum(1 for _ in root.iter(_Q + "Code")), path)
    reader = _Reader(path)
    reader.read(root)
    return QdcImport(reader.specs, reader.notes)


def _namespace_hint(root: etree._Element) -> str:
    namespace = etree.QName(root).namespace
    return f" in the namespace {namespace}" if namespace else " (no namespace)"


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.specs: list[TagSpec] = []
        self.notes: list[str] = []
        self.guids: dict[str, str] = {}  # guid -> code name, for sets
        self.names: set[str] = set()

    def fail(self, element: etree._Element, problem: str) -> ProjectError:
        return ProjectError(f"{self.path}, line {element.sourceline}: {problem}. The file "
                            "does not follow the REFI-QDA codebook schema; nothing was "
                            "imported.")

    def read(self, root: etree._Element) -> None:
        parts = [c for c in root if isinstance(c.tag, str)]
        names = [etree.QName(c).localname if c.tag.startswith(_Q) else c.tag for c in parts]
        if names not in (["Codes"], ["Codes", "Sets"]):
            raise self.fail(root, "CodeBook must hold <Codes> and, optionally, <Sets> "
                                  f"after it (found {', '.join(names) or 'nothing'})")
        codes = list(self.elements(parts[0], "Code"))
        if not codes:
            raise self.fail(parts[0], "<Codes> holds no <Code>")
        for code in codes:
            self.code(code, top=None, depth=0)
        if len(parts) == 2:
            self.sets(parts[1])

    def elements(self, parent: etree._Element, *allowed: str) -> list[etree._Element]:
        found = [c for c in parent if isinstance(c.tag, str)]
        for child in found:
            if child.tag not in {_Q + name for name in allowed}:
                raise self.fail(child, f"<{etree.QName(child).localname}> is not allowed in "
                                       f"<{etree.QName(parent).localname}>")
        return found

    def guid(self, element: etree._Element) -> str:
        value = element.get("guid")
        guid = clean_guid(value)
        if guid is None:
            raise self.fail(element, f"guid {value!r} is not a GUID" if value
                            else f"<{etree.QName(element).localname}> has no guid")
        return guid

    def code(self, element: etree._Element, top: str | None, depth: int) -> None:
        guid, name = self.guid(element), element.get("name")
        if name is None:
            raise self.fail(element, "a <Code> has no name")
        if element.get("isCodable", "").strip() not in _BOOLEAN:
            raise self.fail(element, f"code {name!r} has no isCodable true or false")
        colour = element.get("color", "").strip()
        if colour and not _RGB.match(colour):
            raise self.fail(element, f"code {name!r} has colour {colour!r}, not #RRGGBB")
        children = self.elements(element, "Description", "Code")
        described = [c for c in children if c.tag == _Q + "Description"]
        if len(described) > 1 or (described and children[0] is not described[0]):
            raise self.fail(element, f"code {name!r}: one <Description>, before its codes")
        try:
            name = clean_name(name)
        except ProjectError as exc:
            raise ProjectError(f"{self.path}, line {element.sourceline}: {exc} Rename the "
                               "code and export it again.") from exc
        if name.casefold() in self.names:
            raise ProjectError(f"{self.path}, line {element.sourceline}: the codebook names "
                               f"{name!r} twice; tag names must be unique here. Rename one "
                               "of them and export it again.")
        self.names.add(name.casefold())
        if len(colour) == 4:  # #RGB is #RRGGBB with each digit doubled
            colour = "#" + "".join(d * 2 for d in colour[1:])
        if depth >= 2:
            self.notes.append(f"Code {name!r} was nested {depth} levels deep; it is imported "
                              f"as a sub-tag of {top!r} (tags have one level of sub-tags).")
        description = (described[0].text or "").strip() if described else ""
        self.specs.append(TagSpec(name, description, clean_colour(colour), None, top, guid))
        self.guids[guid] = name
        for child in children:
            if child.tag == _Q + "Code":
                self.code(child, top if top is not None else name, depth + 1)

    def sets(self, element: etree._Element) -> None:
        for group in self.elements(element, "Set"):
            self.guid(group)  # checked, not kept: a set becomes nothing
            name = group.get("name")
            if name is None:
                raise self.fail(group, "a <Set> has no name")
            members = [self.guids.get(self.guid(m), "?")
                       for m in self.elements(group, "Description", "MemberCode")
                       if m.tag == _Q + "MemberCode"]
            listed = ", ".join(repr(m) for m in members) or "no codes"
            self.notes.append(f"Set {name!r} ({listed}) was not imported: the codebook has "
                              "no sets; its codes are imported as codes.")
