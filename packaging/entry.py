"""The PyInstaller bundle's entry script: the same `workbench` command as the wheel's."""

import multiprocessing
import sys

# Before anything imports numba: the bundled modules' compiled code is cached in one
# folder whatever the current directory (workbench/detect/compile_ahead/frozen_locator.py).
from workbench.detect.compile_ahead.frozen_setup import use_bundle_locator

use_bundle_locator()

from workbench.__main__ import main  # noqa: E402
from workbench.detect.compile_ahead.background import FROZEN_FLAG  # noqa: E402

if __name__ == "__main__":
    # In a frozen app a worker process starts this same executable: freeze_support (with
    # PyInstaller's multiprocessing hook) turns such a start into the worker, not a new app.
    multiprocessing.freeze_support()
    if sys.argv[1:2] == [FROZEN_FLAG]:
        # The window's background warm-up (compile_ahead.background): a bundle has no -m.
        from workbench.detect.compile_ahead.__main__ import main as compile_ahead

        sys.exit(compile_ahead(sys.argv[2:]))
    sys.exit(main())
