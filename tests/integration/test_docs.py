"""The docs cannot drift: every fenced block marked for testing in README.md
and docs/*.md (doc_examples.py says how blocks are marked and checked) is
run in a folder laid out as the docs assume (doc_workspace.py). Port 8080 on
a page becomes a free port, the same one for the whole page, so a server
and the curls that call it still meet; a server's block may show what it
logs on start-up, which is checked when it answers."""
from __future__ import annotations

import re

import pytest

import doc_examples
import doc_workspace
import tier
from conftest import ROOT
from doc_examples import PAGES, expected_pattern, parse


def all_blocks() -> list[doc_examples.Block]:
    return [block for page in PAGES for block in parse(page)]


def test_parser_reads_commands_outputs_wildcards_and_programs(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n```sh test\n$ echo a \\\n  b\na b\n$ true\n```\n```sh\n$ not run\n```\n"
                    "```sh test full\n$ printf 'x\\ny\\nz\\n'\nx\n...\nz\n$ sieve nope\nsieve: error: ...\n```\n"
                    "- a list\n\n  ```python test\n  print(1)\n  ```\n\n  ```output\n  1\n  ```\n"
                    "```c file=example.c\nint main(void) { return 0; }\n```\n")
    blocks = parse(page)
    assert [b.lang for b in blocks] == ["sh", "sh", "python", "c"]
    assert [[c.text for c in b.commands] for b in blocks[:2]] == [["echo a \\\n  b", "true"],
                                                                 ["printf 'x\\ny\\nz\\n'", "sieve nope"]]
    assert blocks[0].commands[0].expected == ["a b"] and blocks[0].commands[1].expected == []
    assert not blocks[0].full_only and blocks[1].full_only and not blocks[1].commands[0].is_error
    assert blocks[1].commands[1].is_error
    assert blocks[2].body == "print(1)" and blocks[2].output == ["1"] and blocks[2].tested
    assert blocks[3].options == {"file": "example.c"} and not blocks[3].tested
    pattern = expected_pattern(blocks[1].commands[0].expected)
    assert pattern.fullmatch("x\ny\nz") and pattern.fullmatch("x\ny\nw\nz")
    assert pattern.fullmatch("x\ny") is None and expected_pattern(["[1.5,...]"]).fullmatch("[1.5,2,3]")
    page.write_text("```sh\n$ ls\n```\n```output\n1\n```\n")
    with pytest.raises(AssertionError, match="follows no python test block"):
        parse(page)


def test_a_page_is_run_as_one_shell_and_errors_are_checked(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```sh test\n$ export GREETING=hello && mkdir -p sub && cd sub\n$ echo $GREETING $(basename $PWD)\n"
                    "hello sub\n```\n```sh file=run.sh\necho written\n```\n```sh test\n$ bash run.sh\nwritten\n"
                    "$ echo 'x: error: bad' >&2; exit 3\nx: error: ...\n```\n"
                    "```python test\nimport os\nprint(os.environ['GREETING'], os.getcwd().endswith('sub'))\n```\n"
                    "```output\nhello True\n```\n```sh test\n$ echo wrong\nright\n```\n")
    shell = doc_examples.Shell(tmp_path, {"PATH": "/usr/bin:/bin"}, tmp_path / "state")
    blocks = parse(page)
    for block in blocks[:-1]:
        doc_examples.run_block(shell, block)
    with pytest.raises(AssertionError, match="where the docs show"):
        doc_examples.run_block(shell, blocks[-1])
    failing = doc_examples.Block(page, 1, "sh", {"test": ""}, "", [doc_examples.Command("true", ["x: error: bad"])])
    with pytest.raises(AssertionError, match="succeeded where the docs show an error"):
        doc_examples.run_block(shell, failing)


def test_an_excerpt_must_be_in_its_source(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```py from=tests/integration/doc_examples.py\nclass Shell:\ndef run(self, command: str, "
                    "timeout: int = 600) -> subprocess.CompletedProcess:\n```\n"
                    "```py from=tests/integration/doc_examples.py\ndef run(self, command: str, timeout: int = 600) "
                    "-> subprocess.CompletedProcess:\nclass Shell:\n```\n")
    good, bad = parse(page)
    doc_examples.check_excerpt(good)
    with pytest.raises(AssertionError, match="is not in tests/integration/doc_examples.py"):
        doc_examples.check_excerpt(bad)


def test_the_docs_have_tested_examples():
    blocks = all_blocks()
    pages = {block.page.name for block in blocks if block.tested}
    assert {"README.md", "cli.md", "http-api.md", "python.md", "c-abi.md", "models.md"} <= pages, pages
    assert sum(len(b.commands) for b in blocks) >= 40


