"""The in-memory compile cache: bounded, least recently used out, answers unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.validation import compile_runner
from accls.validation.compile_cache import LruCache
from accls.validation.compile_runner import CompileOutcome, CompilerSettings, run_unit


def test_the_least_recently_used_entry_goes_past_the_cap() -> None:
    cache: LruCache[str] = LruCache(2)
    cache.put("a", "A")
    cache.put("b", "B")
    assert cache.get("a") == "A"  # now "b" is the least recently used
    cache.put("c", "C")
    assert len(cache) == 2
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == ("A", "C")


def test_putting_a_key_again_replaces_it_without_growing() -> None:
    cache: LruCache[str] = LruCache(2)
    cache.put("a", "A")
    cache.put("a", "A2")
    assert len(cache) == 1
    assert cache.get("a") == "A2"


def test_a_cap_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LruCache[str](0)


def test_run_unit_recompiles_only_what_the_cap_evicted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled: list[str] = []

    def fake_invoke(
        command: list[str], timeout_s: float, memory_mb: int
    ) -> CompileOutcome:
        unit = Path(command[-1]).read_text(encoding="utf-8")
        compiled.append(unit)
        return CompileOutcome("bad" not in unit, f"compiled {unit}")

    monkeypatch.delenv(compile_runner.CACHE_ENV, raising=False)
    monkeypatch.setattr(compile_runner, "_memory", LruCache[CompileOutcome](2))
    monkeypatch.setattr(compile_runner, "_invoke", fake_invoke)
    settings = CompilerSettings(cc="no-such-cc-accls")

    def check(unit: str) -> CompileOutcome:
        return run_unit(("no-such-cc-accls",), unit, "t.c", settings)[0]

    assert check("one") == CompileOutcome(True, "compiled one")
    assert check("bad two") == CompileOutcome(False, "compiled bad two")
    assert check("one") == CompileOutcome(True, "compiled one")  # a hit
    assert compiled == ["one", "bad two"]
    assert check("three") == CompileOutcome(True, "compiled three")  # evicts two
    assert check("one") == CompileOutcome(True, "compiled one")  # still held
    assert compiled == ["one", "bad two", "three"]
    assert check("bad two") == CompileOutcome(False, "compiled bad two")
    assert compiled == ["one", "bad two", "three", "bad two"]
    assert len(compile_runner._memory) == 2
