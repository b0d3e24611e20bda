"""Clusters from the near-duplicate graph, and what the coder is told about them:
clustering rules, calibration of tau, doubtful members, scoring against a gold set."""
