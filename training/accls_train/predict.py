"""Predictions of each backend for a pair: analysis, model, and the hybrid of both."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from accls.hybrid import BackendPool
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target
from accls.suggest.backends import Backend, BackendKind, BackendSettings, make_backend
from accls.validation import CompilerSettings

from accls_train.dataset import Pair

__all__ = ["BACKENDS", "Predictor", "options_of"]

BACKENDS = ("analysis", "model", "hybrid")
_BATCH = 8


def options_of(pair: Pair) -> SuggestOptions:
    """The suggestion options a pair's model and target ask for."""
    return SuggestOptions(dialect=Dialect(pair.model), target=Target(pair.target))


def _at_line(suggestions: Sequence[Suggestion], line: int) -> str | None:
    found = next((s for s in suggestions if s.loop.line == line), None)
    if found is None or found.pragma is None:
        return None
    return found.pragma.render()


def analysis_prediction(pair: Pair) -> str | None:
    """The analysis engine's pragma for the pair's loop, None when it refuses."""
    found = suggest_text(
        pair.mcu,
        "",
        Settings(validate=False),
        options=options_of(pair),
        regions=False,
    )
    return _at_line(found.suggestions, pair.line)


class Predictor:
    """Answers for many pairs from one backend; the model is loaded once."""

    def __init__(
        self,
        backend: str,
        *,
        model_path: str = "",
        device: str = "auto",
        compiler: CompilerSettings | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r} (use {', '.join(BACKENDS)})")
        self.name = backend
        self._settings = BackendSettings(
            kind=BackendKind.TRANSFORMERS,
            path=model_path,
            device=device,
            n=1,
            temperature=0.0,
        )
        # The pipeline's compile check: `compiler`'s compiler and flags, or none.
        self._pipeline = Settings(
            backend=self._settings,
            compiler=CompilerSettings(cc=compiler.cc, flags=compiler.flags)
            if compiler is not None
            else CompilerSettings(),
            validate=compiler is not None,
        )
        self._pool = BackendPool()  # a failing model rests, as in the server
        self._model: Backend | None = None
        if backend != "analysis":
            # Raises BackendError when the model cannot be loaded.
            self._model = make_backend(self._settings)

    def predict(
        self, pairs: Sequence[Pair], done: Callable[[int], None] | None = None
    ) -> list[str | None]:
        """One pragma (or None) per pair, in order; `done(k)` reports progress."""
        if self.name == "analysis":
            return self._each(pairs, analysis_prediction, done)
        if self.name == "hybrid":
            return self._each(pairs, self._hybrid, done)
        return self._from_model(pairs, done)

    @staticmethod
    def _each(
        pairs: Sequence[Pair],
        answer: Callable[[Pair], str | None],
        done: Callable[[int], None] | None,
    ) -> list[str | None]:
        out: list[str | None] = []
        for pair in pairs:
            out.append(answer(pair))
            if done is not None:
                done(1)
        return out

    def _from_model(
        self, pairs: Sequence[Pair], done: Callable[[int], None] | None
    ) -> list[str | None]:
        from accls.suggest.prompt import completion_pragma, prompt_for_text

        assert self._model is not None
        out: list[str | None] = []
        for start in range(0, len(pairs), _BATCH):
            chunk = pairs[start : start + _BATCH]
            prompts = [prompt_for_text(p.mcu, p.line, options_of(p)) for p in chunk]
            asked = [p for p in prompts if p is not None]
            answers = iter(self._model.complete(asked, 1) if asked else [])
            for prompt in prompts:
                if prompt is None:
                    out.append(None)
                    continue
                candidates = next(answers)
                text = candidates[0].text if candidates else ""
                out.append(completion_pragma(text))
            if done is not None:
                done(len(chunk))
        return out

    def _hybrid(self, pair: Pair) -> str | None:
        result = suggest_text(
            pair.mcu,
            "unit.c",
            self._pipeline,
            options=options_of(pair),
            regions=False,
            backend=self._model,
            backends=self._pool,
        )
        return _at_line(result.suggestions, pair.line)
