"""The window's actions, menus and toolbar: every command with its key, and when it is
enabled."""

from __future__ import annotations

from PySide6.QtCore import QKeyCombination, Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence, QShortcut
from PySide6.QtWidgets import QMenu, QMenuBar

from workbench import resources
from workbench.gui.coding.agreement_dialog import show_agreement
from workbench.gui.coding.carried import review_carried
from workbench.gui.coding.review_dialog import review_disagreements
from workbench.gui.detection.andd_actions import install_andd_action
from workbench.gui.detection.calibration import open_calibration
from workbench.gui.detection.compare_actions import install_compare_action
from workbench.gui.detection.sample_actions import draw_sample_dialog
from workbench.gui.figures.actions import install_figure_actions
from workbench.gui.keys.keynames import platform_keys
from workbench.gui.project.export_actions import export_dialog
from workbench.gui.project.locations import APP_NAME
from workbench.gui.project.recent import RecentProjects
from workbench.gui.project.team_actions import bring_in_dialog, hand_out_dialog

ICONS = resources.ICONS
NO_ROLE = QAction.MenuRole.NoRole


def explicit_roles(menu: QMenuBar | QMenu) -> None:
    """Every item of ``menu`` and its submenus without a menu role of its own gets NoRole.

    Qt's default, TextHeuristicRole, moves an item into the macOS application menu when its
    text starts with "About", "Preferences", "Settings", "Quit", "Options", "Setup" or
    "Config"; the window says which ones go there (About, Preferences, Quit) and no other."""
    for action in menu.actions():
        if action.menuRole() == QAction.MenuRole.TextHeuristicRole:
            action.setMenuRole(NO_ROLE)
        if action.menu() is not None:
            explicit_roles(action.menu())


def icon(name: str) -> QIcon:
    path = ICONS / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


