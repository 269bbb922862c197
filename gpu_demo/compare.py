"""The simulator's prediction of a real run, out of sample: the same trace and policy simulated with a cost
profile measured beforehand on a grid of shapes (gpu_demo.profile), never fitted to the run it predicts, then
each figure measured beside predicted with its relative error."""
from __future__ import annotations

import statistics
from dataclasses import replace
from pathlib import Path

from sim.core.config import Config, CostModel, Policy
from sim.core.engine import run as simulate_run
from sim.core.policies import make_scheduler
from sim.core.profile import profile_cost, read_profile
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics, compute
from sim.trace.trace import Trace

from .engine import EngineRun
from .profile import path_for

FIGURES = ("makespan", "throughput", "ttft_p50", "ttft_p90", "tpot_p50", "tpot_p90")
DISTURBED = 3.0  # a run whose iterations stray this many times the profile's own spread from it is flagged


def default_profile(device: str, dtype: str) -> Path:
    return path_for(device, dtype)


def predict(trace: Trace, config: Config, policy: Policy, cost: CostModel, arrival_unit: str) -> Schedule:
    """The simulator's schedule of the trace the engine ran (the same budgets and KV cache) under the profile:
    arrivals in ticks are read on the iteration count, as the engine reads them."""
    scheduler = make_scheduler(policy, trace, replace(config, cost=cost))
    return simulate_run(scheduler, arrivals_on_iterations=arrival_unit == "tick")


def figure(metrics: Metrics, name: str) -> float | None:
    if name in ("makespan", "throughput"):
        return getattr(metrics, name)
    latency, q = name.split("_p")
    return metrics.percentiles[latency].get(int(q))


def comparison(measured: Metrics, predicted: Metrics) -> dict:
    """{figure: {"measured", "predicted", "error"}}: error = predicted / measured - 1 (None without a measure)."""
    out = {}
    for name in FIGURES:
        m, p = figure(measured, name), figure(predicted, name)
        error = p / m - 1 if m and p is not None else None
        out[name] = {"measured": m, "predicted": p, "error": error}
    return out


def iteration_errors(result: EngineRun, cost: CostModel) -> list[float]:
    """Each iteration's measured time against the profile's time for its shape: measured / predicted - 1."""
    return [t.ms / cost.shape_duration(t.prefill_rows + t.decode_rows, t.groups, t.query, t.longest) - 1
            for t in result.timings]


def disturbance(result: EngineRun, cost: CostModel, document: dict) -> dict:
    """How far this run's iterations stray from the profile (the median absolute relative error, in percent),
    against the spread the profile saw on a quiet machine; flagged when it is DISTURBED times that or more."""
    errors = iteration_errors(result, cost)
    stray = 100 * statistics.median(abs(e) for e in errors) if errors else 0.0
    quiet = max(float(document.get("spread_percent", 0.0)), float(document.get("held_out_error_percent", 0.0)), 1.0)
    return {"iteration_error_percent": round(stray, 1), "profile_spread_percent": round(quiet, 1),
            "flagged": stray > DISTURBED * quiet}


def measured_policy(policy: Policy, result: EngineRun) -> Policy:
    """The policy the simulator predicts a run with: a speculative run's acceptance rate as the engine measured
    it (the simulator draws each step's acceptance at that rate), so that both describe the same run."""
    rate = result.acceptance_rate
    return policy if rate is None else replace(policy, spec_accept=round(rate, 4))


def compare(result: EngineRun, trace: Trace, policy: Policy, arrival_unit: str,
            profile: str | Path | None = None) -> tuple[dict, dict, Schedule]:
    """The run's figures measured beside predicted (`comparison`), what predicted them (the profile, and whether
    the run's own iterations were disturbed), and the predicted schedule."""
    path = Path(profile) if profile else default_profile(result.device, result.dtype)
    document = read_profile(path)
    cost = profile_cost(document)
    predicted = predict(trace, result.schedule.config, measured_policy(policy, result), cost, arrival_unit)
    about = {"path": str(path), "source": cost.source, "coefficients": document["coefficients"],
             "loop_ms": document.get("loop_ms", 0.0), "held_out_error_percent": document.get("held_out_error_percent"),
             **disturbance(result, cost, document)}
    return comparison(compute(result.schedule), compute(predicted)), about, predicted
