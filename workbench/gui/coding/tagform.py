"""The tag form's rules, apart from the dialog that shows them (no Qt).

The name rules are the store's (``clean_name``); what needs the whole codebook (a
name or key already taken, the parent rule) is checked here against the tags shown,
so the dialog can say it before anything is saved.

A tag has a name, a key (1-9 or none), a colour, a description and at most one
parent: the codebook has one level of hierarchy, so a parent is a tag that has no
parent itself, and a tag with children cannot be given a parent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from workbench.store import ProjectError, Tag, TagSpec
from workbench.store.coding.codebook import clean_guid, clean_name

KEYS = [str(d) for d in range(1, 10)]
PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6",
           "#9a6324", "#469990"]


@dataclass(frozen=True, slots=True)
class TagForm:
    name: str = ""
    key: str | None = None
    colour: str = ""
    description: str = ""
    parent_id: int | None = None


def new_tag_form(tags: Sequence[Tag]) -> TagForm:
    """A new tag's defaults: the first free key and the next palette colour."""
    keys = free_keys(tags)
    return TagForm(key=keys[0] if keys else None, colour=PALETTE[len(tags) % len(PALETTE)])


def form_of(tag: Tag) -> TagForm:
    return TagForm(tag.name, tag.shortcut, tag.colour, tag.description, tag.parent_id)


def free_keys(tags: Sequence[Tag], editing: int | None = None) -> list[str]:
    """Keys 1-9 no other tag uses (the edited tag's own key stays free for it)."""
    used = {t.shortcut for t in tags if t.id != editing and t.shortcut}
    return [k for k in KEYS if k not in used]


def parent_choices(tags: Sequence[Tag], editing: int | None = None) -> list[Tag]:
    """Tags that may be the parent: top-level ones other than the edited tag. None when
    the edited tag has children itself (it must stay top-level)."""
    if editing is not None and any(t.parent_id == editing for t in tags):
        return []
    return [t for t in tags if t.parent_id is None and t.id != editing]


def problem(form: TagForm, tags: Sequence[Tag], editing: int | None = None) -> str | None:
    """Why the form cannot be saved (None: it can), in the coder's words."""
    try:  # the store's own rules for a name, so the dialog and the store never disagree
        name = clean_name(form.name)
    except ProjectError as exc:
        return str(exc)
    if any(t.name.casefold() == name.casefold() and t.id != editing for t in tags):
        return f"There is already a tag named “{name}”."
    if form.key is not None and form.key not in free_keys(tags, editing):
        return f"The key {form.key} is taken by another tag."
    if form.parent_id is not None and form.parent_id not in {
            t.id for t in parent_choices(tags, editing)}:
        return "That tag cannot be the parent (the codebook has one level of sub-tags)."
    return None


def changes(form: TagForm, tag: Tag) -> dict[str, object]:
    """The fields an edit changes, as ``Project.edit_tag`` takes them."""
    now = form_of(tag)
    fields: dict[str, object] = {}
    if form.name.strip() != now.name:
        fields["name"] = form.name.strip()
    if form.key != now.key:
        fields["shortcut"] = form.key
    if form.colour != now.colour:
        fields["colour"] = form.colour
    if form.description != now.description:
        fields["description"] = form.description
    if form.parent_id != now.parent_id:
        fields["parent_id"] = form.parent_id
    return fields


def with_free_keys(specs: Sequence[TagSpec], tags: Sequence[Tag]) -> list[TagSpec]:
    """An imported codebook with keys: a tag keeps the key it brings, else the key of the
    codebook tag it updates (matched as the import matches: guid, then name); the others
    get the keys 1-9 no tag will have, in the file's order, while any are left (a
    REFI-QDA codebook brings none, and a tag without a key is slow to code with)."""
    by_guid = {t.guid: t for t in tags if t.guid}
    by_name = {t.name.casefold(): t for t in tags}

    def match(spec: TagSpec) -> Tag | None:
        guid = clean_guid(spec.guid)
        return (by_guid.get(guid) if guid else None) or by_name.get(spec.name.strip().casefold())

    matched = [match(spec) for spec in specs]
    kept = [spec.shortcut or (tag.shortcut if tag is not None else None)
            for spec, tag in zip(specs, matched, strict=True)]
    updated = {tag.id for tag in matched if tag is not None}
    taken = {k for k in kept if k} | {t.shortcut for t in tags
                                      if t.id not in updated and t.shortcut}
    free = iter([k for k in KEYS if k not in taken])
    return [replace(spec, shortcut=key or next(free, None))
            for spec, key in zip(specs, kept, strict=True)]
