"""Bad input and bad files: a one-line error on stderr and a non-zero exit,
never an abort, a stack trace or partial garbage."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import MODEL, ROOT, run_sieve, sieve_bin

needs_model = pytest.mark.skipif(not (MODEL / "model.onnx").exists(), reason="models/all-MiniLM-L6-v2 missing")


def assert_clean_error(result, *fragments):
    err = result.stderr.decode(errors="replace")
    assert result.returncode != 0, err
    assert result.returncode < 128, f"killed by a signal: {err}"
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("sieve: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], err
    for word in ("terminate called", "Aborted", "Segmentation", "AddressSanitizer", "runtime error"):
        assert word not in err


def test_missing_model_folder():
    assert_clean_error(run_sieve("embed", "--model", "/nonexistent/model", "x", check=False), "/nonexistent/model")


def test_missing_tokenizer_file():
    assert_clean_error(run_sieve("tokenize", "--tokenizer", "/nonexistent.json", "x", check=False), "/nonexistent.json")


def test_malformed_tokenizer_json(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "WordPiece", "vocab": {"a": "zero"}}}')
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(bad), "x", check=False), "/model/vocab/a")
    bad.write_text('{"model": ')
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(bad), "x", check=False), "invalid JSON")
    bad.write_text('{"model": {"type": "WordPiece", "vocab": {}}, "normalizer": {"type": "Fancy"}}')
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(bad), "x", check=False), 'unsupported normalizer type "Fancy"')


@needs_model
def test_invalid_utf8_names_the_line():
    result = run_sieve("embed", "--model", str(MODEL), input=b"fine\nalso fine\nbad \xff\xfe here\n", check=False)
    assert_clean_error(result, "input 3", "not valid UTF-8")
    ok = run_sieve("embed", "--model", str(MODEL), "--invalid-utf8", "replace", input=b"fine\nbad \xff here\n")
    assert len(ok.stdout.splitlines()) == 2


@needs_model
def test_model_folder_with_a_corrupt_onnx(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(MODEL, folder, ignore=shutil.ignore_patterns("model.onnx"))
    (folder / "model.onnx").write_bytes(b"\x08\x01garbage")
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False), "model.onnx")
    (folder / "model.onnx").unlink()
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False), "model.onnx")


@needs_model
def test_corrupt_pooling_config(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(MODEL, folder)
    (folder / "1_Pooling" / "config.json").write_text("{oops")
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False), "1_Pooling/config.json")


@needs_model
def test_bad_options():
    assert_clean_error(run_sieve("embed", "--model", str(MODEL), "--provider", "warp", "x", check=False),
                       'unknown execution provider "warp"')
    assert_clean_error(run_sieve("embed", "--model", str(MODEL), "--max-length", "100000", "x", check=False),
                       "exceeds the model's 512 positions")
    assert_clean_error(run_sieve("embed", "--model", str(MODEL), "--pooling", "median", "x", check=False),
                       'unknown pooling "median"')
    strict = run_sieve("embed", "--model", str(MODEL), "--provider", "cuda", "--strict-providers", "x", check=False)
    assert_clean_error(strict, "cuda")
    # Without --strict-providers the session falls back to the CPU, saying so.
    fallback = run_sieve("embed", "--model", str(MODEL), "--provider", "cuda", "x", check=False)
    assert fallback.returncode == 0


def test_usage_errors_exit_nonzero():
    import subprocess
    result = subprocess.run([str(sieve_bin()), "embed"], capture_output=True, timeout=60)
    assert result.returncode != 0 and b"--model" in result.stderr
    result = subprocess.run([str(sieve_bin())], capture_output=True, timeout=60)
    assert result.returncode != 0


@needs_model
def test_empty_and_huge_inputs():
    # An empty line is a valid (empty) text; a 2 MB line is truncated.
    huge = ("word " * 400_000).encode()
    result = run_sieve("embed", "--model", str(MODEL), input=b"\n" + huge + b"\n")
    rows = [json.loads(l) for l in result.stdout.splitlines()]
    assert len(rows) == 2 and all(len(r) == 384 for r in rows)
    assert run_sieve("embed", "--model", str(MODEL), input=b"").stdout == b""


@needs_model
def test_tokenize_output_shape():
    result = run_sieve("tokenize", "--model", str(MODEL), "Hello, world!")
    doc = json.loads(result.stdout)
    assert set(doc) == {"ids", "tokens", "type_ids", "attention_mask", "special_tokens_mask"}
    assert doc["tokens"][:6] == ["[CLS]", "hello", ",", "world", "!", "[SEP]"]
    # The file pads to 128, as Hugging Face does by default with this file.
    assert len(doc["ids"]) == 128 and sum(doc["attention_mask"]) == 6


def test_info_lists_a_models_root_with_kinds(tmp_path):
    """sieve info --models: the registry's listing, kinds detected from
    config.json and the ONNX outputs; links out of the root lead to model
    folders (one linked, or those of a linked folder of models), as in
    Hugging Face's cache (names that reach anything else are refused: the
    registry's unit tests)."""
    fixtures = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
    for name in ("tiny-bert-tokens", "tiny-bert-pooled", "cross-encoder-tiny-3labels"):
        if not (fixtures / name).is_dir():
            pytest.fail(f"fixture {fixtures / name} missing: run tools/make_fixtures.py and tools/make_cross_encoder.py")
        shutil.copytree(fixtures / name, tmp_path / "root" / "org" / name)
    (tmp_path / "root" / "linked").symlink_to(fixtures / "tiny-bert-tokens", target_is_directory=True)
    (tmp_path / "root" / "escape").symlink_to(fixtures, target_is_directory=True)  # a folder of models
    for extra in ([], ["--no-load"]):
        doc = json.loads(run_sieve("info", "--models", str(tmp_path / "root"), "--json", *extra).stdout)
        models = {m["name"]: m for m in doc["models"]}
        assert models["org/tiny-bert-tokens"]["kind"] == "embedding"
        assert models["org/tiny-bert-pooled"]["kind"] == "pooled embedding"
        assert models["org/cross-encoder-tiny-3labels"]["kind"] == "reranker"
        assert models["org/cross-encoder-tiny-3labels"]["dimension"] == 3
        assert all(m.get("providers", ["cpu"])[-1] == "cpu" for m in models.values() if "error" not in m)
        assert models["linked"]["kind"] == "embedding" and models["linked"]["dimension"] == 32
        assert models["escape/tiny-bert-tokens"]["kind"] == "embedding" and "error" not in models["escape/tiny-bert-tokens"]


