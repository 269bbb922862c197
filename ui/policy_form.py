"""The lab's forms for what a real scheduler also decides: each policy's options (A and B apart) and the
shared KV cache and cost model. Each widget starts from the stored setting and writes it back."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from sim.core.config import COST_PRESETS, POLICY_CHOICES, STATIC_UNSUPPORTED, ConfigError, Policy

from . import cost_profile, lab_state
from .i18n import t
from .strings import STRINGS
from .tables import option_summary
from .text import md_escape

# Where each option's widget sits: the form's two columns and a row of three under the right one. Every Policy
# field but batching is in it once (a test holds it to Policy's fields); the widget itself follows the field.
LEFT = ("preset", "order", "sjf_key", "aging_rate", "preemptive_priority", "tenant_quotas", "timeout",
        "stream_credits", "release_paused")
RIGHT = ("chunk_size", "mixing", "kv_admission", "prefix_cache", "preempt", "victim", "graph_buckets")
ROW = ("spec_tokens", "spec_accept", "seed")
SHOWN_WHEN = {"sjf_key": ("order", "sjf"), "aging_rate": ("order", "aging")}  # an option that only then matters
SIMULATED_ONLY = ("spec_accept", "seed")  # drawn acceptance: the real engine measures it (it drafts and verifies)
HIGHEST = {"aging_rate": 1000.0, "spec_tokens": 64, "spec_accept": 1.0, "seed": 2**31 - 1}  # else 10**9
CONTINUOUS_ONLY = STATIC_UNSUPPORTED
STATIC_RESET = {name: getattr(Policy(), name) for name in CONTINUOUS_ONLY}
LINEAR_KEPT = ("c0",)  # the one coefficient linear and profile costs share


def option_widget(name: str, shown: object, key: str, disabled: bool) -> object:
    """The widget of Policy field `name`, made from the field: a choice of its options, a checkbox for a
    switch, text for a list, else a number from 0 (whole or decimal as the field is). It shows `shown`."""
    default = lab_state.POLICY_FIELDS[name].default
    kwargs = {"key": key, "disabled": disabled}
    if f"opt_{name}_help" in STRINGS:
        kwargs["help"] = t(f"opt_{name}_help")
    label = t(f"opt_{name}")
    if name in POLICY_CHOICES:
        options = POLICY_CHOICES[name]
        return st.selectbox(label, options, index=options.index(shown),
                            format_func=lambda k: t(f"opt_{name}_{k}".replace("-", "_")), **kwargs)
    if isinstance(default, bool):
        return st.checkbox(label, value=shown, **kwargs)
    if isinstance(default, tuple):
        return st.text_input(label, value=shown, max_chars=300, **kwargs)
    low = 0.0 if isinstance(default, float) else 0
    return st.number_input(label, min_value=low, max_value=HIGHEST.get(name, 10**9), value=shown, **kwargs)


def policy_form(key: str, label_key: str, simulated_only: bool = True) -> None:
    """The policy kept in session key `key`: its batching and, in an expander, a real scheduler's options.
    `simulated_only=False` hides what only the simulator models (the drawn acceptance of speculative drafts).

    Each widget's default is the stored policy's value, which equals the widget's own value once it ran: a
    widget the page draws anew (after a quick rerun, say) shows that, not the first option. A scenario that
    sets the widgets' state (lab_state.set_config) still wins."""
    policy = lab_state.policy_at(key)
    shown = lab_state.policy_widget_values(policy)
    prefix = f"{lab_state.WIDGET}{key}_"
    choices = POLICY_CHOICES["batching"]
    batching = st.selectbox(t(label_key), choices, index=choices.index(policy.batching),
                            format_func=lambda k: t(f"policy_{k}"), key=prefix + "batching")
    static = batching == "static"
    values = {"batching": batching}
    # The options are drawn only while open, which keeps a fresh browser's first view light; folded, the
    # policy keeps the options it has.
    options = st.expander(t("opt_title"), key=prefix + "options", on_change="rerun")
    if options.open:
        with options:
            drawn = _draw_options(shown, prefix, static, simulated_only)
        try:
            values |= {name: lab_state.policy_value(name, value) for name, value in drawn.items()
                       if not (static and name in CONTINUOUS_ONLY)}
        except ConfigError as error:
            st.error(t("cfg_bad", field=error.field, reason=md_escape(error)))
            _say_changes(key)
            return
    if static:  # options that belong to continuous batching go back to their defaults
        values |= STATIC_RESET
    lab_state.set_policy_at(key, replace(policy, **values))
    _say_changes(key)


