"""bench/RESULTS.md holds one section per benchmark ("## ..."): each report
script rewrites its own section and keeps the others."""
from __future__ import annotations

from pathlib import Path

TITLE = "# Benchmark results"
PREAMBLE = [
    "The machine is shared and noisy: compare the ratios within one run, not absolute figures across runs.",
]


def replace_section(path: Path, heading: str, body: list[str]) -> None:
    """Replaces (or appends) the section that starts with `heading` ("## ...")."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    sections: list[tuple[str, list[str]]] = []
    current: tuple[str, list[str]] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = (line, [])
            sections.append(current)
        elif current is not None:
            current[1].append(line)
    new_body = body + [""]
    for i, (h, _) in enumerate(sections):
        if h == heading:
            sections[i] = (heading, new_body)
            break
    else:
        sections.append((heading, new_body))
    out = [TITLE, ""] + PREAMBLE + [""]
    for h, lines in sections:
        while lines and lines[-1] == "":
            lines = lines[:-1]
        out += [h, ""] if not lines or lines[0] != "" else [h]
        out += lines + [""]
    path.write_text("\n".join(out).rstrip("\n") + "\n", encoding="utf-8")
