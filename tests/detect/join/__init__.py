"""Tests of the exact similarity join."""
