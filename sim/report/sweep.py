"""Sweeps: one trace run under several policies while one parameter moves, and the knee of each policy.

The swept parameter is the arrival rate (a multiplier of the trace's own rate: arrivals, deadlines and cancel
times are divided by it, so 2 means the same requests arriving twice as fast), the token budget, the sequence
limit, the chunk size, the number of KV blocks, or a fleet's shape (sim.core.cluster): the number of replicas
behind the entry's router, or how many of a split's engines prefill (the rest decode; an entry whose engines run
side by side is the same at every such point, the split's baseline). Each point is an ordinary simulation (of a
fleet when the entry is one: its metrics over every request); its row holds goodput,
SLO attainment, TTFT and TPOT percentiles and throughput, and two causes behind them: the share of the budget
left idle while requests waited, and the mean prompt of the slowest 1% (who starves). Points run in worker processes
when there are many.
"""
from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import replace
from multiprocessing import get_context
from typing import NamedTuple

from ..core.cluster import Routing, Split, simulate_cluster, simulate_split
from ..core.config import Config, ConfigError, Policy
from ..core.engine import RunStopped, simulate
from ..core.schedule import Schedule
from ..trace.trace import Trace, TraceError
from .export import csv_text
from .metrics import Metrics, cluster_metrics, compute, idle_while_waiting, slowest_prompt, split_metrics

PARAMETERS = ("rate", "token_budget", "max_seqs", "chunk_size", "kv_blocks", "replicas", "prefill_replicas")
MAX_POINTS = 50
COLUMNS = ("policy", "value", "engines", "prefill_engines", "goodput", "goodput_requests", "attainment", "ttft_p50",
           "ttft_p90", "ttft_p99", "tpot_p50", "tpot_p90", "tpot_p99", "throughput", "finished", "makespan",
           "idle_waiting", "slow_prompt", "hit_rate", "error")


class SweepError(ValueError):
    """A sweep that cannot be run as asked; the message says what to change."""


class Entry(NamedTuple):
    """One policy of the sweep, with its own budgets, on one engine or a fleet of them: `routing`'s replicas, or
    `split`'s prefill and decode engines (its prefill side behind `routing.router`)."""
    label: str
    config: Config
    policy: Policy
    routing: Routing = Routing()
    split: Split | None = None

    def engines(self) -> int:
        return self.routing.replicas if self.split is None else self.split.prefill + self.split.decode


def parse_values(parameter: str, spec: str) -> list[float | int]:
    """`LOW:HIGH:POINTS` (evenly spaced, ends included) or a comma list; whole numbers for every parameter but
    the rate (rounded, each value once)."""
    if parameter not in PARAMETERS:
        raise SweepError(f"cannot sweep {parameter!r}: choose one of {', '.join(PARAMETERS)}")
    try:
        if ":" in spec:
            low, high, count = spec.split(":")
            low, high, count = float(low), float(high), int(count)
            if not 2 <= count <= MAX_POINTS:
                raise SweepError(f"{spec!r}: between 2 and {MAX_POINTS} points")
            values = [low + (high - low) * i / (count - 1) for i in range(count)]
        else:
            values = [float(v) for v in spec.split(",") if v.strip()]
    except ValueError:
        raise SweepError(f"{spec!r}: write LOW:HIGH:POINTS (0.5:4:8) or a list (1,2,4)") from None
    if not values or len(values) > MAX_POINTS:
        raise SweepError(f"{spec!r}: between 1 and {MAX_POINTS} values")
    if not all(math.isfinite(v) and v > 0 for v in values):
        raise SweepError(f"{spec!r}: every value must be a number above 0")
    if parameter != "rate":
        values = [max(1, round(v)) for v in values]
    return sorted(set(values))


def parse_sweep(spec: str) -> tuple[str, list[float | int]]:
    """`PARAMETER=VALUES`, as `rate=0.5:4:8` or `token_budget=8,16,32`."""
    parameter, sep, values = spec.partition("=")
    if not sep:
        raise SweepError(f"{spec!r}: write PARAMETER=VALUES, for example rate=0.5:4:8")
    return parameter.strip(), parse_values(parameter.strip(), values)


def scale_arrivals(trace: Trace, factor: float) -> Trace:
    """The same requests arriving `factor` times as fast: every time divided by it (and floored to a tick)."""
    def at(time: int | None) -> int | None:
        return None if time is None else int(time / factor)
    requests = tuple(r._replace(arrival=at(r.arrival), deadline=at(r.deadline), cancel_at=at(r.cancel_at))
                     for r in trace.requests)
    return replace(trace, requests=requests)


