"""The real-model page's machinery: the model shared by every session, runs one at a time, streaming text
while a run goes, and the simulator's prediction beside the measurement."""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

import gpu_demo.compare
from gpu_demo.compare import Calibration, calibrate, measured_policy
from gpu_demo.compare import compare as compare  # the page predicts runs with it
from gpu_demo.engine import EngineRun, run
from gpu_demo.loading import load_model
from gpu_demo.machine import Threads, choose_threads
from gpu_demo.model import GPT
from gpu_demo.profile import machine_profile
from gpu_demo.prompts import fit_to_context, prompts_for, with_text_lengths
from gpu_demo.train import CARD
from sim import codec
from sim.core.cluster import Routing, Split
from sim.core.config import Config, Policy
from sim.core.profile import read_profile
from sim.report.metrics import compute
from sim.trace.chat import count
from sim.trace.generate import Uniform, generate
from sim.trace.trace import Trace, validate

from . import lab_state
from .charts import graph_chart, swap_chart
from .i18n import t
from .numbers import duration, number, share, signed
from .session import WIDGET, page_state
from .tables import metric_label, policy_name, shown
from .text import md_escape

if TYPE_CHECKING:
    from .model_fleet import FleetShown

STREAMED = 6  # requests whose text streams on the page while a run goes
REDRAW = 0.25  # seconds between two redraws of a run's progress and text: as fast as anyone reads, and every
# redraw is a message the server sends while other sessions wait on it (every 4 iterations was 15% of its CPU)
MAX_REQUESTS = 64  # a run holds the one shared model: at most this many requests (the CLI takes any number)
DTYPES = ("float32", "float64")  # the page's choice; the first is what a visitor gets (and the server warms up)


STATE_KEY = "real_model"  # the page's RealModelState


@dataclass(slots=True)
class ModelRun:
    """The runs the page shows: each policy's, what they ran, and what the predictions beside them are made from:
    this machine's profile (`profiled`: measured for these runs, the machine's first) and, for each run, the
    threads it ran on and the calibration taken just before it."""
    results: list[EngineRun]
    config: Config
    policies: tuple[Policy, Policy]
    trace: Trace
    arrival_unit: str
    profile: Path
    profiled: bool
    threads: list[Threads]
    calibrations: list[Calibration]


@dataclass(frozen=True, slots=True)
class FleetSettings:
    """The page's fleet form (ui.model_fleet): the layout, replicas and router, or the prefill and decode replicas
    and a KV transfer's fixed and per-block cost (ms)."""
    layout: str = "split"  # ui.model_fleet.LAYOUTS
    replicas: int = 2
    router: str = "round-robin"
    prefill: int = 1
    decode: int = 1
    latency: float = 0.0
    per_block: float = 0.0

    def routing(self) -> Routing:
        return Routing(self.replicas if self.layout == "replicas" else 1, self.router)

    def split(self) -> Split | None:
        return Split(self.prefill, self.decode, self.latency, self.per_block) if self.layout == "split" else None

    def engines(self) -> int:
        return self.replicas if self.layout == "replicas" else self.prefill + self.decode


SOURCES = ("mixed", "short_chats", "long_outputs", "chats", "shared_prompt", "slow_reader", "disconnect", "lab")


@dataclass(slots=True)
class RealModelState:
    """The real-model page's session state, under STATE_KEY: the settings its widgets keep (session.kept, each
    widget's key "rm_" + the field's name), the policies its forms edit, the runs shown, and the policy last given
    to the lab (its side, draft tokens and acceptance)."""
    dtype: str = DTYPES[0]
    arrivals: str = "tick"  # the unit of the trace's arrivals: "tick" (one an iteration) or "ms"
    source: str = SOURCES[0]  # the trace served: a preset, or "lab"
    prompt_seed: int = 0
    template: str = "none"  # sim.trace.chat.TEMPLATES
    budget: int = 512  # the token budget
    max_seqs: int = 8  # 0: no limit
    kv_blocks: int = 0  # 0: room for every slot
    first: str = "decode"  # the first token's mode (sim.core.config.FIRST_TOKEN_MODES)
    policy_a: Policy = field(default_factory=lambda: Policy(batching="static"))
    policy_b: Policy = field(default_factory=Policy)
    shown: ModelRun | None = None
    in_lab: tuple[str, int, float] | None = None
    fleet: FleetSettings = field(default_factory=FleetSettings)  # its widgets' keys: "rm_fleet_" + the field's name
    fleet_shown: FleetShown | None = None


