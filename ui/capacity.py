"""The capacity lab's side of Streamlit: the policies table, the sweep run once per input for every user
(worker processes shared by the server, results cached), and the result tables."""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import CancelledError, Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from sim import codec
from sim.core.cluster import ROUTERS, check_router, check_split
from sim.core.config import KV_ADMISSION, ORDERS, POLICIES, PREEMPT, SLO, Config, ConfigError, CostModel
from sim.core.policies import make_scheduler
from sim.report.sweep import Entry, SweepError, applied, best_split, parse_values, sweep, worker_pool
from sim.report.sweep import stop_pool as stop_workers
from sim.trace.generate import Uniform, generate, shared_prefix
from sim.trace.trace import Trace, TraceError

from . import presenter, runs
from .i18n import language, sentences, t
from .numbers import number, quantity, share
from .problems import config_error, trace_error_text
from .session import WIDGET, ask, columns_changed, kept, page_state
from .source_forms import GeneratorForm, UploadForm
from .tables import column_px, fits_page, grid_px
from .text import md_escape

MAX_POLICIES = 4
MAX_WORK = 3_000_000  # requests simulated in one sweep (points x policies x requests): about half a minute
CACHED = 32  # sweeps kept for every user
# The policies table's columns: the label, the policy's settings (sim.codec's flat names: the main ones, then the
# KV cache's), then its fleet's (sim.codec.FLEET: one engine, replicas behind a router, or a prefill/decode split).
MAIN = ("label", "batching", "order", "token_budget", "max_seqs", "chunk_size")
KV = ("kv_blocks", "kv_admission", "preempt", "prefix_cache")
FLEET = ("replicas", "router", "prefill_replicas", "decode_replicas", "kv_transfer_latency", "kv_transfer_per_block")
COLUMNS = MAIN + KV + FLEET
SETTINGS = MAIN[1:] + KV  # what sim.codec makes the Config and Policy of
NUMBERS = ("token_budget", "max_seqs", "chunk_size", "kv_blocks", "replicas", "prefill_replicas", "decode_replicas",
           "kv_transfer_latency", "kv_transfer_per_block")
ONE_ENGINE = (1, "least-requests", 0, 0, 0, 0)  # a row's fleet columns when it runs on one engine


# The default scenario. Prompts of 1-8 tokens under a budget of 12 a tick: the longest prompt fits beside four
# decoders. Under the seed's budget of 8 a prompt of 8 starts only in a tick in which nobody decodes, so
# continuous batching leaves budget idle while long prompts starve, and its knee falls to static's (`surprises`
# says so when a sweep shows it).
DEFAULT_BUDGET = 12
DEFAULT_TRACE = {"n": 1000, "rate": 0.3, "prompt": (1, 8), "output": (1, 16)}
# Each swept parameter's default range: low, high, points.
RANGES = {"rate": (0.25, 4.0, 16), "token_budget": (4, 64, 16), "max_seqs": (1, 32, 16), "chunk_size": (1, 16, 16),
          "kv_blocks": (8, 128, 16), "replicas": (1, 8, 8), "prefill_replicas": (1, 3, 3)}
DEFAULT_SLO = (20.0, 2.0, 0.0)  # TTFT, TPOT and E2E limits, in ticks (0: none)
STATE_KEY = "sweep"  # the page's CapacityState


def default_trace() -> Trace:
    spec = DEFAULT_TRACE
    return generate(spec["n"], spec["rate"], Uniform(*spec["prompt"]), Uniform(*spec["output"]), seed=0)


@dataclass(slots=True)
class SweepResult:
    """A sweep the page shows: its rows, the target and the trace's figures they are read against, and the inputs
    it ran (to tell when the page's inputs have changed since)."""
    rows: list[dict]
    goal: float
    base_rate: float
    prompt_mean: float
    requests: tuple
    chosen: list[Entry]
    parameter: str
    values: list

    @property
    def unit(self) -> str:
        """The unit of its times: ms under a measured profile or a real GPU, else ticks."""
        return self.chosen[0].config.cost.unit if self.chosen else "tick"

    def stale(self, trace: Trace | None, chosen: list[Entry], parameter: str, values: list | None) -> bool:
        """Whether it was run from other inputs than the page now holds."""
        return trace is not None and values is not None and \
            (self.requests, self.chosen, self.parameter, self.values) != (trace.requests, chosen, parameter, values)


