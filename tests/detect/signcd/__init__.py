"""Tests of SigNCD."""
