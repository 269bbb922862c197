"""The worked example told as a story: both runs as they stand at a chosen tick, the figures known by then (the
rest pending), and each tick's sentence with the rule behind it. The page plays it in one long run that draws
each tick in place and sleeps until the next; any click (Pause, a step, the speed) ends that run. (A fragment
rerunning itself on a timer lost clicks: Pause was at times ignored, or left the play stuck.)"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from sim.core.schedule import Schedule
from sim.report.explain import tick_facts
from sim.report.metrics import Metrics

from .i18n import t
from .narration import sentence
from .tables import PER_REQUEST, request_shape

PENDING = "…"  # a figure not known yet at the tick shown
SPEEDS = (0.5, 1.0, 2.0, 4.0)  # ticks a second while playing
TICK, PLAYING, SPEED = "ex_tick", "ex_playing", "ex_speed"
CLOCK = "ex_clock"  # the slider's key: it is drawn only while paused, and then set from the time (TICK)
OVERALL = ("makespan", "throughput", "padding_waste", "utilization", "ttft_p50", "e2e_p50")


@dataclass(frozen=True)
class Run:
    """One policy's run of the example: its key (static, continuous), schedule and metrics."""
    policy: str
    schedule: Schedule
    metrics: Metrics

    @property
    def end(self) -> int:
        return int(self.schedule.makespan)


def init() -> None:
    """The story starts at tick 0, paused, at one tick a second."""
    st.session_state.setdefault(TICK, 0)
    st.session_state.setdefault(PLAYING, False)
    st.session_state.setdefault(SPEED, 1.0)


def step(delta: int, end: int) -> None:
    """One tick back or forward (or to either end), within 0..end; a step pauses the play."""
    st.session_state[TICK] = min(end, max(0, st.session_state[TICK] + delta))
    st.session_state[PLAYING] = False


def play(end: int) -> None:
    """Play from where the story is (from the start when it is over)."""
    if st.session_state[TICK] >= end:
        st.session_state[TICK] = 0
    st.session_state[PLAYING] = True


def toggle_play(end: int) -> None:
    """The Play / Pause button (one button, so that it keeps its place while a play's long run draws)."""
    if st.session_state[PLAYING]:
        pause()
    else:
        play(end)


def pause() -> None:
    st.session_state[PLAYING] = False


def playing(end: int, sleep: Callable[[float], None] = time.sleep) -> Iterator[int]:
    """The times a play shows, from the current one to the end, 1/speed seconds apart; then the play stops.
    The time is kept in the session as it goes: a click that ends the page's run leaves it where it was seen."""
    while (now := st.session_state[TICK]) < end:
        yield now
        sleep(1 / st.session_state[SPEED])
        st.session_state[TICK] = now + 1
    yield end
    pause()


def moved_clock() -> None:
    """The slider's callback: the time the student chose (the play is paused whenever the slider is drawn)."""
    st.session_state[TICK] = st.session_state[CLOCK]


def clock_value() -> None:
    """Set the slider from the time before it is drawn. While the story plays, the page draws a progress bar
    instead: a slider whose value the script sets every tick would report older values back from the browser
    and pull the time back."""
    st.session_state[CLOCK] = st.session_state[TICK]


def _figure(value: float | None) -> str:
    """A figure for reading: at most three decimals (the seed's 1.375), no trailing zeros."""
    return PENDING if value is None else f"{round(value, 3):g}"


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


def request_table(runs: list[Run], now: float) -> pd.DataFrame:
    """Every request from the first tick (its rows never move), A's row above B's as in the lab: its shape,
    and each latency as known at `now`, rounded, with its unit; PENDING for what is not known yet."""
    rows = []
    for index in range(len(runs[0].metrics.requests)):
        for label, run in zip("AB", runs):
            r = run.metrics.requests[index]
            known = known_at(now, r)
            rows.append(request_shape(r, label, r.arrival) |
                        {t(f"short_{metric}"): _figure(known[metric]) for metric in PER_REQUEST})
    return pd.DataFrame(rows)


def overall_table(runs: list[Run], now: float) -> pd.DataFrame:
    """The run's overall figures, each known once its run has ended; A and B side by side."""
    rows = []
    for name in OVERALL:
        row = {t("col_metric"): t(f"ex_m_{name}")}
        for label, run in zip("AB", runs):
            value = _overall(run.metrics, name)
            shown = f"{round(value * 100, 1):g}%" if name == "utilization" else _figure(value)
            row[f"{label} · {t(f'policy_{run.policy}')}"] = shown if run.end <= now else PENDING
        rows.append(row)
    return pd.DataFrame(rows)


def _overall(m: Metrics, name: str) -> float:
    if name in ("ttft_p50", "e2e_p50"):
        return m.percentiles[name.removesuffix("_p50")][50]
    return getattr(m, name)


def sentences(run: Run, now: int) -> list[str]:
    """The sentence of each tick before `now` (ticks 0..now-1 have happened), with the rule behind it."""
    told: set[str] = set()  # each rule is said the first time it applies
    return [sentence(tick_facts(run.schedule, tick), run.policy, told) for tick in range(min(now, run.end))]


def narration(run: Run, now: int, recent: int = 4) -> tuple[str, str]:
    """Markdown lists: the earlier ticks, and the last `recent` ones with the latest highlighted (so that the
    sentence of the moment sits beside its chart); a prompt to start at time 0."""
    lines = sentences(run, now)
    if not lines:
        return "", t("ex_narration_empty")
    if now > run.end:
        lines.append(t("ex_done", tick=run.end))
    items = [f"- {line}" for line in lines[:-1]] + [f"- :blue-background[**{lines[-1]}**]"]
    split = max(0, len(items) - recent)
    return "\n".join(items[:split]), "\n".join(items[split:])
