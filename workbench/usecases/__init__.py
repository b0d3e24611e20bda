"""Headless use cases the window and the command line share."""
