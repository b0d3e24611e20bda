"""Inter-coder agreement: Krippendorff's alpha, Cohen's kappa, percent agreement, their
bootstrap interval, per tag, and reliability tables read from files."""
