"""Tests of workbench.gui.sidebyside."""
