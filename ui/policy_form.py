"""The lab's forms for what a real scheduler also decides: each policy's options (Policy 1 and Policy 2 apart) and
the shared KV cache and cost model. Each widget starts from the stored setting and writes it back."""
from __future__ import annotations

from dataclasses import replace
from functools import partial

import streamlit as st

from sim import codec
from sim.core.config import COST_PRESETS, POLICY_CHOICES, STATIC_UNSUPPORTED, ConfigError, CostModel, Policy
from sim.core.hardware import (
    COMPUTE_EFFICIENCY,
    GPUS,
    MEMORY_EFFICIENCY,
    MODELS,
    HardwareError,
    kv_blocks,
    peak_tflops,
    weights_per_gpu,
)
from sim.core.presets import PRESET_ALLOWS, caches_prefixes, decided

from . import cost_profile, lab_state, presenter
from .i18n import t
from .numbers import number
from .problems import config_error
from .strings import STRINGS
from .tables import option_summary

# The options in the order the form shows them, in one column: two columns side by side do not fit a laptop's
# screen with the sidebar open (a choice such as "FCFS, skip what does not fit" needs a policy's whole width, and a
# label such as "Draft tokens" stacks a letter a line in less). The preset comes first: the options it decides are drawn
# as its own. Every Policy field but batching is in it once (a test holds it to Policy's fields); the widget itself
# follows the field.
OPTIONS = ("preset", "order", "sjf_key", "aging_rate", "preemptive_priority", "tenant_quotas", "chunk_size", "mixing",
           "kv_admission", "prefix_cache", "preempt", "victim", "graph_buckets", "spec_tokens", "spec_accept", "seed",
           "timeout", "stream_credits", "release_paused")
SHOWN_WHEN = {"sjf_key": ("order", "sjf"), "aging_rate": ("order", "aging")}  # an option that only then matters
SIMULATED_ONLY = ("spec_accept", "seed")  # drawn acceptance: the real engine measures it (it drafts and verifies)
HIGHEST = {"aging_rate": 1000.0, "spec_tokens": 64, "spec_accept": 1.0, "seed": 2**31 - 1}  # else 10**9
CONTINUOUS_ONLY = STATIC_UNSUPPORTED
PLAIN = {name: getattr(Policy(), name) for name in OPTIONS}
STATIC_RESET = {name: PLAIN[name] for name in CONTINUOUS_ONLY}
LINEAR_KEPT = ("c0",)  # the one coefficient linear and profile costs share


def places() -> tuple:
    """Where the two policies' forms go: side by side, or on a projector (presenter mode: larger text, the same
    width) one below the other, where side by side their choices would be cut off."""
    return (st.container(), st.container()) if presenter.on() else tuple(st.columns(2))


def grid(count: int, across: int) -> list:
    """Places for `count` settings in rows of `across` columns; on a projector (presenter mode: text a third
    larger on a page no wider) rows of half as many, so that each label keeps its words whole. A row's widgets line
    up at the bottom (their labels may wrap to different heights)."""
    per_row = (across + 1) // 2 if presenter.on() else across
    return [place for start in range(0, count, per_row)
            for place in st.columns(per_row, vertical_alignment="bottom")[:count - start]]


def option_widget(name: str, shown: object, key: str, disabled: bool, help_text: str | None = None,
                  on_change=None, choices: tuple | None = None) -> object:
    """The widget of Policy field `name`, made from the field: a choice of its options (or of `choices`), a
    checkbox for a switch, text for a list, else a number from 0 (whole or decimal as the field is). It shows
    `shown`, with `help_text` (else the option's own help) and calls `on_change` when changed."""
    kind = codec.LEAVES[name].kind
    kwargs = {"key": key, "disabled": disabled}
    if help_text or f"opt_{name}_help" in STRINGS:
        kwargs["help"] = help_text or t(f"opt_{name}_help")
    if on_change:
        kwargs["on_change"] = on_change
    label = t(f"opt_{name}")
    if name in POLICY_CHOICES:
        options = list(choices or POLICY_CHOICES[name])
        return st.selectbox(label, options, index=options.index(shown),
                            format_func=lambda k: t(f"opt_{name}_{k}".replace("-", "_")), **kwargs)
    if kind is bool:
        return st.checkbox(label, value=shown, **kwargs)
    if kind is tuple:
        return st.text_input(label, value=shown, max_chars=300, **kwargs)
    low = 0.0 if kind is float else 0
    return st.number_input(label, min_value=low, max_value=HIGHEST.get(name, 10**9), value=shown, **kwargs)


