"""The command line: its commands, their clock and their exit."""
