"""Command line: `python -m sim run|sweep|hardware|example|generate`; bad input exits 2 with one line on stderr."""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from dataclasses import replace

from .core.cluster import Routing, Split, simulate_cluster, simulate_split
from .core.config import STATIC_UNSUPPORTED, Config, ConfigError, Policy
from .core.engine import simulate
from .options import (
    InputError,
    Parser,
    add_fleet_options,
    add_roofline_options,
    add_run_options,
    config_and_policy,
    fleet_of,
    load_trace,
)
from .report.export import cluster_json, replicas_text, run_json_text, runs_json_text, split_json, summary_text, table
from .report.metrics import cluster_metrics, compute, split_metrics
from .trace.trace import SEED_BUDGET, SEED_CSV, Trace, TraceError, read_csv, write_csv, write_json


def _length(spec: str):
    """fixed:N, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA[:LOW:HIGH]."""
    from .trace.generate import Fixed, LogNormal, Uniform  # only `generate` needs it: keep `run` quick to start

    kind, *values = spec.split(":")
    makers = {"fixed": (Fixed, int), "uniform": (Uniform, int), "lognormal": (LogNormal, float)}
    if kind not in makers:
        raise argparse.ArgumentTypeError(f"{spec!r}: use fixed:N, uniform:LOW:HIGH or lognormal:MEDIAN:SIGMA")
    make, number = makers[kind]
    try:
        args = [number(v) for v in values[:2]] + [int(v) for v in values[2:]]
        return make(*args)
    except (TypeError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"{spec!r}: {error}") from None


def _names(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r}: a comma list of names")
    return names


def _wholes(text: str) -> tuple[int, ...]:
    try:
        values = tuple(sorted({int(v) for v in text.split(",") if v.strip()}))
    except ValueError:
        values = ()
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a comma list of whole numbers >= 1, such as 1,2,4")
    return values