def _draw_options(shown: dict, prefix: str, static: bool, simulated_only: bool) -> dict[str, object]:
    """The option widgets in their places; what each shows now, by field."""
    drawn: dict[str, object] = {}

    def shows(name: str) -> bool:
        if name in SHOWN_WHEN:
            field, value = SHOWN_WHEN[name]
            if drawn[field] != value:
                return False
        return simulated_only or name not in SIMULATED_ONLY

    def draw(place, name: str) -> None:
        with place:
            drawn[name] = option_widget(name, shown[name], prefix + name, static and name in CONTINUOUS_ONLY)
            if name == "preset" and drawn[name] and not static:  # what the chosen engine's scheduler does
                st.caption(t(f"preset_about_{drawn[name]}".replace("-", "_")))

    left, right = st.columns(2)
    for column, names in ((left, LEFT), (right, RIGHT)):
        for name in filter(shows, names):
            draw(column, name)
    row = list(filter(shows, ROW))
    for place, name in zip(right.columns(len(row)) if row else (), row):
        draw(place, name)
    return drawn


def _say_changes(key: str) -> None:
    """Under the folded options, which of them the policy of form `key` has changed."""
    if summary := option_summary(lab_state.policy_at(key)):
        st.caption(t("opt_changed", summary=summary))


def hardware_form() -> None:
    """The KV cache and the cost model, shared by A and B: the same hardware for a fair comparison."""
    setting = lab_state.setting
    for column, name in zip(st.columns(4), ("kv_blocks", "block_size", "swap_cost", "prefix_block")):
        setting(column, name)
    c1, c2 = st.columns([1, 2])
    kind = setting(c1, "cost_kind")
    if kind != "profile" and lab_state.settings().source:  # back from the profile: the linear c0 it replaced
        settings = lab_state.settings()
        for name, value in st.session_state.pop("linear_before_profile", {}).items():
            setattr(settings, name, value)
            st.session_state[f"{lab_state.WIDGET}lab_{name}"] = value
        settings.source = ""
    if kind == "linear":
        coefficients = ("c0", "c_prefill", "c_decode", "c_attn")
        with c2:
            preset = st.selectbox(t("cfg_cost_preset"), ["", *COST_PRESETS], key="cost_preset",
                                  format_func=lambda k: t(f"cost_preset_{k.replace('-', '_')}") if k else "—")
            if preset and st.session_state.get("cost_preset_applied") != preset:
                st.session_state["cost_preset_applied"] = preset
                for name in coefficients:  # before their widgets are drawn
                    value = getattr(COST_PRESETS[preset], name)
                    setattr(lab_state.settings(), name, value)
                    st.session_state[f"{lab_state.WIDGET}lab_{name}"] = value
            for column, name in zip(st.columns(4), coefficients):
                setting(column, name)
        st.caption(t("cost_linear_note"))
    elif kind == "profile":
        with c2:
            _profile_settings()


def _profile_settings() -> None:
    """The shipped profile's coefficients become the settings (the linear ones are kept aside, and come back
    when linear is chosen again); the page says which profile it is and its formula with units."""
    settings, cost = lab_state.settings(), cost_profile.shipped_cost()
    if cost is None:
        st.error(t("cost_profile_missing", path=str(cost_profile.SHIPPED)))
        return
    if settings.source != cost.source:
        st.session_state["linear_before_profile"] = {name: getattr(settings, name) for name in LINEAR_KEPT}
        for name in (*cost_profile.COEFFICIENTS, "source"):
            setattr(settings, name, getattr(cost, name))
    st.caption(cost_profile.about(cost_profile.document()))
    st.caption(cost_profile.formula(cost))
