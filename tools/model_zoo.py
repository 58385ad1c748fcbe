"""Tiny deterministic random-weight sentence-transformers models, and what
sentence-transformers computes with them: the matrix Sieve is checked against
(tests/integration/test_model_zoo.py). Run with .venv-export's Python (torch,
transformers, sentence-transformers); seconds on two cores.

    python tools/model_zoo.py --out DIR --tokenizer-from MODEL_DIR --texts FILE

Writes under DIR:
  base/                one tiny BertModel (hidden 32, 2 layers) with the tokenizer
                       of MODEL_DIR: the transformer every embedders/ folder shares,
                       so that one ONNX export serves them all
  embedders/NAME/      sentence-transformers folders saved by SentenceTransformer.save:
                       the base transformer followed by the modules NAME says
  decoders/NAME/       decoder embedders (Qwen3) with a byte-level BPE tokenizer
                       trained on the texts that appends an end-of-sequence token
                       and pads on the left, as Qwen3-Embedding's does; last-token
                       pooling, and prompts in config_sentence_transformers.json
  refused/NAME/        folders Sieve must refuse, with the words its error must contain
  zoo.json             {"embedders": {NAME: {"modules": [...]}}, "decoders": {NAME: {"prompts": [...]}},
                        "refused": {NAME: {"error": [WORDS...], "fix": COMMAND or null}}}
  references.npz       NAME: SentenceTransformer(NAME).encode(texts), float32, for
                       every embedder and every refused folder that has a fix;
                       NAME/PROMPT: encode(texts, prompt_name=PROMPT) for each decoder prompt
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import torch
from sentence_transformers import SentenceTransformer, models
from transformers import AutoTokenizer, BertConfig, BertModel

HIDDEN = 32


def transformer(base: Path) -> models.Transformer:
    return models.Transformer(str(base), max_seq_length=128)


def pooling(modes) -> models.Pooling:
    return models.Pooling(HIDDEN, pooling_mode=modes)


def dense(n_in: int, n_out: int, activation=None, bias: bool = True) -> models.Dense:
    # Large enough weights that each activation's shape matters.
    layer = models.Dense(n_in, n_out, bias=bias, activation_function=activation if activation is not None else torch.nn.Tanh())
    with torch.no_grad():
        layer.linear.weight.normal_(0, 0.6)
        if bias:
            layer.linear.bias.normal_(0, 0.3)
    return layer


def layer_norm(dimension: int) -> models.LayerNorm:
    module = models.LayerNorm(dimension)
    with torch.no_grad():
        module.norm.weight.normal_(1, 0.3)
        module.norm.bias.normal_(0, 0.3)
    return module


def embedders(base: Path) -> dict[str, list]:
    """Each combination of pooling modes and modules after pooling that Sieve applies."""
    nn = torch.nn
    return {
        "mean-normalize": [pooling("mean"), models.Normalize()],
        "cls-dense-tanh": [pooling("cls"), dense(HIDDEN, 16)],
        "max-dense-relu-normalize": [pooling("max"), dense(HIDDEN, 24, nn.ReLU()), models.Normalize()],
        "mean_sqrt_len-dense-gelu-nobias": [pooling("mean_sqrt_len_tokens"), dense(HIDDEN, 16, nn.GELU(), bias=False)],
        "weightedmean-dense-identity-normalize": [pooling("weightedmean"), dense(HIDDEN, 8, nn.Identity()),
                                                  models.Normalize()],
        "lasttoken-dense-sigmoid": [pooling("lasttoken"), dense(HIDDEN, 16, nn.Sigmoid())],
        "cls+mean+max-dense-silu-layernorm-normalize": [pooling(("cls", "mean", "max")), dense(3 * HIDDEN, 24, nn.SiLU()),
                                                        layer_norm(24), models.Normalize()],
        "mean-layernorm": [pooling("mean"), layer_norm(HIDDEN)],
        "mean-normalize-dense-tanh": [pooling("mean"), models.Normalize(), dense(HIDDEN, 12)],
        "mean-dense-elu-dense-softplus-dropout": [pooling("mean"), dense(HIDDEN, 20, nn.ELU()),
                                                  dense(20, 10, nn.Softplus()), models.Dropout(0.1)],
        "weightedmean+lasttoken-dense-leakyrelu-dense-mish": [pooling(("weightedmean", "lasttoken")),
                                                              dense(2 * HIDDEN, 16, nn.LeakyReLU()),
                                                              dense(16, 8, nn.Mish())],
    }


def bpe_tokenizer(texts: list[str], folder: Path):
    """A byte-level BPE tokenizer trained on the texts (a Qwen-like one: no
    lower-casing, an end-of-sequence token appended, padding on the left)."""
    from tokenizers import Tokenizer, decoders, models as tmodels, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(tmodels.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    eos = tok.token_to_id("<|endoftext|>")
    tok.post_processor = processors.TemplateProcessing(single="$A <|endoftext|>", pair="$A <|endoftext|> $B:1 <|endoftext|>:1",
                                                       special_tokens=[("<|endoftext|>", eos)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                                   padding_side="left", model_max_length=512)
    fast.save_pretrained(folder)
    return fast


def decoders_(out: Path, texts: list[str], references: dict[str, np.ndarray]) -> dict[str, dict]:
    """Qwen3 embedders: last-token pooling over a causal model."""
    from transformers import Qwen3Config, Qwen3Model

    made: dict[str, dict] = {}
    base = out / "qwen3-base"
    tokenizer = bpe_tokenizer(texts, base)
    Qwen3Model(Qwen3Config(vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=64, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=512,
                           initializer_range=0.2)).save_pretrained(base)
    prompts = {"query": "Instruct: find the passage that answers the question\nQuery: ", "document": ""}
    name = "qwen3-lasttoken-normalize"
    st = SentenceTransformer(modules=[transformer(base), pooling("lasttoken"), models.Normalize()], device="cpu",
                             prompts=prompts)
    st.save(str(out / name))
    st = SentenceTransformer(str(out / name), device="cpu")
    references[name] = st.encode(texts, batch_size=16, convert_to_numpy=True).astype(np.float32)
    for prompt in prompts:
        references[f"{name}/{prompt}"] = st.encode(texts, batch_size=16, prompt_name=prompt,
                                                   convert_to_numpy=True).astype(np.float32)
    made[name] = {"prompts": sorted(prompts)}
    return made


def edit_json(path: Path, change) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def make_refused(base: Path, out: Path, texts: list[str], references: dict[str, np.ndarray]) -> dict[str, dict]:
    """Folders that sentence-transformers would run differently from anything
    Sieve could do: each must be refused with an error naming the problem."""
    refused: dict[str, dict] = {}

    def save(name: str, modules: list, **kwargs) -> Path:
        folder = out / name
        SentenceTransformer(modules=[transformer(base), *modules], device="cpu").save(str(folder), **kwargs)
        return folder

    # Weights in a pickle: refused with the command that converts them.
    save("dense-pytorch-bin", [pooling("mean"), dense(HIDDEN, 16)], safe_serialization=False)
    refused["dense-pytorch-bin"] = {"error": ["pytorch_model.bin", "sieve-export convert-weights"],
                                    "fix": "convert-weights"}
    st = SentenceTransformer(str(out / "dense-pytorch-bin"), device="cpu")
    references["dense-pytorch-bin"] = st.encode(texts, batch_size=16, convert_to_numpy=True).astype(np.float32)

    # An activation outside torch (sentence-transformers needs trust_remote_code for it).
    folder = save("dense-custom-activation", [pooling("mean"), dense(HIDDEN, 16)])
    edit_json(folder / "2_Dense" / "config.json", lambda d: d.update(activation_function="my_package.Swish"))
    refused["dense-custom-activation"] = {"error": ["2_Dense", "my_package.Swish"], "fix": None}

    # A Dense on the token states (before pooling).
    folder = save("dense-on-tokens", [pooling("mean"), dense(HIDDEN, 16)])
    edit_json(folder / "2_Dense" / "config.json", lambda d: d.update(module_input_name="token_embeddings"))
    refused["dense-on-tokens"] = {"error": ["2_Dense", "token_embeddings"], "fix": None}

    # A module type Sieve does not apply, and a custom module's code.
    folder = save("unknown-module", [pooling("mean"), models.Normalize()])
    edit_json(folder / "modules.json",
              lambda d: d.insert(2, {"idx": 2, "name": "2", "path": "2_WordWeights",
                                     "type": "sentence_transformers.models.WordWeights"}))
    refused["unknown-module"] = {"error": ["2_WordWeights", "WordWeights"], "fix": None}
    folder = save("custom-module", [pooling("mean")])
    edit_json(folder / "modules.json",
              lambda d: d.append({"idx": 2, "name": "2", "path": "2_Custom", "type": "my_module.Pooling"}))
    refused["custom-module"] = {"error": ["my_module.Pooling", "custom module"], "fix": None}

    # Dense in_features that do not match the pooled width.
    folder = save("dense-wrong-width", [pooling(("cls", "mean")), dense(2 * HIDDEN, 16)])
    edit_json(folder / "2_Dense" / "config.json", lambda d: d.update(in_features=HIDDEN))
    refused["dense-wrong-width"] = {"error": ["2_Dense"], "fix": None}

    # Lower-casing that tokenizer.json does not do.
    folder = save("do-lower-case", [pooling("mean")])
    edit_json(folder / "sentence_bert_config.json", lambda d: d.update(do_lower_case=True))
    refused["do-lower-case"] = {"error": ["do_lower_case"], "fix": None}
    return refused


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--tokenizer-from", required=True, type=Path, help="a model folder whose tokenizer is used")
    ap.add_argument("--texts", required=True, type=Path, help="texts to encode, one per line")
    args = ap.parse_args()
    torch.manual_seed(11)
    texts = [t for t in args.texts.read_text(encoding="utf-8").split("\n") if t.strip()]
    if args.out.exists():
        shutil.rmtree(args.out)
    tokenizer = AutoTokenizer.from_pretrained(str(args.tokenizer_from))
    base = args.out / "base"
    BertModel(BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=HIDDEN, num_hidden_layers=2,
                         num_attention_heads=4, intermediate_size=64, max_position_embeddings=512,
                         initializer_range=0.2)).save_pretrained(base)
    tokenizer.save_pretrained(base)

    zoo: dict = {"embedders": {}, "refused": {}}
    references: dict[str, np.ndarray] = {}
    for name, modules in embedders(base).items():
        folder = args.out / "embedders" / name
        SentenceTransformer(modules=[transformer(base), *modules], device="cpu").save(str(folder))
        # The reference is what loading the saved folder gives, as a user would.
        st = SentenceTransformer(str(folder), device="cpu")
        references[name] = st.encode(texts, batch_size=16, convert_to_numpy=True).astype(np.float32)
        zoo["embedders"][name] = {"modules": [type(m).__name__ for m in st]}
    zoo["decoders"] = decoders_(args.out / "decoders", texts, references)
    zoo["refused"] = make_refused(base, args.out / "refused", texts, references)
    np.savez(args.out / "references.npz", **references)
    (args.out / "zoo.json").write_text(json.dumps(zoo, indent=2), encoding="utf-8")
    print(f"wrote {args.out}: {len(zoo['embedders'])} embedders, {len(zoo['decoders'])} decoders, "
          f"{len(zoo['refused'])} refused folders")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
