"""The trace lab's scenario in the session: kept across reruns and page switches, loaded from presets,
uploads, the worked example and share links."""
from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass

import pandas as pd
import streamlit as st

from sim import codec
from sim.core.config import COST_MODELS, FIRST_TOKEN_MODES, Config, ConfigError, Policy
from sim.core.hardware import DTYPES, GPUS, MODELS
from sim.core.kv import blocks_for
from sim.core.policies import make_scheduler
from sim.core.presets import caches_prefixes
from sim.trace.chat import BYTES
from sim.trace.trace import REQUIRED, SEED_CSV, TEXT_COLUMNS, Trace, TraceError, check_budget, read_csv, validate

from . import presenter
from .i18n import language, t
from .scenario import Scenario, ScenarioError, decode
from .session import WIDGET, columns_changed, holds_edits, kept, page_state
from .source_forms import GeneratorForm, UploadForm

TYPED = -1  # the chat panel's source "typed below"; a row of the lab's table otherwise (its position)

STATE_KEY = "lab"  # the lab's LabState
EDITOR = "trace"  # the data editor's widget key (its state holds the edits since the base was set), see editor_key


class _LabSettings:
    """The lab's settings as its forms hold them: each of Config's settings by its flat name (sim.codec: slo_ttft
    for config.slo.ttft, cost_kind and c0..c_cell for config.cost, moe_experts..moe_seed for config.moe), as its
    widget shows it (0 for "none"), from Config's own default, kept as typed until config() checks them; and the
    policies A and B."""
    __slots__ = ()

    @classmethod
    def of(cls, config: Config, policy_a: Policy, policy_b: Policy) -> LabSettings:
        return cls(**{name: codec.shown(name, value) for name, value in codec.flat(config).items()},
                   policy_a=policy_a, policy_b=policy_b)

    def config(self) -> Config:
        """The Config of these settings (raises ConfigError naming a bad field)."""
        return codec.build(Config, {name: codec.typed(name, getattr(self, name)) for name in codec.names(Config)})


def _shown_default(name: str) -> object:
    return codec.shown(name, codec.LEAVES[name].default)


# (made from Config's fields: a setting added to Config is one here, with its default, and a widget can draw it)
LabSettings = make_dataclass(
    "LabSettings", [*((name, type(_shown_default(name)), field(default=_shown_default(name)))
                      for name in codec.names(Config)),
                    ("policy_a", Policy, field(default_factory=lambda: Policy(batching="static"))),
                    ("policy_b", Policy, field(default_factory=Policy))],
    bases=(_LabSettings,), slots=True, namespace={"__module__": __name__})
LabSettings.__doc__ = _LabSettings.__doc__


# What each setting's widget is: a choice of these options (a radio), else a number input whose step and kind
# follow the field's type (whole numbers or decimals), from its lowest value.
CHOICES = {"first_token": FIRST_TOKEN_MODES, "cost_kind": COST_MODELS, "precision": tuple(DTYPES)}
SELECTS = {"hardware": tuple(GPUS), "model": tuple(MODELS)}  # long lists of names: a select box, as named
LOWEST = {"token_budget": 1, "block_size": 1, "moe_top_k": 1, "moe_devices": 1, "prefix_block": 1}
LABELS = {"token_budget": "cfg_budget", "cost_kind": "cfg_cost", "hardware": "cfg_gpu"}  # else cfg_<name>
HELP = {"slo_ttft": "cfg_slo_help", "slo_tpot": "cfg_slo_help", "slo_e2e": "cfg_slo_help"}  # else <label>_help
CHOICE_TEXT = {"first_token": "first_{}", "cost_kind": "cost_{}", "precision": "precision_{}"}
MOST = 10**7  # the largest whole number a setting's widget takes


@dataclass(slots=True)
class ChatPanel:
    """The trace lab's chat panel: the conversation it counts (typed, or a row of the table) and how."""
    source: int = TYPED  # TYPED, or the position of the table's row whose messages it counts
    system: str | None = None  # what was typed (None: the example, in the page's language, until then)
    user: str | None = None
    template: str = "none"  # sim.trace.chat.TEMPLATES
    tokenizer: str = BYTES  # sim.trace.chat.TOKENIZERS


@dataclass(slots=True)
class LabState:
    """The trace lab's session state, under STATE_KEY: its settings, the trace table, the share link, the run
    shown and the chat panel (other pages read the lab's trace and settings, and give it policies)."""
    settings: LabSettings = field(default_factory=LabSettings)
    base: pd.DataFrame | None = None  # the table the editor starts from
    current: pd.DataFrame | None = None  # the table as edited: what runs
    restarts: int = 0  # how often the editor had to start afresh on the same table (editor_key)
    look: tuple | None = None  # what the editor's columns were last drawn from (session.columns_changed)
    link: str | None = None  # the share link last restored (or written), so that a rerun does not restore it again
    link_error: str | None = None  # why the last link could not be opened (a ScenarioError code)
    ran: Scenario | None = None  # the scenario whose results are shown
    busy: Scenario | None = None  # the scenario whose last run a busy server stopped: it waits for Run (busy_waits)
    cost_preset: str = ""  # the linear cost preset last applied to the coefficients
    linear_before_profile: dict[str, object] = field(default_factory=dict)  # what the shipped profile replaced
    chat: ChatPanel = field(default_factory=ChatPanel)
    preset: str = "seed"  # the preset picked (ui.presets.PRESETS)
    generator: GeneratorForm = field(default_factory=GeneratorForm)  # the seeded generator's settings
    upload: UploadForm = field(default_factory=UploadForm)  # the upload's import options


