"""Exports of a run, read from its Schedule and Metrics: the CLI's JSON object and readable text tables."""
from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import asdict
from itertools import accumulate
from json.encoder import encode_basestring_ascii
from operator import attrgetter

from ..core.config import ROOFLINE_FIELDS, CostModel
from ..core.hardware import COMPUTE_EFFICIENCY, GPUS, MEMORY_EFFICIENCY, MODELS
from ..core.schedule import IterationRun, Schedule
from ..trace.trace import csv_table
from .metrics import LATENCIES, PERCENTILES, Metrics, RequestMetrics


def _number(value: float) -> float:
    """Integral floats as ints, so tick figures read 5, not 5.0; others at full precision (only what is
    displayed is rounded)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def step_events(schedule: Schedule) -> list[dict[str, list[int]]]:
    """Per step, the requests each kind of event (preempt, swap_out, swap_in, cancel, reject) touched at
    its start or during it, in time order, then trace order (events of one time may be recorded in either
    order: a plan that merges ticks sees a stop later than one planning every tick)."""
    starts = [s.start for s in schedule.steps]
    out: list[dict[str, list[int]]] = [{} for _ in starts]
    for time, index, kind in sorted((time, index, kind) for time, kind, index in schedule.events):
        step = max(0, bisect_right(starts, time) - 1)
        if out:
            out[step].setdefault(kind, []).append(index)
    return out


def _request_rows(schedule: Schedule, metrics: Metrics, emitted: list[Sequence[float]] | None,
                  times: bool = True) -> list[dict]:
    """One JSON row per request: its latencies, emitted times (None without `times`: run_json_text writes them),
    and how a cancel, a rejection or a recompute hit it."""
    rows = list(map(_request_row, metrics.requests))
    if times:
        for row, emitted_times in zip(rows, schedule.emitted() if emitted is None else emitted):
            row["emitted"] = list(emitted_times)
    else:
        for row in rows:
            row["emitted"] = None
    streaming, caching = streams(schedule), caches(schedule)
    for row, r, timeline in zip(rows, metrics.requests, schedule.requests):
        if streaming:
            row.update(generated=r.generated, sent=r.sent, paused_ticks=_number(r.paused))
        if caching:
            row["cached_tokens"] = timeline.cached
        if r.finish_reason in ("cancelled", "disconnected"):
            row.update(cancel_time=timeline.cancel_time, delivered=r.delivered, wasted=r.wasted)
        elif r.finish_reason == "rejected":
            row["reject_reason"] = timeline.reject_reason
        if r.recomputed:
            row["recomputed"] = r.recomputed
    return rows


def _request_row(r) -> dict:
    """A request's latencies and how it ended (sim.report.metrics.RequestMetrics), as the JSON's fields."""
    return {"name": r.name, "arrival": r.arrival, "prompt": r.prompt, "output": r.output, "queue_time": r.queue_time,
            "ttft": r.ttft, "tpot": r.tpot, "e2e": r.e2e, "completion": r.completion,
            "finish_reason": r.finish_reason, "meets_slo": r.meets_slo, "preemptions": r.preemptions}


def caches(schedule: Schedule) -> bool:
    """Whether the run caches prefixes (the option, or a preset whose engine does)."""
    options = schedule.options
    return options is not None and (options.prefix_cache or options.preset == "nano-vllm")


def streams(schedule: Schedule) -> bool:
    """Whether the run streams to clients that read at a pace, go away, or bound what they hold (credits)."""
    options = schedule.options
    return (options is not None and options.stream_credits is not None
            or any(r.read_rate is not None or r.disconnect_at is not None for r in schedule.requests))


def _step_rows(schedule: Schedule, names: list[str], running: bool = True) -> list[dict]:
    """One JSON row per step: its span, the requests running (None without `running`: run_json_text writes them)
    and its token-work, plus the fields of options on."""
    if running:
        rows = [{"start": s.start, "end": s.end, "running": list(map(names.__getitem__, members)),
                 "prefill_tokens": s.prefill_tokens, "decode_tokens": s.decode_tokens,
                 "padding_tokens": s.padding_tokens}
                for s, members in zip(schedule.steps, schedule.members())]
    else:
        rows = [{"start": s.start, "end": s.end, "running": None, "prefill_tokens": s.prefill_tokens,
                 "decode_tokens": s.decode_tokens, "padding_tokens": s.padding_tokens} for s in schedule.steps]
    if streams(schedule):
        for row, step in zip(rows, schedule.steps):
            row["paused"] = step.paused
    _add_step_options(rows, schedule, names)
    return rows


def _add_step_options(rows: list[dict], schedule: Schedule, names: list[str]) -> None:
    """Add to each step row its KV blocks, event requests, graph padding, speculation and expert loads, where on."""
    options, moe = schedule.options, schedule.config.moe
    kv, buckets, spec = schedule.config.kv_blocks is not None, bool(options and options.graph_buckets), \
        bool(options and options.spec_tokens)
    if kv or buckets or spec or moe.experts or schedule.events:
        for row, step, events in zip(rows, schedule.steps, step_events(schedule)):
            if kv:
                row["kv_blocks_used"] = step.kv_blocks
            for key, kind in (("preempted", "preempt"), ("swapped", "swap_out"), ("swapped_in", "swap_in"),
                              ("cancelled", "cancel"), ("disconnected", "disconnect"), ("rejected", "reject")):
                if kind in events:
                    row[key] = [names[i] for i in events[kind]]
            if buckets:
                row["graph_padding"] = step.graph_padding
            if spec:
                row["decode_sequences"], row["spec_accepted"] = step.decode_sequences, step.spec_accepted
            if moe.experts:
                row.update(expert_tokens=list(step.expert_tokens), expert_tokens_max=step.expert_tokens_max,
                           expert_crossing=moe.crossing(step.expert_tokens))


def cost_json(cost: CostModel) -> dict:
    """The cost model's fields; a roofline's GPU, model, tensor parallel and dtype only under a roofline, with the
    model's words and what it rests on (the GPU's and the model's sources, the efficiencies)."""
    out = asdict(cost)
    if cost.kind != "roofline":
        for name in ROOFLINE_FIELDS:
            del out[name]
        return out
    g, m = GPUS[cost.hardware], MODELS[cost.model]
    return out | {"label": cost.label, "hardware_source": g.source, "model_source": m.source,
                  "compute_efficiency": COMPUTE_EFFICIENCY, "memory_efficiency": MEMORY_EFFICIENCY}


