"""Puts a tick's facts (sim.report.explain) into words in the chosen language: one sentence of what the tick did,
and the rules behind it. The words are drawn by Plotly (the story's figure), so request names are HTML-escaped."""
from __future__ import annotations

from sim.report.explain import TickFacts

from .i18n import language, t
from .text import plotly_text


def names(items) -> str:
    """A, B and C (English) or A、B、C (Chinese); names are user text, escaped for Plotly's tags."""
    items = [plotly_text(name) for name in items]
    if language() == "zh":
        return "、".join(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _part(key: str, items, **params) -> str:
    items = list(items)
    return t(f"{key}_{'one' if len(items) == 1 else 'many'}", names=names(items), **params)


def _waiting(facts: TickFacts) -> tuple[list[str], list[str]]:
    """Requests with no work this tick: those that arrived in it, and those that were waiting already."""
    admitted = {name for name, _ in facts.admitted}
    arrived = [n for n in facts.arrived if n not in admitted]
    return arrived, [n for n in facts.waiting if n not in arrived]


def sentence(facts: TickFacts) -> str:
    """For example: "t=3: A decodes 1 token; B is done but holds its slot as padding; C arrives and waits; 6 of 8
    budget idle (1 spent on padding)"."""
    parts = []
    if facts.decoding:
        parts.append(_part("n_decode", facts.decoding))
    if facts.finishing:
        parts.append(_part("n_finish", facts.finishing, tick=facts.tick + 1))
    if facts.admitted:
        parts.append(_part("n_admit", [n for n, _ in facts.admitted], tokens=sum(p for _, p in facts.admitted)))
    if facts.prefilling:
        parts.append(_part("n_prefilling", [n for n, _ in facts.prefilling]))
    if facts.padding:
        parts.append(_part("n_padding", facts.padding))
    arrived, waiting = _waiting(facts)
    parts += [_part(key, group) for key, group in (("n_arrive", arrived), ("n_wait", waiting)) if group]
    budget = t("n_budget", idle=facts.idle, budget=facts.budget)
    if facts.padding_tokens:
        budget += t("n_budget_padding", padding=facts.padding_tokens)
    return t("n_tick", tick=facts.tick) + t("n_sep").join(parts or [t("n_nothing")]) + t("n_sep") + budget


def reasons(facts: TickFacts, batching: str) -> list[str]:
    """The rules of `batching` (static or continuous) behind what the tick did, each naming whom it explains,
    said every tick it applies: "C waits: a static batch is closed until its longest member finishes.\""""
    arrived, waiting = _waiting(facts)
    waits = arrived + waiting
    busy = bool(facts.decoding or facts.padding or facts.prefilling or facts.finishing)
    admitted = [n for n, _ in facts.admitted]
    if batching == "static":
        rules = (("why_static_admit", admitted if facts.tick > 0 else []), ("why_static_padding", facts.padding),
                 ("why_static_wait", waits if busy else []))
    else:
        rules = (("why_continuous_admit", admitted if facts.decoding else []),
                 ("why_continuous_finish", facts.finishing), ("why_continuous_wait", waits))
    said = [_part(key, group) for key, group in rules if group]
    running = [*facts.decoding, *(n for n, _ in facts.prefilling), *admitted, *facts.padding]
    if said or not running:
        return said or [t("why_idle")]
    # No event to explain: the rule that keeps the batch as it is
    return [_part("why_static_batch" if batching == "static" else "why_continuous_all", dict.fromkeys(running))]