def state() -> LabState:
    return st.session_state[STATE_KEY]


def settings() -> LabSettings:
    return state().settings


def setting(container, name: str, **label_fields) -> object:
    """The widget of setting `name`, made from its field, in `container`; its value goes back into the
    settings, so it survives page switches (session.kept)."""
    label = LABELS.get(name, f"cfg_{name}")
    kwargs = {"help": t(HELP.get(name, f"{label}_help"))}
    if name in SELECTS:
        widget = container.selectbox
        kwargs |= {"options": SELECTS[name]}
    elif name in CHOICES:
        widget = container.radio
        kwargs |= {"options": CHOICES[name], "horizontal": True,
                   "format_func": lambda k: t(CHOICE_TEXT[name].format(k))}
    else:
        widget = container.number_input
        whole = codec.LEAVES[name].kind is int
        kwargs |= ({"min_value": LOWEST.get(name, 0), "max_value": MOST, "step": 1} if whole else
                   {"min_value": 0.0, "max_value": 1e9, "step": 1.0} if name.startswith("slo_") else
                   {"min_value": 0.0, "max_value": 1e6, "step": 0.1, "format": "%.2f"} if name == "moe_skew" else
                   {"min_value": 0.0, "max_value": 1e6, "step": 0.01, "format": "%.4f"})  # cost coefficients
    value = kept(widget, t(label, **label_fields), f"lab_{name}", getattr(settings(), name), **kwargs)
    setattr(settings(), name, value)
    return value


def frame(trace: Trace) -> pd.DataFrame:
    """The editor's table of a trace: the required columns and any optional column it uses. Numbers are kept
    as floats, so that the editor keeps what is typed (a whole-number column would round 2.5 without a word)
    and validation can name it."""
    rows = [{c: " ".join(map(str, v)) if isinstance(v, tuple) else v for c, v in row.items()}  # hash ids as text
            for row in trace.rows()]
    table = pd.DataFrame(rows, columns=list(rows[0]) if rows else list(REQUIRED))
    return table.astype({c: "float64" for c in table.columns if c not in TEXT_COLUMNS})


def typed(table: pd.DataFrame) -> list[list[object]]:
    """The editor's cells as typed, for a download: empty cells empty, whole numbers without a '.0'."""
    return [[None if pd.isna(cell) else int(cell) if isinstance(cell, float) and cell.is_integer() else cell
             for cell in row] for row in table.astype(object).values.tolist()]


def init() -> None:
    """Defaults for a new session; a returning page finds the edited table, not the widget's lost edits."""
    lab = page_state(STATE_KEY, LabState)
    if lab.base is None:
        set_trace(read_csv(SEED_CSV))
    elif editor_key() not in st.session_state:
        # The editor's state is dropped when its page is left: start again from what it had become.
        lab.base = lab.current


def current_trace(table: pd.DataFrame | None = None) -> Trace:
    """The lab's table as edited (or `table`), validated: raises TraceError naming every bad row."""
    table = state().current if table is None else table
    return validate(table.to_dict("records"), list(table.columns))


def set_trace(trace: Trace) -> None:
    """Make `trace` the editor's table, with no edits: what was typed since the last one is dropped."""
    set_table(frame(trace))


def set_table(table: pd.DataFrame) -> None:
    """Make `table` the editor's, with no edits. The browser keeps a widget's state for as long as the page draws
    the same widget, and an editor is the same one while its key and table are: after edits, the same table again
    (a preset loaded twice) would come back with them, and send them again at the next change. A new key then
    starts it afresh."""
    lab = state()
    if lab.base is not None and table.equals(lab.base) and edited():
        lab.restarts += 1
    st.session_state.pop(editor_key(), None)
    lab.base = lab.current = table


def editor_key() -> str:
    """The data editor's widget key: EDITOR, with the number of restarts after it once there were any."""
    restarts = state().restarts
    return f"{EDITOR}_{restarts}" if restarts else EDITOR


def edited() -> bool:
    """Whether the editor holds edits of its table."""
    return holds_edits(editor_key())


def editor_table() -> pd.DataFrame:
    """The table the editor starts from: the stored one, or the table as edited where the editor's columns change
    in this run (the language of their headers, presenter mode: columns_changed), so that no edit is lost."""
    lab = state()
    if columns_changed(lab, editor_key(), (language(), presenter.on())):
        set_table(lab.current)
    return lab.base