def _overall_json(schedule: Schedule, metrics: Metrics) -> dict:
    """The budgets, options and cost model of the run and its overall metrics, as JSON-ready fields."""
    config, slo, m, options = schedule.config, schedule.config.slo, metrics, schedule.options
    return {
        "policy": m.policy, "options": options.changes() if options else {}, "unit": m.unit,
        "token_budget": config.token_budget, "max_seqs": config.max_seqs, "first_token": config.first_token,
        "kv_blocks": config.kv_blocks, "block_size": config.block_size, "cost_model": cost_json(config.cost),
        "makespan": _number(m.makespan), "padding_waste": m.padding_waste,
        "throughput": _number(m.throughput), "request_throughput": _number(m.request_throughput),
        "utilization": _number(m.utilization),
        "goodput": {"requests": m.goodput_requests, "tokens": m.goodput_tokens,
                    "attainment": _number(m.slo_attainment), "rate": _number(m.goodput),
                    "slo": {"ttft": slo.ttft, "tpot": slo.tpot, "e2e": slo.e2e}},
        "percentiles": {name: {f"p{q}": _number(v) for q, v in m.percentiles[name].items()}
                        for name in (*LATENCIES, "itl")},
        "finished": m.finished, "cancelled": m.cancelled, "rejected": m.rejected, "disconnected": m.disconnected,
        "preemptions": m.preemptions, "recomputed_tokens": m.recomputed_tokens, "swapped_blocks": m.swapped_blocks,
        "wasted_tokens": m.wasted_tokens, "graph_padding": m.graph_padding, "spec_accepted": m.spec_accepted,
        "kv_peak": m.kv_peak, "kv_mean": None if m.kv_mean is None else _number(m.kv_mean),
    } | ({"moe": asdict(config.moe)} if config.moe.experts else {}) | (
        {"read_rate": config.read_rate, "unsent_tokens": m.unsent_tokens} if streams(schedule) else {}) | (
        {"prefix_cache": {"queried_tokens": m.prefix_queried, "hit_tokens": m.prefix_hits,
                          "hit_rate": _number(m.prefix_hit_rate)}} if caches(schedule) else {})