def test_texts_given_as_arguments_are_taken_as_typed():
    """A text argument in brackets ("[MASK]", "[a,b]") is one text, brackets
    included, as Hugging Face tokenizers sees it: the argument parser must not
    read it as a list."""
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.Tokenizer.from_file(str(MODEL / "tokenizer.json"))
    texts = ["[MASK]", "[CLS] hello [SEP]", "[a,b]", "plain"]
    out = run_sieve("tokenize", "--model", str(MODEL), *texts).stdout.decode().splitlines()
    assert len(out) == len(texts)
    for line, text in zip(out, texts):
        got = json.loads(line)
        want = reference.encode(text)
        n = sum(got["attention_mask"])
        assert got["ids"][:n] == want.ids[:n] and n == sum(want.attention_mask), text


FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
TINY = FIXTURES / "tiny-bert-tokens"
needs_fixtures = pytest.mark.skipif(not (TINY / "model.onnx").exists(), reason=f"fixture models missing in {FIXTURES}")


@needs_fixtures
def test_thread_counts_beyond_the_machine_are_refused(tmp_path):
    """More threads than 4 per hardware thread only costs memory: every
    thread count is refused above that, naming the option and the limit."""
    limit = 4 * os.cpu_count()
    expected = f"at most {limit} threads on this machine"
    assert_clean_error(run_sieve("embed", "--model", str(TINY), "--threads", "1000000", "x", check=False),
                       "--threads 1000000", expected)
    assert_clean_error(run_sieve("tokenize", "--tokenizer", str(TINY / "tokenizer.json"), "--threads", "1000000", "x",
                                 check=False), "--threads 1000000", expected)
    (tmp_path / "root").mkdir()
    assert_clean_error(run_sieve("serve", "--models", str(tmp_path / "root"), "--port", "0", "--threads", "1000000",
                                 check=False), "--threads 1000000", expected)
    assert_clean_error(run_sieve("embed", "--model", str(TINY), "--threads", str(limit + 1), "x", check=False),
                       f"--threads {limit + 1}", expected)
    # The limit itself is fine.
    assert len(json.loads(run_sieve("embed", "--model", str(TINY), "--threads", str(limit), "x").stdout)) > 0


