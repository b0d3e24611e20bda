"""SpotSigs Workbench: near-duplicate clusters of web archives, for hand coding."""

__version__ = "0.1.0"
# pyproject.toml's licence, for the About box and the macOS bundle (a frozen app has no
# package metadata to read it from).
LICENCE = "MIT"
