# Type stubs for the parts of warcio (which ships no type information) that workbench.archive
# reads and subclasses; written for warcio 1.7, checked against it by tests/test_type_check.py
# (mypy's stubtest). Anything not declared here is not used by the checked packages.
