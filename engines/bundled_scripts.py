"""The bundled engines (``engines/bundled/``) as Python modules, for code that uses their parts
(the search engine's ``Searcher`` and ``evaluate``) without running them over BEP.

The engines are scripts without a ``.py`` suffix (they are started by path), so a plain import
cannot find them.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"


def load_bundled(name: str) -> ModuleType:
    """The bundled engine script ``name`` (``"search"``, ``"greedy"``, ``"random"``) imported as
    module ``bundled_<name>_engine``, without running its ``__main__`` part; imported once, then
    the same module. Raises ``FileNotFoundError`` for an unknown name."""
    module_name = f"bundled_{name}_engine"
    if module_name in sys.modules:
        return sys.modules[module_name]
    path = BUNDLED_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"no bundled engine {name!r} in {BUNDLED_DIR}")
    loader = importlib.machinery.SourceFileLoader(module_name, str(path))
    spec = importlib.util.spec_from_loader(module_name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while the file runs
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module
