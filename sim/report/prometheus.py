"""A run's metrics in the Prometheus text format, with vLLM's metric names, labels and histogram buckets, so
the figures of a simulated run sit beside a real vLLM server's `/metrics` (the README maps each one and says
where the definitions differ).

A scrape of a live server is a snapshot; a run is a whole history. So histograms and counters hold the whole
run (as a server's would after serving exactly this trace), and gauges (running, waiting, KV use) hold their
time-weighted mean over the run, with the peak beside them under this project's own `classroom:` names.
"""
from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from ..core.schedule import Schedule, load_series
from .metrics import Metrics, gap_counts

# vLLM's buckets (vllm/v1/metrics/loggers.py).
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
                40.0, 80.0, 160.0, 640.0, 2560.0)
TOKEN_LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
                         20.0, 40.0, 80.0)
REQUEST_LATENCY_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
                           120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)
ITERATION_TOKEN_BUCKETS = (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
# every output runs to its length; a stop of any kind is an abort
FINISH_REASONS = {"finished": "length", "cancelled": "abort", "disconnected": "abort", "rejected": "abort"}


def buckets_1_2_5(largest: int) -> tuple[int, ...]:
    """1, 2, 5, 10, 20, 50, ... up to `largest` (vLLM's buckets for token counts, up to the model's length)."""
    out, scale = [], 1
    while True:
        for m in (1, 2, 5):
            if m * scale > largest:
                return tuple(out)
            out.append(m * scale)
        scale *= 10


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _value(value: float) -> str:
    """As the Prometheus client writes numbers (and so vLLM's `le` labels): 1.0, 0.001, +Inf."""
    return "+Inf" if value == float("inf") else repr(float(value))


class _Writer:
    def __init__(self, labels: str):
        self.labels, self.lines = labels, []

    def family(self, name: str, kind: str, help_text: str) -> None:
        self.lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]

    def sample(self, name: str, value: float, extra: str = "") -> None:
        labels = self.labels + ("," + extra if extra else "")
        self.lines.append(f"{name}{{{labels}}} {_value(value)}")

    def histogram(self, name: str, help_text: str, buckets: tuple[float, ...], values: list[float],
                  weights: list[int] | None = None) -> None:
        """Cumulative buckets, +Inf, sum and count; `weights` counts a value several times (an iteration
        repeated)."""
        pairs = sorted(zip(values, weights or [1] * len(values)))
        ordered = [v for v, _ in pairs]
        cumulative = list(accumulate(w for _, w in pairs))
        self.family(name, "histogram", help_text)
        for bound in buckets:
            below = bisect_right(ordered, bound)
            self.sample(f"{name}_bucket", cumulative[below - 1] if below else 0, f'le="{_value(bound)}"')
        total = cumulative[-1] if cumulative else 0
        self.sample(f"{name}_bucket", total, 'le="+Inf"')
        self.sample(f"{name}_sum", sum(v * w for v, w in pairs))
        self.sample(f"{name}_count", total)


def _time_mean(times: list[float], values: list[int], end: float) -> float:
    """Mean over [0, end) of a step function that holds values[i] from times[i]."""
    if end <= 0:
        return 0.0
    area = 0.0
    for i, value in enumerate(values):
        stop = min(times[i + 1] if i + 1 < len(times) else end, end)
        area += value * max(0.0, stop - times[i])
    return area / end


def _write_gauges(out: _Writer, schedule: Schedule, metrics: Metrics) -> None:
    """Running and waiting requests (time-weighted mean and peak), then KV-cache usage."""
    span = metrics.makespan
    run_x, run_y, wait_x, wait_y = load_series(schedule)
    out.family("vllm:num_requests_running", "gauge",
               "Requests in model execution batches (time-weighted mean over the run).")
    out.sample("vllm:num_requests_running", _time_mean(run_x, run_y, span))
    out.family("vllm:num_requests_waiting", "gauge", "Requests waiting to be processed (time-weighted mean).")
    out.sample("vllm:num_requests_waiting", _time_mean(wait_x, wait_y, span))
    out.family("classroom:num_requests_running_max", "gauge", "Most requests running at once during the run.")
    out.sample("classroom:num_requests_running_max", max(run_y, default=0))
    out.family("classroom:num_requests_waiting_max", "gauge", "Most requests waiting at once during the run.")
    out.sample("classroom:num_requests_waiting_max", max(wait_y, default=0))
    _write_kv_gauges(out, schedule.config.kv_blocks, metrics)


def _write_kv_gauges(out: _Writer, blocks: int | None, metrics: Metrics) -> None:
    """KV-cache usage as a share of `blocks` (mean and peak); nothing when blocks are not tracked."""
    if blocks:
        out.family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage, 1 means 100 percent (time-weighted mean).")
        out.sample("vllm:kv_cache_usage_perc", (metrics.kv_mean or 0.0) / blocks)
        out.family("classroom:kv_cache_usage_perc_max", "gauge", "Peak KV-cache usage, 1 means 100 percent.")
        out.sample("classroom:kv_cache_usage_perc_max", (metrics.kv_peak or 0) / blocks)


