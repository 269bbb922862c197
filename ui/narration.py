"""Puts a tick's facts (sim.report.explain) into one markdown sentence in the chosen language."""
from __future__ import annotations

from sim.report.explain import TickFacts

from .i18n import language, t
from .text import md_escape


def names(items) -> str:
    """A, B and C (English) or A、B、C (Chinese); names are user text, so markdown in them is escaped."""
    items = [md_escape(name) for name in items]
    if language() == "zh":
        return "、".join(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _part(key: str, items, **params) -> str:
    items = list(items)
    return t(f"{key}_{'one' if len(items) == 1 else 'many'}", names=names(items), **params)


def sentence(facts: TickFacts, batching: str | None = None, told: set[str] | None = None) -> str:
    """For example: "t=3: A decodes 1 token; C arrives, is admitted and prefills 3 tokens; 4 of 8 idle". With
    the run's `batching` (static or continuous), an event also says the rule behind it: "C arrives and waits:
    a static batch is closed until its longest member finishes"; each rule once, if `told` collects the rules
    said in the ticks before."""
    parts = []
    admitted = {name for name, _ in facts.admitted}
    arrived_only = [n for n in facts.arrived if n not in admitted]
    busy = bool(facts.decoding or facts.padding or facts.prefilling or facts.finishing)
    rule = {"static": {"admit": facts.tick > 0, "padding": True, "wait": busy},  # the rules that apply now
            "continuous": {"finish": True, "admit": bool(facts.decoding)}}.get(batching, {})
    told = set() if told is None else told

    def said(key: str, text: str) -> str:
        if not rule.get(key) or key in told:
            return text
        told.add(key)
        return text + t(f"rule_{batching}_{key}")

    if facts.decoding:
        parts.append(_part("n_decode", facts.decoding))
    if facts.finishing:
        parts.append(said("finish", _part("n_finish", facts.finishing, tick=facts.tick + 1)))
    if facts.admitted:
        tokens = sum(p for _, p in facts.admitted)
        parts.append(said("admit", _part("n_admit", [n for n, _ in facts.admitted], tokens=tokens)))
    if facts.prefilling:
        parts.append(_part("n_prefilling", [n for n, _ in facts.prefilling]))
    if facts.padding:
        parts.append(said("padding", _part("n_padding", facts.padding)))
    waiting = [n for n in facts.waiting if n not in arrived_only]  # arrivals were just said to wait
    waits = [_part(key, names) for key, names in (("n_arrive", arrived_only), ("n_wait", waiting)) if names]
    if waits:  # the rule once, after the last of them
        parts += [*waits[:-1], said("wait", waits[-1])]
    if not parts:
        parts.append(t("n_nothing"))
    budget = t("n_budget", idle=facts.idle, budget=facts.budget)
    if facts.padding_tokens:
        budget += t("n_budget_padding", padding=facts.padding_tokens)
    return t("n_tick", tick=facts.tick) + t("n_sep").join(parts) + t("n_sep") + budget
