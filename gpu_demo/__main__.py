"""Command line of the real-model demo: `python -m gpu_demo train|tokenizer|run|bench|profile`; bad input exits 2
with one line."""
from __future__ import annotations

import json
import sys

from sim.core.cluster import SplitRun
from sim.core.config import ConfigError
from sim.core.profile import ProfileError, read_profile
from sim.options import InputError, Parser, add_fleet_options, add_run_options, config_and_policy, fleet_of, load_trace
from sim.report.export import cluster_json, replicas_text, run_json, split_json, summary_text
from sim.report.metrics import cluster_metrics, compute, split_metrics
from sim.trace.chat import BYTES
from sim.trace.trace import TraceError

from .compare import VOID_DRIFT
from .engine import Stopped
from .machine import choose_threads
from .train import STEPS


def _parser() -> Parser:
    parser = Parser(prog="python -m gpu_demo", description="A tiny transformer served by sim's schedulers.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    train = commands.add_parser("train", help="train the model on the Python standard library's source")
    train.add_argument("--steps", type=int, default=STEPS,
                       help="optimizer steps (the default takes about six minutes on two CPU cores)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--threads", type=int, default=2, help="CPU threads")
    commands.add_parser("tokenizer", help="train the classroom's BPE tokenizer on the same corpus (needs the "
                                          "`tokenizers` library of requirements-dev.txt) and write its file")
    run = commands.add_parser("run", help="serve a trace with the model")
    add_run_options(run)
    add_fleet_options(run)
    _device_options(run)
    run.add_argument("--arrival-unit", choices=("tick", "ms"), default="tick",
                     help="arrivals in iterations (the simulator's schedule) or in milliseconds of wall time")
    run.add_argument("--prompt-seed", type=int, default=0, help="which corpus snippets become prompts")
    run.add_argument("--json", action="store_true")
    run.add_argument("--compare-sim", action="store_true",
                     help="also simulate the trace with a cost profile (--cost-profile, default this machine's: "
                          "measured once, about 10 s, and kept), scaled by a short calibration just before the run, "
                          "and print each figure measured, predicted and the relative error")
    bench = commands.add_parser("bench", help="static vs continuous tokens/s, and one request at a time")
    _device_options(bench)
    bench.add_argument("--requests", type=int, default=48)
    bench.add_argument("--max-seqs", type=int, default=16)
    bench.add_argument("--runs", type=int, default=3)
    measure = commands.add_parser("profile", help="time the engine's iteration over a grid of batch shapes and fit "
                                                   "sim's profile cost model to it")
    _device_options(measure)
    measure.add_argument("--repeats", type=int, default=15,
                         help="timed rounds over every shape (each shape's median is kept)")
    measure.add_argument("--out", help="where to write the profile (default: where this machine's profile is kept, "
                                       "$CLASSROOM_PROFILES or ~/.cache/batching-classroom/profiles/)")
    return parser


def _device_options(parser) -> None:
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    parser.add_argument("--threads", type=int, help="CPU threads for torch (default: as many cores as other work "
                                                    "leaves free just before the run, at least one)")


def _run(args) -> str:
    from .engine import run
    from .loading import load_model
    from .prompts import fit_to_context, prompts_for, with_text_lengths

    if args.tokenizer not in (None, BYTES):
        raise InputError(f"--tokenizer {args.tokenizer}: the model reads bytes, one token a byte; the simulator "
                         "(python -m sim run) counts with the BPE")
    model = load_model(args.device, args.dtype)
    threads = choose_threads(args.threads)
    trace = fit_to_context(with_text_lengths(load_trace(args)), model.config.context)
    config, policy = config_and_policy(args)
    if config.moe.experts:
        raise InputError("--moe-experts: MoE routing is simulated only; the tiny model is dense (python -m sim run "
                         "routes the same trace)")
    prompts = prompts_for(trace, args.prompt_seed, config.prefix_block)
    routing, split = fleet_of(args)
    if split is not None or routing.replicas > 1:
        if args.compare_sim:
            raise InputError("--compare-sim compares one engine: leave out --replicas, --prefill-replicas and "
                             "--decode-replicas")
        from .fleet import run_fleet

        return _fleet_output(run_fleet(model, trace, prompts, config, policy, routing, split, args.arrival_unit),
                             trace, prompts, config.slo, args.json, threads)
    if args.compare_sim:  # this machine's profile (measured now if it has none), scaled by a calibration
        from .compare import calibrate, compare
        from .profile import machine_profile

        path = args.cost_profile
        if not path:
            path, made = machine_profile(model)
            if made:
                print(f"no profile of this machine yet: profiled it once, kept at {path}", file=sys.stderr)
        calibration = calibrate(model, read_profile(path))
    result = run(model, trace, prompts, config, policy, args.arrival_unit)
    metrics = compute(result.schedule)
    compared = compare(result, trace, policy, args.arrival_unit, path, calibration) if args.compare_sim else None
    if not args.json:
        return _text(result, metrics, compared, threads)
    document = run_json(result.schedule, metrics)
    if compared is not None:
        document["comparison"], document["cost_profile"] = compared[:2]
    document.update(device=result.device, dtype=result.dtype, tokens_per_second=result.tokens_per_second,
                    overhead_share=result.overhead_share, scheduling_share=result.scheduling_share,
                    iterations=result.iterations, threads=threads.json())
    for row, prompt, text in zip(document["requests"], prompts, result.outputs):
        row["prompt_text"] = prompt.decode("utf-8", errors="replace")  # exactly the bytes it prefilled
        row["output_text"] = text.decode("utf-8", errors="replace")
    document.update(_options_json(result, policy, document["requests"]))
    return json.dumps(document)


def _fleet_output(fleet, trace, prompts: list[bytes], slo, as_json: bool, threads) -> str:
    """A fleet's run on the model (gpu_demo.fleet): sim's fleet JSON (sim.report.export) with each request's text
    and, under a split, its transfer's copies timed; or the overall figures and a line a replica."""
    run = fleet.run
    if isinstance(run, SplitRun):
        prefill, decode, overall, emitted = split_metrics(run, [r.output for r in trace.requests], slo)
        parts, roles = prefill + decode, ["prefill"] * len(prefill) + ["decode"] * len(decode)
        document = split_json(run, prefill, decode, overall, emitted)
    else:
        parts, overall = cluster_metrics(run)
        roles, document = ["mixed"] * len(parts), cluster_json(run, parts, overall)
    copies = {}
    for c in fleet.copies:
        copies.setdefault(c.request, {})[f"copy_{'out' if c.direction == 'send' else 'in'}_ms"] = c.ms
    for j, (row, prompt, text) in enumerate(zip(document["requests"], prompts, fleet.outputs)):
        row["prompt_text"] = prompt.decode("utf-8", errors="replace")
        row["output_text"] = text.decode("utf-8", errors="replace")
        if row.get("transfer"):
            row["transfer"].update(copies.get(j, {}))
    seconds = sum(r.iteration_seconds for r in fleet.replicas)
    document.update(device=fleet.device, dtype=fleet.dtype, threads=threads.json(),
                    iterations=sum(len(r.timings) for r in fleet.replicas),
                    overhead_share=1 - sum(r.model_seconds for r in fleet.replicas) / seconds if seconds else 0.0)
    if as_json:
        return json.dumps(document)
    lines = [f"device {fleet.device} ({fleet.dtype}), {len(parts)} replicas sharing the model, each with its own "
             f"KV pool and clock; {threads.words()}", "", summary_text(overall), "", replicas_text(parts, roles)]
    if fleet.copies:
        sent = sum(c.direction == "send" for c in fleet.copies)
        lines.append(f"KV transfers: {sent} requests' prompt blocks copied out and in, "
                     f"{sum(c.ms for c in fleet.copies):.2f} ms in all")
    lines += [f"{row['name']}: {row['output_text']!r}" for row in document["requests"]]
    return "\n".join(lines)


def _text(result, metrics, compared, threads) -> str:
    lines = [f"device {result.device} ({result.dtype}), {result.iterations} iterations, "
             f"{result.tokens_per_second:.0f} tokens/s, outside the model {result.overhead_share:.1%}; "
             f"{threads.words()}"]
    if result.acceptance_rate is not None:
        lines.append(f"speculative decoding: {sum(result.accepted)} of {result.proposed} draft tokens accepted "
                     f"({result.acceptance_rate:.0%})")
    if result.swaps:
        lines.append(f"swap: {len(result.swaps)} copies of KV blocks, {sum(c.ms for c in result.swaps):.2f} ms")
    if metrics.prefix_queried:
        lines.append(f"prefix cache: {metrics.prefix_hits} of {metrics.prefix_queried} prompt tokens found "
                     f"({metrics.prefix_hit_rate:.0%}), {metrics.prefill_tokens} prefilled")
    lines += [f"{r.name}: ttft {r.ttft:.1f} ms, tpot {r.tpot:.2f} ms, {out!r}"
              for r, out in zip(metrics.requests, result.outputs) if r.ttft is not None]
    if compared is not None:
        lines += _comparison_lines(*compared[:2])
    return "\n".join(lines)


def _options_json(result, policy, rows: list[dict]) -> dict:
    """What the engine's options did, where they are on: speculative decoding (drafts proposed and accepted,
    overall and per request), swap preemption (every copy, timed) and CUDA-graph buckets (which iterations
    replayed a graph, and the padding rows computed for them)."""
    out = {}
    if policy.spec_tokens:
        accepted = sum(result.accepted)
        out["spec"] = {"proposed": result.proposed, "accepted": accepted, "acceptance_rate": result.acceptance_rate}
        for row, n in zip(rows, result.accepted):
            row["accepted"] = n
    if policy.preempt == "swap":
        out["swaps"] = [{"request": rows[c.request]["name"], "direction": c.direction, "blocks": c.blocks,
                         "start": c.start, "ms": c.ms} for c in result.swaps]
    if policy.graph_buckets:
        decodes = [t for t in result.timings if t.decode_rows and not t.prefill_rows]
        out["graphs"] = {"buckets": list(policy.graph_buckets), "captured": result.graphs == "replayed",
                         "replayed_iterations": sum(t.graph for t in result.timings),
                         "eager_decode_iterations": sum(not t.graph for t in decodes),
                         "padding_rows": sum(t.graph_padding for t in result.timings),
                         "note": "CUDA graphs need a CUDA device: every batch ran eagerly, its padded rows "
                                 "computed" if result.graphs == "cpu" else ""}
    return out


def _comparison_lines(figures: dict, about: dict) -> list[str]:
    lines = [f"simulated with {about['source']} ({about['path']}"
             + ("" if about["own_machine"] else ", measured on another machine")
             + f"), its times x {about['scale']:.2f}: the calibration just before the run timed the profile's shapes "
             f"at {about['scale']:.2f}x their profiled time; the run's iterations stray "
             f"{about['iteration_error_percent']}% from it at the median, and {about['drift_percent']:+.1f}% in all"]
    if about["void"]:
        lines.append(f"COMPARISON VOID: that is beyond {VOID_DRIFT:.0%}: the machine's speed changed during the run, "
                     "so no prediction made before it holds")
    for name, row in figures.items():
        error = "-" if row["error"] is None else f"{row['error']:+.1%}"
        lines.append(f"{name:<11} measured {row['measured']:10.2f}  predicted {row['predicted']:10.2f}  error {error}"
                     if row["measured"] is not None and row["predicted"] is not None else f"{name:<11} -")
    return lines


def _profile(args) -> str:
    from .loading import load_model
    from .profile import profile, save

    model = load_model(args.device, args.dtype)
    choose_threads(args.threads)
    if args.repeats < 1:
        raise ValueError("--repeats must be at least 1")
    document = profile(model, args.repeats, log=lambda line: print(line, flush=True))
    path = save(document, args.out)
    c = document["coefficients"]
    return (f"{len(document['shapes'])} shapes in {document['seconds']} s on {document['device']} "
            f"({document['dtype']}, {document['threads']} threads); written to {path}\n"
            f"t = {c['c0']:.4f} ms + {c['c_token']:.5f} ms x rows + {c['c_seq']:.5f} ms x sequences "
            f"+ {c['c_key']:.6f} ms x sequences x longest + {c['c_cell']:.8f} ms x sequences x query x longest; "
            f"loop {document['loop_ms']:.3f} ms an iteration\n"
            f"error: {document['fit_error_percent']}% on the fitted shapes, {document['held_out_error_percent']}% "
            f"on held-out shapes; a shape's timings spread {document['spread_percent']}%")


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        if args.command == "train":
            from .train import train

            card = train(args.steps, seed=args.seed, threads=args.threads, log=lambda line: print(line, flush=True))
            print(f"validation loss {card['validation_loss']} nats/byte after {card['steps']} steps "
                  f"({card['minutes']} min); weights written")
        elif args.command == "tokenizer":
            from .train_tokenizer import train_tokenizer

            train_tokenizer()
        elif args.command == "run":
            print(_run(args))
        elif args.command == "profile":
            print(_profile(args))
        else:
            from .bench import bench

            print(bench(args.device, args.dtype, args.threads, args.requests, args.max_seqs, args.runs))
    except (InputError, TraceError, ConfigError, ProfileError, ValueError, OSError, Stopped) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
