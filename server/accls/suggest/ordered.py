"""Whether a loop's body holds an `omp ordered` block that binds to the loop."""

from __future__ import annotations

from accls.frontend import Loop, SourceFile, Span

__all__ = ["ordered_block"]


def _inside(inner: Span, outer: Span) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def ordered_block(loop: Loop, source: SourceFile) -> bool:
    """True when an `omp ordered` block in the body binds to `loop`.

    The block binds to the innermost enclosing worksharing loop; a sequential
    inner loop is no region, so a block inside it binds here too. The standalone
    form (`ordered depend(...)`/`doacross`) is a different construct.
    """
    bound = [
        inner.span
        for inner in loop.walk()[1:]
        if any(p.dialect == "omp" and "for" in p.name.split() for p in inner.pragmas)
    ]
    for region in source.constructs:
        directive = region.directive
        if directive.dialect != "omp" or directive.name.split()[:1] != ["ordered"]:
            continue
        if directive.clause("depend") or directive.clause("doacross"):
            continue
        if _inside(region.span, loop.body) and not any(
            _inside(region.span, b) for b in bound
        ):
            return True
    return False
