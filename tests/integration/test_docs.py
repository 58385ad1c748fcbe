"""The docs cannot drift: every fenced block marked `sh test` in README.md and
docs/*.md is run, command by command, in a folder laid out as the docs assume
(doc_workspace.py), and what it prints is checked against the block.

In such a block a line starting with "$ " is a command (a line ending in a
backslash continues it); the lines up to the next command are what it prints
on standard output, where "..." stands for any text (within a line or across
lines) and a command followed by no lines may print anything. A command
ending in "&" is a server: it is started, waited for and stopped at the end
of the page. Port 8080 on a page becomes a free port, the same one for the
whole page, so a server and the curls that call it still meet."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import doc_workspace
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```sh test[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)


@dataclass
class Block:
    page: Path
    line: int
    commands: list[Command]

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def parse(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    blocks = []
    for m in FENCE.finditer(text):
        commands: list[Command] = []
        lines = m.group(1).splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("$ "):
                command = line[2:]
                while command.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    command = command[:-1] + "\n" + lines[i]
                commands.append(Command(command))
            elif commands:
                commands[-1].expected.append(line)
            else:
                raise AssertionError(f"{page.name}:{text[:m.start()].count(chr(10)) + 2}: output before any command")
            i += 1
        blocks.append(Block(page, text[:m.start()].count("\n") + 1, commands))
    return blocks


def expected_pattern(lines: list[str]) -> re.Pattern:
    """The expected output as a regular expression: "..." matches anything."""
    text = "\n".join(lines).strip("\n")
    return re.compile(".*?".join(re.escape(part) for part in text.split("...")), re.S)


def all_blocks() -> list[Block]:
    return [block for page in DOCS for block in parse(page)]


def test_parser_reads_commands_outputs_and_wildcards(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n```sh test\n$ echo a \\\n  b\na b\n$ true\n```\n```sh\n$ not run\n```\n"
                    "```sh test\n$ printf 'x\\ny\\nz\\n'\nx\n...\nz\n```\n")
    blocks = parse(page)
    assert [[c.text for c in b.commands] for b in blocks] == [["echo a \n  b", "true"], ["printf 'x\\ny\\nz\\n'"]]
    assert blocks[0].commands[0].expected == ["a b"] and blocks[0].commands[1].expected == []
    pattern = expected_pattern(blocks[1].commands[0].expected)
    assert pattern.fullmatch("x\ny\nz") and pattern.fullmatch("x\ny\nw\nz")
    assert pattern.fullmatch("x\ny") is None and expected_pattern(["[1.5,...]"]).fullmatch("[1.5,2,3]")


def test_the_docs_have_tested_examples():
    blocks = all_blocks()
    pages = {block.page.name for block in blocks}
    assert "cli.md" in pages, pages
    assert sum(len(b.commands) for b in blocks) >= 20


@pytest.mark.skipif(not doc_workspace.available(), reason=f"fixture models missing in {doc_workspace.FIXTURES}")
@pytest.mark.parametrize("page", [p for p in DOCS if parse(p)], ids=lambda p: p.name)
def test_every_marked_example_runs_as_shown(page, tmp_path):
    work = doc_workspace.Workspace(tmp_path)
    port = doc_workspace.free_port()
    try:
        for block in parse(page):
            for command in block.commands:
                text = command.text.replace("8080", str(port))
                if text.rstrip().endswith("&"):
                    assert doc_workspace.is_server(text), f"{block.name}: only servers run in the background"
                    work.start_server(text.rstrip().removesuffix("&"), port)
                    continue
                result = work.run(text)
                if command.expected:
                    got = result.stdout.strip("\n")
                    assert expected_pattern(command.expected).fullmatch(got), \
                        f"{block.name}: {command.text!r} printed\n{got}\nwhere the docs show\n" + \
                        "\n".join(command.expected)
    finally:
        work.close()
