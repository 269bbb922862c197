"""Exports of a run, read from its Schedule and Metrics: the CLI's JSON object and readable text tables."""
from __future__ import annotations

from .metrics import LATENCIES, PERCENTILES, Metrics
from .schedule import Schedule


def _number(value: float) -> float:
    """Integral floats as ints, so tick figures read 5, not 5.0; others rounded for stable output."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 6)
    return value


def run_json(schedule: Schedule, metrics: Metrics, emitted: bool = True) -> dict:
    """One JSON-ready object: the budgets, the overall metrics, every request and every step."""
    config, slo = schedule.config, schedule.config.slo
    names = [r.name for r in schedule.requests]
    requests = [{"name": r.name, "arrival": r.arrival, "prompt": r.prompt, "output": r.output,
                 "queue_time": r.queue_time, "ttft": r.ttft, "tpot": r.tpot, "e2e": r.e2e,
                 "completion": r.completion, "finish_reason": r.finish_reason, "meets_slo": r.meets_slo}
                for r in metrics.requests]
    if emitted:
        for row, times in zip(requests, schedule.emitted()):
            row["emitted"] = times
    steps = [{"start": s.start, "end": s.end, "running": list(map(names.__getitem__, members)),
              "prefill_tokens": s.prefill_tokens, "decode_tokens": s.decode_tokens, "padding_tokens": s.padding_tokens}
             for s, members in zip(schedule.steps, schedule.members())]
    return {
        "policy": metrics.policy, "unit": metrics.unit, "token_budget": config.token_budget,
        "max_seqs": config.max_seqs, "first_token": config.first_token,
        "makespan": _number(metrics.makespan), "padding_waste": metrics.padding_waste,
        "throughput": _number(metrics.throughput), "request_throughput": _number(metrics.request_throughput),
        "utilization": _number(metrics.utilization),
        "goodput": {"requests": metrics.goodput_requests, "tokens": metrics.goodput_tokens,
                    "attainment": _number(metrics.slo_attainment), "rate": _number(metrics.goodput),
                    "slo": {"ttft": slo.ttft, "tpot": slo.tpot, "e2e": slo.e2e}},
        "percentiles": {name: {f"p{q}": _number(v) for q, v in metrics.percentiles[name].items()}
                        for name in LATENCIES},
        "requests": requests, "steps": steps,
    }


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A plain text table with right-aligned columns."""
    cells = [[str(_number(c)) for c in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_text(metrics: Metrics, max_rows: int = 40) -> str:
    """The overall figures, the latency percentiles and the first `max_rows` requests, as text."""
    m = metrics
    lines = [f"policy {m.policy}: makespan {_number(m.makespan)} {m.unit}s, throughput {m.throughput:.4g} "
             f"tokens/{m.unit}, padding waste {m.padding_waste}, utilization {m.utilization:.1%}, "
             f"goodput {m.goodput_requests}/{len(m.requests)} requests ({m.slo_attainment:.0%})", ""]
    lines.append(table(["metric", *[f"p{q}" for q in PERCENTILES]],
                       [[name, *m.percentiles[name].values()] for name in LATENCIES]))
    lines.append("")
    rows = [[r.name, r.arrival, r.prompt, r.output, r.queue_time, r.ttft, round(r.tpot, 4), r.e2e, r.completion,
             r.finish_reason] for r in m.requests[:max_rows]]
    lines.append(table(["request", "arrival", "prompt", "output", "queue", "ttft", "tpot", "e2e", "completion",
                        "finish"], rows))
    if len(m.requests) > max_rows:
        lines.append(f"... and {len(m.requests) - max_rows} more requests (use --json for all)")
    return "\n".join(lines)
