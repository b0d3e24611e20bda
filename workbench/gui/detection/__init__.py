"""The Detection menu's tools: calibrate tau, compare methods, learn from coding."""
