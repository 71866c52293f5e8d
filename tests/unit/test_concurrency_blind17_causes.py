"""Causes found by the seventeenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _found(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line, f.level.name) for f in found]


def _errors(src: str) -> list[tuple[str, int]]:
    return [(code, line) for code, line, level in _found(src) if level == "ERROR"]


_BLOCKS = """\
    #define BLOCK 64
    void block_sums(double *partial, const double *v, int n) {
      #pragma omp parallel
      #pragma omp single
      #pragma omp taskloop grainsize(BLOCK)
      for (int i = {low}; i < n; {step})
        partial[i / BLOCK] += v[i];
    }
"""


def test_a_quotient_index_races_from_the_first_two_iterations_of_an_open_loop() -> None:
    # iterations 0 and 1 add into `partial[0]` whatever `n` is, once it is 2 or more
    src = _BLOCKS.replace("{low}", "0").replace("{step}", "i++")
    assert ("ACC101", 7) in _errors(src)


def test_a_quotient_index_whose_first_iterations_part_stays_a_doubt() -> None:
    # `i += BLOCK` keeps every quotient apart; from 63, iterations 63 and 64 differ
    stepped = _BLOCKS.replace("{low}", "0").replace("{step}", "i += BLOCK")
    assert _errors(stepped) == []
    late = _BLOCKS.replace("{low}", "63").replace("{step}", "i++")
    assert _errors(late) == []


_TEAMS = """\
    void bins(long *hist, double *a, const double *x, int n) {
      #pragma omp target teams distribute parallel for map(tofrom: hist[0:8], a[0:2*n])
      for (int p = 0; p < n; p++) {
        int b = (int)x[p] & 7;
        #pragma omp critical
        {write}
      }
    }
"""


def test_a_critical_bin_of_a_distributed_loop_races_between_teams() -> None:
    # `b` comes from the iteration's data: two teams' iterations meet in one bin
    assert ("ACC126", 6) in _errors(_TEAMS.replace("{write}", "hist[b] += 1;"))


def test_a_critical_element_of_its_own_distributed_iteration_does_not_race() -> None:
    # `a[p]` and `a[2 * p + 1]` belong to one iteration, run by one team
    assert _errors(_TEAMS.replace("{write}", "a[p] += x[p];")) == []
    assert _errors(_TEAMS.replace("{write}", "a[2 * p + 1] = x[p];")) == []
    # `k` is an arithmetic image of the counter, not a value from data: no proof
    odd = "{ int k = 2 * p + 1; a[k] = x[p]; }"
    assert _errors(_TEAMS.replace("{write}", odd)) == []
    # `hist[p % 8]` is shared by iterations: still a race between teams
    assert ("ACC126", 6) in _errors(_TEAMS.replace("{write}", "hist[p % 8] += 1;"))


_SWEEP = """\
    #define NX 100
    #define NY 80
    double psi[NX][NY];
    void sweep(void) {
      #pragma omp parallel for ordered(2)
      for (int i = 1; i < NX; i++)
        for (int j = 1; j < NY; j++) {
          #pragma omp ordered {sinks}
          psi[i][j] = 0.5 * (psi[i - 1][j] + psi[i][j - 1]);
          #pragma omp ordered depend(source)
        }
    }
"""


def test_a_doacross_nest_that_never_waits_on_the_west_neighbour_races() -> None:
    src = _SWEEP.replace("{sinks}", "depend(sink: i - 1, j)")
    assert ("ACC101", 9) in _errors(src)


def test_a_doacross_nest_whose_waits_chain_to_every_distance_does_not_race() -> None:
    both = "depend(sink: i - 1, j) depend(sink: i, j - 1)"
    assert _errors(_SWEEP.replace("{sinks}", both)) == []
    # (1, 0) = (1, -1) + (0, 1): the north neighbour is reached through two waits
    chained = "depend(sink: i - 1, j + 1) depend(sink: i, j - 1)"
    assert _errors(_SWEEP.replace("{sinks}", chained)) == []


_FRAMES = """\
    #define FLEN 4
    #define HOP {hop}
    void synth(const double *f, double *out, int nf) {
      #pragma omp parallel for linear(out: HOP)
      for (int i = 0; i < nf; i++) {
        for (int k = 0; k < FLEN; k++) out[k] += f[i * FLEN + k];
        out += HOP;
      }
    }