def void_limit() -> float:
    """The drift beyond which a run's comparison is void (gpu_demo.compare.VOID_DRIFT), read when the page names
    it, not copied at import."""
    return gpu_demo.compare.VOID_DRIFT


def init_state() -> RealModelState:
    return page_state(STATE_KEY, RealModelState)


def default_device() -> str:
    """The device the model runs on: the GPU when there is one."""
    import torch  # already imported by gpu_demo; here so the page itself never touches torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def run_config(budget: float, max_seqs: float, first_token: str, kv_blocks: float = 0) -> Config:
    """The budgets of the page's form as a Config, read as the lab's forms are (sim.codec.typed: 0 sequences is no
    limit, 0 KV blocks room for every slot); raises ConfigError naming a field."""
    shown = {"token_budget": budget, "max_seqs": max_seqs, "first_token": first_token, "kv_blocks": kv_blocks}
    return codec.build(Config, {name: codec.typed(name, value) for name, value in shown.items()})


@st.cache_resource(show_spinner=False)
def shared_model(device: str, dtype: str) -> GPT:
    """One model per server (and device, dtype), shared by every session, warmed up."""
    model = load_model(device, dtype)
    warm_up(model)
    return model


def warm_up(model: GPT) -> None:
    """One small run, its timings thrown away: a process's first forward passes pay one-off costs (kernels
    chosen, memory first touched) that would otherwise land on the first run measured, always A's."""
    trace, prompts = prepare(generate(4, rate=2.0, prompt=Uniform(8, 64), output=Uniform(4, 8), seed=1),
                             model.config.context, 0)
    run(model, trace, prompts, Config(512, 8), Policy())


@st.cache_resource(show_spinner=False)
def model_lock() -> threading.Lock:
    """Runs take turns: the model is one, and a run's timings would mean nothing with another beside it."""
    return threading.Lock()


def model_card() -> dict:
    return json.loads(CARD.read_text()) if CARD.exists() else {}


# Prompts given in words, in English and Chinese, some with a system message: each fits the model's context of
# 256 bytes under every chat template (the longest, Llama 3's, makes c5 241 bytes with its output).
CHATS = (("c1", 0, "You write Python.", "Reverse a list.", 32), ("c2", 1, "", "def fib(n):", 48),
         ("c3", 2, "Answer briefly.", "什么是批处理？", 24), ("c4", 4, "", "import os", 40),
         ("c5", 5, "You are a helpful assistant.", "Sort names.", 32), ("c6", 7, "", "你好", 16))


# One system prompt, eight questions: short enough for every chat template to fit the context unscaled (a scaled
# trace loses its text, and with it what the prompts share).
SHARED_SYSTEM = "You review Python. Reply with short code."
QUESTIONS = ("Reverse a list.", "Sort a dict.", "Read a CSV file.", "Count words.", "Merge two lists.",
             "Find the max.", "Parse a date.", "Flatten a list.")


