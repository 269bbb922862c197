"""The worked example told as a story: what is known at each time on the clock, and what is said of it.

At time `now`, ticks 0 to now - 1 have run. Each run's narration says what the tick just run did and the rules
behind it, for as long as they apply; the tables hold each figure from the moment it is known (PENDING before);
the summary waits for both runs to end. ui/story_figure.py draws all of it, a frame a time, for the browser to
play."""
from __future__ import annotations

from dataclasses import dataclass

from sim.core.schedule import Schedule
from sim.report.explain import tick_facts
from sim.report.metrics import Metrics

from .i18n import sentences, t
from .narration import reasons, sentence
from .numbers import number, quantity, rounded, share
from .text import plotly_text

PENDING = "…"  # a figure not known yet at the time shown
OVERALL = ("makespan", "throughput", "padding_waste", "utilization", "ttft_p50", "e2e_p50")
PER_REQUEST = ("queue_time", "ttft", "tpot", "e2e")


@dataclass(frozen=True)
class Run:
    """One policy's run of the example: its key (static, continuous), schedule and metrics."""
    policy: str
    schedule: Schedule
    metrics: Metrics

    @property
    def end(self) -> int:
        return int(self.schedule.makespan)


def known_at(now: float, request) -> dict[str, float | None]:
    """A request's latencies as far as they are known at time `now` (ticks before `now` have happened): its
    queue time once its first tick of work is done, TTFT once its first token is out, TPOT and E2E once it has
    finished; None where not yet."""
    started = request.arrival + request.queue_time if request.queue_time is not None else None
    first = request.arrival + request.ttft if request.ttft is not None else None
    done = request.completion
    return {"queue_time": request.queue_time if started is not None and started < now else None,
            "ttft": request.ttft if first is not None and first <= now else None,
            "tpot": request.tpot if done is not None and done <= now else None,
            "e2e": request.e2e if done is not None and done <= now else None}


def request_rows(runs: list[Run], now: float) -> list[list[str]]:
    """A row a request and policy (static above continuous): its name, the policy, and each latency as known at
    `now`, rounded; PENDING for what is not known yet."""
    rows = []
    for index in range(len(runs[0].metrics.requests)):
        for run in runs:
            r = run.metrics.requests[index]
            known = known_at(now, r)
            rows.append([plotly_text(r.name), t(f"short_policy_{run.policy}"),
                         *(number(known[m], PENDING) for m in PER_REQUEST)])
    return rows


def overall_rows(runs: list[Run], now: float) -> list[list[str]]:
    """The runs' overall figures, each known once its run has ended."""
    rows = []
    for name in OVERALL:
        values = [_overall(run.metrics, name) for run in runs]
        shown = [(share(v) if name == "utilization" else number(v)) if run.end <= now else PENDING
                 for run, v in zip(runs, values)]
        rows.append([t(f"ex_m_{name}"), *shown])
    return rows


def _overall(m: Metrics, name: str) -> float:
    if name in ("ttft_p50", "e2e_p50"):
        return m.percentiles[name.removesuffix("_p50")][50]
    return getattr(m, name)


def told(run: Run, now: int) -> tuple[str, list[str]]:
    """What the narration says at time `now`: the sentence of the tick just run (now - 1) and the rules behind
    it; a prompt to start at time 0 and the end once the run is over, each with the policy's rule."""
    if now == 0:
        return t("ex_narration_empty"), [t(f"policy_rule_{run.policy}")]
    if now > run.end:
        return t("ex_done", tick=run.end), [t(f"policy_rule_{run.policy}")]
    facts = tick_facts(run.schedule, now - 1)
    return sentence(facts), reasons(facts, run.policy)


def takeaway(runs: list[Run], now: int) -> str:
    """The summary once both runs are over: each policy's makespan, waste, throughput and the last request's
    TTFT, from the runs' metrics."""
    if now < max(run.end for run in runs):
        return t("ex_takeaway_pending")
    name = runs[0].metrics.requests[-1].name
    parts = [t("ex_takeaway_run", policy=t(f"policy_{run.policy}"), makespan=quantity(run.metrics.makespan, "tick"),
               waste=number(run.metrics.padding_waste), name=plotly_text(name),
               throughput=t(f"ex_rate_{'one' if rounded(run.metrics.throughput) == 1 else 'many'}",
                            rate=number(run.metrics.throughput)),
               ttft=quantity(run.metrics.requests[-1].ttft, "tick")) for run in runs]
    tpots = {r.tpot for run in runs for r in run.metrics.requests}
    if len(tpots) == 1:
        parts.append(t("ex_takeaway_tpot", tpot=number(tpots.pop())))
    return sentences(parts)
