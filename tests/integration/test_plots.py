"""bench/plots.py draws its figures from the tables in bench/RESULTS.md: every
figure is made from the real file, is well-formed SVG, and names the machine,
date and commit of the section it shows; a missing section is an error that
names it."""
from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from conftest import ROOT

PLOTS = ROOT / "bench" / "plots.py"
RESULTS = ROOT / "bench" / "RESULTS.md"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOTS), *args], capture_output=True, text=True, timeout=300)


def test_every_figure_from_the_results_file(tmp_path):
    result = run("--results", str(RESULTS), "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == ["cpu_peers.svg", "int8.svg", "latency.svg", "scale.svg", "search.svg", "server.svg",
                    "tokenizers.svg"], made
    sys.path.insert(0, str(PLOTS.parent))
    import plots

    sections = plots.read_sections(RESULTS)
    where = {"tokenizers": plots.section(sections, "Tokenizers"),
             "server": plots.section(sections, "HTTP server under load"),
             "search": plots.section(sections, "Local search"),
             "cpu_peers": plots.section(sections, "Precision tiers"),
             "int8": plots.section(sections, "Performance near the limit"),
             "latency": plots.section(sections, "Embedding: all-MiniLM-L6-v2"),
             "scale": plots.section(sections, "Vectors in memory at a million chunks")}
    for name, section in where.items():
        svg = (tmp_path / f"{name}.svg").read_text(encoding="utf-8")
        ET.fromstring(svg)  # well-formed
        commit = re.search(r"\bcommits? ([0-9a-f]{7,40}(?:-[0-9a-f]{7,40})?)", section.text).group(1)
        date = re.search(r"\b(20\d\d-\d\d-\d\d)\b", section.text).group(1)
        assert commit in svg and date in svg, f"{name}.svg does not name its commit {commit} and date {date}"
    # Every row of a table is in its figure: each tokenizer and each CPU peer is labelled.
    tokenizers = (tmp_path / "tokenizers.svg").read_text(encoding="utf-8")
    table = plots.section(sections, "Tokenizers").table_with("tokenizer", "Sieve tok/s (1 thread)")
    for name in table.values("tokenizer"):
        assert name.replace("sentence-transformers__", "").replace("__", "/") in tokenizers, name
    peers = (tmp_path / "cpu_peers.svg").read_text(encoding="utf-8")
    assert peers.count("CTranslate2") >= 4 and peers.count("Sieve INT8") == 2
    assert peers.count("Sieve, OpenVINO plugin, default precision") == 2


def test_a_missing_section_is_named(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\n## Something else\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    result = run("--results", str(results), "--out", str(tmp_path / "out"), "--only", "tokenizers")
    assert result.returncode == 1
    assert "no section starting with 'Tokenizers'" in result.stderr and "Traceback" not in result.stderr


def test_markdown_tables_and_numbers():
    sys.path.insert(0, str(PLOTS.parent))
    import plots

    section = plots.Section("x", ["Machine: test box; 2026-01-02; commit abcdef1", "",
                                  "| name | rate |", "|---|---:|", "| a | 1,234.5 |", "| b | **2.5x** |"])
    table = section.table_with("name", "rate")
    assert table.values("name") == ["a", "b"] and table.numbers("rate") == [1234.5, 2.5]
    assert section.provenance() == "test box; 2026-01-02; commit abcdef1"