def policy_form(home, side: str, page: str, budget: int, simulated_only: bool = True) -> None:
    """The policy `side` ("a" or "b") of `home`, page `page`'s state ("lab": the lab's settings; "rm"): its batching
    and, in an expander, a real scheduler's options, under a token budget of `budget` (a preset's chunks are the
    budget). `simulated_only=False` hides what only the simulator models (the drawn acceptance of speculative
    drafts).

    Each widget's default is the stored policy's value, which equals the widget's own value once it ran: a
    widget the page draws anew (after a quick rerun, say) shows that, not the first option. A scenario that
    sets the widgets' state (lab_state.set_config) still wins."""
    policy, key = getattr(home, f"policy_{side}"), lab_state.form_key(page, side)
    shown = {name: codec.shown(name, value) for name, value in codec.flat(policy).items()}
    prefix = f"{lab_state.WIDGET}{key}_"
    choices = POLICY_CHOICES["batching"]
    batching = st.selectbox(t(f"cfg_policy_{side}"), choices, index=choices.index(policy.batching),
                            format_func=lambda k: t(f"policy_{k}"), key=prefix + "batching")
    static = batching == "static"
    values = {"batching": batching}
    # The options are drawn only while open, which keeps a fresh browser's first view light; folded, the
    # policy keeps the options it has.
    options = st.expander(t("opt_title"), key=prefix + "options", on_change="rerun")
    if options.open:
        with options:
            drawn, fixed = _draw_options(shown, prefix, static, simulated_only, budget, page == "lab")
        try:
            values |= {name: codec.typed(name, value) for name, value in drawn.items()
                       if not (static and name in CONTINUOUS_ONLY)}
        except ConfigError as error:
            st.error(config_error(error))
            _say_changes(policy)
            return
        # the preset's own: the policy keeps none of its own there, but for a value the preset allows
        values |= {name: PLAIN[name] for name in fixed if name not in drawn}
    if static:  # options that belong to continuous batching go back to their defaults
        values |= STATIC_RESET
    setattr(home, f"policy_{side}", replace(policy, **values))
    _say_changes(getattr(home, f"policy_{side}"))


def _draw_options(shown: dict, prefix: str, static: bool, simulated_only: bool, budget: int,
                  lab: bool) -> tuple[dict[str, object], dict[str, object]]:
    """The option widgets, in order: what each of the policy's own shows now, and what the chosen preset decides
    (drawn as the preset's, disabled), by field. In the lab, choosing a preset that keeps a prefix cache gives a
    KV cache of no size one (lab_state.give_kv_cache), so that the choice runs at once."""
    drawn: dict[str, object] = {}
    fixed: dict[str, object] = {}

    def shows(name: str) -> bool:
        if name in SHOWN_WHEN:
            field, value = SHOWN_WHEN[name]
            if fixed.get(field, drawn.get(field)) != value:
                return False
        return simulated_only or name not in SIMULATED_ONLY

    for name in filter(shows, OPTIONS):
        if name in fixed:
            value = codec.shown(name, fixed[name])
            preset = t(f"opt_preset_{drawn['preset']}".replace("-", "_"))
            allowed = PRESET_ALLOWS.get(drawn["preset"], {}).get(name, ())
            if allowed:  # the preset's value, or another it allows (vllm-v1: its full-prompt admission off)
                own = shown[name] if shown[name] in allowed else value
                chosen = option_widget(name, own, f"{prefix}{name}_by_{drawn['preset']}", False,
                                       t("opt_allowed_by_preset", preset=preset), choices=(value, *allowed))
                if chosen != value:
                    drawn[name] = chosen
                continue
            # (a key of its own that names the value: the widget shows the preset's, never the policy's state)
            option_widget(name, value, f"{prefix}{name}_by_{drawn['preset']}_{value}", True,
                          t("opt_by_preset", preset=preset))
            continue
        on_change = partial(lab_state.give_kv_cache, prefix + name) if name == "preset" and lab else None
        drawn[name] = option_widget(name, shown[name], prefix + name, static and name in CONTINUOUS_ONLY,
                                    on_change=on_change)
        if name == "preset" and drawn[name] and not static:  # what the chosen engine's scheduler does
            st.caption(t(f"preset_about_{drawn[name]}".replace("-", "_")))
            if lab and caches_prefixes(drawn[name]):
                _say_kv_cache()
            fixed = decided(drawn[name], budget)
    return drawn, fixed


def _say_kv_cache() -> None:
    """Under a preset that keeps a prefix cache: the lab's KV cache it runs in (given a size when it had none)."""
    settings = lab_state.settings()
    if settings.kv_blocks:
        st.caption(t("preset_kv_cache", blocks=number(settings.kv_blocks), size=number(settings.block_size),
                     where=t("cfg_hardware")))


def _say_changes(policy: Policy) -> None:
    """Under the folded options, which of them the form's policy has changed."""
    if summary := option_summary(policy):
        st.caption(t("opt_changed", summary=summary))


