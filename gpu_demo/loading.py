"""Loading the shipped weights (weights_only: a pickle can run code) onto the chosen device and dtype."""
from __future__ import annotations

import torch

from sim.core.config import ConfigError

from .engine import pick_device
from .model import GPT, GPTConfig
from .train import WEIGHTS


def load_model(device: str | None = "auto", dtype: str = "float32") -> GPT:
    """The trained model in eval mode; a clear error if the weights file is missing or unreadable. (Its torch
    threads are chosen before each run: gpu_demo.machine.choose_threads.)"""
    if not WEIGHTS.exists():
        raise ConfigError("weights", "weights_missing", path=str(WEIGHTS))
    target = pick_device(device)
    try:
        state = torch.load(WEIGHTS, map_location=target, weights_only=True)
        model = GPT(GPTConfig())
        model.load_state_dict(state)
    except (RuntimeError, ValueError, OSError, EOFError) as error:
        raise ConfigError("weights", "weights_unreadable", path=str(WEIGHTS), reason=str(error)) from None
    return model.to(device=target, dtype=getattr(torch, dtype)).eval()
