"""``python -m workbench.detect.compile_ahead``: compile the numba loops now (see the package).

    --if-cold   do nothing when every loop a detection uses already loads from the cache
    --quiet     print only problems
    --background  run at low priority (the window starts it so)

Exit status 0 when the warm-up ran (even if one of its paths failed: that is printed),
1 when it could not run at all.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m workbench.detect.compile_ahead",
                                 description="Compile the workbench's numba loops into numba's cache.")
    ap.add_argument("--if-cold", action="store_true",
                    help="only if a loop a detection uses is not in the cache yet")
    ap.add_argument("--quiet", action="store_true", help="print only problems")
    ap.add_argument("--background", action="store_true", help="run at low priority")
    args = ap.parse_args(argv)
    if args.background:
        _lower_priority()
    from workbench.detect.compile_ahead.readiness import detection_is_warm
    from workbench.detect.compile_ahead.warm import warm

    if args.if_cold and detection_is_warm():
        if not args.quiet:
            print("compile ahead: every loop a detection uses loads from the cache already")
        return 0
    report = warm()
    for failure in report.failures:
        print(f"compile ahead: a warm-up path failed (its loops compile on first use):\n{failure}",
              file=sys.stderr)
    if report.cold:
        print("compile ahead: not compiled by the warm-up (the warm-up crawl does not reach them): "
              + ", ".join(f.label for f in report.cold), file=sys.stderr)
    if not args.quiet:
        print(f"compile ahead: {len(report.compiled)} numba functions in the cache "
              f"({report.seconds:.1f} s); in modules no detection uses: "
              + (", ".join(f.label for f in report.elsewhere) or "none"))
    return 0


def _lower_priority() -> None:
    """Give way to everything the user runs (POSIX nice; below-normal class on Windows)."""
    try:
        if sys.platform == "win32":  # a platform check the type checker follows (windll)
            import ctypes

            below_normal = 0x4000
            kernel32 = ctypes.windll.kernel32
            kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), below_normal)
        else:
            os.nice(10)
    except OSError:
        pass  # only ever politeness


if __name__ == "__main__":
    sys.exit(main())
