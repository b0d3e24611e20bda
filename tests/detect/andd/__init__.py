"""Tests of ANDD."""