def hardware_form() -> None:
    """The KV cache and the cost model, shared by both policies: the same hardware for a fair comparison."""
    setting = lab_state.setting
    for place, name in zip(grid(4, 4), ("kv_blocks", "block_size", "swap_cost", "prefix_block")):
        setting(place, name)
    c1, c2 = (st.container(), st.container()) if presenter.on() else st.columns([1, 2])
    kind = setting(c1, "cost_kind")
    if kind != "profile" and lab_state.settings().source:  # back from the profile: the linear c0 it replaced
        settings = lab_state.settings()
        for name, value in lab_state.state().linear_before_profile.items():
            setattr(settings, name, value)
            st.session_state[f"{lab_state.WIDGET}lab_{name}"] = value
        settings.source, lab_state.state().linear_before_profile = "", {}
    if kind == "linear":
        coefficients = ("c0", "c_prefill", "c_decode", "c_attn")
        with c2:
            preset = st.selectbox(t("cfg_cost_preset"), ["", *COST_PRESETS], key="cost_preset",
                                  format_func=lambda k: t(f"cost_preset_{k.replace('-', '_')}") if k else "—")
            if preset and lab_state.state().cost_preset != preset:
                lab_state.state().cost_preset = preset
                for name in coefficients:  # before their widgets are drawn
                    value = getattr(COST_PRESETS[preset], name)
                    setattr(lab_state.settings(), name, value)
                    st.session_state[f"{lab_state.WIDGET}lab_{name}"] = value
        for place, name in zip(grid(4, 2), coefficients):  # two a row, the form's width: long labels, four decimals
            setting(place, name)
        st.caption(t("cost_linear_note"))
    elif kind == "profile":
        with c2:
            _profile_settings()
    elif kind == "roofline":
        _roofline_settings()


def _roofline_settings() -> None:
    """A real GPU and model: their choice, tensor parallel and precision; what the roofline is, in words; and a
    button that sizes the KV cache from what the weights leave of the GPUs' memory (vLLM's 90%)."""
    setting = lab_state.setting
    for place, name in zip(grid(4, 2), ("hardware", "model", "tp", "precision")):  # (two a row: names whole)
        setting(place, name)
    settings = lab_state.settings()
    try:
        cost = CostModel("roofline", hardware=settings.hardware, model=settings.model, tp=settings.tp,
                         precision=settings.precision)
    except ConfigError as error:
        st.error(config_error(error))
        return
    st.caption(roofline_words(cost))
    try:
        blocks = kv_blocks(cost.hardware, cost.model, cost.tp, cost.precision, settings.block_size, 0.9)
    except HardwareError:
        st.warning(t("roofline_no_room", model=cost.model, tp=cost.tp, gpu=cost.hardware))
        return
    st.button(t("roofline_kv_auto", blocks=number(blocks), block=settings.block_size), key="roofline_kv_auto",
              on_click=_set_kv_blocks, args=(blocks,))


def _set_kv_blocks(blocks: int) -> None:
    """The KV cache's size, set before the next run draws its widget."""
    lab_state.settings().kv_blocks = blocks
    st.session_state[f"{lab_state.WIDGET}lab_kv_blocks"] = blocks


def roofline_words(cost: CostModel) -> str:
    """The roofline in words: the GPU's peaks, the model's size, what an iteration's time is, the efficiencies."""
    g, m = GPUS[cost.hardware], MODELS[cost.model]
    return t("roofline_about", gpu=g.name, tflops=number(peak_tflops(g, cost.precision)), bw=number(g.bandwidth_gb_s),
             memory=number(g.memory_gb), model=m.name, params=number(m.params / 1e9),
             weights=number(weights_per_gpu(m.name, cost.tp, cost.precision) / 1e9), tp=cost.tp,
             compute=f"{COMPUTE_EFFICIENCY:.0%}", memory_eff=f"{MEMORY_EFFICIENCY:.0%}")


def _profile_settings() -> None:
    """The shipped profile's coefficients become the settings (the linear ones are kept aside, and come back
    when linear is chosen again); the page says which profile it is and its formula with units."""
    settings, cost = lab_state.settings(), cost_profile.shipped_cost()
    if cost is None:
        st.error(t("cost_profile_missing", path=str(cost_profile.SHIPPED)))
        return
    if settings.source != cost.source:
        lab_state.state().linear_before_profile = {name: getattr(settings, name) for name in LINEAR_KEPT}
        for name in (*cost_profile.COEFFICIENTS, "source"):
            setattr(settings, name, getattr(cost, name))
    st.caption(cost_profile.about(cost_profile.document()))
    st.caption(cost_profile.formula(cost))
