"""Which directive a loop gets where it stands, its atomics, the file's habit."""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis import FileAnalysis, LoopFacts
from accls.analysis.shift_atomics import SHIFT_OPS
from accls.frontend import Directive, Loop, RedOp, Span
from accls.suggest.context import Placement
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.suggestion import Atomic

__all__ = ["atomic_pragmas", "below_collapse", "directive_for", "house_style"]


_C_ATOMIC = frozenset({RedOp.ADD, RedOp.MUL, RedOp.BAND, RedOp.BOR, RedOp.BXOR})
# Fortran's `atomic update` also takes `x = max(x, ...)`, `min`, `.and.`, `.or.`.
_FORTRAN_ATOMIC = _C_ATOMIC | {RedOp.MAX, RedOp.MIN, RedOp.LAND, RedOp.LOR}
_INTRINSIC_FORM = frozenset({RedOp.MAX, RedOp.MIN, RedOp.BAND, RedOp.BOR, RedOp.BXOR})


def atomic_pragmas(
    facts: LoopFacts, dialect: Dialect, text: bytes, fortran: bool = False
) -> tuple[Atomic, ...] | None:
    """Atomic pragmas for histogram-style updates; None if one cannot be placed."""
    out: list[Atomic] = []
    pragma = Pragma(dialect, "atomic update")
    for ref in facts.atomics:
        span = ref.span if fortran else _prefix_update(text, ref.span)
        line_start = text.rfind(b"\n", 0, span.start_byte) + 1
        before = text[line_start : span.start_byte]
        if before.strip() if fortran else not _after_statement(before):
            return None  # not a statement of its own (Fortran's `if (c) x = ..`)
        shift = not fortran and ref.reduction is None and ref.update_op in SHIFT_OPS
        if not shift and ref.reduction not in (
            _FORTRAN_ATOMIC if fortran else _C_ATOMIC
        ):
            return None
        if fortran and not _fortran_form(text, ref.span.start_byte, ref.reduction):
            return None
        out.append(Atomic(span, pragma))
    return tuple(out)


def _after_statement(before: bytes) -> bool:
    """Whether a statement may start after `before`, the code ahead on its line.

    Nothing, or the end of a statement, a brace, an `else`/`do`, or the `)` of
    a `for`/`if`/`while` header (`for (..) y[c[k]] += v;`): the annotation
    then breaks the line and puts the pragma above the statement.
    """
    code = before.rstrip()
    if not code.strip():
        return True
    if code.count(b"(") != code.count(b")"):
        return False  # inside parentheses: a header's `;` or a call's argument
    if code.endswith(b")"):
        return _closes_header(code)  # not a cast such as `(void) h[k]++`
    if code.endswith((b";", b"{", b"}")):
        return True
    word = code.rsplit(None, 1)[-1]
    return word in (b"else", b"do")


def _closes_header(code: bytes) -> bool:
    """Whether the final `)` of `code` closes a `for`/`if`/`while` header."""
    depth = 0
    for at in range(len(code) - 1, -1, -1):
        depth += {41: 1, 40: -1}.get(code[at], 0)  # `)` and `(`
        if depth == 0:
            word = re.search(rb"(\w+)\s*$", code[:at])
            return word is not None and word.group(1) in (b"for", b"if", b"while")
    return False


def _prefix_update(text: bytes, span: Span) -> Span:
    """The statement `++x;` or `--x;` from its operator, for the reference `x`.

    The atomic pragma goes above the statement, which starts at the operator;
    any other text before `x` is not a statement `atomic update` takes.
    """
    head = text.rfind(b"\n", 0, span.start_byte) + 1
    before = text[head : span.start_byte]
    code = before.rstrip()
    if code.lstrip() not in (b"++", b"--"):
        return span
    if not text[span.end_byte :].lstrip().startswith(b";"):
        return span  # `--x, y` or `--x + 1`: not the update statement alone
    start = head + len(code) - 2
    row, column = span.start
    return replace(
        span, start_byte=start, start=(row, column - (span.start_byte - start))
    )


def _top_level(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside parentheses."""
    parts, depth, start = [], 0, 0
    for pos, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == sep and depth == 0:
            parts.append(text[start:pos])
            start = pos + 1
    return [*parts, text[start:]]


def _fortran_form(text: bytes, start: int, op: RedOp | None) -> bool:
    """Whether the statement at `start` is a form Fortran's `atomic update` takes.

    `x = f(x, e...)` or `x = f(e..., x)` for an intrinsic `f`, with `x` in no
    other argument; one line only (a continued statement is not checked).
    """
    end = text.find(b"\n", start)
    line = text[start : end if end >= 0 else len(text)].decode("utf-8", "replace")
    code = line.split("!", 1)[0].strip().lower().replace(" ", "")
    if code.endswith("&"):
        return False
    sides = _top_level(code, "=")
    if len(sides) != 2 or not sides[0]:
        return False
    target, value = sides
    if op not in _INTRINSIC_FORM:
        return True  # an operator: the front end read `x = x op e` itself
    head, paren, rest = value.partition("(")
    if not paren or not rest.endswith(")") or not head.isidentifier():
        return False
    args = _top_level(rest[:-1], ",")
    if len(args) < 2 or target not in (args[0], args[-1]):
        return False
    others = args[1:] if args[0] == target else args[:-1]
    return not any(target in other for other in others)


def directive_for(opts: SuggestOptions, where: Placement) -> str | None:
    """The directive for a loop at `where`; None inside a worksharing construct."""
    if opts.dialect is Dialect.OPENACC:
        if where.compute is not None:
            return "loop"  # in a `serial` region too, where it runs on one thread
        return "kernels loop" if opts.kernels else "parallel loop"
    if where.inside_loop is not None:
        return None
    if where.compute is not None:
        words = set(where.compute.name.split())
        if "teams" in words:
            return "distribute parallel for"
        if "target" in words:
            return "parallel for"
        return "for"
    if opts.target is Target.GPU:
        return "target teams distribute parallel for"
    return "parallel for"


def below_collapse(loop: Loop, pragmas: list[Directive]) -> list[Loop]:
    """The loops under an existing pragma that its `collapse(n)` does not cover."""
    depth = 1
    for pragma in pragmas:
        clause = pragma.clause("collapse")
        if clause is not None and clause.args:
            digits = "".join(ch for ch in clause.args if ch.isdigit())
            depth = max(depth, int(digits) if digits else 1)
    level = [loop]
    for _ in range(depth - 1):
        level = [child for outer in level for child in outer.children]
    return [child for outer in level for child in outer.children]


def house_style(analysis: FileAnalysis, opts: SuggestOptions) -> SuggestOptions:
    """Follow the file's own habit: `kernels` if its compute constructs use it."""
    if opts.dialect is not Dialect.OPENACC or opts.kernels:
        return opts
    seen: dict[int, str] = {}
    for loop in analysis.source.loops():
        for directive in (*loop.pragmas, *(r.directive for r in loop.regions)):
            if directive.dialect == "acc" and directive.span is not None:
                seen[directive.span.start_byte] = directive.name
    words = [name.split()[0] for name in seen.values() if name]
    kernels = words.count("kernels")
    return replace(opts, kernels=True) if kernels > words.count("parallel") else opts
