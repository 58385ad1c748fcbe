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
  architectures/NAME/  one folder per architecture, each with its own transformer
                       (and its own ONNX export): encoders with the tokenizer of
                       MODEL_DIR (RoFormer as the rotary-position BERT); decoders
                       (Qwen3, Qwen2, Gemma3) with a byte-level BPE tokenizer
                       trained on the texts that appends an end-of-sequence token
                       and pads on the left, as Qwen3-Embedding's does, last-token
                       pooling and prompts in config_sentence_transformers.json;
                       T5 as its encoder alone
  cross-encoders/NAME/ cross-encoders (*ForSequenceClassification, one label) of
                       BERT and XLM-RoBERTa (the bge-reranker kind), with the
                       tokenizer of MODEL_DIR
  classifiers/NAME/    BERT classifiers with several labels: single-label,
                       multi-label, and one of text pairs (NLI)
  llm-rerankers/NAME/  a Qwen3ForCausalLM scored as Qwen3-Reranker (yes against no
                       after its prompt), with a BPE tokenizer holding "yes", "no"
                       and the chat tokens
  refused/NAME/        folders Sieve must refuse, with the words its error must contain
  refused-exports/NAME/ folders sieve-export must refuse
  zoo.json             {"embedders": {NAME: {"modules": [...]}},
                        "architectures": {NAME: {"modules": [...], "prompts": [...]}},
                        "cross_encoders": {NAME: {"architecture": ...}}, "pairs": [[QUERY, DOCUMENT], ...],
                        "classifiers": {NAME: {"labels": [...], "problem_type": ..., "pairs": BOOL}},
                        "llm_rerankers": {NAME: {"architecture": ..., "instruction": ...}},
                        "refused": {NAME: {"error": [WORDS...], "fix": COMMAND or null}},
                        "refused_exports": {NAME: {"folder": PATH, "task": TASK, "error": [WORDS...]}}}
  references.npz       NAME: SentenceTransformer(NAME).encode(texts), float32, for
                       every embedder and every refused folder that has a fix;
                       NAME/PROMPT: encode(texts, prompt_name=PROMPT) for each prompt;
                       NAME: CrossEncoder(NAME).predict(pairs) (sigmoid) for each cross-encoder;
                       NAME: the text-classification pipeline's scores and NAME/logits the
                       logits, [inputs, labels] in label order, for each classifier (of
                       the texts, or of the pairs for a pair classifier);
                       NAME: the yes probability of each pair for each LLM reranker
