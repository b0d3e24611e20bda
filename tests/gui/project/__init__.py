"""Tests of workbench.gui.project."""
