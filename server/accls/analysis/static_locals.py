"""Whether a function keeps state between calls in a `static` local."""

from __future__ import annotations

import re

from accls.analysis.access_paths import base_name
from accls.frontend import Function, SourceFile

__all__ = ["has_static"]


# A `static` declaration up to its first `=`, `;`, `[` or `(`.
_STATIC = re.compile(rb"\bstatic\s+([^=;\[(]*)")


def has_static(fn: Function, source: SourceFile) -> bool:
    """True when the body declares a `static` variable other than a constant."""
    text = source.data[fn.span.start_byte : fn.span.end_byte]
    body = text[text.find(b"{") :]
    origin = fn.span.start_byte + text.find(b"{")
    for match in _STATIC.finditer(body):
        head = match.group(1)
        if not head.startswith(b"const"):
            return True
        # `static const double *last` is a pointer the calls may re-point:
        # state unless every `*` is `const` too or the body never assigns it
        # (`static const char *names[] = {..}` read as a table).
        name = re.findall(rb"[A-Za-z_]\w*", head)
        if re.search(rb"\*(?!\s*const\b)", head) and name:
            declared = name[-1].decode()
            # The initializer of the declaration is no assignment.
            end = origin + body.find(b";", match.end())
            start = origin + match.start()
            if any(
                r.is_write
                and base_name(r.name) == declared
                and not start <= r.span.start_byte <= end
                for r in fn.refs
            ):
                return True
    return False