class WindowActions:
    """MainWindow's commands: each a named QAction (``actions_by_name``) in a menu, some
    in the toolbar; the digit keys as shortcuts; enabled by what the window holds."""

    def _action(self, name: str, text: str, slot, shortcut: str | QKeySequence | None = None,
                tip: str = "", role: QAction.MenuRole = NO_ROLE) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        # Explicit, never Qt's default TextHeuristicRole (see explicit_roles): "Detection
        # Settings…" would have become the macOS Preferences item.
        action.setMenuRole(role)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        self.actions_by_name[name] = action
        return action

    def _build_actions(self) -> None:
        self.actions_by_name: dict[str, QAction] = {}
        a = self._action
        a("open_archive", "Open Archive &Folder…", self.open_archive_dialog, QKeySequence.StandardKey.Open,
          "Open a folder of saved pages, WARC/ARC or WACZ files")
        a("open_project", "Open &Project…", self.open_project_dialog, "Ctrl+Shift+O")
        a("add_pages", "&Add Pages…", self.add_pages,
          tip="Read the archive folder's new and changed files and detect again as on the whole "
              "folder; every tag, memo and mark stays")
        a("save_as", "Save Project &As…", self.save_project_as)
        a("export", "&Export…", lambda: export_dialog(self), "Ctrl+E", "Export tagged pages to CSV")
        a("skipped", "&Skipped Files…", self.show_skipped)
        a("hand_out", "&Hand Out to Coders…", lambda: hand_out_dialog(self),
          tip="Write one project file per coder (optionally only the selected clusters)")
        a("bring_in", "&Bring In Coders' Work…", lambda: bring_in_dialog(self),
          tip="Merge coders' copies back: each decision kept with its coder")
        # The application menu's three (macOS puts them there; elsewhere they stay put).
        a("quit", "&Quit", self.close, QKeySequence.StandardKey.Quit, role=QAction.MenuRole.QuitRole)
        a("undo", "&Undo", self.coding.undo, "Ctrl+Z")
        a("redo", "&Redo", self.coding.redo, "Ctrl+Shift+Z")
        a("split", "&Split Member Out", self.coding.split_member, "S",
          "Move the member shown on the right into a cluster of its own")
        a("merge", "&Merge Clusters", self.related.merge_key, "M",
          "Merge the selected clusters (in the related list: the related cluster into this one)")
        a("merge_related_page", "Merge Related &Page", lambda: self.related.merge_key(page_only=True),
          "Shift+M", "Merge the page chosen in the related list into this cluster, as a member")
        a("dismiss_related", "&Dismiss Related", self.related.dismiss_key, "D",
          "The cluster chosen in the related list is not this story: kept, not offered again")
        a("exclude", "Not &This Story", self.coding.toggle_not_this_story, "X",
          "Mark the member shown on the right as not the cluster's story (or its story again)")
        a("next_uncoded", "&Next Uncoded Cluster", self.coding.next_uncoded, "N")
        a("next_member", "Next Member", lambda: self.compare.step_member(1), "PgDown")
        a("prev_member", "Previous Member", lambda: self.compare.step_member(-1), "PgUp")
        a("find", "&Filter Clusters", self.filters.text.setFocus, QKeySequence.StandardKey.Find)
        # The coder's name is the one setting of the app rather than of a project, so it is
        # the Preferences item (⌘, in the application menu on macOS). Detection Settings is
        # the open project's and re-runs detection: not what ⌘, should do.
        a("change_coder", "Change &Coder…", self.change_coder, QKeySequence.StandardKey.Preferences,
          role=QAction.MenuRole.PreferencesRole)
        a("settings", "&Detection Settings…", self.settings_dialog, tip="Change parameters and run again")
        a("rerun", "&Run Detection Again", lambda: self.start_run())
        a("calibrate", "&Calibrate τ…", lambda: open_calibration(self), "Ctrl+K",
          "See what another similarity threshold would do to the clusters, and apply it")
        a("draw_sample", "Draw &Sample…", lambda: draw_sample_dialog(self),
          tip="A reproducible random sample of clusters; a reliability sample is coded blind")
        a("review_carried", "Re&view Carried Decisions…", lambda: review_carried(self),
          tip="Memos and marks a re-clustering carried to clusters that changed, to look at")
        a("focus_list", "Cluster &List", self.focus_list, "Escape",
          "Put the keyboard in the cluster list (from the filter box, the codebook, a page)")
        a("focus_codebook", "Code&book", self.focus_codebook, "Ctrl+B")
        a("focus_related", "&Related", self.related_pane.take_keyboard, "Ctrl+R",
          "Put the keyboard in the related list: other clusters' pages this one resembles below τ")
        # ⌘M minimises a window on macOS: the memo has another key there (keynames).
        a("focus_memo", "&Memo", self.focus_memo, platform_keys("Ctrl+M"),
          "Put the keyboard in the memo on the cluster (again: the memo on the page)")
        a("messages", "Status &Messages…", self.show_messages, tip="Every status message of "
          "this session in full, newest first")
        a("first_cluster", "&First Cluster", lambda: self.select_edge(last=False), "Ctrl+Home")
        a("last_cluster", "&Last Cluster", lambda: self.select_edge(last=True), "Ctrl+End")
        a("new_tag", "&New Tag…", self.tag_actions.new_tag, "Ctrl+T",
          "Add a tag: name, key, colour, parent and description")
        a("edit_tag", "&Edit Tag…", self.tag_actions.edit_tag, "Ctrl+Shift+T",
          "Change the tag chosen in the codebook")
        a("delete_tag", "&Delete Tag", self.tag_actions.delete_tag)
        a("review_disagreements", "&Review Disagreements…", lambda: review_disagreements(self),
          tip="The sample's clusters where coders disagree, side by side, to settle by key")
        a("agreement", "&Agreement…", lambda: show_agreement(self),
          tip="Krippendorff's alpha, Cohen's kappa and % agreement per tag on the reliability "
              "sample")
        a("import_codebook", "&Import Codebook…", self.tag_actions.import_codebook,
          tip="Tags from a REFI-QDA .qdc file (MAXQDA, ATLAS.ti, NVivo, QualCoder) or a CSV")
        a("import_project_codebook", "Import From &Project…", self.tag_actions.import_from_project,
          tip="Start from the codebook of another project")
        a("export_codebook", "E&xport Codebook…", self.tag_actions.export_codebook,
          tip="Write the codebook as a REFI-QDA .qdc file or a CSV")
        a("show_project", "Show Project &File", self.show_project_file,
          tip="Show the project file in the file manager")
        advance = a("advance", "&Advance After Tagging", lambda: self.settings.setValue(
            "coding/advance", self.actions_by_name["advance"].isChecked()),
            tip="After a key tags a cluster, move to the next uncoded one")
        advance.setCheckable(True)
        advance.setChecked(str(self.settings.value("coding/advance", True)).lower()
                           not in ("false", "0"))
        a("shortcuts", "&Keyboard Shortcuts", lambda: self.prompter.show_shortcuts(), "F1")
        a("about", f"&About {APP_NAME}", self.about, role=QAction.MenuRole.AboutRole)
        self.tag_shortcuts = []
        for digit in range(1, 10):
            sc = QShortcut(QKeySequence(str(digit)), self)
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
            sc.activated.connect(lambda d=digit: self.coding.toggle_tag_key(str(d)))
            self.tag_shortcuts.append(sc)
            page_sc = QShortcut(QKeySequence(f"Alt+{digit}"), self)
            page_sc.setContext(Qt.ShortcutContext.WindowShortcut)
            page_sc.activated.connect(lambda d=digit: self.coding.toggle_page_tag_key(str(d)))
            self.tag_shortcuts.append(page_sc)
            # Shift+digit tags and stays, for a second tag. Given as key code and modifier,
            # not as the text "!": Qt matches a shortcut by the key's place on the layout,
            # so it is the digit key with Shift on layouts where Shift+1 types "!" or "+".
            stay_sc = QShortcut(QKeySequence(
                QKeyCombination(Qt.KeyboardModifier.ShiftModifier, Qt.Key(Qt.Key.Key_0 + digit))),
                self)
            stay_sc.setContext(Qt.ShortcutContext.WindowShortcut)
            stay_sc.activated.connect(
                lambda d=digit: self.coding.toggle_tag_key(str(d), stay=True))
            self.tag_shortcuts.append(stay_sc)

    def _build_menus(self) -> None:
        m = self.menuBar()
        act = self.actions_by_name
        file = m.addMenu("&File")
        file.addAction(act["open_archive"])
        file.addAction(act["open_project"])
        self.recent_menu = QMenu("&Recent Projects", self)
        self.recent_menu.setObjectName("recentMenu")
        self.recent = RecentProjects(self.settings, self.recent_menu, self.open_project)
        file.addMenu(self.recent_menu)
        file.addAction(act["add_pages"])
        file.addAction(act["save_as"])
        file.addSeparator()
        file.addAction(act["hand_out"])
        file.addAction(act["bring_in"])
        file.addSeparator()
        file.addAction(act["export"])
        file.addAction(act["skipped"])
        file.addAction(act["show_project"])
        file.addSeparator()
        file.addAction(act["quit"])
        edit = m.addMenu("&Edit")
        for name in ("undo", "redo", None, "split", "merge", "exclude", None, "merge_related_page",
                     "dismiss_related", None, "change_coder"):
            edit.addSeparator() if name is None else edit.addAction(act[name])
        view = m.addMenu("&View")
        for name in ("next_uncoded", "first_cluster", "last_cluster", "next_member", "prev_member",
                     None, "find", "focus_list", "focus_codebook", "focus_memo", "focus_related",
                     None, "advance",
                     None, "messages"):
            view.addSeparator() if name is None else view.addAction(act[name])
        view.addSeparator()
        install_figure_actions(self, view)
        codebook = m.addMenu("&Codebook")
        for name in ("new_tag", "edit_tag", "delete_tag", None, "import_codebook",
                     "import_project_codebook", "export_codebook", None, "agreement", "review_disagreements"):
            codebook.addSeparator() if name is None else codebook.addAction(act[name])
        detect = m.addMenu("&Detection")
        detect.addAction(act["settings"])
        detect.addAction(act["rerun"])
        detect.addAction(act["calibrate"])
        install_compare_action(self, detect)
        install_andd_action(self, detect)
        detect.addAction(act["draw_sample"])
        detect.addAction(act["review_carried"])
        help_ = m.addMenu("&Help")
        help_.addAction(act["shortcuts"])
        help_.addAction(act["about"])
        self.recent.fill()
        explicit_roles(m)
        bar = self.addToolBar("Main")
        bar.setObjectName("mainToolBar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for item in (("open_archive", "open"), ("open_project", "project"), ("export", "export"), None,
                     ("undo", "undo"), ("redo", "redo"), None, ("next_uncoded", "next"),
                     ("split", "split"), ("merge", "merge"), None, ("settings", "settings"),
                     ("skipped", "skipped")):
            if item is None:
                bar.addSeparator()
                continue
            name, pic = item
            act[name].setIcon(icon(pic))
            bar.addAction(act[name])
        for name, short in (("open_archive", "Open Folder"), ("open_project", "Open Project"),
                            ("export", "Export"), ("undo", "Undo"), ("redo", "Redo"),
                            ("next_uncoded", "Next Uncoded"), ("split", "Split"), ("merge", "Merge"),
                            ("settings", "Settings"), ("skipped", "Skipped")):
            act[name].setIconText(short)

    def update_actions(self) -> None:
        have = self.project is not None
        idle = self.job is None
        # A read-only project can be read, calibrated and exported, not changed.
        writable = have and idle and not self.project.readonly
        act = self.actions_by_name
        for name in ("export", "save_as", "skipped", "calibrate", "next_uncoded", "next_member",
                     "prev_member", "agreement", "timeline", "save_timeline", "dashboard",
                     "export_dashboard", "focus_related"):
            act[name].setEnabled(have and idle)
        for name in ("settings", "rerun", "add_pages", "split", "merge", "exclude", "review_carried",
                     "merge_related_page", "dismiss_related",
                     "hand_out", "bring_in", "draw_sample", "review_disagreements"):
            act[name].setEnabled(writable)
        can_undo = writable and self.project.next_undo() is not None
        can_redo = writable and self.project.next_redo() is not None
        act["undo"].setEnabled(can_undo)
        act["redo"].setEnabled(can_redo)
        act["undo"].setText(f"&Undo {self.project.next_undo().description}" if can_undo else "&Undo")
        act["redo"].setText(f"&Redo {self.project.next_redo().description}" if can_redo else "&Redo")
        for sc in self.tag_shortcuts:  # kept on read-only, to say why nothing happens
            sc.setEnabled(have and idle)
        self.codebook.setEnabled(writable)
