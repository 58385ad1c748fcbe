"""The server's OpenAPI document (GET /openapi.json) against the server itself: every documented operation is a
route (the server refuses to start with a route the document lacks, so the two cannot drift apart), and
Schemathesis sends generated requests to every operation, valid and not (a few per operation in the fast tier,
more in the full one): no 5xx, no status code or body the document does not describe, no crash. The page that
renders the document (/docs) is tested in a browser in test_search_page.py."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tier
from conftest import MODEL, ROOT, run_sieve
from server_harness import Server, models_root

sys.path.insert(0, str(ROOT / "tools"))
import make_cross_encoder  # noqa: E402  (tools/ on the path just above)

FIXTURES = Path(os.environ.get("SIEVE_FIXTURES_DIR", ROOT / "build" / "fixtures"))
SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("openapi")
    for name in (make_cross_encoder.FOLDER, make_cross_encoder.FOLDER_MULTI):
        make_cross_encoder.make(FIXTURES, MODEL / "tokenizer.json", name=name)
    notes = tmp / "notes"
    notes.mkdir()
    (notes / "quantize.md").write_text("# Quantization\n\nQuantize a model to INT8 with sieve-export quantize.\n")
    (notes / "cats.txt").write_text("Cats sleep most of the day.\n")
    run_sieve("index", "add", "--index", str(tmp / "notes.idx"), "--model", str(MODEL), "--quiet", str(notes))
    root = models_root(tmp, {"minilm": MODEL, "ce": FIXTURES / make_cross_encoder.FOLDER,
                             "nli": FIXTURES / make_cross_encoder.FOLDER_MULTI, "splade": FIXTURES / "splade-tiny",
                             "colbert": FIXTURES / "colbert-tiny"})
    s = Server(root, "--index", f"notes={tmp / 'notes.idx'}")
    yield s
    assert s.stop() == 0, s.output()


def test_every_documented_operation_is_served(server):
    status, _, doc = server.get("/openapi.json")
    assert status == 200 and doc["openapi"] == "3.1.0" and doc["info"]["version"]
    operations = [(method.upper(), path) for path, item in doc["paths"].items() for method in item]
    assert len(operations) >= 37
    for method, path in operations:
        concrete = path.replace("{name}", "notes").replace("{id}", "x")
        status, _, body = server.request(method, concrete, {} if method == "POST" else None)
        text = json.dumps(body)
        assert f"no route {method} {concrete}" not in text, (method, path, status, body)
    # Every response of every operation is described, with a schema for JSON bodies.
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert "200" in op["responses"] and "400" in op["responses"], (method, path)


def test_schemathesis_finds_no_server_error_and_no_answer_outside_the_document(server, tmp_path):
    examples = tier.fast_or_full(5, 50)
    result = subprocess.run(
        [str(SCHEMATHESIS), "run", f"http://127.0.0.1:{server.port}/openapi.json",
         "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
         "--max-examples", str(examples), "--workers", "1", "--seed", str(tier.SEED), "--no-color"],
        capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    # Each phase ran something ("36 passed", "110 passed"), none nothing ("0 passed").
    passed = [int(n) for n in re.findall(r"(\d+) passed", result.stdout)]
    assert passed and min(passed) > 0, result.stdout[-3000:]
    assert server.process.poll() is None, "the server stopped"