def _write_counters(out: _Writer, metrics: Metrics, emitted: list) -> None:
    """Preemptions, prompt and generation tokens, and requests by finish reason, over the whole run."""
    out.family("vllm:num_preemptions_total", "counter", "Cumulative number of preemptions.")
    out.sample("vllm:num_preemptions_total", metrics.preemptions)
    out.family("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed (recomputation included).")
    out.sample("vllm:prompt_tokens_total", metrics.prefill_tokens)
    out.family("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.")
    out.sample("vllm:generation_tokens_total", sum(map(len, emitted)))
    out.family("vllm:request_success_total", "counter", "Count of processed requests by finish reason.")
    for reason in ("length", "abort"):
        count = sum(1 for r in metrics.requests if FINISH_REASONS[r.finish_reason] == reason)
        out.sample("vllm:request_success_total", count, f'finished_reason="{reason}"')
    out.family("vllm:prefix_cache_queries_total", "counter",
               "Prefix cache queries, in tokens (each admission's prefill; 0 without prefix caching).")
    out.sample("vllm:prefix_cache_queries_total", metrics.prefix_queried)
    out.family("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in tokens.")
    out.sample("vllm:prefix_cache_hits_total", metrics.prefix_hits)


def _write_token_histograms(out: _Writer, schedule: Schedule, metrics: Metrics, done: list) -> None:
    """Prompt and generation tokens of each finished request, and tokens per engine step."""
    largest = max((r.prompt + r.output for r in metrics.requests), default=1)
    out.histogram("vllm:request_prompt_tokens", "Number of prefill tokens of each request.",
                  buckets_1_2_5(largest), [r.prompt for r, _ in done])
    out.histogram("vllm:request_generation_tokens", "Number of generation tokens of each request.",
                  buckets_1_2_5(largest), [r.output for r, _ in done])
    iteration_tokens, iterations = [], []
    for step in schedule.steps:
        iteration_tokens.append(step.prefill_tokens + step.decode_tokens)
        iterations.append(step.iterations)
    out.histogram("vllm:iteration_tokens_total", "Tokens (prefill and generation) per engine step.",
                  ITERATION_TOKEN_BUCKETS, iteration_tokens, iterations)


def _write_latency_histograms(out: _Writer, metrics: Metrics, done: list, gaps: dict[float, int], sec: float) -> None:
    """TTFT, inter-token gaps, TPOT and each request's end-to-end, queue, inference, prefill and decode times."""
    requests = metrics.requests
    out.histogram("vllm:time_to_first_token_seconds", "Time to first token in seconds.", TTFT_BUCKETS,
                  [r.ttft * sec for r in requests if r.ttft is not None])
    out.histogram("vllm:inter_token_latency_seconds", "Gap between consecutive output tokens in seconds.",
                  TOKEN_LATENCY_BUCKETS, [gap * sec for gap in gaps], list(gaps.values()))
    out.histogram("vllm:request_time_per_output_token_seconds", "Mean time per output token of each request.",
                  TOKEN_LATENCY_BUCKETS, [r.tpot * sec for r, _ in done])
    out.histogram("vllm:e2e_request_latency_seconds", "End-to-end request latency in seconds.",
                  REQUEST_LATENCY_BUCKETS, [r.e2e * sec for r, _ in done])
    out.histogram("vllm:request_queue_time_seconds", "Time from arrival to the first scheduled token-work.",
                  REQUEST_LATENCY_BUCKETS, [r.queue_time * sec for r in requests if r.queue_time is not None])
    out.histogram("vllm:request_inference_time_seconds", "Time from first scheduled to the last token.",
                  REQUEST_LATENCY_BUCKETS, [(t.completion - t.first_work) * sec for _, t in done])
    out.histogram("vllm:request_prefill_time_seconds", "Time from first scheduled to the first token.",
                  REQUEST_LATENCY_BUCKETS, [(t.first_token - t.first_work) * sec for _, t in done])
    out.histogram("vllm:request_decode_time_seconds", "Time from the first token to the last.",
                  REQUEST_LATENCY_BUCKETS, [(t.completion - t.first_token) * sec for _, t in done])


def prometheus_text(schedule: Schedule, metrics: Metrics, seconds_per_unit: float,
                    model_name: str = "batching-classroom", replica: int | None = None) -> str:
    """The exposition text of one run; `seconds_per_unit` converts its time unit (a tick, or a ms) to seconds.
    `replica`: one engine of a fleet, labelled `engine` (as vLLM labels its engines) and `replica`."""
    engine = 'engine="0"' if replica is None else f'engine="{replica}",replica="{replica}"'
    out = _Writer(f'model_name="{_label(model_name)}",{engine}')
    _write_gauges(out, schedule, metrics)
    emitted = schedule.emitted(compact=True)
    _write_counters(out, metrics, emitted)
    done = [(r, t) for r, t in zip(metrics.requests, schedule.requests) if r.finish_reason == "finished"]
    _write_token_histograms(out, schedule, metrics, done)
    _write_latency_histograms(out, metrics, done, gap_counts(emitted), seconds_per_unit)
    return "\n".join(out.lines) + "\n"


def fleet_text(parts: list[tuple[Schedule, Metrics]], seconds_per_unit: float,
               model_name: str = "batching-classroom") -> str:
    """The exposition text of a fleet (sim.core.cluster): every replica's samples, labelled with its index, under
    one HELP and TYPE a metric family, as a scrape of several engines' endpoints gathers them."""
    families: dict[str, tuple[list[str], list[str]]] = {}  # name -> (its HELP and TYPE, every replica's samples)
    for k, (schedule, metrics) in enumerate(parts):
        name = None
        for line in prometheus_text(schedule, metrics, seconds_per_unit, model_name, replica=k).splitlines():
            if line.startswith("# HELP "):
                name = line.split()[2]
                head, _ = families.setdefault(name, ([], []))
                if not head:
                    head.append(line)
            elif line.startswith("# TYPE "):
                head = families[name][0]
                if len(head) < 2:
                    head.append(line)
            else:
                families[name][1].append(line)
    return "\n".join(line for head, samples in families.values() for line in (*head, *samples)) + "\n"
