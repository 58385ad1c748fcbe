"""Calibration data for static quantization: the user's texts, tokenized with
the folder's own tokenizer.json (Hugging Face `tokenizers`), fed to the
model's inputs batch by batch (onnxruntime.quantization.CalibrationDataReader).

One text per line; for a cross-encoder a line may hold a query and a document
separated by a tab (a line without a tab is paired with itself). Texts are
truncated to the folder's maximum length and each batch is padded to its
longest member, as Sieve does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .model_folder import CROSS_ENCODER, ToolError, max_length


def read_texts(path: Path, limit: int | None = None, skip: int = 0) -> list[str]:
    """Non-empty lines of a UTF-8 file, split on "\\n" only (lines that are not
    valid UTF-8 are left out); `skip` lines first, at most `limit`."""
    path = Path(path)
    if not path.is_file():
        raise ToolError(f"{path}: file not found")
    texts = []
    for raw in path.read_bytes().split(b"\n")[skip:]:
        if not raw.strip():
            continue
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue
        if limit and len(texts) >= limit:
            break
    if not texts:
        raise ToolError(f"{path}: no texts")
    return texts


def encode_batches(folder: Path, texts: list[str], input_names: list[str], kind: str,
                   batch_size: int = 8, same_length: bool = False) -> list[dict[str, np.ndarray]]:
    """Model feeds for `texts`, `batch_size` at a time, each batch padded to its
    longest text, or with `same_length` all to the longest of all (ONNX Runtime's
    histogram calibrators, entropy and percentile, stack every batch's tensors
    and need one shape)."""
    from tokenizers import Tokenizer

    folder = Path(folder)
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length(folder))
    if kind == CROSS_ENCODER:
        pairs = [tuple(t.split("\t", 1)) if "\t" in t else (t, t) for t in texts]
        encodings = tokenizer.encode_batch(pairs)
    else:
        encodings = tokenizer.encode_batch(texts)
    batches = []
    overall = max(len(e.ids) for e in encodings)
    for start in range(0, len(encodings), batch_size):
        chunk = encodings[start:start + batch_size]
        longest = overall if same_length else max(len(e.ids) for e in chunk)
        feeds = {n: np.zeros((len(chunk), longest), dtype=np.int64)
                 for n in ("input_ids", "attention_mask", "token_type_ids")}
        for row, e in enumerate(chunk):
            feeds["input_ids"][row, :len(e.ids)] = e.ids
            feeds["attention_mask"][row, :len(e.ids)] = e.attention_mask
            feeds["token_type_ids"][row, :len(e.ids)] = e.type_ids
        # Decoders (Qwen, Gemma) take positions: 0, 1, ... over each text's tokens.
        feeds["position_ids"] = np.maximum(np.cumsum(feeds["attention_mask"], axis=1) - 1, 0)
        missing = [n for n in input_names if n not in feeds]
        if missing:
            raise ToolError(f"the model takes inputs Sieve's tools cannot fill: {', '.join(missing)}")
        batches.append({n: feeds[n] for n in input_names})
    return batches


def data_reader(folder: Path, texts: list[str], input_names: list[str], kind: str, batch_size: int = 8,
                same_length: bool = False):
    from onnxruntime.quantization import CalibrationDataReader

    class TextReader(CalibrationDataReader):
        """Feeds the tokenized calibration texts, one batch per get_next()."""

        def __init__(self):
            self.batches = encode_batches(folder, texts, input_names, kind, batch_size, same_length)
            self.position = 0

        def get_next(self):
            if self.position >= len(self.batches):
                return None
            self.position += 1
            return self.batches[self.position - 1]

        def rewind(self):
            self.position = 0

    return TextReader()
