"""Serving metrics, read only from a Schedule: per request latencies and how it ended, the run's totals,
percentiles and goodput, and tables per tenant or priority."""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from operator import attrgetter, sub
from typing import NamedTuple

from ..core.cluster import ClusterRun, SplitRun
from ..core.config import SLO
from ..core.schedule import IterationRun, Schedule
from ..core.stream import sent_by

PERCENTILES = (50, 90, 99)
LATENCIES = ("queue_time", "ttft", "tpot", "e2e")


class RequestMetrics(NamedTuple):
    name: str
    arrival: float
    prompt: int
    output: int
    queue_time: float | None  # arrival to the first iteration in which it gets token-work
    ttft: float | None  # arrival to its first emitted token
    tpot: float | None  # mean gap between its emitted tokens (0 for a one-token output); finished requests
    e2e: float | None  # arrival to its last token; finished requests
    completion: float | None  # when its last token is emitted; finished requests
    finish_reason: str  # finished, cancelled, disconnected (its client went away) or rejected
    meets_slo: bool
    delivered: int  # output tokens its user received
    wasted: int  # tokens generated for it but never delivered (made after its cancel)
    preemptions: int
    recomputed: int
    tenant: str
    priority: int
    generated: int = 0  # output tokens made for it (some maybe never delivered)
    sent: int = 0  # of those, the tokens its client read (before it stopped or went away)
    paused: float = 0  # time it held its slot without decoding, waiting for its client to read


@dataclass(frozen=True, slots=True)
class Metrics:
    policy: str
    unit: str
    token_budget: int
    requests: tuple[RequestMetrics, ...]
    makespan: float  # from time 0 until the last request leaves the batch
    output_tokens: int  # tokens delivered
    throughput: float  # delivered output tokens per unit of time over the makespan
    request_throughput: float  # finished requests per unit of time over the makespan
    prefill_tokens: int
    decode_tokens: int  # decode token-work (k + 1 a step with speculative decoding)
    padding_waste: int  # padded prompt positions + idle decode slots of finished batch members
    utilization: float  # useful token-work / the budget over the makespan (ticks) or the iterations (ms)
    percentiles: dict[str, dict[int, float]]  # latency (and "itl": every inter-token gap) -> {50: p50, ...}
    goodput_requests: int  # finished requests that meet every given SLO
    goodput_tokens: int  # output tokens of those requests
    slo_attainment: float  # share of all requests that finished meeting every given SLO
    finished: int
    cancelled: int
    rejected: int
    preemptions: int
    recomputed_tokens: int
    swapped_blocks: int
    wasted_tokens: int
    unsent_tokens: int  # tokens made that no client read: generated - sent (the design document's waste)
    prefix_queried: int  # prefix caching: prefill tokens looked up in the cache (each admission's whole prefill)
    prefix_hits: int  # of those, the tokens found cached (they skipped prefill)
    disconnected: int  # requests whose client went away before they finished
    graph_padding: int
    spec_accepted: int
    kv_peak: int | None  # KV blocks, at most and on average over the makespan (None: not tracked)
    kv_mean: float | None

    @property
    def prefix_hit_rate(self) -> float:
        """Share of the prefill tokens looked up in the prefix cache that it held."""
        return self.prefix_hits / self.prefix_queried if self.prefix_queried else 0.0

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


def weighted_percentiles(counts: Mapping[float, int]) -> dict[int, float]:
    """`percentiles` of a multiset given as {value: how many times}, without listing it out."""
    values = sorted(v for v, n in counts.items() if n > 0)
    ends = list(accumulate(counts[v] for v in values))  # ends[i]: rank after the last copy of values[i]
    total = ends[-1] if ends else 0

    def at(rank: int) -> float:
        return values[bisect_right(ends, rank)]

    out = {}
    for q in PERCENTILES:
        if not total:
            out[q] = 0.0
            continue
        rank = (total - 1) * q / 100
        low = int(rank)
        high = min(low + 1, total - 1)
        out[q] = at(low) + (at(high) - at(low)) * (rank - low)
    return out


