"""Repair a pragma (the user's or a model's) with the facts the analysis proved."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from accls.analysis import ScalarClass
from accls.analysis.data_clauses import ACC_TRANSFERS, OMP_MAP_TRANSFERS
from accls.frontend import Clause
from accls.frontend.pragmas import clause_items
from accls.suggest.clauses import scalar_clauses
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.suggestion import Suggestion

__all__ = ["Repair", "repair"]


@dataclass(frozen=True, slots=True)
class Repair:
    """The repaired pragma and what changed; no changes means nothing to fix."""

    pragma: Pragma
    changes: tuple[str, ...] = ()  # each edit with its reason: "add x: why"
    edits: tuple[str, ...] = ()  # the same edits without reasons, for titles


_NAME = re.compile(r"[A-Za-z_]\w*")
_PRIVATISING = ("private", "firstprivate", "lastprivate", "reduction")
# `deviceptr` is kept apart from `present` here: repair turns one into the other.
_ACC_DATA = {
    name: ("deviceptr" if name == "deviceptr" else kind)
    for name, kind in ACC_TRANSFERS.items()
    if name not in ("no_create", "attach")
}
_OMP_MAP = OMP_MAP_TRANSFERS
_OMP_WORD = {kind: word for word, kind in _OMP_MAP.items()}
_MOVES = {
    "copy": {"in", "out"},
    "copyin": {"in"},
    "copyout": {"out"},
    "create": set(),
}


def _base(item: str) -> str:
    match = _NAME.search(item)
    return match.group(0) if match else item


def _split_head(args: str) -> tuple[str, str]:
    """`+: a, b` -> (`+`, `a, b`); `to: a[0:n]` -> (`to`, `a[0:n]`)."""
    depth = 0
    for i, char in enumerate(args):
        depth += char in "(["
        depth -= char in ")]"
        if char == ":" and depth == 0:
            return args[:i].strip(), args[i + 1 :].strip()
    return "", args.strip()


@dataclass(slots=True)
class _Draft:
    """A pragma being edited: clause list plus the log of changes."""

    pragma: Pragma
    clauses: list[Clause]
    changes: list[str] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)

    def note(self, edit: str, why: str) -> None:
        """Log one edit and the fact that justifies it."""
        self.edits.append(edit)
        self.changes.append(f"{edit}: {why}")

    def names_in(self, *clause_names: str) -> dict[str, str]:
        """Variable -> clause name, over the clauses called `clause_names`."""
        out: dict[str, str] = {}
        for clause in self.clauses:
            if clause.name in clause_names and clause.args:
                _, items = (
                    _split_head(clause.args)
                    if clause.name == "reduction"
                    else ("", clause.args)
                )
                for item in clause_items(items):
                    out.setdefault(_base(item), clause.name)
        return out

    def remove(self, name: str, *clause_names: str) -> None:
        """Drop variable `name` from the clauses called `clause_names`."""
        kept: list[Clause] = []
        for clause in self.clauses:
            if clause.name not in clause_names or not clause.args:
                kept.append(clause)
                continue
            head, items = (
                _split_head(clause.args)
                if clause.name in ("reduction", "map")
                else ("", clause.args)
            )
            rest = [i for i in clause_items(items) if _base(i) != name]
            if rest:
                joined = ", ".join(rest)
                kept.append(Clause(clause.name, _join(clause.name, head, joined)))
        self.clauses = kept

    def add(self, name: str, item: str, head: str = "") -> None:
        """Add `item` to a clause `name(head: ...)`, merging into an existing one."""
        for i, clause in enumerate(self.clauses):
            if clause.name != name or clause.args is None:
                continue
            have_head, items = _split_head(clause.args) if head else ("", clause.args)
            if have_head.replace(" ", "") == head.replace(" ", ""):
                merged = ", ".join([*clause_items(items), item])
                self.clauses[i] = Clause(name, _join(name, have_head, merged))
                return
        self.clauses.append(Clause(name, _join(name, head, item)))


def _join(name: str, head: str, items: str) -> str:
    """Clause arguments in our house style: `+:s` but `to: a[0:n]`."""
    if not head:
        return items
    return f"{head}:{items}" if name == "reduction" else f"{head}: {items}"


def _collapsed(pragma: Pragma, reference: Suggestion) -> set[int]:
    """Ids of the loops the candidate's `collapse(n)` makes private by itself."""
    clause = pragma.clause("collapse")
    digits = "".join(ch for ch in (clause.args or "") if ch.isdigit()) if clause else ""
    depth = int(digits) if digits else 1
    chain = [reference.loop]
    while len(chain) < depth and chain[-1].perfect and chain[-1].children:
        chain.append(chain[-1].children[0])
    return {loop.id for loop in chain}