"""

from __future__ import annotations

import argparse
import inspect
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


def architectures(out: Path, minilm_tokenizer, texts: list[str], references: dict[str, np.ndarray],
                  only: set[str] | None = None) -> dict[str, dict]:
    """One tiny model per architecture (those named in `only`, if given), each
    in a typical sentence-transformers arrangement of its family."""
    import transformers as tf

    nn = torch.nn
    small = dict(num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=512,
                 initializer_range=0.2)
    vocab = minilm_tokenizer.vocab_size
    bert_like = dict(vocab_size=vocab, hidden_size=HIDDEN, pad_token_id=0, **small)
    decoder = dict(hidden_size=HIDDEN, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                   num_key_value_heads=2, head_dim=8, max_position_embeddings=512, initializer_range=0.2)
    prompts = {"query": "Instruct: find the passage that answers the question\nQuery: ", "document": ""}
    # name: (config, model class, decoder?, modules after the transformer, prompts)
    specs = {
        "roberta-mean-normalize": (tf.RobertaConfig(**{**bert_like, "max_position_embeddings": 514}), tf.RobertaModel,
                                   False, lambda: [pooling("mean"), models.Normalize()], None),
        "xlm-roberta-cls-normalize": (tf.XLMRobertaConfig(**{**bert_like, "max_position_embeddings": 514}),
                                      tf.XLMRobertaModel, False, lambda: [pooling("cls"), models.Normalize()], None),
        "mpnet-mean-normalize": (tf.MPNetConfig(**{**bert_like, "max_position_embeddings": 514}), tf.MPNetModel,
                                 False, lambda: [pooling("mean"), models.Normalize()], None),
        "distilbert-mean": (tf.DistilBertConfig(vocab_size=vocab, dim=HIDDEN, n_layers=2, n_heads=4, hidden_dim=64,
                                                pad_token_id=0, initializer_range=0.2), tf.DistilBertModel, False,
                            lambda: [pooling("mean")], None),
        "deberta-v2-mean-dense": (tf.DebertaV2Config(**bert_like), tf.DebertaV2Model, False,
                                  lambda: [pooling("mean"), dense(HIDDEN, 16)], None),
        "electra-cls": (tf.ElectraConfig(**{**bert_like, "embedding_size": HIDDEN}), tf.ElectraModel, False,
                        lambda: [pooling("cls")], None),
        # The rotary-position BERT transformers has without remote code
        # (NomicBERT's and NeoBERT's need trust_remote_code).
        "roformer-mean-normalize": (tf.RoFormerConfig(**{**bert_like, "embedding_size": HIDDEN}), tf.RoFormerModel,
                                    False, lambda: [pooling("mean"), models.Normalize()], None),
        "modernbert-mean-normalize": (tf.ModernBertConfig(vocab_size=vocab, hidden_size=HIDDEN, intermediate_size=64,
                                                          num_hidden_layers=2, num_attention_heads=4, pad_token_id=0,
                                                          initializer_range=0.2, reference_compile=False),
                                      tf.ModernBertModel, False, lambda: [pooling("mean"), models.Normalize()], None),
        "t5-encoder-mean-dense-normalize": (tf.T5Config(vocab_size=vocab, d_model=HIDDEN, d_kv=8, d_ff=64, num_layers=2,
                                                        num_heads=4, decoder_start_token_id=0, pad_token_id=0),
                                            tf.T5EncoderModel, False,
                                            lambda: [pooling("mean"), dense(HIDDEN, 16, nn.Identity()),
                                                     models.Normalize()], None),
        "qwen3-lasttoken-normalize": (tf.Qwen3Config(**decoder), tf.Qwen3Model, True,
                                      lambda: [pooling("lasttoken"), models.Normalize()], prompts),
        "qwen2-lasttoken-normalize": (tf.Qwen2Config(**{k: v for k, v in decoder.items() if k != "head_dim"}),
                                      tf.Qwen2Model, True, lambda: [pooling("lasttoken"), models.Normalize()], prompts),
        "gemma3-mean-dense-dense-normalize": (tf.Gemma3TextConfig(**decoder, sliding_window=16,
                                                                     use_bidirectional_attention=True),
                                              tf.Gemma3TextModel, True,
                                              lambda: [pooling("mean"), dense(HIDDEN, 48, nn.Identity(), bias=False),
                                                       dense(48, HIDDEN, nn.Identity(), bias=False),
                                                       models.Normalize()], None),
    }
    unknown = sorted((only or set()) - specs.keys())
    if unknown:
        raise SystemExit(f"model_zoo: no architecture named {', '.join(unknown)}; known: {', '.join(specs)}")
    # The byte-level BPE of the decoders; the refused exports use it too.
    bpe = bpe_tokenizer(texts, out / "bpe")
    made: dict[str, dict] = {}
    for name, (config, model_class, is_decoder, modules, name_prompts) in specs.items():
        if only is not None and name not in only:
            continue
        base = out / "bases" / name
        if is_decoder:
            config.vocab_size = len(bpe)
            bpe.save_pretrained(base)
        else:
            # Only the inputs the model takes, as its own tokenizer would say.
            takes_types = "token_type_ids" in inspect.signature(model_class.forward).parameters
            names = ["input_ids", "token_type_ids", "attention_mask"] if takes_types else ["input_ids", "attention_mask"]
            AutoTokenizer.from_pretrained(minilm_tokenizer.name_or_path, model_input_names=names).save_pretrained(base)
        model_class(config).save_pretrained(base)
        st = SentenceTransformer(modules=[transformer(base), *modules()], device="cpu",
                                 **({"prompts": name_prompts} if name_prompts else {}))
        st.save(str(out / name))
        st = SentenceTransformer(str(out / name), device="cpu")
        references[name] = st.encode(texts, batch_size=16, convert_to_numpy=True).astype(np.float32)
        for prompt in name_prompts or {}:
            references[f"{name}/{prompt}"] = st.encode(texts, batch_size=16, prompt_name=prompt,
                                                       convert_to_numpy=True).astype(np.float32)
        made[name] = {"architecture": model_class.__name__, "modules": [type(m).__name__ for m in st],
                      "prompts": sorted(name_prompts or {})}
    return made


def cross_encoders(out: Path, tokenizer_dir: Path, pairs: list[tuple[str, str]],
                   references: dict[str, np.ndarray], refused_dir: Path, refused: dict[str, dict]) -> dict[str, dict]:
    """One-label cross-encoders, scored by CrossEncoder.predict (a sigmoid)."""
    import transformers as tf
    from sentence_transformers import CrossEncoder

    small = dict(hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                 initializer_range=0.2, num_labels=1, pad_token_id=0)
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    specs = {
        "bert-cross-encoder": (tf.BertConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=512, **small),
                               tf.BertForSequenceClassification),
        "xlm-roberta-cross-encoder": (tf.XLMRobertaConfig(vocab_size=tokenizer.vocab_size, max_position_embeddings=514,
                                                          **small), tf.XLMRobertaForSequenceClassification),
    }
    made = {}
    for name, (config, model_class) in specs.items():
        folder = out / name
        model_class(config).save_pretrained(folder)
        # Token types only where the architecture has them, as its own tokenizer says
        # (XLM-RoBERTa's gives none: its graph, exported, takes none).
        takes_types = "token_type_ids" in inspect.signature(model_class.forward).parameters and \
            not name.startswith("xlm-roberta")
        names = ["input_ids", "token_type_ids", "attention_mask"] if takes_types else ["input_ids", "attention_mask"]
        AutoTokenizer.from_pretrained(str(tokenizer_dir), model_input_names=names).save_pretrained(folder)
        ce = CrossEncoder(str(folder), device="cpu")
        references[name] = np.asarray(ce.predict(pairs, batch_size=8), dtype=np.float32)
        made[name] = {"architecture": model_class.__name__}
    # XLM-RoBERTa's exported graph takes no token types; with a tokenizer that
    # marks the second text as type 1 and two token types in the model,
    # CrossEncoder's scores depend on them: refused.
    config, model_class = specs["xlm-roberta-cross-encoder"]
    folder = refused_dir / "xlm-roberta-cross-encoder-token-types"
    model_class(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    refused[folder.name] = {"error": ["token_type_ids", "type_vocab_size 2"], "fix": None, "command": "rerank",
                            "export": True}
    return made


def classifiers(out: Path, tokenizer_dir: Path, texts: list[str], pairs: list[tuple[str, str]],
                references: dict[str, np.ndarray]) -> dict[str, dict]:
    """Classifiers with several labels, each scored as transformers'
    text-classification pipeline scores it by default (softmax for single-label,
    sigmoid for multi-label, from the configuration): NAME holds those scores,
    NAME/logits the model's logits, both [inputs, labels] in label id order."""
    import transformers as tf

    small = dict(vocab_size=AutoTokenizer.from_pretrained(str(tokenizer_dir)).vocab_size, hidden_size=HIDDEN,
                 num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, max_position_embeddings=512,
                 initializer_range=0.2, pad_token_id=0)
    # name: (labels, problem_type, text pairs?). The NLI one leaves problem_type
    # unset: the pipeline then goes by the number of labels.
    specs = {
        "bert-sentiment": (["negative", "neutral", "positive"], "single_label_classification", False),
        "bert-multi-label": (["toxic", "spam", "off-topic", "urgent"], "multi_label_classification", False),
        "bert-nli": (["contradiction", "entailment", "neutral"], None, True),
    }
    made = {}
    for name, (labels, problem_type, takes_pairs) in specs.items():
        folder = out / name
        config = tf.BertConfig(**small, id2label=dict(enumerate(labels)),
                               label2id={label: i for i, label in enumerate(labels)}, problem_type=problem_type)
        tf.BertForSequenceClassification(config).save_pretrained(folder)
        AutoTokenizer.from_pretrained(str(tokenizer_dir)).save_pretrained(folder)
        model = tf.AutoModelForSequenceClassification.from_pretrained(str(folder)).eval()
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
        first, second = ([q for q, _ in pairs], [d for _, d in pairs]) if takes_pairs else (texts, None)
        with torch.no_grad():
            batch = tokenizer(first, second, padding=True, truncation=True, return_tensors="pt")
            references[f"{name}/logits"] = model(**batch).logits.numpy().astype(np.float32)
        classify = tf.pipeline("text-classification", model=model, tokenizer=tokenizer, device="cpu", top_k=None)
        inputs = [{"text": q, "text_pair": d} for q, d in pairs] if takes_pairs else texts
        scores = np.zeros((len(inputs), len(labels)), dtype=np.float32)
        for row, result in zip(scores, classify(inputs)):
            for entry in result:
                row[labels.index(entry["label"])] = entry["score"]
        references[name] = scores
        made[name] = {"architecture": type(model).__name__, "labels": labels, "problem_type": problem_type,
                      "pairs": takes_pairs}
    return made