def check_tested_by(page, body: str, tests: str) -> None:
    """A `tested-by=FILE[,FILE]` block shows commands that need machines of
    their own (a database host, a balancer in front of replicas): the tests
    named run the same commands against local servers, so each option the
    block uses must appear in them."""
    text = ""
    for name in tests.split(","):
        path = ROOT / name
        assert path.is_file(), f"{page.name}: tested-by names {name}, which does not exist"
        text += path.read_text(encoding="utf-8")
    for option in set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|env:)", body)):
        assert option in text, f"{page.name}: {option} is shown, but {tests} never uses it"
    # Code: the package's functions called and the keyword arguments given.
    for function in set(re.findall(r"\bsieve\.\w+\.(\w+)\(", body)):
        assert f".{function}(" in text, f"{page.name}: {function}() is shown, but {tests} never calls it"
    for keyword in set(re.findall(r"[(,]\s*(\w+)=", body)):
        assert f"{keyword}=" in text, f"{page.name}: {keyword}= is shown, but {tests} never uses it"


def test_every_command_shown_is_tested():
    """A block that shows commands ("$ " lines, or an sh block) or code is
    run or checked by a test: code with `test`, `file=` or `from=`; commands
    here (`test`), by a binding's script (`repo`), by CI itself (`ci`: the
    set-up and test commands), or, either, by the tests a `tested-by=`
    names (see check_tested_by)."""
    untested = []
    for page in PAGES:
        for fence in doc_examples.fences(page):
            shows_commands = re.search(r"^\s*\$ ", fence.body, re.M) or fence.lang in ("sh", "python", "c", "go", "zig")
            if shows_commands and fence.options.get("tested-by"):
                check_tested_by(page, fence.body, fence.options["tested-by"])
            elif shows_commands and not {"test", "ci", "file", "from"} & fence.options.keys():
                untested.append(f"{page.relative_to(ROOT)}:{fence.line}")
    assert not untested, "blocks with commands no test runs (mark them `sh test`): " + ", ".join(untested)


def test_ci_blocks_are_what_ci_runs():
    """A `ci` block's commands are scripts that CI runs (.ci/run runs
    scripts/test.sh, which runs the others), with options that script has."""
    ci = (ROOT / ".ci" / "run").read_text() + (ROOT / "scripts" / "test.sh").read_text()
    for page in PAGES:
        for fence in doc_examples.fences(page):
            if "ci" not in fence.options:
                continue
            for line in fence.body.splitlines():
                words = line.split("#")[0].split()
                if not words:
                    continue
                assert words[0] == "bash" and len(words) > 1, f"{page.name}: {line!r} is not `bash SCRIPT ...`"
                script = words[1]
                assert f"bash {script}" in ci, \
                    f"{page.name}: {script} is not run by CI (.ci/run, scripts/test.sh)"
                own = (ROOT / script).read_text()
                for option in (w for w in words[2:] if w.startswith("--")):
                    assert option in own, f"{page.name}: {script} has no option {option}"


def test_repo_blocks_are_run_by_a_script():
    scripts = {path: path.read_text() for path in (ROOT / "scripts").glob("*.sh")}
    for page in PAGES:
        if any(block.in_repo for block in parse(page)):
            name = page.relative_to(ROOT).as_posix()
            assert any("doc_examples.py" in text and name in text for text in scripts.values()), \
                f"{name} has `sh test repo` blocks that no script in scripts/ runs (doc_examples.py {name})"


def server_command(text: str) -> bool:
    return text.rstrip().endswith("&")


@pytest.mark.skipif(not doc_workspace.available(), reason=f"fixture models missing in {doc_workspace.FIXTURES}")
@pytest.mark.parametrize("page", [p for p in PAGES if any(not b.in_repo for b in parse(p))],
                         ids=lambda p: p.name)
def test_every_marked_example_runs_as_shown(page, tmp_path):
    """Ports 8080 and 8081 become free ports, the same ones for the whole
    page; a server without --port gets the page's (its default is 8080). A
    server started on a port a page's server already listens on replaces it."""
    blocks = [b for b in parse(page) if not b.in_repo and (tier.FULL or not b.full_only)]
    work = doc_workspace.for_page(page, tmp_path)
    ports = {"8080": doc_workspace.free_port(), "8081": doc_workspace.free_port()}
    pattern = re.compile("|".join(ports))

    def rewrite(text: str) -> str:
        return pattern.sub(lambda m: str(ports[m.group(0)]), text)

    try:
        for block in blocks:
            if not any(server_command(c.text) for c in block.commands):
                doc_examples.run_block(work.shell, block, rewrite)
                continue
            for command in block.commands:
                text = rewrite(command.text)
                if server_command(text):
                    assert doc_workspace.is_server(text), f"{block.name}: only servers run in the background"
                    text = text.rstrip().removesuffix("&").rstrip()
                    if "--port" not in text:
                        text += f" --port {ports['8080']}"
                    port = int(re.search(r"--port (\d+)", text).group(1))
                    log = work.start_server(text, port)
                    if command.expected:
                        doc_examples.check_output(block.name, text, log, [rewrite(line) for line in command.expected])
                else:
                    doc_examples.run_command(work.shell, block.name, command, text)
    finally:
        work.close()
