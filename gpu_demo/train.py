"""Training the tiny model on the Python standard library's own source files (found from the running
interpreter; PSF license), seeded, in a few minutes on two CPU cores; the weights ship with the project."""
from __future__ import annotations

import hashlib
import json
import math
import os
import sysconfig
import time
from pathlib import Path

import torch

from .model import GPT, GPTConfig

STEPS = 1440  # about six minutes on two CPU cores
WEIGHTS = Path(__file__).with_name("weights.pt")
CARD = Path(__file__).with_name("weights.json")  # how the shipped weights were made, and how well they do


SKIPPED = ("site-packages", "test", "tests", "idlelib")  # folders of the standard library's tree left out


def corpus_files() -> list[Path]:
    """The standard library's .py files (not its tests, IDLE or third-party site-packages, whose folders are not
    walked at all: an interpreter's own site-packages may hold ten times the standard library), in a stable order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = []
    for folder, folders, names in os.walk(root):
        folders[:] = [name for name in folders if name not in SKIPPED]
        files.extend(Path(folder, name) for name in names if name.endswith(".py"))
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def corpus(val_share: float = 0.05, train: bool = True) -> tuple[bytes, bytes]:
    """(train, validation) bytes; a file goes to validation by a hash of its path, so the split is stable. With
    `train` false the training files are not read (the first part is empty): prompts need only the validation."""
    root = Path(sysconfig.get_paths()["stdlib"])
    trained, val = [], []
    for path in corpus_files():
        digest = hashlib.sha256(path.relative_to(root).as_posix().encode()).digest()[0]
        held_out = digest < 256 * val_share
        if not (held_out or train):
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        (val if held_out else trained).append(data + b"\n")
    return b"".join(trained), b"".join(val)


def batches(data: torch.Tensor, batch: int, context: int, generator: torch.Generator):
    while True:
        starts = torch.randint(len(data) - context - 1, (batch,), generator=generator)
        window = torch.stack([data[s:s + context + 1] for s in starts.tolist()])
        yield window[:, :-1].long(), window[:, 1:].long()


@torch.no_grad()
def evaluate(model: GPT, data: torch.Tensor, context: int, batches_: int = 20, seed: int = 1) -> float:
    """Mean cross-entropy (nats per byte) on fixed windows of the validation split."""
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    losses = []
    for _, (x, y) in zip(range(batches_), batches(data, 32, context, generator)):
        losses.append(model(x, y)[1].item())
    model.train()
    return sum(losses) / len(losses)


def _loss(model: GPT, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Forward in bfloat16 where the CPU has it (several times faster here), weights kept in float32."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return model(x, y)[1]


def train(steps: int = STEPS, batch: int = 64, lr: float = 3e-3, seed: int = 0, threads: int = 2,
          log=print) -> dict:
    """Train for a fixed number of steps (warm-up, then a cosine learning rate), keep the best weights by
    validation loss, and write them with their card. Seeded, so the same command gives the same curve.
    Returns the card."""
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)  # Adam's tiny second moments turn denormal and slow the CPU ten times
    config = GPTConfig()
    model = GPT(config)
    train_bytes, val_bytes = corpus()
    train_data = torch.frombuffer(bytearray(train_bytes), dtype=torch.uint8)
    val_data = torch.frombuffer(bytearray(val_bytes), dtype=torch.uint8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1, fused=True)
    generator = torch.Generator().manual_seed(seed)
    stream = batches(train_data, batch, config.context, generator)
    started = time.perf_counter()
    warmup = max(10, steps // 30)
    best, best_state, history = math.inf, None, []
    for step in range(steps):
        progress = (step - warmup) / (steps - warmup)
        scale = (step + 1) / warmup if step < warmup else 0.5 * (1 + math.cos(math.pi * progress))
        for group in optimizer.param_groups:
            group["lr"] = lr * (0.1 + 0.9 * scale)
        x, y = next(stream)
        loss = _loss(model, x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step % max(1, steps // 12) == 0 or step == steps - 1:
            val = evaluate(model, val_data, config.context)
            history.append((step, round(loss.item(), 4), round(val, 4)))
            log(f"step {step}/{steps}: train {loss.item():.3f}, validation {val:.3f} nats/byte")
            if val < best:
                best, best_state = val, {k: v.detach().clone() for k, v in model.state_dict().items()}
    torch.save(best_state, WEIGHTS)
    card = {"validation_loss": round(best, 4), "steps": steps, "batch": batch, "context": config.context,
            "lr": lr, "seed": seed, "threads": threads, "minutes": round((time.perf_counter() - started) / 60, 2),
            "parameters": model.num_parameters(), "train_bytes": len(train_bytes), "val_bytes": len(val_bytes),
            "tokens_seen": steps * batch * config.context, "history": history,
            "corpus": "the Python standard library's source files (PSF license)"}
    CARD.write_text(json.dumps(card, indent=1) + "\n")
    return card