# The Qwen3-Reranker model card's prompt and recipe, written out here rather
# than imported from sieve_tools, so that the reference shares no code with the
# exporter it checks.
RERANKER_PREFIX = ("<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the "
                   "Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n"
                   "<|im_start|>user\n")
RERANKER_SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
RERANKER_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query"


def reranker_tokenizer(texts: list[str], folder: Path):
    """A Qwen-like byte-level BPE (as bpe_tokenizer) trained on the texts and the
    prompt, whose vocabulary has "yes" and "no" as single tokens, with the chat
    tokens added as Qwen3's tokenizer has them: <|im_start|> and <|im_end|>
    special, <think> and </think> not. It appends <|endoftext|> to each text,
    which the reranker's prompt must not get (it tokenizes without special
    tokens)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models as tmodels, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(tmodels.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=500, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    # The answers as the prompt's last line would start them, often enough to be merged.
    tok.train_from_iterator(texts + [RERANKER_PREFIX, RERANKER_SUFFIX] + ["yes", "no"] * 50, trainer)
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in ("<|im_start|>", "<|im_end|>")])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in ("<think>", "</think>")])
    eos = tok.token_to_id("<|endoftext|>")
    tok.post_processor = processors.TemplateProcessing(single="$A <|endoftext|>",
                                                       pair="$A <|endoftext|> $B:1 <|endoftext|>:1",
                                                       special_tokens=[("<|endoftext|>", eos)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   padding_side="left", model_max_length=512)
    for word in ("yes", "no"):
        assert fast.convert_tokens_to_ids(word) is not None, f"the reranker's vocabulary has no token {word!r}"
    fast.save_pretrained(folder)
    return fast


def llm_rerankers(out: Path, texts: list[str], pairs: list[tuple[str, str]],
                  references: dict[str, np.ndarray]) -> dict[str, dict]:
    """A causal LM reranker (the Qwen3-Reranker kind), scored as its model card
    does: the probability of "yes" against "no" after the prompt, the prompts
    padded on the left."""
    import transformers as tf

    name = "qwen3-reranker"
    folder = out / name
    tokenizer = reranker_tokenizer(texts, folder)
    # Tied embeddings as Qwen3-Reranker-0.6B has them.
    config = tf.Qwen3Config(vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=512,
                            initializer_range=0.2, tie_word_embeddings=True)
    tf.Qwen3ForCausalLM(config).save_pretrained(folder)
    model = tf.AutoModelForCausalLM.from_pretrained(str(folder)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(folder), padding_side="left")
    yes_id, no_id = tokenizer.convert_tokens_to_ids("yes"), tokenizer.convert_tokens_to_ids("no")
    max_length = 512
    prefix_tokens = tokenizer.encode(RERANKER_PREFIX, add_special_tokens=False)
    suffix_tokens = tokenizer.encode(RERANKER_SUFFIX, add_special_tokens=False)
    bodies = [f"<Instruct>: {RERANKER_INSTRUCTION}\n<Query>: {q}\n<Document>: {d}" for q, d in pairs]
    inputs = tokenizer(bodies, padding=False, truncation="longest_first", return_attention_mask=False,
                       max_length=max_length - len(prefix_tokens) - len(suffix_tokens), add_special_tokens=False)
    for i, ids in enumerate(inputs["input_ids"]):
        inputs["input_ids"][i] = prefix_tokens + ids + suffix_tokens
    inputs = tokenizer.pad(inputs, padding=True, return_tensors="pt", max_length=max_length)
    with torch.no_grad():
        logits = model(**inputs).logits[:, -1, :]
        scores = torch.nn.functional.log_softmax(torch.stack([logits[:, no_id], logits[:, yes_id]], dim=1), dim=1)
    references[name] = scores[:, 1].exp().numpy().astype(np.float32)
    return {name: {"architecture": type(model).__name__, "instruction": RERANKER_INSTRUCTION}}


def refused_exports(out: Path, bpe_folder: Path) -> dict[str, dict]:
    """Folders `sieve-export export --task llm-reranker` must refuse, each with
    the words its error must contain; "folder" is relative to the zoo."""
    import transformers as tf

    folder = out / "qwen3-causal-lm-without-yes-token"
    tokenizer = AutoTokenizer.from_pretrained(str(bpe_folder))
    assert tokenizer.convert_tokens_to_ids("yes") is None, "the BPE tokenizer was meant to have no 'yes' token"
    tokenizer.save_pretrained(folder)
    tf.Qwen3ForCausalLM(tf.Qwen3Config(vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=64,
                                       num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                                       head_dim=8)).save_pretrained(folder)
    return {
        "not-a-causal-lm": {"folder": "cross-encoders/bert-cross-encoder", "task": "llm-reranker",
                            "error": ["ForCausalLM", "BertForSequenceClassification"]},
        folder.name: {"folder": f"{out.name}/{folder.name}", "task": "llm-reranker",
                      "error": ["no single token", "llm-reranker"]},
    }


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
    ap.add_argument("--architectures", help="comma-separated names: only these of the architectures (default: all)")
    args = ap.parse_args()
    only = {n for n in args.architectures.split(",") if n} if args.architectures is not None else None
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
    zoo["architectures"] = architectures(args.out / "architectures", tokenizer, texts, references, only)
    pairs = [(texts[i], texts[j]) for i in range(3) for j in range(3, 11)]
    zoo["pairs"] = pairs
    zoo["refused"] = make_refused(base, args.out / "refused", texts, references)
    zoo["cross_encoders"] = cross_encoders(args.out / "cross-encoders", args.tokenizer_from, pairs, references,
                                           args.out / "refused", zoo["refused"])
    zoo["classifiers"] = classifiers(args.out / "classifiers", args.tokenizer_from, texts, pairs, references)
    zoo["llm_rerankers"] = llm_rerankers(args.out / "llm-rerankers", texts, pairs, references)
    zoo["refused_exports"] = refused_exports(args.out / "refused-exports", args.out / "architectures" / "bpe")
    np.savez(args.out / "references.npz", **references)
    (args.out / "zoo.json").write_text(json.dumps(zoo, indent=2), encoding="utf-8")
    print(f"wrote {args.out}: {len(zoo['embedders'])} embedders, {len(zoo['architectures'])} architectures, "
          f"{len(zoo['cross_encoders'])} cross-encoders, {len(zoo['classifiers'])} classifiers, "
          f"{len(zoo['llm_rerankers'])} LLM rerankers, "
          f"{len(zoo['refused'])} refused folders")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
