"""Headless Neovim with clients/neovim/accls.lua: hover and code actions end to end."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from accls.feedback import FeedbackStore

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = ROOT / "clients" / "neovim" / "accls.lua"
PROBE = Path(__file__).with_name("neovim_probe.lua")
FIXTURE = ROOT / "tests" / "fixtures" / "c" / "saxpy_restrict.c"
NVIM_TIMEOUT_S = 55
REQUEST_TIMEOUT_MS = 15000
EDITED = "#pragma acc parallel loop gang vector copy(y[0:n]) copyin(x[0:n])"

Need = Callable[[str], str]


def _lua(value: object) -> str:
    """A Lua literal for a str, int, bool, list or dict.

    JSON string syntax is Lua's, except \\uXXXX: non-ASCII text stays raw UTF-8.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "{" + ", ".join(_lua(v) for v in value) + "}"
    if isinstance(value, dict):
        items = ", ".join(f"[{_lua(k)}] = {_lua(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise TypeError(f"no Lua literal for {type(value).__name__}")


def _loop_line(text: str) -> int:
    """1-based line of the first `for` inside saxpy()."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "saxpy(" in line)
    return next(
        i + 1
        for i, line in enumerate(lines[start:], start)
        if line.strip()[:4] == "for "
    )


def _hover_text(hover: dict[str, Any]) -> str:
    contents = (hover.get("result") or {}).get("contents")
    if isinstance(contents, dict):
        return str(contents.get("value", ""))
    if isinstance(contents, list):
        return "\n".join(
            c if isinstance(c, str) else str(c.get("value", "")) for c in contents
        )
    return str(contents or "")


@pytest.fixture(scope="module")
def nvim_report(need: Need, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    nvim = need("nvim")
    work = tmp_path_factory.mktemp("nvim")
    source = work / FIXTURE.name
    shutil.copyfile(FIXTURE, source)
    out = work / "report.json"
    feedback_db = work / "feedback.sqlite3"
    settings = {
        "model": "openacc",
        "backend": {"kind": "analysis"},
        "feedback": {"enabled": True, "path": str(feedback_db)},
    }
    probe = {
        "out": str(out),
        "line": _loop_line(source.read_text()),
        "timeout_ms": REQUEST_TIMEOUT_MS,
        "diagnostics_ms": 3000,
        "edited_pragma": EDITED,
    }
    server = [sys.executable, "-m", "accls", "--stdio"]
    init = work / "init.lua"
    init.write_text(
        f"vim.g.accls_probe = {_lua(probe)}\n"
        f"dofile({_lua(str(SNIPPET))}).setup({{\n"
        f"  cmd = {_lua(server)},\n"
        f"  settings = {_lua(settings)},\n"
        "})\n",
        encoding="utf-8",
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "server"), env.get("PYTHONPATH", "")) if p
    )
    # Keep Neovim's and accls's state out of the user's home.
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(work / var.lower())
    env["ACCLS_FEEDBACK_DB"] = str(feedback_db)
    cmd = [nvim, "--headless", "--clean", "-u", str(init)]
    cmd += ["-c", f"luafile {PROBE}", str(source)]
    log = work / "xdg_cache_home" / "nvim" / "lsp.log"

    def server_log() -> str:
        return log.read_text(errors="replace")[-3000:] if log.exists() else ""

    try:
        proc = subprocess.run(
            cmd,
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=NVIM_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"nvim ran over {NVIM_TIMEOUT_S} s; lsp.log:\n{server_log()}")
    assert out.exists(), f"nvim wrote no report (exit {proc.returncode}): {proc.stderr}"
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in report, (
        f"{report['error']} after {report['steps']}; lsp.log:\n{server_log()}"
    )
    records: list[dict[str, Any]] = []
    if feedback_db.exists():
        with FeedbackStore(feedback_db) as store:
            records = [r.to_json() for r in store.applied()]
    report["feedback"] = records
    return report


def test_snippet_attaches_on_c_filetype(nvim_report: dict[str, Any]) -> None:
    assert nvim_report["filetype"] == "c"
    assert nvim_report["steps"][0] == "attached"
    assert nvim_report["keymaps"] == {"K": True, "<leader>ca": True}


def test_hover_says_parallel_and_shows_a_pragma(nvim_report: dict[str, Any]) -> None:
    hover = nvim_report["hover"]
    assert not hover.get("error"), hover
    text = _hover_text(hover)
    assert re.search(r"\bparallel", text, re.IGNORECASE), text
    assert re.search(r"#pragma (acc|omp) ", text), text


def test_code_actions_offer_openacc_parallel_loop(nvim_report: dict[str, Any]) -> None:
    actions = nvim_report["code_actions"].get("result") or []
    titles = [a["title"] for a in actions if isinstance(a, dict)]
    acc = [t for t in titles if "Parallelize with OpenACC" in t]
    assert acc, titles
    assert any("#pragma acc parallel loop" in t for t in acc), acc


def test_check_loop_command_reports_the_checked_pragma(
    nvim_report: dict[str, Any],
) -> None:
    check = nvim_report.get("check_loop")
    assert check is not None, nvim_report["steps"]
    compiled = "compiles" if shutil.which("gcc") else "not compiled"
    pattern = rf"accls: loop at line \d+: #pragma acc parallel loop .*: {compiled}"
    assert re.match(pattern, check["message"]), check


def test_applying_the_action_inserts_the_pragma_above_the_loop(
    nvim_report: dict[str, Any],
) -> None:
    lines: list[str] = nvim_report["lines"]
    loop = next(
        i for i, line in enumerate(lines) if line.strip().startswith("for (int i")
    )
    assert lines[loop - 1].strip().startswith("#pragma acc parallel loop"), lines[
        loop - 3 : loop + 1
    ]


def test_feedback_records_the_applied_action_and_the_edit(
    nvim_report: dict[str, Any],
) -> None:
    assert "edited" in nvim_report["steps"]
    (record,) = nvim_report["feedback"]
    assert record["suggested"].startswith("#pragma acc parallel loop")
    assert record["uri"].endswith("/saxpy_restrict.c")
    assert (record["final"], record["edited"]) == (EDITED, True)
    assert "y[i] = a * x[i] + y[i];" in record["loop"]


def test_code_lenses_name_the_verdict(nvim_report: dict[str, Any]) -> None:
    lenses = nvim_report["code_lens"].get("result") or []
    titles = [lens["command"]["title"] for lens in lenses if lens.get("command")]
    assert "parallel · OpenACC ready" in titles, titles


def test_the_hover_is_short_and_hints_at_the_full_report(
    nvim_report: dict[str, Any],
) -> None:
    text = _hover_text(nvim_report["hover"])
    assert len(text.rstrip("\n").splitlines()) <= 12, text
    assert ":AcclsExplainLoop" in text


def test_explain_loop_opens_the_report_in_a_scratch_buffer(
    nvim_report: dict[str, Any],
) -> None:
    explain = nvim_report.get("explain")
    assert explain is not None, nvim_report["steps"]
    assert explain["buftype"] == "nofile"
    assert explain["windows"] == 2
    assert explain["current_is_source"] is True
    assert explain["lines"][0].startswith("# accls: `for (i)` at line ")
    assert "## Suggested pragmas" in explain["lines"]