def gap_counts(emitted: list[Sequence[float]]) -> Counter:
    """How many times each gap between consecutive emitted tokens occurs, over every request; a request's
    run of tokens one iteration apart (a range) counts in one step, not token by token, and so do runs of
    consecutive iterations (IterationRun): each gap between two iterations counts once for all who span it."""
    counts = Counter()
    spans: dict[int, tuple[list[float], list[int]]] = {}  # per list of iteration ends: +1 where runs start, -1 end
    for times in emitted:
        if isinstance(times, range):
            if len(times) > 1:
                counts[times.step] += len(times) - 1
        elif isinstance(times, IterationRun):
            if len(times) > 1:
                if id(times.ends) not in spans:
                    spans[id(times.ends)] = (times.ends, [0] * len(times.ends))
                edges = spans[id(times.ends)][1]
                edges[times.first] += 1
                edges[times.first + len(times) - 1] -= 1
        else:
            counts.update(map(sub, times[1:], times))  # (b - a for each pair, without a Python loop)
    for ends, edges in spans.values():
        for gap, spanned in zip(map(sub, ends[1:], ends), accumulate(edges)):
            if spanned:
                counts[gap] += spanned
    return counts


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, kept an integer when whole ticks divide evenly (as the seed's means are)."""
    if isinstance(numerator, int) and numerator % denominator == 0:
        return numerator // denominator
    return numerator / denominator


def meets(slo: SLO, ttft: float, tpot: float, e2e: float) -> bool:
    return all(limit is None or value <= limit
               for limit, value in ((slo.ttft, ttft), (slo.tpot, tpot), (slo.e2e, e2e)))


def request_metrics(schedule: Schedule, slo: SLO, emitted: list[Sequence[float]]) -> tuple[RequestMetrics, ...]:
    any_slo = slo != SLO()
    options = schedule.options
    pauses = options is None or options.stream_credits is not None  # (only a client out of credit pauses a decoder)
    out = []
    for index, r in enumerate(schedule.requests):
        queue = None
        for segment in r.segments:  # its first segment of token-work ends its queue time
            if segment.phase == "prefill" or segment.phase == "decode":
                queue = segment.start - r.arrival
                break
        ttft = None if r.first_token is None else r.first_token - r.arrival
        tpot = e2e = None
        delivered, wasted = 0, 0
        times = emitted[index]
        until = r.cancel_time if r.cancel_time is not None else r.disconnect_at
        sent = len(times) if until is None else sent_by(times, r.read_rate, until)  # (read whole in the end)
        paused = sum(s.end - s.start for s in r.segments if s.phase == "paused") if pauses else 0
        if r.finish_reason == "finished":
            tpot = ratio(r.completion - r.first_token, r.output - 1) if r.output > 1 else 0
            e2e = r.completion - r.arrival
            delivered = r.output
        elif r.cancel_time is not None:
            delivered = sum(1 for t in times if t <= r.cancel_time)
            wasted = len(times) - delivered
        good = r.finish_reason == "finished" and (not any_slo or meets(slo, ttft, tpot, e2e))
        out.append(_tuple(RequestMetrics, (r.name, r.arrival, r.prompt, r.output, queue, ttft, tpot, e2e, r.completion,
                                           r.finish_reason, good, delivered, wasted, r.preemptions, r.recomputed,
                                           r.tenant, r.priority, len(times), sent, paused)))
    return tuple(out)


_tuple = tuple.__new__  # _tuple(RequestMetrics, (every field)): without NamedTuple's __new__, a Python call


class _StepTotals(NamedTuple):
    """Sums over the steps of a run, each step counted once per iteration it stands for."""
    prefill: int
    decode: int
    padding: int
    graph: int
    accepted: int
    iterations: int


def _step_totals(schedule: Schedule) -> _StepTotals:
    """Token-work, padding, graph padding and accepted draft tokens summed over every iteration of the run."""
    prefill = decode = padding = graph = accepted = iterations = 0
    for s in schedule.steps:
        n = s.iterations
        prefill += s.prefill_tokens * n
        decode += s.decode_tokens * n
        padding += s.padding_tokens * n
        graph += s.graph_padding * n
        accepted += s.spec_accepted * n
        iterations += n
    return _StepTotals(prefill, decode, padding, graph, accepted, iterations)


def _kv_usage(schedule: Schedule) -> tuple[int | None, float]:
    """The peak KV blocks (None when not tracked) and blocks times time summed over the steps."""
    kv_peak, kv_area = None, 0
    if schedule.config.kv_blocks:
        kv_peak = max((s.kv_blocks for s in schedule.steps), default=0)
        kv_area = sum(s.kv_blocks * (s.end - s.start) for s in schedule.steps)
    return kv_peak, kv_area


def _all_percentiles(requests: Sequence[RequestMetrics], emitted: list[Sequence[float]]) -> dict[str, dict]:
    """Percentiles of each latency over the requests that have it, and of every inter-token gap ("itl")."""
    return {**{name: percentiles([v for v in map(attrgetter(name), requests) if v is not None])
               for name in LATENCIES},
            "itl": weighted_percentiles(gap_counts(emitted))}


def compute(schedule: Schedule, slo: SLO | None = None, emitted: list[Sequence[float]] | None = None) -> Metrics:
    """Every metric of the run; `slo` defaults to the thresholds of the schedule's config. `emitted` may pass
    schedule.emitted() when the caller has it already."""
    slo = schedule.config.slo if slo is None else slo
    emitted = schedule.emitted(compact=True) if emitted is None else emitted
    requests = request_metrics(schedule, slo, emitted)
    makespan = schedule.makespan
    totals = _step_totals(schedule)
    kv_peak, kv_area = _kv_usage(schedule)
    output_tokens = sum(r.delivered for r in requests)
    good = [r for r in requests if r.meets_slo]
    reasons = [r.finish_reason for r in requests]
    per_time = (lambda x: x / makespan) if makespan else (lambda x: 0.0)
    budget = schedule.config.token_budget
    budget_time = makespan if schedule.unit == "tick" else totals.iterations
    timelines = schedule.requests
    return Metrics(
        policy=schedule.policy, unit=schedule.unit, token_budget=budget, requests=requests,
        makespan=makespan, output_tokens=output_tokens, throughput=per_time(output_tokens),
        request_throughput=per_time(reasons.count("finished")), prefill_tokens=totals.prefill,
        decode_tokens=totals.decode, padding_waste=totals.padding,
        utilization=(totals.prefill + totals.decode) / (budget * budget_time) if budget_time else 0.0,
        percentiles=_all_percentiles(requests, emitted),
        goodput_requests=len(good), goodput_tokens=sum(r.output for r in good),
        slo_attainment=len(good) / len(requests) if requests else 0.0,
        finished=reasons.count("finished"), cancelled=reasons.count("cancelled"), rejected=reasons.count("rejected"),
        preemptions=sum(t.preemptions for t in timelines), recomputed_tokens=sum(t.recomputed for t in timelines),
        swapped_blocks=sum(t.swapped_blocks for t in timelines), wasted_tokens=sum(r.wasted for r in requests),
        unsent_tokens=sum(r.generated - r.sent for r in requests), disconnected=reasons.count("disconnected"),
        prefix_queried=sum(t.queried for t in timelines), prefix_hits=sum(t.cached for t in timelines),
        graph_padding=totals.graph, spec_accepted=totals.accepted, kv_peak=kv_peak,
        kv_mean=kv_area / makespan if kv_peak is not None and makespan else None)


def inter_token_gaps(schedule: Schedule) -> list[list[float]]:
    """Per request, the gaps between consecutive emitted tokens (TPOT is their mean)."""
    return [[b - a for a, b in zip(times, times[1:])] for times in schedule.emitted()]


GROUP_COLUMNS = ("requests", "finished", "cancelled", "rejected", "goodput", "tokens", "ttft_p50", "ttft_p90",
                 "tpot_p50", "e2e_p50", "e2e_p90")


def group_table(metrics: Metrics, key: str) -> list[dict]:
    """One row per tenant (key="tenant") or priority (key="priority"): counts, tokens and latencies."""
    groups: dict[object, list[RequestMetrics]] = {}
    for r in metrics.requests:
        groups.setdefault(getattr(r, key), []).append(r)
    rows = []
    for value in sorted(groups, key=lambda v: (str(type(v)), v)):
        members = groups[value]
        ttft = percentiles([r.ttft for r in members if r.ttft is not None])
        tpot = percentiles([r.tpot for r in members if r.tpot is not None])
        e2e = percentiles([r.e2e for r in members if r.e2e is not None])
        reasons = [r.finish_reason for r in members]
        rows.append({key: value, "requests": len(members), "finished": reasons.count("finished"),
                     "cancelled": reasons.count("cancelled"), "rejected": reasons.count("rejected"),
                     "goodput": sum(r.meets_slo for r in members), "tokens": sum(r.delivered for r in members),
                     "ttft_p50": ttft[50], "ttft_p90": ttft[90], "tpot_p50": tpot[50], "e2e_p50": e2e[50],
                     "e2e_p90": e2e[90]})
    return rows


def _left_queue(request) -> float | None:
    """When a request stopped waiting: its first token-work, else its cancel or its rejection."""
    if request.first_work is not None:
        return request.first_work
    if request.cancel_time is not None:
        return request.cancel_time
    return request.arrival if request.finish_reason == "rejected" else None


def idle_while_waiting(*schedules: Schedule) -> float:
    """Share of the token budget left unused in iterations that began while a request waited for its first
    token-work: budget a scheduler could not give away (a prompt admitted only whole fits in none of what was
    left, or a closed static batch). Iterations are counted, so it reads the same in ticks and in ms. Several
    schedules (a fleet's replicas): each replica's idle budget over all of theirs."""
    idle = total = 0
    for schedule in schedules:
        unused, budget = _idle_budget(schedule)
        idle, total = idle + unused, total + budget
    return idle / total if total else 0.0


def _idle_budget(schedule: Schedule) -> tuple[float, int]:
    """The budget one engine left idle while a request waited (idle_while_waiting), and its whole budget."""
    starts = sorted(r.arrival for r in schedule.requests)
    firsts = sorted(left for left in map(_left_queue, schedule.requests) if left is not None)
    budget = schedule.config.token_budget
    idle = total = 0
    for step in schedule.steps:
        total += budget * step.iterations
        unused = budget - step.token_work
        if unused <= 0:
            continue
        if bisect_right(starts, step.start) > bisect_right(firsts, step.start):
            idle += unused * step.iterations
            continue
        # Nobody waits as it begins. Nobody is admitted inside a step (that would change the batch), so from the
        # first arrival inside it on, somebody waits to its end.
        following = bisect_right(starts, step.start)
        if following < len(starts) and starts[following] < step.end:
            length = (step.end - step.start) / step.iterations
            waited = step.iterations - math.ceil((starts[following] - step.start) / length)
            idle += unused * waited
    return idle, total


def slowest_prompt(metrics: Metrics, share: float = 0.01) -> float | None:
    """Mean prompt of the `share` of requests with the longest TTFT (at least one): who starves."""
    timed = sorted((r for r in metrics.requests if r.ttft is not None), key=attrgetter("ttft"), reverse=True)
    slow = timed[:max(1, round(len(timed) * share))]
    return sum(r.prompt for r in slow) / len(slow) if slow else None


def combine(parts: Sequence[tuple[Schedule, Metrics, list[Sequence[float]]]], requests: Sequence[RequestMetrics],
            emitted: Sequence[Sequence[float]]) -> Metrics:
    """The metrics of a fleet (sim.core.cluster) from each replica's (Schedule, Metrics, emitted times) and every
    request of the trace, in its order, with its emitted times (`fleet_requests`, `split_requests`). The
    percentiles (every inter-token gap too), goodput and what was delivered are over those requests; the
    token-work and the scheduler's counts add up over the replicas; time is the fleet's (the latest replica's
    makespan), so throughput is the fleet's. Utilization is the token-work done over what every replica's budget
    could have done then; the KV peak is the fullest replica's, and the KV mean the replicas' mean."""
    metrics = [m for _, m, _ in parts]
    first = metrics[0]
    requests = tuple(requests)
    makespan = max(m.makespan for m in metrics)
    per_time = (lambda x: x / makespan) if makespan else (lambda x: 0.0)
    work = {name: sum(getattr(m, name) for m in metrics) for name in (
        "prefill_tokens", "decode_tokens", "padding_waste", "preemptions", "recomputed_tokens", "swapped_blocks",
        "prefix_queried", "prefix_hits", "graph_padding", "spec_accepted")}
    if first.unit == "tick":
        capacity = first.token_budget * makespan * len(parts)
    else:  # (a latency model's utilization is per iteration run)
        capacity = first.token_budget * sum(_step_totals(s).iterations for s, _, _ in parts)
    good = [r for r in requests if r.meets_slo]
    reasons = [r.finish_reason for r in requests]
    output_tokens = sum(r.delivered for r in requests)
    peaks = [m.kv_peak for m in metrics if m.kv_peak is not None]
    means = [m.kv_mean for m in metrics if m.kv_mean is not None]
    return replace(
        first, requests=requests, makespan=makespan, output_tokens=output_tokens,
        throughput=per_time(output_tokens), request_throughput=per_time(reasons.count("finished")),
        utilization=(work["prefill_tokens"] + work["decode_tokens"]) / capacity if capacity else 0.0,
        percentiles=_all_percentiles(requests, list(emitted)), goodput_requests=len(good),
        goodput_tokens=sum(r.output for r in good), slo_attainment=len(good) / len(requests) if requests else 0.0,
        finished=reasons.count("finished"), cancelled=reasons.count("cancelled"),
        rejected=reasons.count("rejected"), disconnected=reasons.count("disconnected"),
        wasted_tokens=sum(r.wasted for r in requests), unsent_tokens=sum(r.generated - r.sent for r in requests),
        kv_peak=max(peaks) if peaks else None, kv_mean=sum(means) / len(means) if means else None, **work)


def fleet_requests(parts: Sequence[tuple[Schedule, Metrics, list[Sequence[float]]]], placed: Sequence[int],
                   local: Sequence[int]) -> tuple[list[RequestMetrics], list[Sequence[float]]]:
    """Every request's metrics and emitted times, in the trace's order, from the replica it was placed on."""
    return ([parts[k][1].requests[i] for k, i in zip(placed, local)],
            [parts[k][2][i] for k, i in zip(placed, local)])


def split_requests(trace_outputs: Sequence[int], prefill: tuple, decode: tuple, handed: Sequence[int],
                   slo: SLO) -> tuple[list[RequestMetrics], list[list[float]]]:
    """Every request's metrics and emitted times, in the trace's order, under prefill/decode disaggregation
    (sim.core.cluster.simulate_split): its queue time and first token from its prefill replica, the rest of its
    tokens from its decode replica (`prefill` and `decode`: each side's fleet_requests). `trace_outputs`: each
    request's output tokens in the trace."""
    on_decode = {j: d for d, j in enumerate(handed)}
    requests, emitted = [], []
    for j, (p, first_times) in enumerate(zip(*prefill)):
        output = trace_outputs[j]
        if j not in on_decode:  # (one output token, or it never got past its prefill)
            requests.append(p._replace(output=output))
            emitted.append(list(first_times))
            continue
        d, rest = decode[0][on_decode[j]], decode[1][on_decode[j]]
        finished = d.finish_reason == "finished"
        first_token = p.completion
        tpot = ratio(d.completion - first_token, output - 1) if finished else None
        e2e = d.completion - p.arrival if finished else None
        requests.append(RequestMetrics(
            p.name, p.arrival, p.prompt, output, p.queue_time, p.ttft, tpot, e2e, d.completion if finished else None,
            d.finish_reason, finished and meets(slo, p.ttft, tpot, e2e), p.delivered + d.delivered,
            p.wasted + d.wasted, p.preemptions + d.preemptions, p.recomputed + d.recomputed, p.tenant, p.priority,
            p.generated + d.generated, p.sent + d.sent, p.paused + d.paused))
        emitted.append([*first_times, *rest])
    return requests, emitted


Part = tuple[Schedule, Metrics, list[Sequence[float]]]  # one replica's Schedule, Metrics and emitted times


def replica_parts(schedules: Sequence[Schedule], compact: bool = False) -> list[Part]:
    """Each replica's (Schedule, Metrics, emitted times); `compact` as Schedule.emitted's."""
    parts = []
    for schedule in schedules:
        emitted = schedule.emitted(compact)
        parts.append((schedule, compute(schedule, emitted=emitted), emitted))
    return parts


def cluster_metrics(run: ClusterRun, compact: bool = False) -> tuple[list[Part], Metrics]:
    """A fleet's run (sim.core.cluster.simulate_cluster): each replica's part and the fleet's metrics."""
    parts = replica_parts(run.schedules, compact)
    return parts, combine(parts, *fleet_requests(parts, run.placed, run.local))


def split_metrics(run: SplitRun, trace_outputs: Sequence[int], slo: SLO, compact: bool = False
                  ) -> tuple[list[Part], list[Part], Metrics, list[list[float]]]:
    """A disaggregated run (sim.core.cluster.simulate_split): the prefill replicas' parts, the decode replicas',
    the fleet's metrics, and every request's emitted times in the trace's order."""
    prefill, decode = replica_parts(run.prefill.schedules, compact), replica_parts(run.decode.schedules, compact)
    requests, emitted = split_requests(trace_outputs, fleet_requests(prefill, run.prefill.placed, run.prefill.local),
                                       fleet_requests(decode, run.decode.placed, run.decode.local), run.handed, slo)
    return prefill, decode, combine(prefill + decode, requests, emitted), emitted
