"""The keys the window answers to: coding keys wherever the focus is, panes (keyboard), and
how each system names and binds shortcuts (keynames)."""