@dataclass(slots=True)
class CapacityState:
    """The capacity lab's session state, under STATE_KEY: the traces, the policies table, the settings its
    widgets keep (session.kept, each widget's key "sw_" + the field's name, a range's "sw_low_" + its parameter...),
    and the sweep shown."""
    generated: Trace = field(default_factory=default_trace)
    generated_block: int | None = None  # the tokens a hash id of the generated trace covers (the example's own)
    uploaded: Trace | None = None
    generator: GeneratorForm = field(default_factory=lambda: GeneratorForm.starting(**DEFAULT_TRACE))
    upload: UploadForm = field(default_factory=lambda: UploadForm(ms=10.0, limit=2000))
    policies: pd.DataFrame = field(default_factory=lambda: default_policies())  # the table the editor starts from
    policies_now: pd.DataFrame | None = None  # as edited: what runs
    source: str = "generated"
    cost: str = "ticks"
    hardware: str = "H100"  # the roofline's (cost "roofline")
    model: str = "Llama-3.1-8B"
    tp: int = 1
    first: str = "decode"
    slo_ttft: float = DEFAULT_SLO[0]
    slo_tpot: float = DEFAULT_SLO[1]
    slo_e2e: float = DEFAULT_SLO[2]
    target: int = 90
    parameter: str = "rate"
    columns: str = "policy"  # the group of the policies table's columns in view (COLUMN_GROUPS)
    look: tuple | None = None  # what the policies table's columns were last drawn from (session.columns_changed)
    low: dict[str, float | int] = field(default_factory=lambda: {key: low for key, (low, _, _) in RANGES.items()})
    high: dict[str, float | int] = field(default_factory=lambda: {key: high for key, (_, high, _) in RANGES.items()})
    points: dict[str, int] = field(default_factory=lambda: {key: points for key, (_, _, points) in RANGES.items()})
    result: SweepResult | None = None

    def slo(self) -> SLO:
        return SLO(*(limit or None for limit in (self.slo_ttft, self.slo_tpot, self.slo_e2e)))


POLICIES_EDITOR = "sw_policies_editor"  # the policies table's widget key


def init_state() -> CapacityState:
    """The page's state: its settings on a first visit, and its policy edits kept when a user comes back to it."""
    state = page_state(STATE_KEY, CapacityState)
    if POLICIES_EDITOR not in st.session_state and state.policies_now is not None:
        state.policies = state.policies_now
    return state


def capacity_state() -> CapacityState:
    return st.session_state[STATE_KEY]


def base_rate(trace: Trace) -> float:
    """The trace's own arrival rate, requests a tick: the 1 of the rate axis."""
    return len(trace) / (max(r.arrival for r in trace) or 1)


def mean_prompt(trace: Trace) -> float:
    return sum(r.prompt for r in trace) / len(trace)


