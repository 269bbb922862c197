"""Serving metrics, read only from a Schedule: per request latencies and the run's totals and percentiles."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .config import SLO
from .schedule import Schedule

PERCENTILES = (50, 90, 99)
LATENCIES = ("queue_time", "ttft", "tpot", "e2e")


class RequestMetrics(NamedTuple):
    name: str
    arrival: float
    prompt: int
    output: int
    queue_time: float  # arrival to the first tick in which it gets token-work
    ttft: float  # arrival to its first emitted token
    tpot: float  # mean gap between its emitted tokens (0 for a one-token output)
    e2e: float  # arrival to its last token
    completion: float  # when its last token is emitted
    finish_reason: str
    meets_slo: bool


@dataclass(frozen=True, slots=True)
class Metrics:
    policy: str
    unit: str
    token_budget: int
    requests: tuple[RequestMetrics, ...]
    makespan: float  # from time 0 until the last token is emitted
    output_tokens: int
    throughput: float  # output tokens per unit of time over the makespan
    request_throughput: float  # finished requests per unit of time over the makespan
    prefill_tokens: int
    decode_tokens: int
    padding_waste: int  # padded prompt positions + idle decode slots of finished batch members
    utilization: float  # useful token-work (prefill + decode) / (token budget x makespan)
    percentiles: dict[str, dict[int, float]]  # latency -> {50: p50, 90: p90, 99: p99}
    goodput_requests: int  # requests that meet every given SLO
    goodput_tokens: int  # output tokens of those requests
    slo_attainment: float  # share of requests that meet every given SLO

    @property
    def goodput(self) -> float:
        """Requests meeting every SLO per unit of time (DistServe's goodput)."""
        return self.goodput_requests / self.makespan if self.makespan else 0.0


def percentiles(values: list[float]) -> dict[int, float]:
    """p50, p90 and p99 with linear interpolation between closest ranks (numpy's default)."""
    ordered = sorted(values)
    out = {}
    for q in PERCENTILES:
        if not ordered:
            out[q] = 0.0
            continue
        rank = (len(ordered) - 1) * q / 100
        low = int(rank)
        high = min(low + 1, len(ordered) - 1)
        out[q] = ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
    return out


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, kept an integer when whole ticks divide evenly (as the seed's means are)."""
    if isinstance(numerator, int) and numerator % denominator == 0:
        return numerator // denominator
    return numerator / denominator


def meets(slo: SLO, ttft: float, tpot: float, e2e: float) -> bool:
    return all(limit is None or value <= limit
               for limit, value in ((slo.ttft, ttft), (slo.tpot, tpot), (slo.e2e, e2e)))


def request_metrics(schedule: Schedule, slo: SLO) -> tuple[RequestMetrics, ...]:
    any_slo = slo != SLO()
    out = []
    for r in schedule.requests:
        ttft = r.first_token - r.arrival
        tpot = ratio(r.completion - r.first_token, r.output - 1) if r.output > 1 else 0
        e2e = r.completion - r.arrival
        out.append(RequestMetrics(r.name, r.arrival, r.prompt, r.output, r.first_work - r.arrival, ttft, tpot,
                                  e2e, r.completion, r.finish_reason, not any_slo or meets(slo, ttft, tpot, e2e)))
    return tuple(out)


def compute(schedule: Schedule, slo: SLO | None = None) -> Metrics:
    """Every metric of the run; `slo` defaults to the thresholds of the schedule's config."""
    slo = schedule.config.slo if slo is None else slo
    requests = request_metrics(schedule, slo)
    makespan = schedule.makespan
    prefill = decode = padding = 0
    for s in schedule.steps:
        prefill += s.prefill_tokens * s.iterations
        decode += s.decode_tokens * s.iterations
        padding += s.padding_tokens * s.iterations
    output_tokens = sum(r.output for r in requests)
    good = [r for r in requests if r.meets_slo]
    per_time = (lambda x: x / makespan) if makespan else (lambda x: 0.0)
    budget = schedule.config.token_budget
    return Metrics(
        policy=schedule.policy, unit=schedule.unit, token_budget=budget, requests=requests,
        makespan=makespan, output_tokens=output_tokens, throughput=per_time(output_tokens),
        request_throughput=per_time(len(requests)), prefill_tokens=prefill, decode_tokens=decode,
        padding_waste=padding, utilization=per_time((prefill + decode) / budget),
        percentiles={name: percentiles([getattr(r, name) for r in requests]) for name in LATENCIES},
        goodput_requests=len(good), goodput_tokens=sum(r.output for r in good),
        slo_attainment=len(good) / len(requests) if requests else 0.0)


def inter_token_gaps(schedule: Schedule) -> list[list[float]]:
    """Per request, the gaps between consecutive emitted tokens (TPOT is their mean)."""
    return [[b - a for a, b in zip(times, times[1:])] for times in schedule.emitted()]