def _range(text: str) -> tuple[int, int]:
    low, sep, high = text.partition(":")
    try:
        return (int(low), int(high)) if sep else (int(low), int(low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: LOW:HIGH, such as 1:16") from None


def _ratios(text: str) -> tuple[tuple[int, int], ...]:
    try:
        ratios = tuple(tuple(int(v) for v in part.split(":")) for part in text.split(",") if part.strip())
    except ValueError:
        ratios = ((0,),)
    if not ratios or any(len(r) != 2 or min(r) < 1 for r in ratios):
        raise argparse.ArgumentTypeError(f"{text!r}: PREFILL:DECODE ratios of whole numbers >= 1, such as 1:1,1:2")
    return tuple(dict.fromkeys(ratios))


def _prices(text: str) -> tuple[tuple[str, float], ...]:
    prices = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, price = part.partition("=")
        try:
            prices.append((name.strip(), float(price)))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r}: GPU=PRICE, such as H100=2.5") from None
        if not prices[-1][1] > 0:
            raise argparse.ArgumentTypeError(f"{part!r}: a price above 0")
    return tuple(prices)


def _parser() -> Parser:
    parser = Parser(prog="python -m sim", description="Tick simulator of static and continuous batching.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    run = commands.add_parser("run", help="simulate a trace under one policy")
    add_run_options(run)
    add_roofline_options(run)
    run.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    run.add_argument("--prometheus", metavar="PATH",
                     help="also write the run's metrics in Prometheus text format with vLLM's names")
    add_fleet_options(run)

    sweep = commands.add_parser("sweep", help="run policies over a range of one parameter; goodput and knees")
    add_run_options(sweep, policies=True)
    add_roofline_options(sweep)
    sweep.add_argument("--sweep", required=True, metavar="PARAMETER=VALUES",
                       help="rate (multiplies the trace's arrival rate), token_budget, max_seqs, chunk_size, "
                            "kv_blocks, replicas (behind --router) or prefill_replicas (of a split's "
                            "--prefill-replicas + --decode-replicas engines, the rest decoding) = LOW:HIGH:POINTS or a "
                            "comma list, for example rate=0.5:4:8")
    sweep.add_argument("--target", type=float, default=0.9, help="SLO attainment the knee must keep (0-1)")
    sweep.add_argument("--workers", type=int, help="worker processes (default: one per CPU for big sweeps)")
    sweep.add_argument("--json", action="store_true")
    add_fleet_options(sweep)

    plan = commands.add_parser("plan", help="the cheapest GPUs that serve a trace within its SLO, and the Pareto "
                               "front of cost against goodput")
    add_run_options(plan)
    # (dests apart from the run options' names: each configuration sets its own cost model)
    plan.add_argument("--hardware", required=True, type=_names, dest="gpus",
                      help="GPUs to try: a comma list (python -m sim hardware lists them)")
    plan.add_argument("--model", required=True, dest="plan_model", help="the model every configuration runs")
    plan.add_argument("--dtype", choices=("bf16", "fp8"), default="bf16", dest="plan_precision")
    plan.add_argument("--tp", type=_wholes, default=(1,), dest="tps", help="tensor-parallel widths to try: 1,2,4")
    plan.add_argument("--replicas", type=_range, default=(1, 16), help="replicas to search: LOW:HIGH (1:16)")
    plan.add_argument("--budgets", type=_wholes, help="token budgets to try (default: --token-budget)")
    plan.add_argument("--router", type=_names, default=("least-requests",), dest="routers",
                      help="how each fleet places requests: a comma list to try several (least-requests)")
    plan.add_argument("--splits", type=_ratios, default=(), help="prefill:decode engine ratios to try beside side "
                      "by side, such as 1:1,1:2 (a replica is then P + D engines; first tokens from the prefill)")
    plan.add_argument("--price", type=_prices, default=(), help="GPU-hour prices: H100=2.5,A100-80GB=1.8 "
                      "(default: cost counts GPUs)")
    plan.add_argument("--target", type=float, default=0.9, help="SLO attainment a configuration must keep (0-1)")
    plan.add_argument("--gpu-memory-utilization", type=float, default=0.9,
                      help="share of each GPU's memory for weights and KV cache (vLLM's, default 0.9)")
    plan.add_argument("--executor", choices=("local", "ray"), default="local",
                      help="local worker processes (default) or Ray tasks")
    plan.add_argument("--ray-address", help="the Ray cluster: auto, HOST:6379 or ray://HOST:10001 (default: a "
                      "local Ray)")
    plan.add_argument("--workers", type=int, help="local worker processes (default: one per CPU)")
    plan.add_argument("--json", action="store_true", help="every point simulated, the cheapest and the front")

    hardware = commands.add_parser("hardware", help="the GPUs and models a roofline can run (--hardware, --model)")
    hardware.add_argument("--json", action="store_true")

    example = commands.add_parser("example", help="the design document's worked examples")
    example.add_argument("name", choices=("seed",))
    example.add_argument("--json", action="store_true")

    gen = commands.add_parser("generate", help="write a seeded synthetic trace")
    gen.add_argument("--n", type=int, required=True, help="number of requests")
    gen.add_argument("--rate", type=float, required=True, help="mean arrivals per tick")
    gen.add_argument("--burstiness", type=float, default=1.0, help="gamma shape: 1 Poisson, < 1 burstier")
    gen.add_argument("--prompt", type=_length, default="uniform:1:8", help="prompt length distribution")
    gen.add_argument("--output", type=_length, default="uniform:1:12", help="output length distribution")
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--out", help="file to write (.json or .csv); standard output when absent")
    return parser


# The last run's schedules, held until the process ends: exit_with ends it without freeing them one by one (for
# the seed's 16,000 requests that freeing takes 20 ms, 4% of the whole run). An in-process caller holds one run.
_KEPT: list[list] = []


def _run(trace: Trace, config: Config, policies: tuple[Policy | str, ...], as_json: bool,
         prometheus: str | None = None, ms_per_tick: float = 1000.0) -> str:
    runs = []
    for policy in policies:
        schedule = simulate(trace, config, policy)
        emitted = schedule.emitted(compact=True)
        runs.append((schedule, compute(schedule, emitted=emitted), emitted))
    _KEPT[:] = [runs]
    if prometheus:
        from .report.prometheus import prometheus_text

        schedule, metrics, _ = runs[0]
        seconds = 0.001 if schedule.unit == "ms" else ms_per_tick / 1000
        with open(prometheus, "w", encoding="utf-8") as file:
            file.write(prometheus_text(schedule, metrics, seconds))
    if as_json and len(runs) == 1:
        return run_json_text(*runs[0])
    if as_json:
        return runs_json_text([(m.policy, s, m, e) for s, m, e in runs])
    return "\n\n".join(summary_text(m) for _, m, _ in runs)


def _run_cluster(trace: Trace, config: Config, policy: Policy, routing: Routing, as_json: bool,
                 prometheus: str | None = None, ms_per_tick: float = 1000.0) -> str:
    """A fleet's run (sim.core.cluster): the overall figures, then a line a replica; or its JSON. `prometheus`:
    a file for every replica's metrics, labelled by replica."""
    run = simulate_cluster(trace, config, policy, routing)
    parts, overall = cluster_metrics(run, compact=True)
    if prometheus:
        from .report.prometheus import fleet_text

        seconds = 0.001 if config.cost.unit == "ms" else ms_per_tick / 1000
        with open(prometheus, "w", encoding="utf-8") as file:
            file.write(fleet_text([(s, m) for s, m, _ in parts], seconds))
    if as_json:
        return json.dumps(cluster_json(run, parts, overall), separators=(",", ":"), check_circular=False)
    return (f"{routing.replicas} replicas behind {routing.router}\n\n" + summary_text(overall) + "\n\n"
            + replicas_text(parts))


def _run_split(trace: Trace, config: Config, policy: Policy, split: Split, routing: Routing, as_json: bool) -> str:
    """A disaggregated run (sim.core.cluster.simulate_split): the overall figures, then a line a replica; or its
    JSON."""
    run = simulate_split(trace, config, policy, split, routing.router, routing.seed)
    prefill, decode, overall, emitted = split_metrics(run, [r.output for r in trace.requests], config.slo,
                                                      compact=True)
    if as_json:
        return json.dumps(split_json(run, prefill, decode, overall, emitted), separators=(",", ":"),
                          check_circular=False)
    return (f"{split.prefill} prefill and {split.decode} decode replicas, prefill behind {routing.router}, KV "
            f"transfers {split.latency:g} + {split.per_block:g} a block\n\n" + summary_text(overall) + "\n\n"
            + replicas_text(prefill + decode, ["prefill"] * split.prefill + ["decode"] * split.decode))


def _sweep(args) -> str:
    from .report.sweep import Entry, knees, parse_sweep, sweep

    parameter, values = parse_sweep(args.sweep)
    if not 0 <= args.target <= 1:
        raise InputError(f"--target {args.target}: an attainment between 0 and 1")
    config, policy = config_and_policy(args)
    routing, split = fleet_of(args)
    entries = [Entry(name, config, for_batching(policy, name), routing, split) for name in args.policies]
    rows = sweep(load_trace(args), entries, parameter, values, args.workers)
    found = knees(rows, parameter, args.target)
    if args.json:
        return json.dumps({"parameter": parameter, "values": values, "target": args.target, "unit": config.cost.unit,
                           "rows": rows, "knees": found})
    fleet = ("engines", "prefill_engines") if split is not None else \
        ("engines",) if routing.replicas > 1 or parameter == "replicas" else ()
    columns = ("policy", "value", *fleet, "goodput", "attainment", "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99",
               "throughput")
    lines = [table(list(columns), [[_cell(row[c]) for c in columns] for row in rows])]
    lines += [f"{row['policy']} at {row['value']}: {row['error']}" for row in rows if row["error"]]
    knee = "best split" if parameter == "prefill_replicas" else "knee"
    lines += [f"{knee} of {label} (attainment >= {args.target:.0%}): {'none' if v is None else v}"
              for label, v in found.items()]
    return "\n".join(lines)


def _cell(value: object) -> object:
    return "" if value is None else round(value, 3) if isinstance(value, float) else value


def for_batching(policy: Policy, batching: str) -> Policy:
    """The policy's options under another batching; static keeps only those that apply to it."""
    if batching == "continuous":
        return replace(policy, batching=batching)
    plain = Policy()
    return replace(policy, batching=batching, **{name: getattr(plain, name) for name in STATIC_UNSUPPORTED})


def _plan(args) -> str:
    from .report.plan import Ask, PlanError, local_runner, search

    config, policy = config_and_policy(args)
    ask = Ask(args.plan_model, args.gpus, args.tps, args.replicas, args.budgets or (config.token_budget,), args.target,
              args.routers, args.price, args.gpu_memory_utilization, args.plan_precision, args.splits)
    trace = load_trace(args)
    if args.executor == "ray":
        from .report.ray_points import ray_runner

        run, stop = ray_runner(args.ray_address)
    else:
        run, stop = local_runner(args.workers)
    try:
        found = search(trace, ask, config, policy, run,
                       lambda n: print(f"  {n} configurations simulated", file=sys.stderr, flush=True))
    except PlanError as error:
        raise InputError(str(error)) from None
    finally:
        stop()
    if args.json:
        return json.dumps({"model": ask.model, "target": ask.target, "unit": "ms", "cost_unit": "$/hour" if
                           ask.prices else "GPUs", "rows": found.rows, "cheapest": found.cheapest,
                           "front": found.front, "unfit": found.unfit})
    from .report.plan import plan_text

    return plan_text(found, ask)


def _write(text: str, piece: int = 1 << 20) -> None:
    """`text` and a newline on standard output, a megabyte at a time: a large run's JSON (100 MB for 16,000
    requests of the Azure trace under a latency model) is not encoded into a second copy of itself at once."""
    for start in range(0, len(text), piece):
        sys.stdout.write(text[start:start + piece])
    sys.stdout.write("\n")


def main(argv: list[str] | None = None) -> int:
    # A short run whose objects hold no reference cycles: without the cycle collector's passes over the
    # hundreds of thousands of records a large trace makes, it runs about a third faster. A caller in process gets
    # its collector back as it was (`python -m sim` turned it off before importing, and exits at once).
    collecting = gc.isenabled()
    gc.disable()
    try:
        args = _parser().parse_args(argv)
        if args.command == "run":
            config, policy = config_and_policy(args)
            routing, split = fleet_of(args)
            if split is not None:
                _write(_run_split(load_trace(args), config, policy, split, routing, args.json))
            elif routing.replicas > 1:
                _write(_run_cluster(load_trace(args), config, policy, routing, args.json, args.prometheus,
                                    args.ms_per_tick))
            else:
                _write(_run(load_trace(args), config, (policy,), args.json, args.prometheus, args.ms_per_tick))
        elif args.command == "sweep":
            sys.stdout.write(_sweep(args) + "\n")
        elif args.command == "plan":
            sys.stdout.write(_plan(args) + "\n")
        elif args.command == "hardware":
            from .report.hardware import hardware_json, hardware_text

            print(json.dumps(hardware_json()) if args.json else hardware_text())
        elif args.command == "example":
            print(_run(read_csv(SEED_CSV), Config(SEED_BUDGET), ("static", "continuous"), args.json))
        else:
            from .trace.generate import generate

            trace = generate(args.n, args.rate, args.prompt, args.output, args.burstiness, args.seed)
            text = write_json(trace) if (args.out or "").lower().endswith(".json") else write_csv(trace)
            if args.out:
                with open(args.out, "w", encoding="utf-8") as file:
                    file.write(text)
            else:
                sys.stdout.write(text)
    except (InputError, TraceError, ConfigError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        if collecting:
            gc.enable()
    return 0


def exit_with(code: int) -> None:
    """End the process with `code`, skipping the interpreter's teardown, which would free a large run's objects
    one by one (tens of ms)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left early (`| head`): nothing more to tell it
        pass
    os._exit(code)
