"""Which arrays offloaded code uses, seen from a caller: kernel functions and calls.

A kernel function touches its pointer parameters and global arrays only inside its
offloaded loops (or through calls to other kernel functions). A call to one is then
a device event for the caller: the callee's array sections, its parameters replaced
by the call's arguments, are what the call moves. A function whose host code touches
those arrays is no kernel function: its calls are host code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses, section_length
from accls.analysis.device_kernels import DeviceKernel
from accls.frontend import Call, Effect, Function, Loop, Poly, Span, library_function
from accls.frontend.exprs import expression_poly
from accls.suggest.suggestion import Suggestion

__all__ = ["DeviceEvent", "KernelIndex", "base_name", "inside"]

_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_NAMES = re.compile(r"[A-Za-z_]\w*")


def base_name(name: str) -> str:
    """`u` of `u`, `u->f` or `u.f`."""
    return name.split("->")[0].split(".")[0]


def inside(span: Span, outer: Span) -> bool:
    """True when `span` lies within `outer`."""
    return outer.start_byte <= span.start_byte and span.end_byte <= outer.end_byte


@dataclass(frozen=True, slots=True)
class DeviceEvent:
    """Offloaded code run at one place of a function: a loop, or a kernel call."""

    span: Span
    uses: tuple[ArrayUse, ...]  # in the function's own names
    call: str = ""  # the kernel function called, for a call


_NOWHERE = Span(0, 0, (0, 0), (0, 0))
"""Where another file's kernel runs, as this file sees it: nowhere in it."""


def _unknown(use: ArrayUse, name: str) -> ArrayUse:
    return replace(use, name=name, section=None, known=False, box=None, guards=())


@dataclass(frozen=True, slots=True)
class _Callee:
    """A kernel function as a call sees it: this file's, or another file's."""

    name: str
    function: Function | None  # None: defined in another file
    params: frozenset[str]

    def scope(self, name: str) -> str:
        """`param`, `local` or `global`: what a name of the callee's sections is."""
        if self.function is None:
            return "param" if name in self.params else "global"
        var = self.function.lookup(name)
        if var is None:
            return "global"
        return "param" if var.scope == "param" else "local"


