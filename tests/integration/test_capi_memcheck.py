"""The C ABI under valgrind memcheck, through tests/capi/capi_test.c
(build/sieve_capi_test, or SIEVE_CAPI_TEST) on the tiny fixture models:

- the whole C test (--fast): no invalid reads or writes, no uninitialised
  values, no definite leaks (the fast tier runs one of its two shares,
  --part K/2, drawn by the commit's seed; the full tier runs all of it);
- models and tokenizers created, used and destroyed SIEVE_MEMCHECK_ROUNDS
  times (default 50 in the full tier, 10 in the fast one) leave no more memory behind at exit than once: a leak
  that stays reachable (a growing cache) shows there, not as a definite leak;
- handles a caller forgets to destroy are found despite the suppressions.

tests/valgrind.supp holds ONNX Runtime's own leaks only. The four valgrind
runs start together (each takes one core; the loop takes minutes)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import tier
from conftest import ROOT

CAPI_TEST = Path(os.environ.get("SIEVE_CAPI_TEST", ROOT / "build" / "sieve_capi_test"))
FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
SUPPRESSIONS = ROOT / "tests" / "valgrind.supp"
# A leak per round shows as growth between one round and these many (4 in the fast tier: valgrind runs the C test
# about 50 times slower).
ROUNDS = int(os.environ.get("SIEVE_MEMCHECK_ROUNDS", tier.fast_or_full("4", "50")))
# The C test's sections under memcheck: half of them in the fast tier (valgrind takes minutes over all of them),
# the other half on a commit of the other parity.
SHARE = tier.fast_or_full(["--part", f"{tier.rng('memcheck').randrange(2) + 1}/2"], [])
# valgrind's exit status for its own findings, told apart from the C test's
# own failures (1) and set-up errors (2).
VALGRIND_FOUND = 97
# ONNX Runtime's suppressed per-thread leak is 152 bytes for some of the
# threads a session starts; more than this per round would be something else.
SUPPRESSED_PER_ROUND = 200
TIMEOUT = 1800


class Run:
    """One valgrind run of the C test, started at once, waited for on demand."""

    def __init__(self, name: str, log_dir: Path, *args: str):
        self.log = log_dir / f"{name}.valgrind"
        command = ["valgrind", "--tool=memcheck", f"--error-exitcode={VALGRIND_FOUND}", "--leak-check=full",
                   "--errors-for-leak-kinds=definite", f"--suppressions={SUPPRESSIONS}", "--num-callers=40",
                   f"--log-file={self.log}", str(CAPI_TEST), "--source", str(ROOT), "--fixtures", str(FIXTURES),
                   "--fast", *args]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._result: tuple[int, str] | None = None

    def result(self) -> tuple[int, str]:
        if self._result is None:
            output, _ = self.process.communicate(timeout=TIMEOUT)
            self._result = (self.process.returncode, output.decode(errors="replace"))
        return self._result

    def report(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else "(no valgrind log)"

    def leaks(self) -> dict[str, int]:
        """LEAK SUMMARY in bytes: definitely, indirectly, possibly, reachable, suppressed."""
        text = self.report()
        found = {}
        for kind, key in [("definitely lost", "definitely"), ("indirectly lost", "indirectly"),
                          ("possibly lost", "possibly"), ("still reachable", "reachable"), ("suppressed", "suppressed")]:
            match = re.search(rf"==\d+==\s+{kind}: ([\d,]+) bytes", text)
            found[key] = int(match.group(1).replace(",", "")) if match else 0
        assert "LEAK SUMMARY" in text or "All heap blocks were freed" in text, f"no leak summary in {self.log}"
        return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    assert shutil.which("valgrind"), "valgrind is missing: scripts/bootstrap.sh installs it (apt-get install valgrind)"
    assert CAPI_TEST.exists(), f"{CAPI_TEST} is missing: build the sieve_capi_test target"
    log_dir = tmp_path_factory.mktemp("memcheck")
    started = {"fast": Run("fast", log_dir, *SHARE), "once": Run("once", log_dir, "--loop", "1"),
               "many": Run("many", log_dir, "--loop", str(ROUNDS)),
               "forgotten": Run("forgotten", log_dir, "--leak-on-purpose")}
    yield started
    for run in started.values():
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait()


def assert_clean(run: Run) -> None:
    code, output = run.result()
    assert code != VALGRIND_FOUND, f"memcheck found errors or definite leaks:\n{run.report()}"
    assert code == 0, f"the C test failed under valgrind (exit {code}):\n{output}"
    assert re.search(r"\d+ checks, 0 failed", output), output


def test_the_c_test_is_clean_under_memcheck(runs):
    assert_clean(runs["fast"])
    summary = re.search(r"ERROR SUMMARY: (\d+) errors", runs["fast"].report())
    assert summary and summary.group(1) == "0"


def test_creating_and_destroying_handles_leaves_nothing_behind(runs):
    once, many = runs["once"], runs["many"]
    assert_clean(once)
    assert_clean(many)
    a, b = once.leaks(), many.leaks()
    print(f"\nat exit after 1 and {ROUNDS} rounds: {a} / {b} bytes")
    # Everything the C ABI could keep (reachable or not) is the same after many rounds as after one.
    kept = ("definitely", "indirectly", "possibly", "reachable")
    assert sum(b[k] for k in kept) <= sum(a[k] for k in kept), f"memory left at exit grew: {a} -> {b}"
    # ONNX Runtime's own (suppressed) per-thread leak stays that small.
    assert b["suppressed"] - a["suppressed"] <= SUPPRESSED_PER_ROUND * (ROUNDS - 1), f"{a} -> {b}"


def test_forgotten_handles_are_found(runs):
    """The suppressions leave Sieve's own allocations visible: a status, a
    model and a tokenizer the caller never destroys are definite leaks."""
    code, output = runs["forgotten"].result()
    assert code == VALGRIND_FOUND, f"memcheck did not report the dropped handles (exit {code}):\n{output}"
    report = runs["forgotten"].report()
    records = re.split(r"\n==\d+== \n", report)
    lost = [r for r in records if "definitely lost in loss record" in r]
    for function in ("sieve_model_load", "sieve_tokenizer_load"):
        assert any(function in r for r in lost), f"no definite leak through {function}:\n{report}"
    assert runs["forgotten"].leaks()["definitely"] > 0