def presets() -> dict[str, Trace]:
    """Traces sized for the model's context of 256 bytes."""
    chats = validate([{"name": name, "arrival": arrival, "system": system, "text": text, "output": output}
                      for name, arrival, system, text, output in CHATS])
    shared = validate([{"name": f"q{i}", "arrival": i - 1, "system": SHARED_SYSTEM, "text": text, "output": 16}
                       for i, text in enumerate(QUESTIONS, start=1)])
    clients = generate(8, rate=1.0, prompt=Uniform(16, 48), output=Uniform(48, 96), seed=6).rows()
    return {"mixed": generate(24, rate=1.5, prompt=Uniform(16, 96), output=Uniform(4, 96), seed=3),
            "short_chats": generate(32, rate=2.0, prompt=Uniform(8, 32), output=Uniform(8, 32), seed=4),
            "long_outputs": generate(16, rate=0.5, prompt=Uniform(16, 48), output=Uniform(64, 160), seed=5),
            "chats": chats,
            "shared_prompt": shared,
            # one client reads SLOW_READER tokens a ms, the others as fast as they come
            "slow_reader": validate([row | {"read_rate": SLOW_READER} if i == 1 else row
                                     for i, row in enumerate(clients)]),
            # one client goes away DISCONNECT_AFTER iterations after its request arrived
            "disconnect": validate([row | {"disconnect_at": row["arrival"] + DISCONNECT_AFTER} if i == 1 else row
                                    for i, row in enumerate(clients)])}


SLOW_READER = 0.02  # tokens a ms: 20 a second, several times slower than the model makes them on a CPU
DISCONNECT_AFTER = 12  # iterations
STREAM_CREDITS = 4
# The policies a scenario is about: A without credits (the server runs ahead and buffers what the client has
# not read), B with them (the engine pauses the slow reader's request); A without a prefix cache, B with one.
SCENARIO_POLICIES = {"slow_reader": (Policy(), Policy(stream_credits=STREAM_CREDITS)),
                     "disconnect": (Policy(batching="static"), Policy()),
                     "shared_prompt": (Policy(), Policy(prefix_cache=True))}


def choose_scenario() -> None:
    """(The source radio's callback) The trace source just chosen, as its widget holds it (the callback runs before
    the page keeps it): a scenario about streaming puts its policies in the forms (their widgets then show them)."""
    chosen = SCENARIO_POLICIES.get(st.session_state.get(WIDGET + "rm_source"))
    if chosen is None:
        return
    for side, policy in zip("ab", chosen):
        lab_state.put_policy(init_state(), side, "rm", policy)


def prepare(trace: Trace, context: int, seed: int, template: str = "none",
            prefix_block: int | None = None) -> tuple[Trace, list[bytes]]:
    """The trace as the model can serve it (prompts given in words put in the chat template `template` and
    counted in bytes, lengths scaled to the context) and each request's prompt bytes, exactly what it prefills
    (`prefix_block`: the bytes each of its hash ids stands for, gpu_demo.prompts.prompts_for)."""
    fitted = fit_to_context(with_text_lengths(trace, template), context)
    return fitted, prompts_for(fitted, seed, prefix_block)


def bpe_counts(prompts: list[bytes]) -> list[int]:
    """Each prompt's tokens under the classroom BPE: shown beside the bytes the model prefills, for comparison."""
    return [count("classroom-bpe", p.decode("utf-8", errors="replace")) for p in prompts]


