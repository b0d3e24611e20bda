"""The tag form's rules (Qt-free) and the dialog that refuses a form breaking them."""

from __future__ import annotations

from workbench.gui.coding.tagform import (
    TagForm,
    changes,
    form_of,
    free_keys,
    new_tag_form,
    parent_choices,
    problem,
    with_free_keys,
)
from workbench.store import Tag, TagSpec

TAGS = [Tag(1, "economy", "", "#4363d8", "1", None), Tag(2, "strike", "", "#e6194b", "2", 1),
        Tag(3, "schools", "", "#3cb44b", None, None)]


def test_new_form_takes_the_first_free_key_and_the_next_colour():
    form = new_tag_form(TAGS)
    assert form.key == "3" and form.colour and form.parent_id is None
    assert free_keys(TAGS, editing=1)[:2] == ["1", "3"]  # its own key stays free for it


def test_problems_are_said_in_the_coders_words():
    assert problem(TagForm("  "), TAGS) == "A tag needs a name."
    assert "may not start with" in problem(TagForm("＝SUM(1)"), TAGS)  # the store's rule
    assert problem(TagForm("Economy"), TAGS) == "There is already a tag named “Economy”."
    assert problem(TagForm("economy", "1"), TAGS, editing=1) is None  # unchanged: fine
    assert problem(TagForm("new", "2"), TAGS) == "The key 2 is taken by another tag."
    assert "one level" in problem(TagForm("new", parent_id=2), TAGS)  # strike is a sub-tag
    assert "one level" in problem(TagForm("economy", parent_id=3), TAGS, editing=1)  # has children
    assert problem(TagForm("new", "4", "#123456", "", 3), TAGS) is None


def test_parent_choices_are_top_level_tags_other_than_itself():
    assert [t.id for t in parent_choices(TAGS)] == [1, 3]
    assert [t.id for t in parent_choices(TAGS, editing=3)] == [1]
    assert parent_choices(TAGS, editing=1) == []  # a parent stays top-level


def test_changes_name_only_what_differs():
    tag = TAGS[1]
    assert changes(form_of(tag), tag) == {}
    edited = TagForm("walk-out", None, tag.colour, "Stoppages", None)
    assert changes(edited, tag) == {"name": "walk-out", "shortcut": None,
                                    "description": "Stoppages", "parent_id": None}


def test_dialog_keeps_a_bad_form_open_and_says_why(qtbot):
    from workbench.gui.coding.tagdialog import TagDialog

    dialog = TagDialog("New Tag", new_tag_form(TAGS), TAGS, None)
    qtbot.addWidget(dialog)
    dialog.name.setText("economy")
    dialog._accept()
    assert dialog.result() == 0 and "already a tag" in dialog.problem.text()
    dialog.name.setText("health")
    dialog._accept()
    assert dialog.result() == 1 and dialog.form().name == "health"


def test_imported_tags_get_the_keys_no_tag_will_have():
    """A tag keeps the key it brings, else its match's (by guid, then name); the others
    get the free keys in the file's order; once 1-9 are used up, none."""
    tags = [*TAGS, Tag(4, "ferries", "", "", "5", None, guid="0f8fad5b-d9cb-469f-a165-70867728950e")]
    specs = [TagSpec("Harbour"), TagSpec("STRIKE"), TagSpec("boats", guid="{0F8FAD5B-D9CB-469F-"
                                                                  "A165-70867728950E}"),
             TagSpec("economy", shortcut="4"), TagSpec("weather")]
    keyed = with_free_keys(specs, tags)
    # economy gives up 1 for 4; strike keeps 2; boats is ferries (guid) and keeps 5.
    assert [s.shortcut for s in keyed] == ["1", "2", "5", "4", "3"]
    many = [TagSpec(f"t{i}") for i in range(12)]
    assert [s.shortcut for s in with_free_keys(many, [])] == [*"123456789", None, None, None]
