"""A struct handed on as `void *` keeps its field sets only when every use of
the parameter types it back as a struct pointer or hands it on the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.cli import main

PROGRAM = """\
#include <stdlib.h>
#include <string.h>
typedef struct SimSt {{ double *p; double *q; int n; }} Sim;
typedef struct OtherSt {{ double *a; }} Other;
typedef struct HookSt {{ void (*run)(void *data); }} Hook;
typedef struct BoxSt {{ void *any; }} Box;
Box box;
void *stash;
static void visit(void *data) {{
{body}
}}
static void relay(Hook *h, void *data) {{ h->run(data); }}
void step(Sim *s) {{
  for (int i = 0; i < s->n; i++)
    s->p[i] = 2.0 * s->q[i];
}}
int main(void) {{
  Sim *s = malloc(sizeof(Sim));
  Hook h;
  s->n = 100;
  s->p = malloc(100 * sizeof(double));
  s->q = malloc(100 * sizeof(double));
  h.run = visit;
  relay(&h, s);
  step(s);
  return 0;
}}
"""


def _step_parallel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> bool:
    (tmp_path / "main.c").write_text(PROGRAM.format(body=body))
    main(
        [
            "suggest",
            "--model",
            "openmp",
            "--project",
            str(tmp_path),
            "--index-cache",
            str(tmp_path / ".cache"),
            str(tmp_path / "main.c"),
        ]
    )
    out = capsys.readouterr().out
    loop = out.split("main.c:14:")[1].split("main.c:")[0]
    return "#pragma omp parallel for" in loop


@pytest.mark.parametrize(
    "body",
    [
        "  Sim *s = (Sim *)data; s->n = 100;",
        "  Sim *s = data; s->q = malloc(8 * sizeof(double));",
        "  Other *o = (Other *)data; o->a = 0;",
        "  free(data);",
    ],
)
def test_typed_back_keeps_the_fields_known(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    assert _step_parallel(tmp_path, capsys, body)


@pytest.mark.parametrize(
    "body",
    [
        "  Sim *s = data; s->q = s->p + 1;",  # the callee makes them overlap
        "  memcpy(data, stash, sizeof(Sim));",  # bytes written untyped
        "  stash = data;",  # kept where anything may use it
        "  double **slot = data; *slot = 0;",  # typed back as no struct
        "  data = stash; Sim *s = data; s->n = 1;",  # reassigned
        "  Sim *s = (Sim *)data; memset(s, 0, sizeof *s);",  # typed, then untyped
        "  Sim *any = 0; box.any = data; any = 0;",  # kept in a void * field
        "  void **pp = &data; *pp = stash; Sim *s = data; s->n = 1;",  # its address
    ],
)
def test_untyped_or_overlapping_uses_keep_it_serial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    assert not _step_parallel(tmp_path, capsys, body)