def run_json(schedule: Schedule, metrics: Metrics, emitted: list[Sequence[float]] | None = None) -> dict:
    """One JSON-ready object: the budgets and options, the overall metrics, every request and every step.
    Fields of an option (KV blocks, preemptions, graph padding, speculation) appear when it is on."""
    names = [r.name for r in schedule.requests]
    requests = _request_rows(schedule, metrics, emitted)
    steps = _step_rows(schedule, names)
    return {**_overall_json(schedule, metrics), "requests": requests, "steps": steps}


def run_json_text(schedule: Schedule, metrics: Metrics, emitted: list[Sequence[float]] | None = None) -> str:
    """run_json as compact JSON text: the same characters as `json.dumps(run_json(...), separators=(",", ":"))`,
    made faster. Most of that object is each request's emitted times and each step's running requests, and both
    repeat: under a latency model every request decoding in an iteration emits a token at its end (16,000
    requests of the Azure trace: 3.4 million times, 50,000 distinct), and the batch stays the same from step to
    step until somebody joins or leaves. So each iteration's end is written once (a request's run of
    consecutive iterations, sim.core.schedule.IterationRun, is a slice of them), and a batch's list of names once
    until it changes; json.dumps writes the rest, with null where those go, and they are put in its place."""
    names = [r.name for r in schedule.requests]
    emitted = schedule.emitted(compact=True) if emitted is None else emitted
    head = _overall_json(schedule, metrics)
    times = _times_texts(emitted)
    if _plain_requests(schedule, metrics):  # every request row has the same thirteen fields: from columns
        requests = ["[", ",".join(map(_PLAIN_REQUEST.__mod__, zip(*_request_columns(metrics), times))), "]"]
    else:
        requests = _fill(_dumps(_request_rows(schedule, metrics, emitted, times=False)), '"emitted":', times)
    running = _running_texts(schedule, names)
    if _plain_steps(schedule):  # every step row has the same six fields: written from columns
        columns = {name: _number_texts(list(map(attrgetter(name), schedule.steps)))
                   for name in ("start", "end", "prefill_tokens", "decode_tokens", "padding_tokens")}
        steps = ["[", ",".join(map(_PLAIN_STEP.__mod__, zip(columns["start"], columns["end"], running,
                                                            columns["prefill_tokens"], columns["decode_tokens"],
                                                            columns["padding_tokens"]))), "]"]
    else:
        steps = _fill(_dumps(_step_rows(schedule, names, running=False)), '"running":', running)
    if "requests" in head or "steps" in head:
        raise ValueError("the run's overall fields name its requests or steps")
    return "".join([_dumps(head)[:-1], ',"requests":', *requests, ',"steps":', *steps, "}"])


def runs_json_text(named: list[tuple[str, Schedule, Metrics, list[Sequence[float]] | None]]) -> str:
    """Several runs as one compact JSON object, each run_json_text under its name: the same characters as
    `json.dumps({name: run_json(...)}, separators=(",", ":"))`, made as fast as one run's."""
    return "{" + ",".join(f"{_dumps(name)}:{run_json_text(s, m, e)}" for name, s, m, e in named) + "}"


