"""Tests of SimHash."""