def run_both(model: GPT, trace: Trace, prompts: list[bytes], config: Config, policies: tuple[Policy, Policy],
             arrival_unit: str) -> ModelRun:
    """Run Policy 1 then Policy 2 under the model lock, with a progress bar and the first requests' text
    streaming. Before the first comparison on this machine, its profile is measured (once: it is kept); before
    each run, its threads are chosen and the machine's speed calibrated."""
    lock = model_lock()
    if not lock.acquire(blocking=False):
        with st.spinner(t("rm_waiting")):
            lock.acquire()
    try:
        with st.spinner(t("rm_profiling")):
            profile, profiled = machine_profile(model)
        document = read_profile(profile)
        results, threads, calibrations = [], [], []
        total = sum(r.output for r in trace.requests)
        for index, policy in enumerate(policies):
            label = policy_name(index)
            threads.append(choose_threads())
            calibrations.append(calibrate(model, document))
            bar = st.progress(0.0, text=t("rm_running", label=label))
            boxes = [st.empty() for _ in range(min(STREAMED, len(prompts)))]
            texts = [bytearray() for _ in boxes]
            drawn = [-1] * len(boxes)  # the length of each box's text when it was last drawn
            made, last = [0], [0.0]

            def on_step(scheduler, new, bar=bar, boxes=boxes, texts=texts, drawn=drawn, made=made, last=last,
                        label=label):
                made[0] += sum(map(len, new.values()))  # (a speculative step makes several tokens)
                for i, token in new.items():
                    if i < len(texts):
                        texts[i] += token
                now = time.perf_counter()
                if now - last[0] >= REDRAW or not scheduler.remaining:
                    last[0] = now
                    bar.progress(min(1.0, made[0] / total), text=t("rm_running", label=label))
                    for i, box in enumerate(boxes):
                        if len(texts[i]) != drawn[i]:  # only the boxes whose text grew
                            drawn[i] = len(texts[i])
                            with box.container():  # the text under its request's name
                                st.caption(t("rm_streaming", name=md_escape(trace.requests[i].name)))
                                st.code(texts[i].decode("utf-8", errors="replace") or "…", language=None)

            results.append(run(model, trace, prompts, config, policy, arrival_unit, on_step=on_step))
            bar.empty()
            for box in boxes:
                box.empty()
        return ModelRun(results, config, policies, trace, arrival_unit, profile, profiled, threads, calibrations)
    finally:
        lock.release()


def requests_table(trace: Trace, prompts: list[bytes], compared: list[int]) -> pd.DataFrame:
    """The requests the model serves: each with its prompt's text and, beside the bytes the model reads, the
    tokens a BPE tokenizer would make of it (`compared`)."""
    return pd.DataFrame({t("col_name"): [r.name for r in trace], t("col_arrival"): [r.arrival for r in trace],
                         t("col_prompt"): [r.prompt for r in trace], t("col_output"): [r.output for r in trace],
                         t("rm_bpe_tokens"): compared,
                         t("rm_prompt_text"): [p.decode("utf-8", errors="replace") for p in prompts]})


def comparison_table(figures: dict, unit: str, void: bool = False) -> pd.DataFrame:
    """Each figure measured beside predicted, with the relative error (headed as void when the run was
    disturbed)."""
    rows = []
    for name, row in figures.items():
        measured, predicted, error = row["measured"], row["predicted"], row["error"]
        rows.append({t("col_metric"): metric_label(name, unit),
                     t("rm_measured"): "—" if measured is None else shown(name, measured),
                     t("rm_predicted"): "—" if predicted is None else shown(name, predicted),
                     t("rm_error_void" if void else "rm_error"): "—" if error is None else f"{error:+.0%}"})
    return pd.DataFrame(rows)


def threads_words(chosen: list[Threads]) -> str:
    """The torch threads each run chose just before it (the page never asks for a number), and why, for a
    caption: one sentence for both runs."""
    runs = t("list_sep").join(t("rm_threads_run", label=policy_name(index), threads=c.threads)
                              for index, c in enumerate(chosen))
    return t("rm_threads", runs=runs, cores=chosen[0].cores, busy=f"{max(c.busy for c in chosen):.1f}")


def use_in_lab(side: str, policy: Policy) -> None:
    """(A button's callback) The trace lab's policy `side` becomes `policy` (with its measured acceptance rate):
    the setting and the widgets that show it."""
    lab_state.put_policy(lab_state.settings(), side, "lab", policy)
    init_state().in_lab = (side, policy.spec_tokens, policy.spec_accept)


def show_options(results: list[EngineRun], policies: tuple[Policy, Policy], names: list[str]) -> None:
    """What the engine's options did in each run where they are on: speculative decoding's measured acceptance
    (and a button giving the lab this policy and acceptance), the timed swap copies on the run's time axis, and
    which decode iterations replayed a CUDA graph, with the padding they cost."""
    x_max = max(r.schedule.makespan for r in results)
    _prefix_cache(results)
    for side, result, policy in zip("ab", results, policies):
        if policy.spec_tokens:
            _speculation(side, result, policy)
        if policy.preempt == "swap":
            _swaps(side, result, names, x_max)
        if policy.graph_buckets:
            _graphs(side, result, policy, x_max)


