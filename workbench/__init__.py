"""SpotSigs Workbench: near-duplicate clusters of web archives, for hand coding."""

__version__ = "0.1.0"