def _required_scalars(pragma: Pragma, reference: Suggestion) -> list[Clause]:
    covered = _collapsed(pragma, reference)
    clauses, _, _ = scalar_clauses(reference.facts, reference.options, covered)
    return clauses


def _repair_scalars(draft: _Draft, reference: Suggestion) -> None:
    reductions = {
        f.name: f.op.value
        for f in reference.facts.scalars
        if f.cls is ScalarClass.REDUCTION and f.op is not None
    }
    required = _required_scalars(draft.pragma, reference)
    # A lastprivate of a loop that may be empty needs its firstprivate too.
    first = {
        _base(item)
        for clause in required
        if clause.name == "firstprivate"
        for item in clause_items(clause.args or "")
    }
    for clause in required:
        head, items = (
            _split_head(clause.args or "")
            if clause.name == "reduction"
            else ("", clause.args or "")
        )
        for item in clause_items(items):
            name = _base(item)
            have = draft.names_in(*_PRIVATISING)
            if clause.name == "reduction":
                op = reductions.get(name, head)
                current = _reduction_op(draft, name)
                if current is not None and current.replace(" ", "") == op:
                    continue
                draft.remove(name, "private", "firstprivate", "lastprivate", "shared")
                draft.remove(name, "reduction")
                draft.add("reduction", name, op)
                draft.note(
                    f"add reduction({op}:{name})",
                    _why(reference, name, "it is a reduction"),
                )
            elif clause.name == "lastprivate" and name not in draft.names_in(
                "lastprivate"
            ):
                draft.remove(name, "private", "shared")
                if name not in first:
                    draft.remove(name, "firstprivate")
                draft.add("lastprivate", name)
                draft.note(
                    f"add lastprivate({name})",
                    _why(reference, name, "its last value is used after the loop"),
                )
            elif clause.name == "firstprivate" and name not in draft.names_in(
                "firstprivate"
            ):
                draft.remove(name, "private", "shared")
                draft.add("firstprivate", name)
                draft.note(
                    f"add firstprivate({name})",
                    "the loop may run no iteration, and then it keeps its value",
                )
            elif clause.name == "private" and name not in have:
                draft.remove(name, "shared")
                draft.add("private", name)
                draft.note(
                    f"add private({name})",
                    _why(reference, name, "each iteration writes it first"),
                )


def _reduction_op(draft: _Draft, name: str) -> str | None:
    for clause in draft.clauses:
        if clause.name == "reduction" and clause.args:
            head, items = _split_head(clause.args)
            if any(_base(i) == name for i in clause_items(items)):
                return head
    return None


def _why(reference: Suggestion, name: str, default: str) -> str:
    fact = next((f for f in reference.facts.scalars if f.name == name), None)
    return fact.why if fact is not None and fact.why else default


def _data_items(pragma: Pragma) -> dict[str, tuple[str, str]]:
    """Array -> (normalised transfer kind, item text) of a pragma's data clauses."""
    out: dict[str, tuple[str, str]] = {}
    for clause in pragma.clauses:
        args = clause.args or ""
        if pragma.dialect is Dialect.OPENACC:
            kind = _ACC_DATA.get(clause.name)
            items = args
        elif clause.name == "map":
            head, items = _split_head(args)
            words = head.replace(",", " ").split()
            kind = _OMP_MAP.get(words[-1], "copy") if words else "copy"
        elif clause.name == "is_device_ptr":
            kind, items = "deviceptr", args
        else:
            kind = None
        if kind is None:
            continue
        for item in clause_items(items):
            out.setdefault(_base(item), (kind, item))
    return out


