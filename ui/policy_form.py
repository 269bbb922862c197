"""The lab's forms for what a real scheduler also decides: each policy's options (A and B apart) and the
shared KV cache and cost model. Each widget starts from the stored setting and writes it back."""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from sim.config import (
    COST_PRESETS,
    KV_ADMISSION,
    MIXING,
    ORDERS,
    POLICIES,
    PREEMPT,
    SJF_KEYS,
    VICTIMS,
    ConfigError,
    Policy,
)

from . import lab_state
from .i18n import t
from .tables import option_summary
from .text import md_escape

CONTINUOUS_ONLY = ("chunk_size", "mixing", "kv_admission", "spec_tokens", "tenant_quotas", "preemptive_priority")
STATIC_RESET = {name: getattr(Policy(), name) for name in CONTINUOUS_ONLY}


def _text_list(text: str, what: str) -> tuple:
    """ "1, 2, 4" -> (1, 2, 4); "vip=0.5, free=0.25" -> (("vip", 0.5), ("free", 0.25))."""
    items = [item.strip() for item in text.replace(";", ",").split(",") if item.strip()]
    try:
        if what == "buckets":
            return tuple(int(item) for item in items)
        pairs = [item.rpartition("=") for item in items]
        return tuple((tenant.strip(), float(share)) for tenant, _, share in pairs)
    except ValueError:
        raise ConfigError(what, t(f"opt_{what}_format")) from None


def policy_form(key: str, label: str, simulated_only: bool = True) -> None:
    """The policy kept in session key `key`: its batching and, in an expander, a real scheduler's options.
    `simulated_only=False` hides what only the simulator models (speculation, swapping)."""
    policy = lab_state.policy_at(key)
    shown = lab_state.policy_widget_values(policy)
    prefix = f"{lab_state.WIDGET}{key}_"

    def widget(make, label, field, **kwargs):
        """`make` for option `field`. Its default is always the stored policy's value, which equals the widget's
        own value once it ran: a widget the page draws anew (after a quick rerun, say) shows that, not the
        first option. A scenario that sets the widgets' state (lab_state.set_config) still wins."""
        if "options" in kwargs:
            kwargs["index"] = list(kwargs["options"]).index(shown[field])
        else:
            kwargs["value"] = shown[field]
        return make(t(label), key=prefix + field, **kwargs)

    def pick(label, field, options, **kwargs):
        return widget(st.selectbox, label, field, options=options,
                      format_func=lambda k: t(f"opt_{field}_{k}".replace("-", "_")), **kwargs)

    batching = widget(st.selectbox, label, "batching", options=POLICIES,
                      format_func=lambda k: t(f"policy_{k}"))
    static = batching == "static"
    values = {"batching": batching}
    # The options are drawn only while open, which keeps a fresh browser's first view light; folded, the
    # policy keeps the options it has.
    options = st.expander(t("opt_title"), key=prefix + "options", on_change="rerun")
    if not options.open:
        if static:
            values.update(STATIC_RESET)
        lab_state.set_policy_at(key, replace(policy, **values))
        _say_changes(key)
        return
    with options:
        c1, c2 = st.columns(2)
        with c1:
            values["order"] = pick("opt_order", "order", ORDERS, help=t("opt_order_help"))
            if values["order"] == "sjf":
                values["sjf_key"] = pick("opt_sjf_key", "sjf_key", SJF_KEYS)
            if values["order"] == "aging":
                values["aging_rate"] = widget(st.number_input, "opt_aging_rate", "aging_rate", min_value=0.0,
                                              max_value=1000.0, help=t("opt_aging_rate_help"))
            values["preemptive_priority"] = widget(st.checkbox, "opt_preemptive_priority", "preemptive_priority",
                                                   disabled=static, help=t("opt_preemptive_priority_help"))
            quotas = widget(st.text_input, "opt_tenant_quotas", "tenant_quotas", disabled=static,
                            help=t("opt_tenant_quotas_help"), max_chars=300)
            values["timeout"] = int(widget(st.number_input, "opt_timeout", "timeout", min_value=0, max_value=10**9,
                                           help=t("opt_timeout_help"))) or None
        with c2:
            values["chunk_size"] = int(widget(st.number_input, "opt_chunk_size", "chunk_size", min_value=0,
                                              max_value=10**7, disabled=static, help=t("opt_chunk_size_help"))) or None
            values["mixing"] = pick("opt_mixing", "mixing", MIXING, disabled=static, help=t("opt_mixing_help"))
            values["kv_admission"] = pick("opt_kv_admission", "kv_admission", KV_ADMISSION, disabled=static,
                                          help=t("opt_kv_admission_help"))
            if simulated_only:
                values["preempt"] = pick("opt_preempt", "preempt", PREEMPT, help=t("opt_preempt_help"))
            values["victim"] = pick("opt_victim", "victim", VICTIMS)
            buckets = widget(st.text_input, "opt_graph_buckets", "graph_buckets", help=t("opt_graph_buckets_help"),
                             max_chars=200)
            if simulated_only:  # speculation needs a draft model: the simulator's alone
                s1, s2, s3 = st.columns(3)
                with s1:
                    values["spec_tokens"] = int(widget(st.number_input, "opt_spec_tokens", "spec_tokens",
                                                       min_value=0, max_value=64, disabled=static,
                                                       help=t("opt_spec_tokens_help")))
                with s2:
                    values["spec_accept"] = widget(st.number_input, "opt_spec_accept", "spec_accept", min_value=0.0,
                                                   max_value=1.0, step=0.05)
                with s3:
                    values["seed"] = int(widget(st.number_input, "opt_seed", "seed", min_value=0,
                                                max_value=2**31 - 1))
        try:
            if static:  # options that belong to continuous batching go back to their defaults
                values.update(STATIC_RESET)
            else:
                values["tenant_quotas"] = _text_list(quotas, "tenant_quotas")
            values["graph_buckets"] = _text_list(buckets, "buckets")
            lab_state.set_policy_at(key, replace(policy, **values))
        except ConfigError as error:
            st.error(t("cfg_bad", field=error.field, reason=md_escape(error)))
    _say_changes(key)


def _say_changes(key: str) -> None:
    """Under the folded options, which of them the policy of form `key` has changed."""
    if summary := option_summary(lab_state.policy_at(key)):
        st.caption(t("opt_changed", summary=summary))


def hardware_form() -> None:
    """The KV cache and the cost model, shared by A and B: the same hardware for a fair comparison."""
    setting = lab_state.setting
    for column, name in zip(st.columns(3), ("kv_blocks", "block_size", "swap_cost")):
        setting(column, name)
    c1, c2 = st.columns([1, 2])
    kind = setting(c1, "cost_kind")
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
