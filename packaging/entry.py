"""The PyInstaller bundle's entry script: the same `workbench` command as the wheel's."""

import multiprocessing
import sys

from workbench.__main__ import main

if __name__ == "__main__":
    # In a frozen app a worker process starts this same executable: freeze_support (with
    # PyInstaller's multiprocessing hook) turns such a start into the worker, not a new app.
    multiprocessing.freeze_support()
    sys.exit(main())
