"""Every function of the workbench that numba compiles into its on-disk cache, found in the
sources: a function decorated ``@njit(cache=True)`` (or ``@jit(..., cache=True)``).

Read with ``ast`` rather than by importing every module: importing is what some modules do
their work by (the fork server's warm-up), and the GUI's modules import Qt.
"""

from __future__ import annotations

import ast
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE = "workbench"
PACKAGE_DIR = Path(__file__).resolve().parents[2]
_JIT_DECORATORS = frozenset({"njit", "jit"})


@dataclass(frozen=True, order=True)
class CachedFunction:
    """A cached numba function: where it is defined and whether numba ever compiles it on
    its own (``inline="always"`` functions are compiled into their callers' code)."""

    module: str
    name: str
    inlined: bool = False

    @property
    def label(self) -> str:
        return f"{self.module}.{self.name}"

    def dispatcher(self) -> Any:
        """The numba dispatcher (imports the module)."""
        return getattr(importlib.import_module(self.module), self.name)


def cached_functions(package_dir: Path = PACKAGE_DIR, package: str = PACKAGE) -> list[CachedFunction]:
    """Every module-level ``cache=True`` numba function under ``package_dir``, sorted."""
    found: list[CachedFunction] = []
    for path in sorted(package_dir.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "cache" not in text or "jit" not in text:
            continue  # most modules: no need to parse them
        module = ".".join((package, *path.relative_to(package_dir).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        for node in ast.parse(text, str(path)).body:
            if isinstance(node, ast.FunctionDef):
                options = _cache_jit_options(node)
                if options is not None:
                    found.append(CachedFunction(module, node.name, options.get("inline") == "always"))
    return found


def _cache_jit_options(node: ast.FunctionDef) -> dict[str, Any] | None:
    """The keyword options of the function's numba decorator if it caches, else None."""
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call) or _name(decorator.func) not in _JIT_DECORATORS:
            continue
        options = {k.arg: k.value.value for k in decorator.keywords
                   if k.arg is not None and isinstance(k.value, ast.Constant)}
        if options.get("cache") is True:
            return options
    return None


def _name(func: ast.expr) -> str | None:
    """``njit`` for ``njit`` and ``numba.njit``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def compiled_on_own(functions: list[CachedFunction]) -> list[CachedFunction]:
    """The functions numba compiles (and caches) as functions of their own."""
    return [f for f in functions if not f.inlined]



def live_cached_functions(package: str = PACKAGE) -> list[CachedFunction]:
    """The cached numba functions of the package's modules imported in this process, found
    on the modules themselves. For a frozen bundle, which holds no sources to read; numba's
    dispatcher keeps its cache in a private attribute, so a later numba may find none."""
    from numba.core.registry import CPUDispatcher

    found = []
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(package + "."):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == name \
                    and type(getattr(value, "_cache", None)).__name__ == "FunctionCache":
                found.append(CachedFunction(name, attr, value.targetoptions.get("inline") == "always"))
    return sorted(found)
