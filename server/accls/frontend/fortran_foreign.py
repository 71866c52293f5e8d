"""The modules a Fortran file `use`s from other files, read from those files."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from accls.frontend.fortran_form import normalized
from accls.frontend.fortran_modules import defined_modules, module_files, used_modules
from accls.frontend.fortran_units import Unit, fortran_parser, program_units, unit_uses

__all__ = ["foreign_modules", "module_sources"]

_MAX_MODULE_FILES = 32  # other files read for one file's `use`s


@lru_cache(maxsize=64)
def _file_units(path: str, mtime: int, size: int) -> tuple[Unit, ...]:
    """The program units of another file (cached by its stamp)."""
    del mtime, size  # the cache key
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError:
        return ()
    form = normalized(text, path, ())
    root = fortran_parser().parse(form.text.encode("utf-8", errors="surrogateescape"))
    return tuple(
        replace(
            unit,
            decls={
                k: replace(d, var=replace(d.var, span=None))
                for k, d in unit.decls.items()
            },
        )
        for unit in program_units(root.root_node)
    )


def foreign_modules(
    text: str, own: set[str], path: str | None, include_dirs: tuple[str, ...]
) -> tuple[dict[str, Unit], list[Unit], tuple[str, ...]]:
    """The modules `use`d but not defined here, from the files that define them.

    Returns the modules by name, every unit of their files (for the procedures)
    and the modules no file was found for.
    """
    modules, units, missing, _ = _foreign_files(text, own, path, include_dirs)
    return modules, units, tuple(dict.fromkeys(m for m in missing if m not in modules))


def module_sources(text: str, include_dirs: Sequence[str]) -> tuple[str, ...]:
    """The files defining the modules `text` uses, those they use first (to build)."""
    own = set(defined_modules(text))
    return tuple(reversed(_foreign_files(text, own, None, tuple(include_dirs))[3]))


def _foreign_files(
    text: str, own: set[str], path: str | None, include_dirs: tuple[str, ...]
) -> tuple[dict[str, Unit], list[Unit], list[str], list[str]]:
    modules: dict[str, Unit] = {}
    units: list[Unit] = []
    missing: list[str] = []
    wanted = [m for m in used_modules(text) if m not in own]
    read: dict[str, None] = {}
    while wanted and len(read) < _MAX_MODULE_FILES:
        files = module_files(wanted, path, include_dirs)
        missing.extend(m for m in wanted if m not in files)
        after: list[str] = []
        for file in dict.fromkeys(files.values()):
            if file in read or len(read) >= _MAX_MODULE_FILES:
                continue
            read[file] = None
            try:
                info = os.stat(file)
            except OSError:
                continue
            found = _file_units(file, info.st_mtime_ns, info.st_size)
            units.extend(found)
            for unit in found:
                if unit.kind == "module":
                    modules.setdefault(unit.name, unit)
            for unit in found:
                after.extend(unit_uses(unit))
        known = own | modules.keys() | set(missing)
        wanted = [m for m in dict.fromkeys(after) if m not in known]
    return modules, units, missing, list(read)