_REQUEST_FIELDS = ("name", "arrival", "prompt", "output", "queue_time", "ttft", "tpot", "e2e", "completion",
                   "finish_reason", "meets_slo", "preemptions")
# A row's text, each field's JSON put in with % (faster than str.format; the fields' names hold no %)
_PLAIN_REQUEST = "{" + ",".join(f'"{name}":%s' for name in (*_REQUEST_FIELDS, "emitted")) + "}"


def _plain_requests(schedule: Schedule, metrics: Metrics) -> bool:
    """Whether the request rows hold only the fields every row has (_request_rows adds none)."""
    return not (streams(schedule) or caches(schedule) or any(
        r.recomputed or r.finish_reason in ("cancelled", "disconnected", "rejected") for r in metrics.requests))


def _request_columns(metrics: Metrics) -> list[list[str]]:
    """Each of the request rows' fields, for every request, as json.dumps writes it."""
    column = dict(zip(RequestMetrics._fields, zip(*metrics.requests)))  # (a RequestMetrics is a tuple: by field)
    names = list(map(encode_basestring_ascii, column["name"]))
    reasons = list(map({reason: _dumps(reason) for reason in set(column["finish_reason"])}.__getitem__,
                       column["finish_reason"]))
    return [names, *(_number_texts(list(column[name])) for name in _REQUEST_FIELDS[1:9]),
            reasons, *(_number_texts(list(column[name])) for name in _REQUEST_FIELDS[10:])]


_PLAIN_STEP = '{"start":%s,"end":%s,"running":%s,"prefill_tokens":%s,"decode_tokens":%s,"padding_tokens":%s}'


def _plain_steps(schedule: Schedule) -> bool:
    """Whether the step rows hold only their span, running requests and token-work (_step_rows adds no field)."""
    options = schedule.options
    return not (streams(schedule) or schedule.config.kv_blocks is not None or schedule.events
                or schedule.config.moe.experts or options and (options.graph_buckets or options.spec_tokens))


def _number_texts(numbers: list[float]) -> list[str]:
    """Each number (or None, or a bool) as json.dumps writes it (none of them holds a comma in JSON)."""
    return _dumps(numbers)[1:-1].split(",") if numbers else []


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), check_circular=False)


def _fill(text: str, key: str, values: list[str]) -> list[str]:
    """The pieces of `text` with each `key` null in it replaced, in order, by the next of `values` (JSON texts),
    to be joined. A key and its
    null cannot occur inside a JSON string (a quote there is escaped), so each is one of the nulls put there;
    there must be one a value."""
    pieces = text.split(key + "null")
    if len(pieces) != len(values) + 1:
        raise ValueError(f"{len(pieces) - 1} places for {len(values)} values of {key}")
    out = [pieces[0]]
    for value, piece in zip(values, pieces[1:]):
        out += (key, value, piece)
    return out


def _times_texts(emitted: list[Sequence[float]]) -> list[str]:
    """Each request's emitted times as JSON: a range of ticks as its numbers, a run of iterations as a slice of its
    iterations' ends written once (json.dumps writes a number as `repr` does, and no number holds a comma)."""
    written: dict[int, tuple[str, list[int]]] = {}  # per list of iteration ends: its JSON, where each end starts
    ranges = [times for times in emitted if isinstance(times, range) and times.step == 1 and times]
    low, high = min((r.start for r in ranges), default=0), max((r.stop for r in ranges), default=0)
    # Ranges of ticks overlap (every request decoding in a tick emits at its end): each tick is written once, when
    # the ranges hold more ticks than they span.
    ticks = _number_texts(list(range(low, high))) if high - low <= sum(map(len, ranges)) else None
    out = []
    for times in emitted:
        if isinstance(times, range):
            if ticks is not None and times.step == 1 and times:
                out.append("[" + ",".join(ticks[times.start - low:times.stop - low]) + "]")
            else:
                out.append(_dumps(list(times)))
        elif isinstance(times, IterationRun):  # a slice of the ends' JSON list, cut at the commas' offsets
            ends = times.ends
            if id(ends) not in written:
                text = _dumps(ends)
                written[id(ends)] = text, [0, *accumulate(len(t) + 1 for t in text[1:-1].split(","))]
            text, offsets = written[id(ends)]
            out.append("[" + text[offsets[times.first] + 1:offsets[times.first + len(times)]] + "]")
        else:
            out.append(_dumps(list(times)))
    return out