def default_policies(budget: int = DEFAULT_BUDGET) -> pd.DataFrame:
    rows = [(t("sw_default_static"), "static", "fcfs-skip", budget, 0, 0, 0, "reserve", "recompute", False,
             *ONE_ENGINE),
            (t("sw_default_continuous"), "continuous", "fcfs-skip", budget, 0, 0, 0, "reserve", "recompute", False,
             *ONE_ENGINE),
            (t("sw_default_chunked"), "continuous", "fcfs-skip", budget, 0, max(1, budget // 2), 0, "reserve",
             "recompute", False, *ONE_ENGINE)]
    # Numbers as floats: the editor then keeps a typed 2.5 for `entries` to name (a whole-number column rounds it).
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({c: "float64" for c in NUMBERS})


# The prefix-caching example: a Mooncake-shaped trace (every conversation starts with one system prompt of 48
# tokens, three turns each, each turn's prompt the last one's with its answer and a new question; hash ids of 8
# tokens) swept with and without the cache. Chunked prefill (chunks of 16 under a budget of 32) lets the longer
# prompts in; 96 blocks of 4 tokens hold about five conversations' KV.
PREFIX_BLOCK = 8
PREFIX_RANGE = (0.5, 8.0, 16)


def prefix_example_trace() -> Trace:
    return shared_prefix(600, 0.05, 48, Uniform(4, 16), Uniform(4, 12), turns=3, block=PREFIX_BLOCK, seed=71)


def prefix_example_policies() -> pd.DataFrame:
    rows = [(t(f"sw_prefix_{key}"), "continuous", "fcfs-skip", 32, 0, 16, 96, "overcommit", "recompute", cache,
             *ONE_ENGINE) for key, cache in (("off", False), ("on", True))]
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({c: "float64" for c in NUMBERS})


def load_prefix_example() -> None:
    """The example button's callback (it runs before the widgets are drawn, so they show what it set)."""
    load_example(prefix_example_trace(), PREFIX_BLOCK, prefix_example_policies(), "rate", PREFIX_RANGE,
                 columns="prefix")


def load_example(trace: Trace, block: int | None, policies: pd.DataFrame, parameter: str, span: tuple,
                 cost: str = "ticks", first: str = "decode", slo: tuple[float, float] | None = None,
                 columns: str = "policy") -> None:
    """Load an example and run it: its trace (its hash ids covering `block` tokens), policies, swept parameter and
    range (low, high, points), cost model, first token, SLOs (TTFT, TPOT; default: the page's defaults) and the
    group of the policies table's columns in view, those in which its rows differ (COLUMN_GROUPS). Each
    widget it sets is given its value (a widget drawn again under its key with another default would keep showing
    the old one in the browser)."""
    state = capacity_state()
    low, high, points = span
    settings = {"source": "generated", "parameter": parameter, "cost": cost, "first": first, "columns": columns,
                **dict(zip(("slo_ttft", "slo_tpot", "slo_e2e"), (*slo, 0.0) if slo else DEFAULT_SLO))}
    for name, value in settings.items():
        setattr(state, name, value)
        st.session_state[f"{WIDGET}sw_{name}"] = value
    for name, values, value in (("low", state.low, low), ("high", state.high, high), ("points", state.points, points)):
        values[parameter] = st.session_state[f"{WIDGET}sw_{name}_{parameter}"] = value
    state.generated, state.generated_block = trace, block
    state.policies = state.policies_now = policies
    st.session_state.pop(POLICIES_EDITOR, None)
    ask(RUN)


# The disaggregation example (DistServe's lesson on the measured profile, where a prefill beside decoders makes
# their iteration long): 400 requests at 0.6 a ms, prompts of 32-192 tokens, 16-64 out, on 4 engines side by side
# against 4 split into prefill and decode over a fast link and over a slow one, under a TTFT SLO of 100 ms and a
# TPOT SLO of 2 ms, swept over how many of the 4 prefill. Side by side misses the SLO; the best split keeps it.
SPLIT_TRACE = {"n": 400, "rate": 0.6, "prompt": (32, 192), "output": (16, 64), "seed": 1}
SPLIT_SLO = (100.0, 2.0)  # TTFT, TPOT (ms)
SPLIT_LINKS = {"fast": (1.0, 0.0), "slow": (10.0, 2.0)}  # a transfer's ms, and ms a block


def split_example_trace() -> Trace:
    spec = SPLIT_TRACE
    return generate(spec["n"], spec["rate"], Uniform(*spec["prompt"]), Uniform(*spec["output"]), seed=spec["seed"])


def split_example_policies() -> pd.DataFrame:
    engines = ("continuous", "fcfs-skip", 256, 32, 0, 0, "reserve", "recompute", False)
    rows = [(t("sw_split_side"), *engines, 4, "least-requests", 0, 0, 0, 0)]
    rows += [(t(f"sw_split_{link}"), *engines, 1, "least-requests", 2, 2, *SPLIT_LINKS[link]) for link in SPLIT_LINKS]
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({c: "float64" for c in NUMBERS})


def load_split_example() -> None:
    """The split example's button callback: swept over the prefill engines, with the split's columns shown."""
    load_example(split_example_trace(), None, split_example_policies(), "prefill_replicas", (1, 3, 3), "profile",
                 "prefill", SPLIT_SLO, columns="split")


RUN = "sw_run"  # the Run button's key


def generated(trace: Trace) -> None:
    """Make the generator's `trace` the swept one (its hash ids, if any, cover the lab's prefix block)."""
    state = capacity_state()
    state.generated, state.generated_block = trace, None


def prefix_block(lab_block: int) -> int:
    """The tokens each hash id of the swept trace covers: the example's own, else the lab's setting."""
    state = capacity_state()
    return (state.source == "generated" and state.generated_block) or lab_block


def fitting_budget(trace: Trace) -> int:
    """The default budget, or the power of two from which the trace's largest prompt fits in one tick."""
    largest = max((r.prompt for r in trace), default=1)
    return DEFAULT_BUDGET if largest <= DEFAULT_BUDGET else 1 << (largest - 1).bit_length()


def adopt(trace: Trace) -> None:
    """Make the uploaded `trace` the swept trace; when the policies are still the defaults, size their budgets to
    it (a real trace's prompts are thousands of tokens, the defaults' budget is the seed's 8)."""
    state = capacity_state()
    state.uploaded = trace
    current = state.policies if state.policies_now is None else state.policies_now
    budget = fitting_budget(trace)
    if current.equals(default_policies()) and budget != DEFAULT_BUDGET:
        state.policies = state.policies_now = default_policies(budget)
        st.session_state.pop(POLICIES_EDITOR, None)
        st.toast(t("sw_budget_fitted", budget=f"{budget:,}"), icon="📏")


def policies_editor(key: str) -> pd.DataFrame:
    """The policies table (CapacityState.policies, as edited). Its number columns have no limits: the editor would
    clamp or drop a bad value without a word; `entries` names it instead."""
    labels = column_labels()
    # One group of columns at a time beside the label (COLUMN_GROUPS): the batching, the budgets, the KV cache, the
    # fleet or a split. Hidden ones keep their values, and those in which the rows differ are named under the table (the
    # prefix-caching example's two rows differ only in the cache).
    state = capacity_state()
    chosen = state.columns = kept(st.radio, t("sw_columns"), COLUMNS_KEY, state.columns, options=tuple(COLUMN_GROUPS),
                                  horizontal=True, format_func=lambda group: t(f"sw_columns_{group}"))
    shown = ("label", *COLUMN_GROUPS[chosen])
    if columns_changed(state, key, (chosen, language(), presenter.on())):  # (else the grid would drop its edits)
        state.policies = state.policies_now
        st.session_state.pop(key, None)
    table = state.policies
    widths = editor_widths(chosen, table["label"])  # (the stored labels: a width changed under an edit would drop it)
    config = {"label": st.column_config.TextColumn(t("sw_col_label"), max_chars=60, width=widths["label"]),
              "prefix_cache": st.column_config.CheckboxColumn(labels["prefix_cache"], help=t("opt_prefix_cache_help"))}
    for column in NUMBERS:
        config[column] = st.column_config.NumberColumn(labels[column], help=_help(column))
    for column, options in CHOICES.items():
        config[column] = st.column_config.SelectboxColumn(labels[column], options=options, required=True,
                                                          help=_help(column))
    for column, px in widths.items():
        config[column]["width"] = px
    edited = st.data_editor(table, key=key, num_rows="dynamic", hide_index=True, width="stretch",
                            column_config=config, column_order=shown)
    differ = [labels[c] for c in COLUMNS if c not in shown and c in edited and edited[c].astype(str).nunique() > 1]
    if differ:
        st.caption(t("sw_hidden_differ", columns=", ".join(differ)))
    return edited


# The policies table's columns, a group at a time beside the label, each group few enough (three at most) that every
# header is whole beside a label column of LABEL_PX in a 1024 px window, in either language and on a projector too
# (editor_widths): the batching and the queue order, the budgets, the KV cache, the prefix cache, replicas behind a
# router, a prefill/decode split's engines, and the KV transfer between them.
COLUMN_GROUPS = {"policy": ("batching", "order"), "budgets": ("token_budget", "max_seqs", "chunk_size"),
                 "kv": KV[:3], "prefix": KV[3:], "fleet": FLEET[:2], "split": FLEET[2:4], "transfer": FLEET[4:]}
CHOICES = {"batching": POLICIES, "order": ORDERS, "kv_admission": KV_ADMISSION, "preempt": PREEMPT, "router": ROUTERS}
LABEL_PX = 150  # the label column's width, at least (grown for a longer label, where the page has room)
EDIT_ICON_PX = 24  # an editable column's header draws a pencil and a gap before its text
ROW_MARKER_PX = 32  # the editor's first column, to pick rows to delete
POLICY_PX = 120  # the results table's policy column (results_columns)


def editor_widths(group: str, names) -> dict[str, int]:
    """The px widths of the policies table's columns in view (`group`, and the label column beside it): each as
    wide as its header and its choices, and the label column as wide as the longest of `names` (at least
    LABEL_PX) as far as the page leaves room; grown with the text in presenter mode."""
    labels = column_labels()
    widths = {column: presenter.px(max(column_px(labels[column], ()) + EDIT_ICON_PX,
                                       column_px("", CHOICES.get(column, ()))))
              for column in COLUMN_GROUPS[group]}
    room = presenter.options_px() - presenter.px(ROW_MARKER_PX) - sum(widths.values())  # (it is in the options)
    label = max(LABEL_PX, column_px(t("sw_col_label"), ()) + EDIT_ICON_PX,
                column_px("", [str(n) for n in names if pd.notna(n)]))
    return {"label": min(presenter.px(label), room), **widths}


COLUMNS_KEY = "sw_columns"  # the kept value choosing the group (CapacityState.columns)


def _help(column: str) -> str | None:
    """A fleet column's help: what it sets, and in which unit."""
    return t(f"sw_col_{column}_help") if column in FLEET else None


def column_labels() -> dict[str, str]:
    """The policies table's headers by the Config, Policy and fleet field each column sets (sweep_error names
    them)."""
    return {"token_budget": t("sw_col_budget"), "max_seqs": t("sw_col_max_seqs"), "chunk_size": t("sw_col_chunk"),
            "kv_blocks": t("sw_col_kv_blocks"), "prefix_cache": t("sw_col_prefix_cache"),
            "policy": t("sw_col_batching"),
            **{c: t(f"sw_col_{c}") for c in ("batching", "order", "kv_admission", "preempt", *FLEET)}}


def entries(table: pd.DataFrame, first_token: str, slo: SLO, cost: CostModel | None = None,
            prefix_block: int = 512) -> tuple[list[Entry], list[str]]:
    """The table's policies as sweep entries under one cost model (default: ticks), or the problems found, each
    naming its row. `prefix_block`: the tokens each of the trace's hash ids covers. A cell is read as the lab's
    forms read a widget (sim.codec.typed: empty or 0 is no limit, off); what cannot be a setting is named."""
    out, problems, seen = [], [], set()
    rows = [r for r in table.to_dict("records") if any(pd.notna(v) and v != "" for v in r.values())]
    if not 1 <= len(rows) <= MAX_POLICIES:
        problems.append(t("sw_policy_count", most=MAX_POLICIES))
    shared = Config(first_token=first_token, slo=slo, cost=cost or CostModel(), prefix_block=prefix_block)
    for index, row in enumerate(rows, start=1):
        label = "" if pd.isna(row.get("label")) else str(row["label"]).strip()  # a cleared cell is NaN
        if not label or label in seen:
            problems.append(t("sw_policy_label", row=index))
            continue
        seen.add(label)
        try:
            config, policy = codec.config_and_policy(
                {column: codec.typed(column, row.get(column)) for column in SETTINGS}, shared)
            routing, split = codec.fleet(row)
            if split is not None:
                check_split(config, split)
        except ConfigError as error:
            problems.append(t("sw_policy_bad", row=index, label=md_escape(label),
                              reason=config_error(error, column_labels())))
            continue
        out.append(Entry(label, config, policy, routing, split))
    return out, problems


@st.cache_resource(show_spinner=False)
def _shared() -> tuple[OrderedDict, threading.Lock, list[Executor | str | None]]:
    """One results cache, its lock and one pool of worker processes for every user of this server (app.py starts
    the pool before the first session and stops it with the server; a page starts one under another server)."""
    return OrderedDict(), threading.Lock(), [None]


STOPPED = "stopped"  # the pool's place once the server stopped it: no sweep starts, the running ones end


def start_pool() -> None:
    """The shared worker processes, started at the server's start, outside any page run (see worker_pool)."""
    _, lock, pool = _shared()
    with lock:
        if pool[0] is None:
            pool[0] = worker_pool()


def shared_pool() -> Executor | None:
    """The server's worker processes (started now under a server that did not), for a page's own points; None
    when they cannot start. Once the server stopped them, the run ends (st.stop)."""
    _, lock, pool = _shared()
    with lock:
        if pool[0] is None:
            try:
                pool[0] = worker_pool()
            except OSError:
                return None
        workers = pool[0]
    if workers is STOPPED:
        st.stop()
    return workers


def stop_pool() -> None:
    """The server stops: so do the worker processes, and the sweeps running in them."""
    _, lock, pool = _shared()
    with lock:
        running, pool[0] = pool[0], STOPPED
    if running not in (None, STOPPED):
        stop_workers(running)


def _digest(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def first_sweep() -> tuple[Trace, list[Entry], str, list]:
    """What the page sweeps on a first visit, as its settings stand before anyone touches them: the default trace
    and policies (labelled in the current language) over the default range of the default parameter."""
    state = CapacityState()
    chosen, _ = entries(state.policies, state.first, state.slo())
    parameter = state.parameter
    values = parse_values(parameter, f"{state.low[parameter]}:{state.high[parameter]}:{state.points[parameter]}")
    return state.generated, chosen, parameter, values


def sweep_values(parameter: str, low: float, high: float, points: int, trace: Trace | None, chosen: list[Entry],
                 problems: list[str]) -> list | None:
    """The values the sweep takes, `points` of them from `low` to `high`; None when the range is wrong or the
    sweep would be too much work, with what is wrong added to `problems` (as the page shows them)."""
    try:
        values = parse_values(parameter, f"{low}:{high}:{points}")
    except SweepError as error:
        problems.append(t("sw_bad_range", reason=md_escape(error)))
        return None
    if high <= low:
        problems.append(t("sw_low_high"))
        return None
    if trace is not None and len(chosen) * len(values) * len(trace) > MAX_WORK:
        problems.append(t("sw_too_much", work=f"{len(chosen) * len(values) * len(trace):,}", most=f"{MAX_WORK:,}"))
    return values


def run_shown(state: CapacityState, trace: Trace, chosen: list[Entry], parameter: str, values: list) -> None:
    """Run the sweep with a progress bar, and keep it as the page's result."""
    bar = st.progress(0.0, text=t("sw_running", done=0, total=len(chosen) * len(values)))
    rows = run_sweep(trace, chosen, parameter, values,
                     lambda done, total: bar.progress(done / total, t("sw_running", done=done, total=total)))
    bar.empty()
    state.result = SweepResult(rows, state.target / 100, base_rate(trace), mean_prompt(trace), trace.requests,
                               chosen, parameter, values)


def run_sweep(trace: Trace, chosen: list[Entry], parameter: str, values: list,
              progress: Callable[[int, int], None]) -> list[dict]:
    """The sweep's rows, from the cache when anyone ran the same inputs (the policies' labels aside: a sweep run
    in one language serves the other); else computed in the shared worker processes (the web server's own thread
    only waits), or in this process if the pool cannot start. Once the server stops its pool, the run ends
    (st.stop) instead."""
    cache, lock, pool = _shared()
    key = _digest(trace.requests, [entry[1:] for entry in chosen], parameter, values)  # (all but its label)
    with lock:
        if key in cache:
            cache.move_to_end(key)
            labels, rows = cache[key]
            named = dict(zip(labels, (entry.label for entry in chosen)))
            return [row | {"policy": named[row["policy"]]} for row in rows]
        if pool[0] is None:
            pool[0] = worker_pool()
        workers = pool[0]
    if workers is STOPPED:
        st.stop()
    try:
        rows = sweep(trace, chosen, parameter, values, progress=progress, pool=workers, cpu_limit=runs.CPU_LIMIT_S)
    except (BrokenProcessPool, CancelledError, OSError):
        with lock:
            stopping = pool[0] is STOPPED
            if not stopping:
                pool[0] = None
        if stopping:
            st.stop()
        rows = sweep(trace, chosen, parameter, values, workers=1, progress=progress, cpu_limit=runs.CPU_LIMIT_S)
    with lock:
        cache[key] = [entry.label for entry in chosen], rows
        while len(cache) > CACHED:
            cache.popitem(last=False)
    return rows


def results_table(rows: list[dict], parameter: str, unit: str = "tick") -> tuple[pd.DataFrame, bool]:
    """The sweep's main columns, rounded for reading and named short with their units, so the table fits a
    projector's width: six columns, the sixth the first that applies of each point's engines (a fleet in a sweep
    of something else), the prefix cache's hit rate, and the idle budget (its chart is above, and the CSV keeps every
    column, unrounded). A point that could not run is named with its reason above the table, its figures empty.
    With it, whether the idle budget was left to the CSV for the table to fit (on a projector, at 1024 px)."""
    columns = {"policy": t("sw_col_label"), "value": t(f"sw_short_{parameter}"), "attainment": t("sw_attainment_pct"),
               "ttft_p99": t("sw_ttft_col", q=99, unit=t(f"unit_{unit}")),
               "throughput": t("sw_throughput_per", unit=t(f"unit_{unit}")), "idle_waiting": t("sw_idle_pct")}
    frame = pd.DataFrame(rows)[list(columns)]
    frame["attainment"] = (frame["attainment"] * 100).round(1)
    frame["idle_waiting"] = (frame["idle_waiting"] * 100).round(1)
    frame = frame.round({"ttft_p99": 1, "throughput": 2})
    hits = pd.DataFrame(rows)["hit_rate"]
    if parameter == "prefill_replicas":  # each point's engines, prefill + decode (a fleet side by side: its count)
        frame["value"] = [engines_text(r) for r in rows]
        columns["value"] = t("sw_col_engines")
    if parameter not in ("replicas", "prefill_replicas") and any(r["engines"] > 1 for r in rows):
        frame.insert(2, "engines", [engines_text(r) for r in rows])  # (a fleet: the engines each point ran on)
        columns["engines"] = t("sw_col_engines")
    elif hits.notna().any():  # a policy caches prefixes: its hit rate beside its TTFT (— for one without the cache)
        frame.insert(list(frame.columns).index("ttft_p99") + 1, "hit_rate",
                     [f"{h * 100:.1f}" if pd.notna(h) else "—" for h in hits])
        columns["hit_rate"] = t("sw_col_hit_rate") + " %"
    if len(frame.columns) > 6:
        frame = frame.drop(columns="idle_waiting")
    shown = frame.rename(columns=columns)
    widths = {columns["policy"]: policy_px(shown[columns["policy"]])}
    if "idle_waiting" in frame and not fits_page(grid_px(shown, widths)):
        return shown.drop(columns=columns["idle_waiting"]), True  # (the longest label needs its room)
    return shown, False


def policy_px(labels: pd.Series) -> int:
    """The width the results table's policy column needs (at 14 px text): at least POLICY_PX, wide enough for a
    label such as "split, fast link" whole with six columns in 1024 px, or as wide as its longest label; in
    presenter mode as wide as its longest label."""
    px = column_px(t("sw_col_label"), labels)
    return px if presenter.on() else max(px, POLICY_PX)


def results_columns(table: pd.DataFrame) -> dict:
    """The results table's column config: the policy's column as wide as its labels (policy_px) where the page has
    room for them beside the others (results_table leaves a column to the CSV for a long label first), and as wide as
    that room where it has not: no sideways scrolling, and the knee sentences above name each policy whole."""
    name = t("sw_col_label")
    others = sum(presenter.px(column_px(column, table[column])) for column in table.columns if column != name)
    return {name: st.column_config.TextColumn(
        width=min(presenter.px(policy_px(table[name])), presenter.page_px() - others))}


def engines_text(row: dict) -> str:
    """The engines a point ran on: "4", or a split's "1 + 3" (prefill + decode)."""
    prefill = row["prefill_engines"]
    return number(row["engines"]) if prefill is None else f"{number(prefill)} + {number(row['engines'] - prefill)}"


def at_edge(rows: list[dict], label: str, value: float | int, swept: str) -> bool:
    """Whether a policy's knee is the last point of the sweep (its heaviest load; for a capacity, its smallest
    value): the sweep did not find where it breaks, which lies beyond."""
    values = [r["value"] for r in rows if r["policy"] == label]
    return value == (max(values) if swept == "rate" else min(values))


def knee_labels(rows: list[dict], found: dict[str, float | int | None], swept: str) -> dict[str, str]:
    """Each knee as the chart writes it: "2.25", or "≥ 4 (the end of the sweep)" at its edge; a best split as
    "1 + 3" (prefill + decode)."""
    if swept == "prefill_replicas":
        return {label: engines_text(next(r for r in rows if r["policy"] == label and r["value"] == value))
                for label, value in found.items() if value is not None}
    edge = "sw_knee_edge_rate" if swept == "rate" else "sw_knee_edge_capacity"
    return {label: t(edge, value=number(value)) if at_edge(rows, label, value, swept) else number(value)
            for label, value in found.items() if value is not None}


def knee_sentences(rows: list[dict], found: dict[str, float | int | None], swept: str, goal: float,
                   rate: float) -> list[str]:
    """One line a policy: the knee of the sweep, in words (said to lie beyond the sweep when it is its edge); of a
    split's prefill engines, each split's best and each side-by-side fleet's one figure."""
    if swept == "prefill_replicas":
        return split_sentences(rows, found, goal)
    out, target = [], share(goal)
    for label, value in found.items():
        name = md_escape(label)
        kind = "rate" if swept == "rate" else "capacity"
        if value is None:
            out.append(t(f"sw_knee_none_{'load' if kind == 'rate' else 'capacity'}", policy=name, target=target))
            continue
        key = f"sw_knee_{kind}" + ("_edge" if at_edge(rows, label, value, swept) else "")
        out.append(t(key, policy=name, target=target, value=number(value), rate=number(value * rate),
                     parameter=t(f"sw_param_{swept}")))
    return out


def split_sentences(rows: list[dict], found: dict[str, float | int | None], goal: float) -> list[str]:
    """A prefill_replicas sweep's lines: each split's best split (said to miss the target when it does), and each
    fleet side by side, the same at every point: the splits' baseline."""
    out = []
    for label in found:
        mine = [r for r in rows if r["policy"] == label]
        best = best_split(mine)
        figures = {"policy": md_escape(label), "target": share(goal), "engines": number(mine[0]["engines"])}
        if best is not None:
            key = "sw_split_best" if found[label] is not None else "sw_split_best_misses"
            out.append(t(key, split=engines_text(best), attainment=share(best["attainment"]), **figures))
        elif any(r["prefill_engines"] is None and not r["error"] for r in mine):
            ran = next(r for r in mine if not r["error"])
            out.append(t("sw_split_baseline", attainment=share(ran["attainment"]), **figures))
        else:
            out.append(t("sw_knee_none_capacity", **figures))
    return out


def _rank(entry: Entry) -> int:
    """What intuition expects, worst first: static, continuous, continuous with chunked prefill."""
    return 0 if entry.policy.batching == "static" else 2 if entry.policy.chunk_size else 1


STARVING = 1.25  # the slowest 1% starve when their mean prompt is this much above the trace's mean
IDLE_GAP = 0.05  # budget idle while requests waited: a difference worth naming


def surprises(rows: list[dict], chosen: list[Entry], swept: str, prompt_mean: float) -> list[str]:
    """Where a policy that should do better does worse than another (lower SLO attainment, or lower throughput
    at the heaviest point), the first such point in words, with the causes the sweep measured: who starves (the
    slowest 1%'s mean prompt against the trace's) and where the budget went (idle while requests waited)."""
    by = {label: {r["value"]: r for r in rows if r["policy"] == label and not r["error"]} for label in
          dict.fromkeys(r["policy"] for r in rows)}
    out = []
    for ahead in chosen:
        for behind in chosen:
            if _rank(ahead) <= _rank(behind):
                continue
            mine, theirs = by.get(ahead.label, {}), by.get(behind.label, {})
            shared = sorted(set(mine) & set(theirs))
            point = next((v for v in shared if mine[v]["attainment"] < theirs[v]["attainment"] - 0.005), None)
            what = "attainment"
            if point is None and shared and mine[shared[-1]]["throughput"] < theirs[shared[-1]]["throughput"] * 0.99:
                point, what = shared[-1], "throughput"
            if point is None:
                continue
            a, b = mine[point], theirs[point]
            value = f"{point:g}" + ("×" if swept == "rate" else "")
            figures = ({"a": f"{a['attainment']:.0%}", "b": f"{b['attainment']:.0%}"} if what == "attainment" else
                       {"a": f"{a['throughput']:.2f}", "b": f"{b['throughput']:.2f}"})
            names = {"ahead": md_escape(ahead.label), "behind": md_escape(behind.label)}
            text = [t(f"sw_why_{what}", value=value, **names, **figures)]
            starving = {who: row["slow_prompt"] for who, row in (("ahead", a), ("behind", b))
                        if row["slow_prompt"] and row["slow_prompt"] >= STARVING * prompt_mean}
            for who, slow in starving.items():
                text.append(t(f"sw_why_starves_{who}", policy=names[who], slow=f"{slow:.1f}",
                              mean=f"{prompt_mean:.1f}"))
            idle = a["idle_waiting"] > b["idle_waiting"] + IDLE_GAP
            if idle:
                text.append(t("sw_why_idle", policy=names["ahead"], idle=f"{a['idle_waiting']:.0%}",
                              other=f"{b['idle_waiting']:.0%}", them=names["behind"]))
            if "ahead" not in starving and not idle:  # nothing of its own holds it back: its order makes all late
                text.append(t("sw_why_order", policy=names["ahead"], a=f"{a['ttft_p50']:.3g}",
                              b=f"{b['ttft_p50']:.3g}", them=names["behind"]))
            out.append(sentences(text))
    return out


def single(rows: list[dict], columns: tuple[str, ...]) -> float | None:
    """The one value every point that ran has in these columns (a chart of it would be one flat line), or None."""
    values = {r[c] for r in rows if not r["error"] for c in columns}
    return values.pop() if len(values) == 1 else None


def failed_listed(rows: list[dict], most: int = 5) -> list[dict]:
    """The failed points a page lists, at most `most`, in the sweep's order: the first of each policy's points that
    were stopped and of those that failed otherwise, then the others, so that a stopped point is not hidden behind
    another policy's errors (a static batch's prompt over the budget fails at every point)."""
    failed, kinds = [r for r in rows if r["error"]], {}
    for k, r in enumerate(failed):
        kinds.setdefault((r["policy"], bool(r.get("stopped"))), k)
    firsts = sorted(kinds.values())[:most]
    others = [k for k in range(len(failed)) if k not in kinds.values()]
    return [failed[k] for k in sorted(firsts + others[:most - len(firsts)])]


def point_error(result: SweepResult, row: dict) -> str:
    """Why a sweep point could not run, in the page's words (markdown): its row holds sim's English, so the point's
    scheduler is made again here, which is where a point fails."""
    entry = next(e for e in result.chosen if e.label == row["policy"])
    if stop := row.get("stopped"):
        return t("sw_point_stopped", seconds=number(stop.seconds), time=quantity(stop.now, entry.config.cost.unit))
    try:
        trace, entry = applied(Trace(result.requests), entry, result.parameter, row["value"])
        check_router(entry.routing, make_scheduler(entry.policy, trace, entry.config))
    except TraceError as error:
        return trace_error_text(error)
    except ConfigError as error:
        return config_error(error, column_labels())
    return md_escape(row["error"])  # (a run that failed past its start: as sim said it)
