"""Tests of the headless use cases."""