def _running_texts(schedule: Schedule, names: list[str]) -> list[str]:
    """Each step's running requests as JSON, the names in the order they joined (Schedule.members); a step that
    changes nobody's membership repeats the text of the step before."""
    quoted = list(map(encode_basestring_ascii, names))  # (as json.dumps writes a string)
    holding: dict[int, None] = {}
    out, text = [], "[]"
    for step in schedule.steps:
        if step.changes:
            for change in step.changes:
                if change >= 0:
                    holding[change] = None
                else:
                    del holding[~change]
            text = "[" + ",".join(map(quoted.__getitem__, holding)) + "]"
        out.append(text)
    return out


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A plain text table with right-aligned columns ("-" where a value does not exist)."""
    cells = [["-" if c is None else str(_number(round(c, 6) if isinstance(c, float) else c)) for c in row]
             for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_text(metrics: Metrics, max_rows: int = 40) -> str:
    """The overall figures, the latency percentiles and the first `max_rows` requests, as text."""
    m = metrics
    lines = [f"policy {m.policy}: makespan {m.makespan:.6g} {'ticks' if m.unit == 'tick' else m.unit}, "
             f"throughput {m.throughput:.4g} "
             f"tokens/{m.unit}, padding waste {m.padding_waste}, utilization {m.utilization:.1%}, "
             f"goodput {m.goodput_requests}/{len(m.requests)} requests ({m.slo_attainment:.0%})", ""]
    lines.append(table(["metric", *[f"p{q}" for q in PERCENTILES]],
                       [[name, *m.percentiles[name].values()] for name in LATENCIES]))
    lines.append("")
    rows = [[r.name, r.arrival, r.prompt, r.output, r.queue_time, r.ttft, r.tpot, r.e2e, r.completion,
             r.finish_reason] for r in m.requests[:max_rows]]
    lines.append(table(["request", "arrival", "prompt", "output", "queue", "ttft", "tpot", "e2e", "completion",
                        "finish"], rows))
    if len(m.requests) > max_rows:
        lines.append(f"... and {len(m.requests) - max_rows} more requests (use --json for all)")
    return "\n".join(lines)


def csv_text(headers: list[str], rows: list[list[object]]) -> str:
    """A table as CSV safe to open in a spreadsheet (see `csv_table`); floats are rounded so
    2.4000000000000004 reads 2.4."""
    return csv_table(headers, [[round(c, 6) if isinstance(c, float) else c for c in row] for row in rows])


REQUEST_COLUMNS = ["name", "arrival", "prompt", "output", "queue_time", "ttft", "tpot", "e2e", "completion",
                   "finish_reason", "meets_slo", "delivered", "wasted", "preemptions", "recomputed", "tenant",
                   "priority"]


def requests_csv(runs: list[Metrics]) -> str:
    """One row per request and policy with its latencies."""
    return csv_text(["policy", *REQUEST_COLUMNS],
                [[m.policy, *(getattr(r, c) for c in REQUEST_COLUMNS)] for m in runs for r in m.requests])


def overall_rows(metrics: Metrics) -> dict[str, float]:
    """The run's overall figures by name, in a stable order (tables and CSV share it)."""
    m = metrics
    row = {"makespan": m.makespan, "output_tokens": m.output_tokens, "throughput": m.throughput,
           "request_throughput": m.request_throughput, "padding_waste": m.padding_waste,
           "utilization": m.utilization, "goodput_requests": m.goodput_requests,
           "goodput_tokens": m.goodput_tokens, "slo_attainment": m.slo_attainment}
    for name in (*LATENCIES, "itl"):
        for q, value in m.percentiles[name].items():
            row[f"{name}_p{q}"] = value
    row.update(finished=m.finished, cancelled=m.cancelled, disconnected=m.disconnected, rejected=m.rejected,
               preemptions=m.preemptions, recomputed_tokens=m.recomputed_tokens, swapped_blocks=m.swapped_blocks,
               wasted_tokens=m.wasted_tokens, unsent_tokens=m.unsent_tokens, prefix_hit_rate=m.prefix_hit_rate,
               graph_padding=m.graph_padding,
               spec_accepted=m.spec_accepted, kv_peak=m.kv_peak, kv_mean=m.kv_mean)
    return row


