"""GNU nested functions: their calls and writes are no summarised function's."""

from __future__ import annotations

from accls.analysis import analyze_text


def test_a_nested_function_shadowing_a_file_function_is_an_unknown_call() -> None:
    text = (
        "void add(int i) { (void)i; }\n"
        "double run(double *a, int n) {\n"
        "  double t = 0;\n"
        "  void add(int i) { t = t + i; }\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    a[i] = i;\n"
        "    add(i);\n"
        "  }\n"
        "  return t;\n"
        "}\n"
    )
    facts = [f for f in analyze_text(text).facts if f.loop.function == "run"]
    assert not facts[0].parallel
    reasons = [o.message for o in facts[0].obstacles]
    assert any("a GNU nested function" in r for r in reasons)


def test_a_nested_function_called_before_its_definition_is_an_unknown_call() -> None:
    """`auto double g(double);` declares it ahead; the loop calls it first."""
    text = (
        "double acc;\n"
        "double g(double x) { return 2.0 * x; }\n"
        "void run(double *restrict a, int n) {\n"
        "  auto double g(double);\n"
        "  for (int i = 0; i < n; i++) a[i] = g(a[i]);\n"
        "  double g(double x) { acc += x; return acc; }\n"
        "}\n"
    )
    facts = [f for f in analyze_text(text).facts if f.loop.function == "run"]
    assert not facts[0].parallel
    reasons = [o.message for o in facts[0].obstacles]
    assert any("a GNU nested function" in r for r in reasons)