"""


def test_a_linear_pointer_stepping_less_than_its_frame_races() -> None:
    # out0 + 2*i + 2 of iteration i is out0 + 2*(i + 1) + 0 of iteration i + 1
    assert ("ACC101", 6) in _errors(_FRAMES.replace("{hop}", "2"))


def test_a_linear_pointer_stepping_a_whole_frame_does_not_race() -> None:
    assert _errors(_FRAMES.replace("{hop}", "4")) == []
    assert _errors(_FRAMES.replace("{hop}", "8")) == []
    # a branch may skip the update: no proof, no error
    guarded = _FRAMES.replace("out[k] +=", "if (f[k] > 0) out[k] +=")
    assert _errors(guarded.replace("{hop}", "2")) == []


_ORPHAN = """\
    typedef struct node { struct node *left; int height; } node_t;
    static void annotate(node_t *n) {
      if (!n) return;
      {move}
      #pragma omp task
      n->left->height = 3;
      #pragma omp {wait}
      n->height = n->left->height + 1;
    }
    void run(node_t *root) {
      #pragma omp parallel
      #pragma omp single
      annotate(root);
    }
"""


def _orphan(move: str, wait: str) -> str:
    return _ORPHAN.replace("{move}", move).replace("{wait}", wait)


def test_an_orphaned_task_member_through_an_unmoved_pointer_races() -> None:
    # the task's copy of `n` is the creator's: `n->left->height` is one location
    assert ("ACC122", 8) in _errors(_orphan("", "taskyield"))


def test_an_orphaned_task_member_waited_for_or_through_a_moved_pointer() -> None:
    assert _errors(_orphan("", "taskwait")) == []
    # the function sets `n`: which copy points where is not followed
    assert _errors(_orphan("n = n->left;", "taskyield")) == []


_ARMS = """\
    typedef struct node { struct node *left; int height; } node_t;
    void run(node_t *n, int c) {
      #pragma omp parallel
      #pragma omp single
      {
        {loop}
        if ({cond}) {
          #pragma omp task
          n->height = 1;
        } else {
          n->height = 2;
        }
        #pragma omp taskwait
      }
    }
"""


def test_a_task_made_in_one_arm_does_not_meet_the_other_arm() -> None:
    # one execution of the `if` runs the task or the `else` store, never both
    assert _errors(_ARMS.replace("{loop}", "").replace("{cond}", "c")) == []


def test_arms_run_again_by_a_loop_may_meet() -> None:
    # odd iterations make the task, even ones store in the `else` arm
    looped = _ARMS.replace("{loop}", "for (int k = 0; k < 4; k++)")
    assert ("ACC122", 11) in _errors(looped.replace("{cond}", "k % 2"))


_RECURSIVE = """\
    typedef struct node { struct node *left; int height; } node_t;
    static void finish(node_t *m) { m->height = 1 + (m->left ? 1 : 0); }
    static void walk(node_t *n, int depth) {
      if (!n) return;
      if (depth < 4) {
        #pragma omp task
        walk(n->left, depth + 1);
        #pragma omp {wait}
      } else {
        walk(n->left, depth + 1);
      }
      int h = n->left ? n->left->height : 0;
      n->height = h + 1;
      finish(n);
    }
    void run(node_t *root) {
      #pragma omp parallel
      #pragma omp single
      walk(root, 0);
    }
"""


def test_a_recursive_task_call_writes_what_its_deeper_callee_writes() -> None:
    # `walk(n->left)` runs `finish(n->left)`: `n->left->height`, read at line 12
    src = _RECURSIVE.replace("{wait}", "taskyield")
    assert ("ACC124", 7) in _errors(src)


def test_a_recursive_task_call_waited_for_does_not_race() -> None:
    assert _errors(_RECURSIVE.replace("{wait}", "taskwait")) == []
