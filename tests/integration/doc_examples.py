"""The examples in README.md and docs/*.md, read and run so that the docs
cannot drift from what Sieve does. A fenced block takes part when its info
string says so:

    ```sh test          commands, run in order; see below
    ```python test      a program, run with python3; an ```output block
                        right after it is what it must print
    ```c file=NAME      (any language) written to NAME in the folder the
                        commands run in, for the commands after it
    ```go from=PATH     an excerpt: its lines must appear, in order, in PATH
                        (relative to the repository root)

and, after `test`, `full` (run in the full tier only) or `repo` (commands
that build and run the bindings' examples from the repository root: run by
the script that tests that binding, `python3 tests/integration/doc_examples.py
PAGE`, not by test_docs.py).

In an `sh test` block a line starting with "$ " is a command (a line ending
in a backslash continues it); the lines up to the next command are what it
prints on standard output, where "..." stands for any text (within a line or
across lines) and a command followed by no lines may print anything. Output
starting with "sieve: error:" (or any "NAME: error:") is an error the
command must fail with: it is checked against standard error, less the log
lines ("sieve: info: ...") before it. The commands
of a page share one shell's state: a `cd` or an `export` holds for the
commands after it. A command ending in "&" is a server (see doc_workspace.py)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
ERROR = re.compile(r"^[\w.-]+: error: ")
LOG = re.compile(r"^[\w.-]+: (trace|debug|info|warn|warning): .*\n?", re.M)


@dataclass
class Command:
    text: str
    expected: list[str] = field(default_factory=list)

    @property
    def is_error(self) -> bool:
        return bool(self.expected) and ERROR.match(self.expected[0]) is not None


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    options: dict[str, str]
    body: str
    commands: list[Command] = field(default_factory=list)
    output: list[str] | None = None  # what a python block prints (its ```output block)

    @property
    def name(self) -> str:
        try:
            return f"{self.page.relative_to(ROOT)}:{self.line}"
        except ValueError:
            return f"{self.page}:{self.line}"

    @property
    def tested(self) -> bool:
        return "test" in self.options

    @property
    def full_only(self) -> bool:
        return "full" in self.options

    @property
    def in_repo(self) -> bool:
        return "repo" in self.options


def parse_commands(block: Block) -> list[Command]:
    commands: list[Command] = []
    lines = block.body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command += "\n" + lines[i]  # bash reads the backslash and newline as a continuation
            commands.append(Command(command))
        elif commands:
            commands[-1].expected.append(line)
        else:
            raise AssertionError(f"{block.name}: output before any command")
        i += 1
    return commands


@dataclass
class Fence:
    """Any fenced block of a page, marked or not."""
    line: int
    lang: str
    options: dict[str, str]
    body: str        # without the fence's own indentation
    gap_before: str  # the page's text between the previous fence and this one


def fences(page: Path) -> list[Fence]:
    text = page.read_text(encoding="utf-8")
    found: list[Fence] = []
    previous_end = 0
    for m in FENCE.finditer(text):
        words = m.group("info").split()
        options = dict(word.partition("=")[::2] for word in words[1:])
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").splitlines())
        found.append(Fence(text[:m.start()].count("\n") + 1, words[0] if words else "", options, body,
                           text[previous_end:m.start()]))
        previous_end = m.end()
    return found


def parse(page: Path) -> list[Block]:
    """Every fenced block of PAGE that takes part (see above), in page order."""
    blocks: list[Block] = []
    for fence in fences(page):
        if fence.lang == "output":
            last = blocks[-1] if blocks else None
            if last is None or last.lang != "python" or not last.tested or fence.gap_before.strip():
                raise AssertionError(f"{page.name}:{fence.line}: an output block follows no python test block")
            last.output = fence.body.splitlines()
            continue
        if not ({"test", "file", "from"} & fence.options.keys()):
            continue
        block = Block(page, fence.line, fence.lang, fence.options, fence.body)
        if block.tested and block.lang == "sh":
            block.commands = parse_commands(block)
        elif block.tested and block.lang != "python":
            raise AssertionError(f"{block.name}: only sh and python blocks are run (mark code with file=NAME)")
        blocks.append(block)
    return blocks


def expected_pattern(lines: list[str]) -> re.Pattern:
    """The expected output as a regular expression: "..." matches anything."""
    text = "\n".join(lines).strip("\n")
    return re.compile(".*?".join(re.escape(part) for part in text.split("...")), re.S)


def check_output(where: str, what: str, got: str, expected: list[str]) -> None:
    got = got.strip("\n")
    assert expected_pattern(expected).fullmatch(got), \
        f"{where}: {what!r} printed\n{got}\nwhere the docs show\n" + "\n".join(expected)


def check_excerpt(block: Block) -> None:
    """Every line of the excerpt appears in its source, in order."""
    source = ROOT / block.options["from"]
    assert source.is_file(), f"{block.name}: {block.options['from']} does not exist"
    lines = [line.strip() for line in source.read_text(encoding="utf-8").splitlines()]
    at = 0
    for wanted in (line.strip() for line in block.body.splitlines()):
        if not wanted:
            continue
        try:
            at = lines.index(wanted, at) + 1
        except ValueError:
            raise AssertionError(f"{block.name}: {wanted!r} is not in {block.options['from']} "
                                 "(after the lines before it)") from None


class Shell:
    """Runs commands in bash, one process each, carrying the working folder
    and the exported variables from one to the next as one shell would."""

    def __init__(self, cwd: Path, env: dict[str, str], state_dir: Path):
        self.cwd = cwd
        self.env = dict(env)
        state_dir.mkdir(parents=True, exist_ok=True)
        self.state = state_dir / "exports.sh"
        self.where = state_dir / "cwd"
        self.state.write_text("")
        self.where.write_text(str(cwd))
        self.count = 0

    def script(self, command: str, save: bool = True) -> str:
        restore = f'source "{self.state}"\ncd "$(cat "{self.where}")"\n'
        if not save:
            return restore + command
        return (restore + command + "\n__status=$?\n"
                f'export -p > "{self.state}"\npwd > "{self.where}"\nexit $__status\n')

    def run(self, command: str, timeout: int = 600) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", self.script(command)], env=self.env, cwd=self.cwd,
                              capture_output=True, text=True, timeout=timeout)

    def write(self, name: str, text: str) -> None:
        folder = Path(self.where.read_text().strip())
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text + "\n", encoding="utf-8")

    def run_python(self, code: str, timeout: int = 600) -> subprocess.CompletedProcess:
        self.count += 1
        program = self.state.parent / f"example_{self.count}.py"
        program.write_text(code + "\n", encoding="utf-8")
        return self.run(f'python3 "{program}"', timeout)


def run_command(shell: Shell, where: str, command: Command, text: str | None = None) -> None:
    """Runs one command and checks it as the docs show it (see the module's text)."""
    text = command.text if text is None else text
    result = shell.run(text)
    if command.is_error:
        assert result.returncode != 0, f"{where}: {text!r} succeeded where the docs show an error"
        # Log lines before the error are not part of what the docs show.
        check_output(where, text, LOG.sub("", result.stderr), command.expected)
        return
    assert result.returncode == 0, f"{where}: {text!r} failed ({result.returncode}):\n{result.stderr}"
    assert "error" not in result.stderr.lower(), f"{where}: {text!r}:\n{result.stderr}"
    if command.expected:
        check_output(where, text, result.stdout, command.expected)


def run_block(shell: Shell, block: Block, rewrite=lambda text: text) -> None:
    """A block that needs no server: writes its file, checks its excerpt, runs
    its program or commands."""
    if "file" in block.options:
        shell.write(block.options["file"], block.body)
    if "from" in block.options:
        check_excerpt(block)
    if not block.tested:
        return
    if block.lang == "python":
        result = shell.run_python(rewrite(block.body))
        assert result.returncode == 0, f"{block.name}: the program failed ({result.returncode}):\n{result.stderr}"
        if block.output is not None:
            check_output(block.name, "the program", result.stdout, block.output)
        return
    for command in block.commands:
        run_command(shell, block.name, command, rewrite(command.text))


def main(argv: list[str]) -> int:
    """Runs the `repo` blocks of the pages named, from the repository root."""
    if not argv or argv[0].startswith("-"):
        print("usage: doc_examples.py PAGE...  (runs the pages' `sh test repo` blocks from the repository root)",
              file=sys.stderr)
        return 2
    for name in argv:
        page = (ROOT / name).resolve()
        blocks = [b for b in parse(page) if b.in_repo]
        if not blocks:
            print(f"doc_examples.py: {name} has no `sh test repo` block", file=sys.stderr)
            return 1
        shell = Shell(ROOT, dict(os.environ), ROOT / "build" / "doc-examples" / page.stem)
        for block in blocks:
            print(f"== {block.name}: {len(block.commands)} commands", flush=True)
            try:
                run_block(shell, block)
            except AssertionError as e:
                print(f"doc_examples.py: {e}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