def overall_csv(runs: list[Metrics]) -> str:
    """One row per policy with its overall figures."""
    rows = [overall_rows(m) for m in runs]
    return csv_text(["policy", *rows[0]], [[m.policy, *row.values()] for m, row in zip(runs, rows)])


def chrome_trace(schedules: list[Schedule], microseconds_per_unit: float = 1000.0) -> dict:
    """Schedules as Chrome trace events (open in Perfetto or chrome://tracing): a process per schedule, a track
    per request with a slice per phase, and counter tracks of token-work and running requests. A tick shows as
    1 ms."""
    scale, events = microseconds_per_unit, []
    for pid, schedule in enumerate(schedules, start=1):
        events.append({"ph": "M", "name": "process_name", "pid": pid,
                       "args": {"name": f"{schedule.policy} batching"}})
        for tid, request in enumerate(schedule.requests, start=1):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": request.name}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                           "args": {"sort_index": tid}})
            events += [{"ph": "X", "name": s.phase, "cat": s.phase, "pid": pid, "tid": tid, "ts": s.start * scale,
                        "dur": (s.end - s.start) * scale, "args": {"tokens": s.tokens, "start": s.start, "end": s.end}}
                       for s in request.segments]
        for step in schedule.steps:
            work = {"prefill": step.prefill_tokens, "decode": step.decode_tokens, "padding": step.padding_tokens}
            events.append({"ph": "C", "name": "token-work", "pid": pid, "ts": step.start * scale, "args": work})
            events.append({"ph": "C", "name": "running", "pid": pid, "ts": step.start * scale,
                           "args": {"running": step.running}})
            events.append({"ph": "C", "name": "token-work", "pid": pid, "ts": step.end * scale,
                           "args": dict.fromkeys(work, 0)})
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"policies": [s.policy for s in schedules], "unit": schedules[0].unit if schedules else ""}}


def _replica_entry(index: int, role: str, schedule: Schedule, metrics: Metrics) -> dict:
    entry = {"index": index, "role": role, "requests": len(schedule.requests), "makespan": _number(metrics.makespan),
             "throughput": _number(metrics.throughput), "kv_blocks_peak": metrics.kv_peak}
    if caches(schedule):
        entry["prefix_cache"] = {"queried_tokens": metrics.prefix_queried, "hit_tokens": metrics.prefix_hits,
                                 "hit_rate": _number(metrics.prefix_hit_rate)}
    return entry


def _fleet_steps(parts: list[tuple[Schedule, Metrics, list[Sequence[float]]]], first: int = 0) -> list[dict]:
    """Every replica's step rows, each with its `replica` (numbered from `first`), in time order."""
    steps = []
    for k, (schedule, _, _) in enumerate(parts, start=first):
        steps += [{**row, "replica": k} for row in _step_rows(schedule, [r.name for r in schedule.requests])]
    return steps


