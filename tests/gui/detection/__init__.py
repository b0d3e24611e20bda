"""Tests of workbench.gui.detection."""