def _data_clause(dialect: Dialect, kind: str) -> tuple[str, str]:
    """(clause name, head) that writes transfer `kind` in `dialect`."""
    if dialect is Dialect.OPENACC:
        return kind, ""
    if kind == "deviceptr":
        return "is_device_ptr", ""
    return "map", _OMP_WORD.get(kind, "tofrom")


def _render_item(dialect: Dialect, kind: str, item: str) -> str:
    name, head = _data_clause(dialect, kind)
    return f"{name}({head}: {item})" if head else f"{name}({item})"


def _repair_data(draft: _Draft, reference: Suggestion) -> None:
    if reference.pragma is None:
        return
    dialect = draft.pragma.dialect
    wanted = _data_items(reference.pragma)
    have = _data_items(Pragma(dialect, draft.pragma.directive, tuple(draft.clauses)))
    for name, (kind, item) in wanted.items():
        current = have.get(name)
        if current is None:
            clause, head = _data_clause(dialect, kind)
            draft.add(clause, item, head)
            draft.note(
                f"add {_render_item(dialect, kind, item)}",
                f"the loop uses `{name}` and no data clause moves it",
            )
            continue
        cur_kind, cur_item = current
        new_kind = cur_kind
        why = ""
        if kind == "present" and cur_kind in _MOVES:
            new_kind, why = "present", "the enclosing data region already has it"
        elif cur_kind == "present" and kind != "present":
            new_kind, why = kind, "no enclosing data region puts it on the device"
        elif cur_kind in _MOVES and kind in _MOVES:
            if not _MOVES[kind] <= _MOVES[cur_kind]:
                new_kind = kind
                why = (
                    "the loop reads values the host set"
                    if "in" in _MOVES[kind] - _MOVES[cur_kind]
                    else "the loop writes it: the host copy would be stale"
                )
        elif kind == "deviceptr" and cur_kind != "deviceptr":
            new_kind, why = kind, "it points to device memory"
        squash = cur_item.replace(" ", "")
        new_item = cur_item
        if "[" in cur_item and squash != item.replace(" ", ""):
            new_item = item
            why = why or f"the loop touches `{item}`"
        if new_kind == cur_kind and new_item == cur_item:
            continue
        draft.remove(name, *_ACC_DATA, "map", "is_device_ptr")
        clause, head = _data_clause(dialect, new_kind)
        draft.add(clause, new_item, head)
        before = _render_item(dialect, cur_kind, cur_item)
        after = _render_item(dialect, new_kind, new_item)
        draft.note(f"{before} -> {after}", why)


def repair(pragma: Pragma, reference: Suggestion) -> Repair:
    """`pragma` with missing reductions/privates added and data clauses corrected.

    `reference` is the analysis's own suggestion for the same loop and dialect
    (`reference_suggestion`); when the analysis refused the loop only scalar clauses
    are repaired. Clauses the compiler rejects are dropped later by the compile check.
    """
    if pragma.dialect is not reference.options.dialect:
        return Repair(pragma)
    draft = _Draft(pragma, list(pragma.clauses))
    _repair_scalars(draft, reference)
    if _offloads(pragma):
        _repair_data(draft, reference)
    if not draft.changes:
        return Repair(pragma)
    return Repair(
        Pragma(pragma.dialect, pragma.directive, tuple(draft.clauses)),
        tuple(draft.changes),
        tuple(draft.edits),
    )


def _offloads(pragma: Pragma) -> bool:
    """True for compute constructs that move data (not a `loop` inside one)."""
    words = pragma.directive.split()
    if pragma.dialect is Dialect.OPENACC:
        return bool(words) and words[0] in ("parallel", "kernels", "serial")
    return "target" in words