def cluster_json(run, parts: list[tuple[Schedule, Metrics, list[Sequence[float]]]], overall: Metrics) -> dict:
    """run_json of a fleet (sim.core.cluster.ClusterRun, with each replica's Schedule, Metrics and emitted times,
    and their combined Metrics): the overall fields over every request, `routing` and `replicas` (one entry a
    replica), each request with its `replica`, in the trace's order, and every replica's steps, each with its
    `replica`, in time order."""
    rows = [[{**row, "replica": k} for row in _request_rows(schedule, metrics, emitted)]
            for k, (schedule, metrics, emitted) in enumerate(parts)]
    steps = sorted(_fleet_steps(parts), key=lambda row: (row["start"], row["replica"]))
    routing = run.routing
    return {**_overall_json(parts[0][0], overall),
            "routing": {"replicas": routing.replicas, "router": routing.router, "seed": routing.seed},
            "replicas": [_replica_entry(k, "mixed", s, m) for k, (s, m, _) in enumerate(parts)],
            "requests": [rows[k][i] for k, i in zip(run.placed, run.local)], "steps": steps}


def split_json(run, prefill: list, decode: list, overall: Metrics, emitted: list[Sequence[float]]) -> dict:
    """run_json of a disaggregated run (sim.core.cluster.SplitRun; each side's (Schedule, Metrics, emitted times)
    and the combined Metrics and emitted times of every request): `routing`, `replicas` (the prefill replicas, then
    the decode ones, numbered on), each request with `prefill_replica`, `replica` (where it decoded; null where it
    never did) and `transfer` (`start`, `end`, `blocks`; null likewise), every step with its `replica`."""
    first, split = len(prefill), run.split
    decoded_on = {j: first + run.decode.placed[d] for d, j in enumerate(run.handed)}
    requests = []
    for j, (r, times) in enumerate(zip(overall.requests, emitted)):
        transfer = run.transfers[j]
        requests.append({**_request_row(r), "emitted": list(times), "prefill_replica": run.prefill.placed[j],
                         "replica": decoded_on.get(j),
                         "transfer": None if transfer is None else {"start": _number(transfer.start),
                                                                    "end": _number(transfer.end),
                                                                    "blocks": transfer.blocks}})
    steps = sorted(_fleet_steps(prefill) + _fleet_steps(decode, first), key=lambda row: (row["start"], row["replica"]))
    return {**_overall_json(prefill[0][0], overall),
            "routing": {"prefill_replicas": split.prefill, "decode_replicas": split.decode,
                        "router": run.prefill.routing.router, "seed": run.prefill.routing.seed,
                        "kv_transfer_latency": split.latency, "kv_transfer_per_block": split.per_block},
            "replicas": [_replica_entry(k, "prefill", s, m) for k, (s, m, _) in enumerate(prefill)]
            + [_replica_entry(first + k, "decode", s, m) for k, (s, m, _) in enumerate(decode)],
            "requests": requests, "steps": steps}


def replicas_text(parts: list[tuple[Schedule, Metrics, list[Sequence[float]]]], roles: list[str] | None = None) -> str:
    """One line a replica: its role, requests, makespan, throughput and TTFT percentiles (on a decode replica, to
    the second token), and its prefix cache's hit rate."""
    roles = roles or ["mixed"] * len(parts)
    rows = [[k, role, len(s.requests), m.makespan, m.throughput, m.percentiles["ttft"][50], m.percentiles["ttft"][99]]
            + ([m.prefix_hit_rate] if caches(s) else []) for k, ((s, m, _), role) in enumerate(zip(parts, roles))]
    headers = ["replica", "role", "requests", "makespan", "throughput", "ttft_p50", "ttft_p99"]
    return table(headers + (["prefix_hit_rate"] if caches(parts[0][0]) else []), rows)
