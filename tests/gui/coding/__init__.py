"""Tests of workbench.gui.coding."""
