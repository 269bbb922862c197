"""The simulator's prediction of a real run, out of sample: the same trace and policy simulated with a cost
profile measured beforehand on a grid of shapes (gpu_demo.profile), never fitted to the run it predicts, then
each figure measured beside predicted with its relative error.

A machine's speed moves with what else runs on it. Just before a run, a short calibration times a fixed few of
the profile's own shapes and scales the profile by how much slower (or faster) they run now. A run whose own
iterations took, in all, far more or less time than the scaled profile gives their shapes was run by a machine
whose speed moved while it ran: its comparison is void."""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sim.core.config import Config, CostModel, Policy
from sim.core.engine import run as simulate_run
from sim.core.policies import make_scheduler
from sim.core.profile import profile_cost, read_profile
from sim.core.schedule import Schedule
from sim.report.metrics import Metrics, compute
from sim.trace.trace import Trace

from .engine import EngineRun
from .machine import fingerprint
from .model import GPT
from .profile import Shape, time_shapes

FIGURES = ("makespan", "throughput", "ttft_p50", "ttft_p90", "tpot_p50", "tpot_p90")
VOID_DRIFT = 0.25  # a run whose iterations took, in all, this much more or less time than the profile gives
# their shapes was run by a machine whose speed moved: its comparison is void (the goal it could not meet)
CALIBRATION_EVERY = 6  # the calibration's shapes: every sixth of the profile's grid (pure and mixed, 11 of 64)
CALIBRATION_REPEATS = 5


@dataclass(frozen=True)
class Calibration:
    """How fast the machine runs now against when it was profiled: `scale` is the median, over the calibration's
    shapes, of a shape's time now over its time in the profile (2.0: twice as slow)."""
    scale: float
    shapes: int
    seconds: float

    def json(self) -> dict:
        return {"scale": round(self.scale, 3), "shapes": self.shapes, "seconds": round(self.seconds, 2)}


def calibrate(model: GPT, document: dict, repeats: int = CALIBRATION_REPEATS) -> Calibration:
    """A short fixed calibration, taken just before a run and never on the run itself: the profile's own shapes
    (every CALIBRATION_EVERY-th) timed now, after a warm-up round, each against its time in the profile."""
    picked = document["shapes"][::CALIBRATION_EVERY]
    shapes = [Shape(prefill=tuple(tuple(c) for c in s["prefill"]), decode=tuple(s["decode"])) for s in picked]
    started = time.perf_counter()
    times = time_shapes(model, shapes, repeats)
    scale = statistics.median(statistics.median(now) / s["ms"] for now, s in zip(times, picked))
    return Calibration(scale, len(shapes), time.perf_counter() - started)


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


def disturbance(result: EngineRun, cost: CostModel) -> dict:
    """How far this run's own iterations stray from the calibrated profile: each one's error at the median
    (`iteration_error_percent`, in percent), and their total time against the total the profile gives their
    shapes (`drift_percent`: +40 is 40% slower). `void` when the drift is beyond VOID_DRIFT either way: the
    machine's speed moved during the run (the calibration before it saw another machine), so no prediction
    made before the run can hold."""
    errors = iteration_errors(result, cost)
    stray = 100 * statistics.median(abs(e) for e in errors) if errors else 0.0
    profiled = sum(t.ms / (1 + e) for t, e in zip(result.timings, errors))
    drift = sum(t.ms for t in result.timings) / profiled - 1 if profiled else 0.0
    return {"iteration_error_percent": round(stray, 1), "drift_percent": round(100 * drift, 1),
            "void": abs(drift) > VOID_DRIFT}


def measured_policy(policy: Policy, result: EngineRun) -> Policy:
    """The policy the simulator predicts a run with: a speculative run's acceptance rate as the engine measured
    it (the simulator draws each step's acceptance at that rate), so that both describe the same run."""
    rate = result.acceptance_rate
    return policy if rate is None else replace(policy, spec_accept=round(rate, 4))


def compare(result: EngineRun, trace: Trace, policy: Policy, arrival_unit: str, profile: str | Path,
            calibration: Calibration | None = None) -> tuple[dict, dict, Schedule]:
    """The run's figures measured beside predicted (`comparison`) with the profile at `profile` scaled by the
    calibration taken before the run, what predicted them (the profile, the scale, and whether the run's own
    iterations were disturbed: then the comparison is void), and the predicted schedule."""
    document = read_profile(profile)
    scale = calibration.scale if calibration else 1.0
    cost = profile_cost(document, scale=scale)
    predicted = predict(trace, result.schedule.config, measured_policy(policy, result), cost, arrival_unit)
    about = {"path": str(profile), "source": cost.source, "coefficients": document["coefficients"],
             "loop_ms": document.get("loop_ms", 0.0), "held_out_error_percent": document.get("held_out_error_percent"),
             "own_machine": document.get("fingerprint") == fingerprint(result.device, result.dtype),
             "calibration": calibration.json() if calibration else None, "scale": round(scale, 3),
             **disturbance(result, cost)}
    return comparison(compute(result.schedule), compute(predicted)), about, predicted