def applied(trace: Trace, entry: Entry, parameter: str, value: float | int) -> tuple[Trace, Entry]:
    """The inputs of one sweep point. A split's replica count is its prefill and decode engines: it is swept as
    `prefill_replicas`, which leaves its number of engines as it is (ConfigError when it would leave no decode
    engine); entries side by side keep their replicas there."""
    if parameter == "rate":
        trace = scale_arrivals(trace, value)
    elif parameter == "chunk_size":
        entry = entry._replace(policy=replace(entry.policy, chunk_size=value))
    elif parameter == "replicas":
        if entry.split is not None:
            raise ConfigError("replicas", "sweep_split_replicas")
        entry = entry._replace(routing=replace(entry.routing, replicas=value))
    elif parameter == "prefill_replicas":
        if entry.split is not None:
            engines = entry.engines()
            if value >= engines:
                raise ConfigError("prefill_replicas", "sweep_no_decode", engines=engines, value=value)
            entry = entry._replace(split=replace(entry.split, prefill=value, decode=engines - value))
    else:
        entry = entry._replace(config=replace(entry.config, **{parameter: value}))
    return trace, entry


def served(trace: Trace, entry: Entry, cpu_limit: float | None = None) -> tuple[Metrics, list[Schedule]]:
    """The entry's run of the trace: its metrics (a fleet's over every request) and each engine's Schedule.
    `cpu_limit`: the CPU seconds the run may take (sim.core.engine.RunStopped)."""
    config, policy, routing, split = entry.config, entry.policy, entry.routing, entry.split
    if split is not None:
        run = simulate_split(trace, config, policy, split, routing.router, routing.seed, cpu_limit=cpu_limit)
        prefill, decode, metrics, _ = split_metrics(run, [r.output for r in trace.requests], config.slo,
                                                    compact=True)
        return metrics, [schedule for schedule, _, _ in prefill + decode]
    if routing.replicas > 1:
        parts, metrics = cluster_metrics(simulate_cluster(trace, config, policy, routing, cpu_limit=cpu_limit),
                                         compact=True)
        return metrics, [schedule for schedule, _, _ in parts]
    schedule = simulate(trace, config, policy, cpu_limit)
    return compute(schedule), [schedule]


def point(trace: Trace, entry: Entry, parameter: str, value: float | int, cpu_limit: float | None = None) -> dict:
    """One row: the entry's metrics at this value, or the reason it cannot run (as `error`; a run stopped at
    `cpu_limit` also as `stopped`, the RunStopped, which is not a column)."""
    row = dict.fromkeys(COLUMNS)
    row.update(policy=entry.label, value=value, engines=entry.engines(), error="")
    try:
        trace, entry = applied(trace, entry, parameter, value)
        m, schedules = served(trace, entry, cpu_limit)
    except (TraceError, ConfigError, RunStopped) as error:
        row.update(goodput=0.0, goodput_requests=0, attainment=0.0, finished=0, error=str(error))
        if isinstance(error, RunStopped):
            row["stopped"] = error
        return row
    row.update(engines=entry.engines(), prefill_engines=entry.split.prefill if entry.split else None,
               goodput=m.goodput, goodput_requests=m.goodput_requests, attainment=m.slo_attainment,
               throughput=m.throughput, finished=m.finished, makespan=m.makespan,
               idle_waiting=idle_while_waiting(*schedules), slow_prompt=slowest_prompt(m),
               hit_rate=m.prefix_hit_rate if m.prefix_queried else None)
    for latency in ("ttft", "tpot"):
        for q, v in m.percentiles[latency].items():
            row[f"{latency}_p{q}"] = v
    return row


def _points(job: tuple[Trace, list[tuple[Entry, float | int]], str, float | None]) -> list[dict]:
    trace, pairs, parameter, cpu_limit = job
    return [point(trace, entry, parameter, value, cpu_limit) for entry, value in pairs]


