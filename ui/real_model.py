"""The real-model page's machinery: the model shared by every session, runs one at a time, streaming text
while a run goes, and the simulator's prediction beside the measurement."""
from __future__ import annotations

import json
import threading
import time

import pandas as pd
import streamlit as st

from gpu_demo.compare import compare as compare  # the page predicts runs with it
from gpu_demo.engine import EngineRun, run
from gpu_demo.loading import load_model
from gpu_demo.model import GPT
from gpu_demo.prompts import fit_to_context, prompts_for, with_text_lengths
from gpu_demo.train import CARD
from sim.core.config import Config, Policy
from sim.trace.chat import count
from sim.trace.generate import Uniform, generate
from sim.trace.trace import Trace, validate

from . import cost_profile
from .i18n import t
from .lab_state import WIDGET, policy_widget_values
from .tables import metric_label, shown
from .text import md_escape

STREAMED = 6  # requests whose text streams on the page while a run goes
REDRAW = 0.25  # seconds between two redraws of a run's progress and text: as fast as anyone reads, and every
# redraw is a message the server sends while other sessions wait on it (every 4 iterations was 15% of its CPU)
MAX_REQUESTS = 64  # a run holds the one shared model: at most this many requests (the CLI takes any number)


def default_device() -> str:
    """The device the model runs on: the GPU when there is one."""
    import torch  # already imported by gpu_demo; here so the page itself never touches torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def run_config(budget: float, max_seqs: float, first_token: str) -> Config:
    """The budgets of the page's form as a Config (0 sequences: no limit); raises ConfigError naming a field."""
    return Config(int(budget), int(max_seqs) or None, first_token)


@st.cache_resource(show_spinner=False)
def shared_model(device: str, dtype: str) -> GPT:
    """One model per server (and device, dtype), shared by every session."""
    return load_model(device, dtype)


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


def presets() -> dict[str, Trace]:
    """Traces sized for the model's context of 256 bytes."""
    chats = validate([{"name": name, "arrival": arrival, "system": system, "text": text, "output": output}
                      for name, arrival, system, text, output in CHATS])
    clients = generate(8, rate=1.0, prompt=Uniform(16, 48), output=Uniform(48, 96), seed=6).rows()
    return {"mixed": generate(24, rate=1.5, prompt=Uniform(16, 96), output=Uniform(4, 96), seed=3),
            "short_chats": generate(32, rate=2.0, prompt=Uniform(8, 32), output=Uniform(8, 32), seed=4),
            "long_outputs": generate(16, rate=0.5, prompt=Uniform(16, 48), output=Uniform(64, 160), seed=5),
            "chats": chats,
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
# not read), B with them (the engine pauses the slow reader's request).
SCENARIO_POLICIES = {"slow_reader": (Policy(), Policy(stream_credits=STREAM_CREDITS)),
                     "disconnect": (Policy(batching="static"), Policy())}


def choose_scenario() -> None:
    """The trace source just chosen: a scenario about streaming puts its policies in the forms (their widgets
    then show them)."""
    chosen = SCENARIO_POLICIES.get(st.session_state.get("rm_source"))
    if chosen is None:
        return
    for side, policy in zip("ab", chosen):
        key = f"rm_policy_{side}"
        st.session_state[key] = policy
        for name, value in policy_widget_values(policy).items():
            st.session_state[f"{WIDGET}{key}_{name}"] = value
        st.session_state[f"{WIDGET}{key}_batching"] = policy.batching


def prepare(trace: Trace, context: int, seed: int, template: str = "none") -> tuple[Trace, list[bytes]]:
    """The trace as the model can serve it (prompts given in words put in the chat template `template` and
    counted in bytes, lengths scaled to the context) and each request's prompt bytes, exactly what it prefills."""
    fitted = fit_to_context(with_text_lengths(trace, template), context)
    return fitted, prompts_for(fitted, seed)


def bpe_counts(prompts: list[bytes]) -> list[int]:
    """Each prompt's tokens under the classroom BPE: shown beside the bytes the model prefills, for comparison."""
    return [count("classroom-bpe", p.decode("utf-8", errors="replace")) for p in prompts]


def run_both(model: GPT, trace: Trace, prompts: list[bytes], config: Config, policies: tuple[Policy, Policy],
             arrival_unit: str) -> list[EngineRun]:
    """Run A then B under the model lock, with a progress bar and the first requests' text streaming."""
    lock = model_lock()
    if not lock.acquire(blocking=False):
        with st.spinner(t("rm_waiting")):
            lock.acquire()
    try:
        results = []
        total = sum(r.output for r in trace.requests)
        for label, policy in zip("AB", policies):
            bar = st.progress(0.0, text=t("rm_running", label=label))
            boxes = [st.empty() for _ in range(min(STREAMED, len(prompts)))]
            texts = [bytearray() for _ in boxes]
            drawn = [-1] * len(boxes)  # the length of each box's text when it was last drawn
            made, last = [0], [0.0]

            def on_step(scheduler, new, bar=bar, boxes=boxes, texts=texts, drawn=drawn, made=made, last=last,
                        label=label):
                made[0] += len(new)
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
        return results
    finally:
        lock.release()


def profile_path(device: str, dtype: str):
    """The cost profile a run on this device and dtype is predicted with (None when there is none)."""
    path = cost_profile.PROFILES / f"{device}-{dtype}.json"
    return path if cost_profile.document(path) is not None else None


def comparison_table(figures: dict, unit: str) -> pd.DataFrame:
    """Each figure measured beside predicted, with the relative error."""
    rows = []
    for name, row in figures.items():
        measured, predicted, error = row["measured"], row["predicted"], row["error"]
        rows.append({t("col_metric"): metric_label(name, unit),
                     t("rm_measured"): "—" if measured is None else shown(name, measured),
                     t("rm_predicted"): "—" if predicted is None else shown(name, predicted),
                     t("rm_error"): "—" if error is None else f"{error:+.0%}"})
    return pd.DataFrame(rows)