def _prefix_cache(results: list[EngineRun]) -> None:
    """Each run whose prefix cache found blocks: what it found and what the model prefilled; and when only one of
    the two cached, the measured TTFT of both."""
    metrics = [compute(r.schedule) for r in results]
    for index, m in enumerate(metrics):
        if m.prefix_queried:
            st.markdown(t("rm_prefix", label=policy_name(index), hit=number(m.prefix_hits),
                          queried=number(m.prefix_queried), rate=share(m.prefix_hit_rate),
                          prefilled=number(m.prefill_tokens)))
    cached = [m.prefix_hits > 0 for m in metrics]
    if cached.count(True) == 1:
        without, hit = cached.index(False), cached.index(True)
        before, after = (metrics[k].percentiles["ttft"][50] for k in (without, hit))
        st.markdown(t("rm_prefix_ttft", without=policy_name(without), cached=policy_name(hit),
                      before=duration(before), after=duration(after),
                      change=signed(100 * (after / before - 1)) + "%" if before else "—"))


def _speculation(side: str, result: EngineRun, policy: Policy) -> None:
    label = policy_name("ab".index(side))
    if not result.proposed:
        st.caption(t("rm_spec_none", label=label))
        return
    rate = share(result.acceptance_rate)
    st.markdown(t("rm_spec", label=label, k=policy.spec_tokens, accepted=number(sum(result.accepted)),
                  proposed=number(result.proposed), rate=rate))
    chosen = measured_policy(policy, result)
    st.button(t("rm_spec_to_lab", label=label, rate=rate), key=f"rm_spec_lab_{side.upper()}", on_click=use_in_lab,
              args=(side, chosen), help=t("rm_spec_to_lab_help", label=label))
    if init_state().in_lab == (side, chosen.spec_tokens, chosen.spec_accept):
        st.success(t("rm_spec_in_lab", label=label, k=chosen.spec_tokens, rate=rate), icon="✅")


def _swaps(side: str, result: EngineRun, names: list[str], x_max: float) -> None:
    label = policy_name("ab".index(side))
    if not result.swaps:
        st.caption(t("rm_swap_none", label=label))
        return
    ms = sum(c.ms for c in result.swaps)
    makespan = result.schedule.makespan
    st.plotly_chart(swap_chart(result.swaps, names, t("rm_swap_title", label=label), x_max=x_max),
                    key=f"rm_swaps_{side.upper()}")
    st.caption(t("rm_swap_caption", copies=len(result.swaps), ms=f"{ms:.2f}", makespan=f"{makespan:.0f}",
                 share=f"{ms / makespan:.1%}" if makespan else "—", where=t(f"rm_swap_where_{result.device}")))


def _graphs(side: str, result: EngineRun, policy: Policy, x_max: float) -> None:
    label = policy_name("ab".index(side))
    decodes = [d for d in result.timings if d.decode_rows and not d.prefill_rows]
    padding, rows = sum(d.graph_padding for d in decodes), sum(d.decode_rows for d in decodes)
    st.plotly_chart(graph_chart(result.timings, t("rm_graph_title", label=label), x_max=x_max),
                    key=f"rm_graphs_{side.upper()}")
    fields = {"padding": f"{padding:,}", "share": f"{padding / rows:.0%}" if rows else "—",
              "buckets": ", ".join(map(str, policy.graph_buckets))}
    if result.graphs == "cpu":
        st.caption(t("rm_graph_cpu", **fields))
    else:
        replayed = sum(d.graph for d in decodes)
        st.caption(t("rm_graph_cuda", replayed=replayed, decodes=len(decodes), eager=len(decodes) - replayed,
                     **fields))
