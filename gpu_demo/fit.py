"""The simulator's linear latency model fitted to a real run's iterations, and the simulator's prediction
of that run with it: how far the token-work picture is from measured time."""
from __future__ import annotations

from dataclasses import replace

import torch

from sim.core.config import Config, CostModel, Policy
from sim.core.engine import simulate
from sim.core.schedule import Schedule
from sim.trace.trace import validate

from .engine import EngineRun


def fit_cost(result: EngineRun) -> tuple[CostModel, float]:
    """Least-squares c0, c_prefill, c_decode, c_attn (kept >= 0) on the run's iterations, and the mean absolute
    error of the fit in percent of the mean iteration time."""
    rows = torch.tensor([[1.0, p, d, c] for p, d, c, _ in result.timings], dtype=torch.float64)
    times = torch.tensor([ms for *_, ms in result.timings], dtype=torch.float64)
    solution = torch.linalg.lstsq(rows, times.unsqueeze(1)).solution.squeeze(1).clamp(min=0)
    error = (rows @ solution - times).abs().mean() / times.mean() * 100
    c0, c_prefill, c_decode, c_attn = (float(v) for v in solution)
    if c0 + c_prefill + c_decode == 0:
        c0 = float(times.mean())
    return CostModel("linear", c0=c0, c_prefill=c_prefill, c_decode=c_decode, c_attn=c_attn), float(error)


def predict(result: EngineRun, config: Config, policy: Policy, cost: CostModel) -> Schedule:
    """The simulator's schedule of the same requests arriving when they did (ms) under the fitted model."""
    rows = [{"name": r.name, "arrival": round(r.arrival), "prompt": r.prompt, "output": r.output}
            for r in result.schedule.requests]
    return simulate(validate(rows), replace(config, kv_blocks=result.schedule.config.kv_blocks, cost=cost), policy)
