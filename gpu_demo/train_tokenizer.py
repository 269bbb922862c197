"""Training the classroom's subword tokenizer (`python -m gpu_demo tokenizer`): a byte-level BPE learned with the
HuggingFace `tokenizers` library on the tiny model's own corpus (the training split of gpu_demo/train.py), written
to sim/trace/tokenizers/ with its card, where sim encodes with it in pure Python. `tokenizers` is a development
tool (requirements-dev.txt): only this script imports it, never the app."""
from __future__ import annotations

import hashlib
import json
import platform
import time

from sim.trace.chat import SPECIAL_TOKENS, TOKENIZER_DIR

from .train import corpus

NAME = "classroom-bpe"
VOCAB = 2048  # 256 bytes, the special tokens and about 1,800 merges: a file of about 120 kB
MIN_FREQUENCY = 2  # a pair seen once is no pattern


def _trained(text: str, vocab_size: int):
    """A byte-level BPE (GPT-2's word pattern, no space added in front) trained on `text`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=MIN_FREQUENCY, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=list(SPECIAL_TOKENS))
    tokenizer.train_from_iterator([text], trainer)  # one piece: no word is cut where the corpus would be split
    return tokenizer


def train_tokenizer(vocab_size: int = VOCAB, log=print) -> dict:
    """Train twice (the trainer draws nothing at random, so the two must be the same file: checked), write the
    tokenizer file and its card; returns the card."""
    import tokenizers

    train_bytes, val_bytes = corpus()
    text = train_bytes.decode("utf-8")
    started = time.perf_counter()
    tokenizer = _trained(text, vocab_size)
    seconds = time.perf_counter() - started
    document = tokenizer.to_str(pretty=True)
    if _trained(text, vocab_size).to_str(pretty=True) != document:
        raise RuntimeError("two trainings on the same corpus gave different files")
    path = TOKENIZER_DIR / f"{NAME}.json"
    path.write_text(document + "\n", encoding="utf-8")
    merges = len(json.loads(document)["model"]["merges"])
    val_text = val_bytes.decode("utf-8")
    card = {"name": NAME, "library": f"tokenizers {tokenizers.__version__}", "model": "byte-level BPE",
            "pre_tokenizer": "ByteLevel: GPT-2's word pattern, no prefix space",
            "corpus": f"the training split of the tiny model's corpus: the Python {platform.python_version()} "
                      "standard library's source files (gpu_demo/train.py; PSF license)",
            "corpus_bytes": len(train_bytes), "corpus_sha256": hashlib.sha256(train_bytes).hexdigest(),
            "vocab_size": tokenizer.get_vocab_size(), "merges": merges, "min_frequency": MIN_FREQUENCY,
            "special_tokens": list(SPECIAL_TOKENS),
            "seed": "none needed: the trainer draws nothing at random (two trainings give the same file)",
            "seconds": round(seconds, 2), "file_bytes": path.stat().st_size,
            "file_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "validation_bytes_per_token": round(len(val_bytes) / len(tokenizer.encode(val_text).ids), 3)}
    (TOKENIZER_DIR / f"{NAME}.card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    log(f"{NAME}: {card['vocab_size']} tokens ({merges} merges) in {card['seconds']} s, "
        f"{card['file_bytes']:,} bytes; {card['validation_bytes_per_token']} bytes a token on the validation split")
    return card