@needs_fixtures
def test_a_model_of_another_kind_is_refused(tmp_path):
    """A cross-encoder or classifier gives no embeddings: every command that embeds refuses it in one line naming
    what it is and the commands that can use it; a cross-encoder's command refuses an embedding model likewise."""
    cross_encoder = FIXTURES / "cross-encoder-minilm-l6"
    classifier = FIXTURES / "cross-encoder-tiny-3labels"
    (tmp_path / "a.txt").write_text("some words")
    for folder in (cross_encoder, classifier):
        expected = (f"{folder}: is a cross-encoder or classifier (config.json: BertForSequenceClassification), "
                    "not an embedding model", "use sieve rerank or sieve classify")
        for command in (["embed", "--model", str(folder), "x"], ["similarity", "--model", str(folder), "a", "b"],
                        ["index", "add", "--index", str(tmp_path / "idx"), "--model", str(folder),
                         str(tmp_path / "a.txt")]):
            assert_clean_error(run_sieve(*command, check=False), *expected)
    assert not (tmp_path / "idx").exists()
    assert_clean_error(run_sieve("rerank", "--model", str(TINY), "--query", "q", input=b"a document\n", check=False),
                       f"{TINY}: not a cross-encoder", "use it with sieve embed")


@needs_fixtures
def test_control_characters_in_messages_are_escaped(tmp_path):
    """Names from outside (a folder, a file) reach the terminal escaped, in
    errors and in log lines alike."""
    hostile = "\x1b[31m\r\x08"
    folder = tmp_path / f"tiny{hostile}"
    shutil.copytree(TINY, folder)
    result = run_sieve("embed", "--model", str(tmp_path / f"missing{hostile}"), "x", check=False)
    assert_clean_error(result, "missing\\x1b[31m\\r\\b")
    assert b"\x1b" not in result.stderr and b"\r" not in result.stderr
    import subprocess
    result = subprocess.run([str(sieve_bin()), "--log-level", "info", "embed", "--model", str(folder), "x"],
                            capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert b"tiny\\x1b[31m\\r\\b/model.onnx" in result.stderr, result.stderr
    assert b"\x1b" not in result.stderr and b"\r" not in result.stderr and b"\x08" not in result.stderr
    # ONNX Runtime's own messages quote the model's node names: through the same logger.
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    model = onnx.load(str(folder / "model.onnx"))
    out = model.graph.output[0].name
    for node in model.graph.node:
        node.output[:] = ["raw_states" if o == out else o for o in node.output]
    model.graph.initializer.append(numpy_helper.from_array(np.array([1, 5, 32], np.int64), "wrong_shape"))
    model.graph.node.append(helper.make_node("Reshape", ["raw_states", "wrong_shape"], [out], name=f"node{hostile}"))
    onnx.save(model, str(folder / "model.onnx"))
    result = run_sieve("embed", "--model", str(folder), "x", check=False)  # 3 tokens: no [1, 5, 32]
    err = result.stderr.decode()
    assert result.returncode == 1 and "Name:'node\\x1b[31m\\r\\b'" in err, err
    assert "\x1b" not in err and "\r" not in err and "\x08" not in err
    assert [l.split(": ")[1] for l in err.splitlines()] == ["warning", "error"], err  # ORT's line, then Sieve's


def with_added_token(folder: Path, token_id: int) -> None:
    doc = json.loads((folder / "tokenizer.json").read_text())
    doc["added_tokens"].append({"id": token_id, "content": "[EXTRA]", "single_word": False, "lstrip": False,
                                "rstrip": False, "normalized": False, "special": True})
    (folder / "tokenizer.json").write_text(json.dumps(doc))


@needs_fixtures
def test_token_ids_beyond_the_embedding_matrix_are_refused_at_load(tmp_path):
    """An id past the word-embedding matrix would fail at the first input
    holding it: the load refuses it, naming both numbers and both files.
    Fewer ids than the matrix has rows are fine."""
    folder = tmp_path / "model"
    shutil.copytree(TINY, folder)
    with_added_token(folder, 30522)  # the matrix has 30522 rows: ids 0 to 30521
    result = run_sieve("embed", "--model", str(folder), "x", check=False)
    assert_clean_error(result, f"{folder / 'tokenizer.json'} gives token ids up to 30522",
                       f"{folder / 'model.onnx'} embeds 30522 token ids (embeddings.word_embeddings.weight [30522, 32])")
    # A cross-encoder is checked alike.
    cross = tmp_path / "cross"
    shutil.copytree(FIXTURES / "cross-encoder-tiny-3labels", cross)
    with_added_token(cross, 40000)
    assert_clean_error(run_sieve("rerank", "--model", str(cross), "--query", "q", input=b"a\n", check=False),
                       "gives token ids up to 40000", "embeds 30522 token ids")
    # A fused EmbedLayerNormalization's table counts alike (refused before ONNX Runtime sees the graph).
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    fused = tmp_path / "fused"
    shutil.copytree(TINY, fused)
    tables = [numpy_helper.from_array(np.zeros(shape, np.float32), name)
              for name, shape in (("word", [1000, 4]), ("position", [512, 4]), ("gamma", [4]), ("beta", [4]))]
    graph = helper.make_graph(
        [helper.make_node("EmbedLayerNormalization", ["input_ids", "", "word", "position", "", "gamma", "beta"],
                          ["last_hidden_state"], domain="com.microsoft")], "fused",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
         for n in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", 4])], tables)
    (fused / "model.onnx").write_bytes(helper.make_model(graph).SerializeToString())
    assert_clean_error(run_sieve("embed", "--model", str(fused), "x", check=False),
                       "gives token ids up to 30521", "embeds 1000 token ids (word [1000, 4])")
    # The last id of the matrix is fine, and so is a vocabulary smaller than it.
    shutil.rmtree(folder)
    shutil.copytree(TINY, folder)
    with_added_token(folder, 30521)
    run_sieve("embed", "--model", str(folder), "x")


@needs_fixtures
def test_token_ids_are_checked_against_config_where_the_graph_does_not_tell(tmp_path):
    import onnx
    from onnx import helper, numpy_helper
    import numpy as np
    folder = tmp_path / "model"
    shutil.copytree(TINY, folder)
    # The word embeddings computed (table + 0) rather than read: the graph no longer tells its vocabulary.
    model = onnx.load(str(folder / "model.onnx"))
    gather = next(n for n in model.graph.node if n.op_type == "Gather" and n.input[1] == "input_ids")
    model.graph.initializer.append(numpy_helper.from_array(np.zeros([1], np.float32), "zero"))
    model.graph.node.insert(0, helper.make_node("Add", [gather.input[0], "zero"], ["computed_table"]))
    gather.input[0] = "computed_table"
    onnx.save(model, str(folder / "model.onnx"))
    run_sieve("embed", "--model", str(folder), "x")  # config.json: vocab_size 30522
    config = json.loads((folder / "config.json").read_text())
    config["vocab_size"] = 30000
    (folder / "config.json").write_text(json.dumps(config))
    assert_clean_error(run_sieve("embed", "--model", str(folder), "x", check=False),
                       "gives token ids up to 30521",
                       f"{folder / 'config.json'} gives the model 30000 token ids (vocab_size)")
    del config["vocab_size"]
    (folder / "config.json").write_text(json.dumps(config))
    run_sieve("embed", "--model", str(folder), "x")  # nothing tells: nothing is checked


@pytest.mark.parametrize("args, fragments", [
    (["serach", "--index", "x", "q"], ['unknown command "serach" for sieve;', 'did you mean "search"?']),
    (["index", "ad", "x"], ['unknown command "ad" for sieve index;', 'did you mean "add"?']),
    (["embed", "--modle", "m", "x"], ["unknown option --modle for sieve embed;", "did you mean --model?",
                                      "sieve embed --help"]),
    (["embed", "--model=m", "--batchsize=3", "x"], ["unknown option --batchsize for sieve embed;",
                                                     "did you mean --batch-size?"]),
    (["index", "add", "--index", "i", "--modle", "m", "f"], ["unknown option --modle for sieve index add;",
                                                             "did you mean --model?"]),
    (["frobnicate"], ['unknown command "frobnicate" for sieve; the commands are embed, ']),
    (["embed", "--model", "m", "--batch-size", "0", "x"], ['--batch-size: "0": expected a number above 0',
                                                            "(sieve embed --help lists its options)"]),
    (["embed", "x"], ["--model is required (sieve embed --help lists its options)"]),
    ([], ["sieve needs a command: embed, "]),
    (["index"], ["sieve index needs a command: add, "]),
])
def test_mistakes_get_an_answer_that_helps(args, fragments):
    """An unknown command or option is named, with the closest known one; a missing command lists them."""
    assert_clean_error(run_sieve(*args, check=False), *fragments)


def test_a_new_index_without_a_model_says_how_to_make_one(tmp_path):
    (tmp_path / "a.txt").write_text("text\n")
    assert_clean_error(run_sieve("index", "add", "--index", str(tmp_path / "new.idx"), str(tmp_path / "a.txt"),
                                 check=False),
                       f"no search index in {tmp_path / 'new.idx'} yet", "--model DIR")


def test_a_port_in_use_is_an_error_before_any_model_loads(tmp_path):
    """The port is bound first: with a models root that does not exist either, the port is what is reported."""
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_sieve("serve", "--models", str(tmp_path / "missing"), "--port", str(port), check=False)
    assert_clean_error(result, f"cannot listen on 127.0.0.1:{port}: the port is in use", "--port")