def set_config(config: Config, policy_a: Policy, policy_b: Policy) -> None:
    """Put a scenario's budgets and policies in the forms (their widgets then show the new values)."""
    loaded = state().settings = LabSettings.of(config, policy_a, policy_b)
    for name in codec.names(Config):
        st.session_state[f"{WIDGET}lab_{name}"] = getattr(loaded, name)  # the widget shows it (Streamlit sends it)
    for side, policy in zip("ab", (policy_a, policy_b)):
        put_policy(loaded, side, "lab", policy)


def load(trace: Trace, config: Config, policy_a: Policy, policy_b: Policy) -> None:
    """Make this the lab's scenario (presets, the worked example's "open in the lab" button, links)."""
    set_trace(trace)
    set_config(config, policy_a, policy_b)


def config() -> Config:
    """The budgets, cache and cost model in the form (raises ConfigError naming a bad field)."""
    return settings().config()


def policies() -> tuple[Policy, Policy]:
    return settings().policy_a, settings().policy_b


def give_kv_cache(widget: str) -> None:
    """A preset was just chosen in the widget of key `widget`: one that keeps a prefix cache needs a KV cache of a
    size, so a cache of none ("unlimited") gets room for a full batch of the longest request and its widget shows
    it; a size the user set stays."""
    if caches_prefixes(st.session_state[widget]) and not settings().kv_blocks:
        settings().kv_blocks = st.session_state[f"{WIDGET}lab_kv_blocks"] = kv_for_a_full_batch()


def kv_for_a_full_batch() -> int:
    """Blocks for as many of the trace's longest request as the budgets run at once: the KV it holds at most
    (prompt + output - 1 tokens, sim's rule), times the sequence limit. Before the table is a valid trace, a
    request as long as the token budget stands in."""
    s = settings()
    try:
        longest = max(r.prompt + r.output - 1 for r in current_trace().requests)
    except TraceError:
        longest = s.token_budget
    running = min(s.max_seqs or s.token_budget, s.token_budget)
    return min(MOST, running * blocks_for(longest, s.block_size))


def form_key(page: str, side: str) -> str:
    """The key of page `page`'s ("lab", "rm") policy form `side` ("a", "b"): its widgets' keys start WIDGET + it."""
    return f"{page}_policy_{side}"


def put_policy(home, side: str, page: str, policy: Policy) -> None:
    """Make `policy` the policy `side` of `home` (a page's state, with policy_a and policy_b) and its form's widgets
    show it (a scenario, a button's policy)."""
    setattr(home, f"policy_{side}", policy)
    for name, value in codec.flat(policy).items():
        st.session_state[f"{WIDGET}{form_key(page, side)}_{name}"] = codec.shown(name, value)


def open_link(link: str | None) -> bool:
    """A share link restores its scenario once (True when it just did); a bad one leaves the scenario as it
    was and keeps why, as its link_error."""
    lab = state()
    if not link or link == lab.link:
        return False
    lab.link = link
    try:
        shared = decode(link)
    except ScenarioError as error:
        lab.link_error = error.code
        return False
    load(shared.trace, shared.config, shared.policy_a, shared.policy_b)
    return True


def policy_problem(trace: Trace, config: Config, chosen: tuple[Policy, Policy]) -> tuple[int, ConfigError] | None:
    """Why a policy cannot run under these budgets (a preset's rules against the options, prefix caching with no
    KV cache...), as its scheduler would say when made, with which policy it is (0 or 1); None when both can."""
    # The checks are of the budgets and options: one request will do, the longest (nano-vllm's budget must hold it).
    longest = Trace((max(trace.requests, key=lambda r: r.prompt + r.output),))
    for index, policy in enumerate(chosen):
        try:
            make_scheduler(policy, longest, config)
        except ConfigError as error:
            return index, error
        except TraceError:
            pass  # (prompts over the budget are told apart, below)
    return None


def prompts_over_budget(trace: Trace, config: Config, chosen: tuple[Policy, Policy]) -> tuple:
    """The problems of prompts larger than the token budget, when a policy has no chunked prefill to admit
    them piece by piece (the rule sim.trace.trace.check_budget holds the scheduler to); empty if none."""
    if all(p.chunk_size is not None for p in chosen):
        return ()
    try:
        check_budget(trace, config.token_budget)
    except TraceError as error:
        return error.problems
    return ()


def shown_run(scenario, asked: bool, auto_run: int):
    """The scenario whose results the page shows: the current one when it is small enough to run at every
    change or its run was asked for, else the last one run (the page says it is stale), else None."""
    if scenario is not None and (len(scenario.trace) <= auto_run or asked):
        state().ran = scenario
    return state().ran


def busy_waits(shown: Scenario, asked: bool) -> bool:
    """Whether the page waits for Run instead of running `shown` again: its last run was stopped because the
    server was busy (ui.runs.WALL_LIMIT_S), and without this every rerun of the page (any widget a student
    touches) would try again, for up to a minute each."""
    lab = state()
    if asked:
        lab.busy = None
    return lab.busy == shown


def stopped_busy(shown: Scenario) -> None:
    state().busy = shown


def dismiss_link_error() -> None:
    state().link_error = None