class KernelIndex:
    """The file's kernel functions and their array uses, computed once per file."""

    def __init__(
        self, analysis: FileAnalysis, tops: Iterable[Suggestion], dialect: str = ""
    ) -> None:
        self.analysis = analysis
        self.dialect = dialect  # "acc" or "omp": other files' kernels must match
        source = analysis.source
        self._globals = {v.name: v for v in source.globals}
        self._tops: dict[str, list[Suggestion]] = {}
        for top in tops:
            if top.loop.function is not None:
                self._tops.setdefault(top.loop.function, []).append(top)
        self._memo: dict[str, tuple[DeviceEvent, ...] | None] = {}

    def tops(self, function: str) -> list[Suggestion]:
        """The offloaded outermost loops of `function`, in source order."""
        return sorted(self._tops.get(function, []), key=lambda s: s.loop.id)

    def events(self, fn: Function) -> list[DeviceEvent]:
        """The device events of `fn` in source order: its loops and kernel calls."""
        out = [
            DeviceEvent(top.loop.span, loop_array_uses(top.loop, self.analysis))
            for top in self.tops(fn.name)
        ]
        spans = [e.span for e in out]
        for call in fn.call_sites:
            if any(inside(call.span, span) for span in spans):
                continue
            uses = self.call_uses(call, fn)
            if uses is not None:
                out.append(DeviceEvent(call.span, uses, call.name))
        return sorted(out, key=lambda e: e.span.start_byte)

    def is_kernel(self, name: str) -> bool:
        """True when `name` is a kernel function of this file."""
        return self._kernel(name) is not None

    def external(self, name: str) -> DeviceKernel | None:
        """The kernel status of `name` when another file of the program defines it.

        Only from an index of the whole program, with one definition of the name,
        in the dialect of this file's pragmas.
        """
        program = self.analysis.program
        if self.analysis.source.function(name) is not None or program is None:
            return None
        if not (program.whole and program.complete):
            return None
        found = program.only(name)
        kernel = found.kernel if found is not None else None
        if kernel is None or kernel.dialect != self.dialect:
            return None
        return kernel

    def _kernel(self, name: str) -> tuple[DeviceEvent, ...] | None:
        if name in self._memo:
            return self._memo[name]
        self._memo[name] = None  # recursion is no kernel function
        fn = self.analysis.source.function(name)
        outside = self.external(name)
        if outside is not None:
            self._memo[name] = (DeviceEvent(_NOWHERE, outside.uses, name),)
            return self._memo[name]
        if fn is None or fn.pragmas:
            return None
        if any(loop.pragmas or loop.regions for loop in self._loops_of(name)):
            return None  # the user's own directives: leave the function alone
        events = self.events(fn)
        if not events or not self._only_device(fn, events):
            return None
        self._memo[name] = tuple(events)
        return self._memo[name]

    def _loops_of(self, name: str) -> list[Loop]:
        source = self.analysis.source
        return [
            inner
            for nest in source.nests
            if nest.function == name
            for inner in nest.walk()
        ]

    def _shared(self, fn: Function, name: str) -> bool:
        """True for memory a caller may see: a pointer parameter or a global."""
        var = fn.lookup(name)
        if var is None:
            return name in self._globals
        return var.scope == "param"

    def _only_device(self, fn: Function, events: list[DeviceEvent]) -> bool:
        """True when host code of `fn` touches no caller-visible array."""
        spans = [e.span for e in events]
        for ref in fn.refs:
            if not (ref.subscripts or ref.deref) or not self._shared(
                fn, base_name(ref.name)
            ):
                continue
            if not any(inside(ref.span, span) for span in spans):
                return False
        for call in fn.call_sites:
            if any(inside(call.span, span) for span in spans):
                continue
            entry = library_function(call.name)
            if self.analysis.source.function(call.name) is not None or entry is None:
                return False  # host code in another function, or unknown code
            named = {n for arg in call.args for n in _NAMES.findall(arg)}
            if entry.effect is not Effect.PURE and any(
                self._shared(fn, n) for n in named
            ):
                return False
        return True

    def call_uses(self, call: Call, caller: Function) -> tuple[ArrayUse, ...] | None:
        """The array uses of a call to a kernel function, in the caller's names."""
        events = self._kernel(call.name)
        callee = self.analysis.source.function(call.name)
        outside = self.external(call.name) if callee is None else None
        if events is None or (callee is None and outside is None):
            return None
        if callee is not None:
            params = tuple(p.name for p in callee.params)
            arrays = tuple(p.is_array for p in callee.params)
        elif outside is not None:
            params, arrays = outside.params, outside.arrays
        if len(call.args) != len(params):
            return None
        args = dict(zip(params, call.args, strict=True))
        values: dict[str, Poly] = {}
        for param, is_array in zip(params, arrays, strict=True):
            if is_array:
                continue
            poly = expression_poly(args[param])
            if poly is not None:
                values[param] = poly
        scope = _Callee(call.name, callee, frozenset(params))
        out: list[ArrayUse] = []
        for event in events:
            out.extend(
                self._mapped(use, scope, caller, args, values) for use in event.uses
            )
        return tuple(out)

    def _mapped(
        self,
        use: ArrayUse,
        callee: _Callee,
        caller: Function,
        args: Mapping[str, str],
        values: Mapping[str, Poly],
    ) -> ArrayUse:
        scope = callee.scope(use.name)
        if scope == "global":  # the same name in the caller, unless shadowed
            shadowed = caller.lookup(use.name) is not None
            return _unknown(use, use.name) if shadowed else use
        if scope != "param":
            return _unknown(use, f"{callee.name}:{use.name}")  # the callee's own
        arg = args[use.name].strip()
        if not _IDENT.match(arg):
            found = _NAMES.findall(arg)
            return _unknown(use, found[0] if found else arg)
        if use.box is None:
            return _unknown(use, arg)
        params = callee.params
        box: list[tuple[Poly, Poly]] = []
        for start, length in use.box:
            names = start.names() | length.names()
            if any(
                (n in params and n not in values)
                or (n not in params and callee.scope(n) != "global")
                for n in names
            ):
                return _unknown(use, arg)  # the callee's locals mean nothing here
            box.append((start.substitute(values), length.substitute(values)))
        section = arg + "".join(
            f"[{s.render()}:{section_length(n, use.fortran, use.constants)}]"
            for s, n in box
        )
        facts = tuple(f.substitute(values) for f in use.facts)
        # The callee's guards hold in the callee, not where the caller's clause runs.
        return replace(
            use, name=arg, section=section, box=tuple(box), facts=facts, guards=()
        )
