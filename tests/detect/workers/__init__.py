"""Tests of the worker processes."""
