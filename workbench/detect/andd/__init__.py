"""ANDD, the learned near-duplicate detector: features, join, labels, model and training."""