def _leave_interrupts_to_the_owner() -> None:
    """A worker ignores Ctrl-C, which a terminal sends its whole process group: the pool's owner stops it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_pool(workers: int | None = None) -> ProcessPoolExecutor:
    """Worker processes for sweep points (started by a fork server: safe from a threaded web server), all started
    now, from here. A worker starts by running its parent's `__main__` module, unless that is a package's
    `__main__` (`python -m package`): a web framework that runs each page as `__main__` would have a worker started
    during a page run run that page, importing all it imports, before its first point. So a server makes its pool
    before serving."""
    count = workers or os.cpu_count() or 1
    pool = ProcessPoolExecutor(count, mp_context=get_context("forkserver"),
                               initializer=_leave_interrupts_to_the_owner)
    # A submit starts a worker when none is idle: these, each holding its worker a moment, start them all.
    for started in [pool.submit(time.sleep, 0.1) for _ in range(count)]:
        started.result()
    return pool


def stop_pool(pool: ProcessPoolExecutor, grace: float = 1.0) -> None:
    """End the pool's workers: points not started are dropped, the ones running get `grace` seconds, then their
    processes are terminated (a server that stops does not wait for a sweep nobody will see)."""
    workers = list((pool._processes or {}).values())  # (no public list before Python 3.14's terminate_workers)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.terminate()
            worker.join()


def sweep(trace: Trace, entries: list[Entry], parameter: str, values: list[float | int], workers: int | None = None,
          progress: Callable[[int, int], None] | None = None, pool: Executor | None = None,
          cpu_limit: float | None = None) -> list[dict]:
    """Every (entry, value) row, in entry order then value order. The points run in `pool` when given (a server
    shares one among its users), else in `workers` processes of its own (None: one per CPU when the work is big
    enough to pay for starting them); `progress(done, total)` after each batch of points. `cpu_limit`: the CPU
    seconds each point's run may take (past it, the row says where it was stopped)."""
    if parameter not in PARAMETERS:
        raise SweepError(f"cannot sweep {parameter!r}: choose one of {', '.join(PARAMETERS)}")
    if not entries:
        raise SweepError("choose at least one policy")
    pairs = [(entry, value) for entry in entries for value in values]
    total = len(pairs)
    if workers is None:
        workers = min(os.cpu_count() or 1, total) if total * len(trace) >= 20_000 else 1
    if pool is None and workers <= 1:
        rows = []
        for entry, value in pairs:
            rows.append(point(trace, entry, parameter, value, cpu_limit))
            if progress:
                progress(len(rows), total)
        return rows
    # Small chunks, handed out as workers free up, keep every core busy and the progress bar moving.
    size = max(1, total // ((workers if pool is None else os.cpu_count() or 1) * 4))
    chunks = [pairs[i:i + size] for i in range(0, total, size)]
    own = pool is None
    pool = worker_pool(workers) if own else pool
    try:
        futures = {pool.submit(_points, (trace, chunk, parameter, cpu_limit)): i for i, chunk in enumerate(chunks)}
        results: list[list[dict]] = [[] for _ in chunks]
        done = 0
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            done += len(results[futures[future]])
            if progress:
                progress(done, total)
    finally:
        if own:
            stop_pool(pool)
    return [row for chunk in results for row in chunk]


def knee(rows: list[dict], parameter: str, target: float) -> float | int | None:
    """For the rate: the largest load up to which every point keeps attainment >= target. For a capacity
    (budget, sequences, chunk, blocks, replicas): the smallest value from which on every point does. For a split's
    prefill engines, whose extremes both starve one side: the best split, the one with the highest attainment
    (then goodput, then fewer prefill engines) if it keeps the target. None: no point does (or the entry runs side
    by side, the same at every split)."""
    if parameter == "prefill_replicas":
        best = best_split(rows)
        return best["value"] if best is not None and best["attainment"] >= target else None
    ordered = sorted(rows, key=lambda r: r["value"])
    if parameter != "rate":
        ordered.reverse()
    found = None
    for row in ordered:
        if row["error"] or row["attainment"] < target:
            break
        found = row["value"]
    return found


def best_split(rows: list[dict]) -> dict | None:
    """Of one entry's rows of a prefill_replicas sweep, the split with the highest attainment, then goodput, then
    fewer prefill engines; None when none ran as a split (or the entry runs side by side)."""
    ran = [r for r in rows if not r["error"] and r["prefill_engines"] is not None]
    return min(ran, key=lambda r: (-r["attainment"], -r["goodput"], r["value"]), default=None)


def knees(rows: list[dict], parameter: str, target: float) -> dict[str, float | int | None]:
    """The knee of every policy of a sweep, in the order they first appear."""
    labels = list(dict.fromkeys(r["policy"] for r in rows))
    return {label: knee([r for r in rows if r["policy"] == label], parameter, target) for label in labels}


def sweep_csv(rows: list[dict]) -> str:
    """The sweep's table as CSV (policy labels made safe for spreadsheets)."""
    return csv_text(list(COLUMNS), [[row[c] for c in COLUMNS] for row in rows])
