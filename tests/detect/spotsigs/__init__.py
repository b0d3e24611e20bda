"""Tests of the SpotSigs engine."""
