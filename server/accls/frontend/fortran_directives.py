"""`!$acc`/`!$omp` comment lines as the one Directive model (C names: `do` is `for`)."""

from __future__ import annotations

import re

from accls.frontend.model import Directive, Span
from accls.frontend.pragmas import parse_directive

__all__ = ["END_WORD", "canonical_text", "directive_of"]

_SENTINEL = re.compile(r"^\s*[!cC*]\$(acc|omp)(&?)\s*", re.IGNORECASE)
_OPS = {".and.": "&&", ".or.": "||", "iand": "&", "ior": "|", "ieor": "^"}
_RED_OP = re.compile(r"\b(reduction|in_reduction|task_reduction)\s*\(\s*([^:()]+):")
END_WORD = "end"


def _reduction_op(match: re.Match[str]) -> str:
    op = match.group(2).strip().lower()
    return f"{match.group(1)}({_OPS.get(op, op)}:"


def _c_name(words: list[str]) -> list[str]:
    """Fortran directive words in the C spelling the analysis knows: `do` is `for`."""
    return ["for" if w == "do" else w for w in words]


def canonical_text(dialect: str, body: str) -> str:
    """`#pragma acc|omp ...` for the text after a Fortran sentinel."""
    body = body.strip()
    match = re.match(r"([A-Za-z_ ]+)(.*)", body, re.DOTALL)
    head, rest = (match.group(1), match.group(2)) if match else (body, "")
    words = head.lower().split()
    # Clause names follow the directive words; `parallel do private(i)` splits at
    # `private`, which the pragma parser tells from directive words itself.
    text = " ".join(_c_name(words)) + rest
    text = _RED_OP.sub(_reduction_op, _whole_arrays(text))
    return f"#pragma {dialect.lower()} {text}"


def _whole_arrays(text: str) -> str:
    """Clause arguments' sections `a(1:n, j)` as the whole array `a` (nested parens).

    A section names part of an array whose lower bounds the clause text does not
    give; the whole array covers it, so the checks see more mapped, never less.
    """
    out: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
            if depth >= 2:
                continue
        elif char == ")":
            depth -= 1
            if depth >= 1:
                continue
        if depth >= 2:
            continue
        out.append(char)
    return "".join(out)


def directive_of(lines: list[tuple[str, Span]]) -> Directive | None:
    """The directive of one or more sentinel lines joined by `&`; None for `end ...`."""
    first = _SENTINEL.match(lines[0][0])
    if first is None:
        return None
    dialect = first.group(1).lower()
    parts: list[str] = []
    for text, _ in lines:
        match = _SENTINEL.match(text)
        body = text[match.end() :] if match is not None else text
        body = body.rstrip()
        parts.append(body.removesuffix("&").lstrip("&"))
    joined = " ".join(p.strip() for p in parts)
    lowered = joined.lower().split()
    if lowered[:1] == [END_WORD]:
        return None
    parsed = parse_directive(canonical_text(dialect, joined))
    if parsed is None:
        return None
    start = lines[0][1]
    end = lines[-1][1]
    span = Span(start.start_byte, end.end_byte, start.start, end.end)
    return Directive(
        dialect=parsed.dialect,
        name=parsed.name,
        clauses=parsed.clauses,
        text=f"!${dialect} {' '.join(joined.split())}",  # continuations joined
        span=span,
        malformed=parsed.malformed,
    )


def end_name(text: str) -> str | None:
    """For `!$omp end parallel do`: `parallel for` (C words); None if not an end."""
    match = _SENTINEL.match(text)
    if match is None:
        return None
    words = text[match.end() :].lower().split()
    if words[:1] != [END_WORD]:
        return None
    return " ".join(_c_name([w for w in words[1:] if re.fullmatch(r"[a-z_]+", w)]))
