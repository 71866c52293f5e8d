"""The one prompt format for pragma completion, shared by serving and training.

A prompt is short plain text: the programming model and target, the enclosing
pragma regions, the C declarations of the names the loop uses, and the loop,
ending with `pragma:` and a newline so that the completion is one pragma line.
"""

from __future__ import annotations

from accls.frontend import Loop, SourceFile, Var, parse_source
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, parse_pragma

__all__ = ["build_prompt", "completion_pragma", "pragma_regex", "prompt_for_text"]

MAX_LOOP_LINES = 40
"""Loop bodies longer than this keep their head and closing line (small contexts)."""
MAX_LINE_CHARS = 160
"""Longer source lines are cut: they are rare and eat the context window."""
MAX_DECLS = 24
"""At most this many declarations: the names the loop uses first, in order."""

_ACC_DIRECTIVES = ("parallel loop", "kernels loop", "serial loop", "loop")
_OMP_DIRECTIVES = (
    "target teams distribute parallel for simd",
    "target teams distribute parallel for",
    "target teams loop",
    "target parallel for",
    "teams distribute parallel for simd",
    "teams distribute parallel for",
    "distribute parallel for simd",
    "distribute parallel for",
    "parallel for simd",
    "parallel for",
    "parallel loop",
    "taskloop simd",
    "taskloop",
    "for simd",
    "simd",
    "for",
    "loop",
)
_ACC_CLAUSES = (
    "async",
    "attach",
    "auto",
    "collapse",
    "copy",
    "copyin",
    "copyout",
    "create",
    "default",
    "deviceptr",
    "firstprivate",
    "gang",
    "if",
    "independent",
    "no_create",
    "num_gangs",
    "num_workers",
    "present",
    "private",
    "reduction",
    "seq",
    "tile",
    "vector",
    "vector_length",
    "wait",
    "worker",
)
_OMP_CLAUSES = (
    "aligned",
    "collapse",
    "default",
    "defaultmap",
    "device",
    "dist_schedule",
    "firstprivate",
    "if",
    "is_device_ptr",
    "lastprivate",
    "linear",
    "map",
    "nowait",
    "num_teams",
    "num_threads",
    "order",
    "ordered",
    "private",
    "proc_bind",
    "reduction",
    "safelen",
    "schedule",
    "shared",
    "simdlen",
    "thread_limit",
)
# Clause arguments: printable ASCII, parentheses nested at most one level deep
# (`copyin(a[0:f(n)])`). No look-arounds or back-references, so vLLM's
# structured-output backends (xgrammar, guidance, outlines) all accept it.
_TEXT = "[ -'*-~]"  # printable ASCII but `(` and `)`
_ARG = rf"\({_TEXT}*(\({_TEXT}*\){_TEXT}*)*\)"


def _alternation(words: tuple[str, ...]) -> str:
    # Longest first so that a regex engine without leftmost-longest still
    # prefers `parallel for simd` over `parallel for`.
    ordered = sorted(words, key=lambda w: (-len(w), w))
    return "(" + "|".join(ordered) + ")"


def pragma_regex(options: SuggestOptions) -> str:
    """The regular expression of one well-formed loop pragma line of the dialect."""
    acc = options.dialect is Dialect.OPENACC
    sentinel = "acc" if acc else "omp"
    directives: tuple[str, ...] = _ACC_DIRECTIVES if acc else _OMP_DIRECTIVES
    clauses: tuple[str, ...] = _ACC_CLAUSES if acc else _OMP_CLAUSES
    clause = _alternation(clauses) + "(" + _ARG + ")?"
    return (
        f"#pragma {sentinel} " + _alternation(directives) + "(,? " + clause + r")*\n?"
    )


def completion_pragma(text: str) -> str | None:
    """The first line of a completion if it is an acc/omp pragma, else None."""
    line = text.lstrip(" \t").split("\n", 1)[0].strip()
    if not line.startswith("#") or parse_pragma(line) is None:
        return None
    return " ".join(line.split())


def _declaration(var: Var) -> str:
    """A variable as a one-line C declaration: `double *restrict a;`."""
    words = ["const", var.type] if var.const else [var.type]
    name = "*" * var.pointers + ("restrict " if var.restrict else "") + var.name
    dims = "".join(f"[{d}]" if d is not None else "[]" for d in var.dims)
    return " ".join(words) + " " + name + dims + ";"


def _loop_text(source: SourceFile, loop: Loop) -> str:
    """The loop's source, dedented to its `for`, long bodies cut in the middle."""
    data = source.data
    line_start = data.rfind(b"\n", 0, loop.span.start_byte) + 1
    indent = data[line_start : loop.span.start_byte].decode("utf-8", "replace")
    indent = indent if not indent.strip() else ""
    text = data[loop.span.start_byte : loop.span.end_byte].decode("utf-8", "replace")
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        out.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
    out = [
        line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " ..."
        for line in (line.rstrip() for line in out)
    ]
    if len(out) > MAX_LOOP_LINES:
        # Keep the head (header, first statements) and the closing line; the
        # middle of a huge body says least about which pragma fits.
        keep = MAX_LOOP_LINES - 2
        out = [*out[:keep], "    /* ... */", out[-1]]
    return "\n".join(out)


def _used_names(loop: Loop) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    for inner in loop.walk():
        for ref in inner.refs:
            if ref.name not in seen:
                seen.add(ref.name)
                names.append(ref.name)
    return names


def _declarations(source: SourceFile, loop: Loop) -> list[str]:
    function = source.function(loop.function)
    body_locals = {var.name for inner in loop.walk() for var in inner.locals}
    globals_ = {var.name: var for var in source.globals}
    out: list[str] = []
    for name in _used_names(loop):
        if name in body_locals or (name == loop.var and loop.var_declared):
            continue  # declared in the loop text itself
        var = function.lookup(name) if function is not None else None
        var = var or globals_.get(name)
        if var is not None:
            out.append(_declaration(var))
        if len(out) >= MAX_DECLS:
            break
    return out


def build_prompt(source: SourceFile, loop: Loop, options: SuggestOptions) -> str:
    """The completion prompt for one loop; the answer is one `#pragma` line."""
    lines = [f"model: {options.dialect.value}", f"target: {options.target.value}"]
    if source.language != "c":
        # The answer stays one line of the one pragma grammar; the file's
        # language decides how it is written back.
        lines.append(f"language: {source.language}")
    if options.kernels:
        lines.append("construct: kernels")
    lines.extend(
        f"region: {' '.join(region.directive.text.split())}" for region in loop.regions
    )
    decls = _declarations(source, loop)
    if decls:
        lines.append("declarations:")
        lines.extend(decls)
    lines.append("loop:")
    lines.append(_loop_text(source, loop))
    lines.append("pragma:")
    return "\n".join(lines) + "\n"


def prompt_for_text(
    code: str, line: int, options: SuggestOptions, path: str | None = None
) -> str | None:
    """Parse `code` and build the prompt of the loop whose `for` is on `line`."""
    source = parse_source(code, path)
    loop = next((lp for lp in source.loops() if lp.line == line), None)
    return build_prompt(source, loop, options) if loop is not None else None
