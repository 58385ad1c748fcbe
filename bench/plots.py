#!/usr/bin/env python3
"""Figures from the measured tables in bench/RESULTS.md.

    .venv/bin/python bench/plots.py [--results bench/RESULTS.md] [--out docs/plots] [--format svg|png]

Each figure is drawn from one section of RESULTS.md (the tables the benchmark
programs write there) and carries that section's machine, date and commit
underneath, so a figure never outlives the measurement it shows:

- tokenizers.svg    tokenizer throughput, Sieve against Hugging Face tokenizers, per tokenizer.json
- cpu_peers.svg     embedding throughput at batch 1 and 32 against every CPU peer
- latency.svg       single-sentence latency (p50, p99) and throughput by batch size against the Python peers
- server.svg        `sieve serve` throughput and p99 latency against concurrency, with the Python peer server
- int8.svg          speed against accuracy of the model variants (FP32, INT8 ...)
- search.svg        search latency and recall@10 per query mode, Sieve against the Python peer
- scale.svg         recall@10 against p50 latency and resident memory at a million chunks, Sieve's vector
                    representations against the embedded vector stores (bench/search/scale/run.sh)
- roofline.svg is drawn by bench/roofline/roofline.py from its own run.

A section or table that is missing or changed shape is an error naming it.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class PlotError(Exception):
    pass


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> int:
        for i, h in enumerate(self.header):
            if h.strip().lower() == name.lower():
                return i
        raise PlotError(f"no column {name!r} in a table with {self.header}")

    def values(self, name: str) -> list[str]:
        i = self.column(name)
        return [r[i] for r in self.rows]

    def numbers(self, name: str) -> list[float]:
        return [number(v) for v in self.values(name)]


@dataclass
class Section:
    heading: str
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def tables(self) -> list[Table]:
        out, block = [], []
        for line in self.lines + [""]:
            if line.startswith("|"):
                block.append(line)
                continue
            if len(block) >= 3:
                cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in block]
                out.append(Table(cells[0], [r for r in cells[2:] if len(r) == len(cells[0])]))
            block = []
        return out

    def table_with(self, *columns: str) -> Table:
        for table in self.tables():
            names = {h.strip().lower() for h in table.header}
            if all(c.lower() in names for c in columns):
                return table
        raise PlotError(f"section {self.heading!r} has no table with columns {list(columns)}")

    def provenance(self) -> str:
        """"machine, date, commit" as the section states them."""
        text = self.text
        machine = re.search(r"Machine:\s*([^;\n]+)", text)
        date = re.search(r"\b(20\d\d-\d\d-\d\d)\b", text) or re.search(r"\b(\w{3} \w{3} +\d+ [\d:]+ \w+ 20\d\d)\b", text)
        commit = re.search(r"\bcommits? ([0-9a-f]{7,40}(?:-[0-9a-f]{7,40})?)\b", text)
        missing = [n for n, m in (("machine", machine), ("date", date), ("commit", commit)) if m is None]
        if missing:
            raise PlotError(f"section {self.heading!r} does not state its {', '.join(missing)}")
        where = machine.group(1).strip().rstrip(".,")
        where = where if len(where) <= 90 else where[:87] + "..."
        return f"{where}; {date.group(1)}; commit {commit.group(1)}"


def number(cell: str) -> float:
    m = re.search(r"-?[\d,]*\.?\d+", cell.replace("**", ""))
    if m is None:
        raise PlotError(f"{cell!r} is not a number")
    return float(m.group(0).replace(",", ""))


def read_sections(path: Path) -> list[Section]:
    sections: list[Section] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            sections.append(Section(line[3:].strip()))
        elif line.startswith("### ") and sections:
            # Subsections belong to their section; keep the heading so tables can be told apart.
            sections[-1].lines.append(line)
        elif sections:
            sections[-1].lines.append(line)
    return sections


def section(sections: list[Section], prefix: str) -> Section:
    for s in sections:
        if s.heading.lower().startswith(prefix.lower()):
            return s
    raise PlotError(f"bench/RESULTS.md has no section starting with {prefix!r}")


def subsection(s: Section, prefix: str) -> Section:
    """A `### prefix...` subsection of a section, after the section's own
    opening lines (where its machine, date and commit are stated)."""
    starts = [i for i, line in enumerate(s.lines) if line.startswith("### ")]
    preamble = s.lines[:starts[0]] if starts else s.lines
    for n, i in enumerate(starts):
        if s.lines[i][4:].lower().startswith(prefix.lower()):
            end = starts[n + 1] if n + 1 < len(starts) else len(s.lines)
            return Section(f"{s.heading} / {prefix}", preamble + s.lines[i + 1:end])
    raise PlotError(f"section {s.heading!r} has no subsection starting with {prefix!r}")


# ---- figures

def figure(title: str, provenance: str, ncols: int = 1, width: float = 9.0):
    import matplotlib

    matplotlib.use("Agg")
    # Text stays text in the SVGs: searchable, selectable and smaller.
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(width, 4.6), squeeze=False)
    fig.suptitle(title, fontsize=12)
    fig.text(0.01, 0.01, provenance, fontsize=7, color="#555555")
    return fig, axes[0]


def save(fig, out: Path) -> Path:
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return out


def tokenizers(sections: list[Section], out: Path) -> Path:
    s = section(sections, "Tokenizers")
    t = s.table_with("tokenizer", "Sieve tok/s (1 thread)", "HF tok/s (1 thread)")
    names = [n.replace("sentence-transformers__", "").replace("__", "/") for n in t.values("tokenizer")]
    sieve, hf = t.numbers("Sieve tok/s (1 thread)"), t.numbers("HF tok/s (1 thread)")
    fig, (ax,) = figure("Tokenization, one thread: Sieve against Hugging Face tokenizers", s.provenance())
    y = range(len(names))
    ax.barh([i + 0.2 for i in y], [v / 1e6 for v in sieve], height=0.4, label="Sieve")
    ax.barh([i - 0.2 for i in y], [v / 1e6 for v in hf], height=0.4, label="Hugging Face tokenizers")
    ax.set_yticks(list(y), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("million tokens per second (higher is better)")
    ax.legend(loc="lower right")
    return save(fig, out)


def cpu_peers(sections: list[Section], out: Path) -> Path:
    s = subsection(section(sections, "Precision tiers"), "Every CPU peer in one table, prose")
    t = s.table_with("leg", "batch 1 texts/s", "batch 32 texts/s")
    legs = [re.sub(r"\s*\(.*?\)", "", leg) for leg in t.values("leg")]
    fig, axes = figure("Embedding throughput, all-MiniLM-L6-v2, prose of 5 to 300 tokens, against every CPU peer",
                       s.provenance(), 2, 11)
    for ax, column in zip(axes, ("batch 1 texts/s", "batch 32 texts/s")):
        values = t.numbers(column)
        colors = ["#1f77b4" if leg.startswith("Sieve") else "#999999" for leg in legs]
        ax.barh(range(len(legs)), values, color=colors)
        ax.set_yticks(range(len(legs)), legs, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(column.replace(" texts/s", ""), fontsize=10)
        ax.set_xlabel("texts per second (higher is better)")
    return save(fig, out)


def latency(sections: list[Section], out: Path) -> Path:
    s = section(sections, "Embedding: all-MiniLM-L6-v2")
    lat = subsection(s, "Single-sentence latency").table_with("p50 ms", "p99 ms")
    thr = subsection(s, "Embedding throughput").table_with("batch", "Sieve", "sentence-transformers")
    fig, axes = figure("Embedding all-MiniLM-L6-v2 against the Python peers", s.provenance(), 2, 11)
    names = [r[0] for r in lat.rows]
    x = range(len(names))
    axes[0].bar([i - 0.2 for i in x], lat.numbers("p50 ms"), width=0.4, label="p50")
    axes[0].bar([i + 0.2 for i in x], lat.numbers("p99 ms"), width=0.4, label="p99")
    axes[0].set_xticks(list(x), names, fontsize=8)
    axes[0].set_ylabel("ms per single-sentence call (lower is better)")
    axes[0].legend()
    batches = thr.numbers("batch")
    for column in [h for h in thr.header[1:] if "/" not in h]:
        axes[1].plot(batches, thr.numbers(column), marker="o", label=column)
    axes[1].set_xscale("log", base=2)
    axes[1].set_xlabel("batch size")
    axes[1].set_ylabel("sentences per second (higher is better)")
    axes[1].legend(fontsize=7)
    return save(fig, out)


def server(sections: list[Section], out: Path) -> Path:
    s = section(sections, "HTTP server under load")
    tables = [t for t in s.tables() if {"concurrency", "sentences/s", "p99 ms"} <= {h.lower() for h in t.header}]
    if len(tables) < 2:
        raise PlotError(f"section {s.heading!r} needs Sieve's and the peer's tables")
    fig, axes = figure("sieve serve under load: single-sentence requests", s.provenance(), 2, 10)
    for table, label in zip(tables[:2], ("Sieve", "FastAPI + sentence-transformers")):
        rows = [r for r in table.rows if number(r[table.column("batch")]) == 1]
        conc = [number(r[table.column("concurrency")]) for r in rows]
        axes[0].plot(conc, [number(r[table.column("sentences/s")]) for r in rows], marker="o", label=label)
        axes[1].plot(conc, [number(r[table.column("p99 ms")]) for r in rows], marker="o", label=label)
    for ax, ylabel in zip(axes, ("sentences per second (higher is better)", "p99 latency, ms (lower is better)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("concurrent clients")
        ax.set_ylabel(ylabel)
        ax.legend()
    axes[1].set_yscale("log")
    return save(fig, out)


def int8(sections: list[Section], out: Path) -> Path:
    s = subsection(section(sections, "Performance near the limit"), "INT8 at equal accuracy")
    t = s.table_with("variant", "mean cosine", "x fp32")
    fig, (ax,) = figure("Model variants: speed against accuracy (all-MiniLM-L6-v2)", s.provenance())
    for name, cos, speed in zip(t.values("variant"), t.numbers("mean cosine"), t.numbers("x fp32")):
        ax.scatter([speed], [cos], s=40)
        ax.annotate(name, (speed, cos), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xlabel("speed relative to FP32 (higher is better)")
    ax.set_ylabel("mean cosine to FP32 on prose (higher is better)")
    ax.grid(alpha=0.3)
    return save(fig, out)


def search(sections: list[Section], out: Path) -> Path:
    s = section(sections, "Local search")
    t = s.table_with("query mode", "Sieve p50 (ms)", "peer p50 (ms)")
    modes = t.values("query mode")
    fig, axes = figure("Search: latency and recall@10 per query mode, Sieve against a Python peer", s.provenance(),
                       2, 11)
    x = range(len(modes))
    for ax, (ours, theirs, label) in zip(axes, (("Sieve p50 (ms)", "peer p50 (ms)", "p50 latency, ms (lower is better)"),
                                               ("Sieve recall@10", "peer recall@10", "recall@10 (higher is better)"))):
        ax.bar([i - 0.2 for i in x], t.numbers(ours), width=0.4, label="Sieve")
        ax.bar([i + 0.2 for i in x], t.numbers(theirs), width=0.4, label="Python peer")
        ax.set_xticks(list(x), modes, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.legend()
    axes[0].set_yscale("log")
    return save(fig, out)


def scale(sections: list[Section], out: Path) -> Path:
    s = section(sections, "Vectors in memory at a million chunks")
    t = s.table_with("store", "setting", "resident MB", "recall@10", "p50 ms")
    stores = t.values("store")
    recall, p50, resident = t.numbers("recall@10"), t.numbers("p50 ms"), t.numbers("resident MB")
    fig, axes = figure("A million chunks: recall@10 against latency and memory, k 10", s.provenance(), 2, 12)
    names = list(dict.fromkeys(stores))
    for name in names:
        rows = [i for i, store in enumerate(stores) if store == name]
        marker = "o" if name.startswith("sieve") else "s"
        axes[0].scatter([p50[i] for i in rows], [recall[i] for i in rows], marker=marker, label=name)
        axes[1].scatter([resident[i] for i in rows], [recall[i] for i in rows], marker=marker, label=name)
    axes[0].set_xscale("log")
    axes[0].set_xlabel("p50 latency, ms (one query at a time; lower is better)")
    axes[1].set_xscale("log")
    axes[1].set_xlabel("resident memory of the searching process, MB (lower is better)")
    for ax in axes:
        ax.set_ylabel("recall@10 against exact search")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    return save(fig, out)


FIGURES = {"tokenizers": tokenizers, "cpu_peers": cpu_peers, "latency": latency, "server": server, "int8": int8,
           "search": search, "scale": scale}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "plots")
    ap.add_argument("--format", choices=["svg", "png"], default="svg")
    ap.add_argument("--only", nargs="+", choices=sorted(FIGURES), default=None)
    args = ap.parse_args(argv)
    try:
        sections = read_sections(args.results)
        for name in args.only or FIGURES:
            print(FIGURES[name](sections, args.out / f"{name}.{args.format}"))
    except (PlotError, OSError) as exc:
        print(f"plots: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
