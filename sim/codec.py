"""The one conversion between the settings dataclasses (Config with its nested SLO, CostModel and MoE, and Policy)
and flat dicts of their fields, driven by `dataclasses.fields`: the lab's forms, the command line, the capacity
lab's policies table and share links all go through it, so a new field needs no edit in any of them and every
default is the dataclass's own.

A nested field's settings are named after it (slo.ttft is slo_ttft, moe.top_k is moe_top_k); the cost model's
coefficients keep the names of its formula (c0, c_prefill, source) and its kind is cost_kind. Config's and Policy's
flat names are distinct, so one dict (a command line's options, a row of the policies table) can hold both.

Three forms of a setting's value:
- flat: the field's own value (None for "no limit", tuples as tuples): `flat` and `build`, exact both ways;
- shown: what a form or table shows and hands back (None as 0, a list as the text one types): `shown` and `typed`;
- tree: nested dicts of field names, as a share link's JSON holds a Config: `tree` and `from_tree`.
"""
from __future__ import annotations

import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass, replace
from types import NoneType, UnionType

from .core.cluster import Routing, Split
from .core.config import Config, ConfigError, Policy

Settings = Config | Policy
# The error of a list typed in a form that cannot be read, by field (sim.core.errors says each in words).
LIST_FORMATS = {"tenant_quotas": "quota_list", "graph_buckets": "bucket_list"}


@dataclass(frozen=True, slots=True)
class Leaf:
    """One flat setting: the dataclass it belongs to (Config or Policy), the field names that lead to it, its kind
    (int, float, str, bool or tuple; `item` is a tuple's item type), whether None is one of its values, and its
    default."""
    owner: type
    path: tuple[str, ...]
    kind: type
    optional: bool
    default: object
    item: object = None


def _flat_name(path: tuple[str, ...]) -> str:
    if len(path) == 1:
        return path[0]
    outer, inner = path
    if outer == "cost":
        return "cost_kind" if inner == "kind" else inner
    return f"{outer}_{inner}"


def _leaves(owner: type, cls: type, path: tuple[str, ...] = ()) -> dict[str, Leaf]:
    hints, defaults = typing.get_type_hints(cls), cls()
    out: dict[str, Leaf] = {}
    for f in fields(cls):
        hint, default = hints[f.name], getattr(defaults, f.name)
        if is_dataclass(default):
            out |= _leaves(owner, type(default), (*path, f.name))
            continue
        kinds = typing.get_args(hint) if isinstance(hint, UnionType) else (hint,)
        (kind,) = [k for k in kinds if k is not NoneType]
        item = typing.get_args(kind)[0] if typing.get_origin(kind) is tuple else None
        kind = typing.get_origin(kind) or kind
        out[_flat_name((*path, f.name))] = Leaf(owner, (*path, f.name), kind, NoneType in kinds, default, item)
    return out


LEAVES: dict[str, Leaf] = _leaves(Config, Config) | _leaves(Policy, Policy)
assert len(LEAVES) == len(_leaves(Config, Config)) + len(_leaves(Policy, Policy)), "a flat name is used twice"
_NAMES = {(leaf.owner, leaf.path): name for name, leaf in LEAVES.items()}


def names(cls: type) -> list[str]:
    """The flat names of Config's or Policy's settings, in field order."""
    return [name for name, leaf in LEAVES.items() if leaf.owner is cls]


def flat(settings: Settings) -> dict[str, object]:
    """A Config's or Policy's settings by flat name."""
    out = {}
    for name in names(type(settings)):
        value = settings
        for part in LEAVES[name].path:
            value = getattr(value, part)
        out[name] = value
    return out


def build(cls: type, values: Mapping[str, object], base: Settings | None = None) -> Settings:
    """A Config or Policy from settings by flat name, through the dataclasses' own checks (ConfigError names a bad
    field); the settings not given keep those of `base` (default: the dataclass's defaults). A name that is not one
    of cls's settings is a ValueError."""
    unknown = [name for name in values if name not in LEAVES or LEAVES[name].owner is not cls]
    if unknown:
        raise ValueError(f"not a setting of {cls.__name__}: {unknown[0]!r}")
    return _rebuilt(cls() if base is None else base, (), cls, values)


def _rebuilt(settings, path: tuple[str, ...], owner: type, values: Mapping[str, object]):
    changes = {}
    for f in fields(settings):
        value, here = getattr(settings, f.name), (*path, f.name)
        if is_dataclass(value):
            nested = _rebuilt(value, here, owner, values)
            if nested is not value:
                changes[f.name] = nested
        elif (name := _NAMES[owner, here]) in values:
            changes[f.name] = values[name]
        # (replace runs the dataclass's checks: a nested one's before its owner's, as constructing them would)
    return replace(settings, **changes) if changes else settings


def config_and_policy(values: Mapping[str, object], config: Config | None = None,
                      policy: Policy | None = None) -> tuple[Config, Policy]:
    """The Config and the Policy of one dict that holds settings of both (a command line's, a table row's)."""
    return (build(Config, {k: v for k, v in values.items() if k in LEAVES and LEAVES[k].owner is Config}, config),
            build(Policy, {k: v for k, v in values.items() if k not in LEAVES or LEAVES[k].owner is not Config},
                  policy))


def shown(name: str, value: object) -> object:
    """What a form or table shows for setting `name`'s value: None ("no limit", "off") as 0 of the setting's kind,
    a list as the text one types ("1, 2, 4", "vip=0.5, free=0.5"), a decimal as a float."""
    leaf = LEAVES[name]
    if leaf.kind is tuple:
        return ", ".join(f"{item[0]}={item[1]:g}" if isinstance(item, tuple) else str(item) for item in value)
    if value is None:
        return 0.0 if leaf.kind is float else 0
    return float(value) if leaf.kind is float and not isinstance(value, bool) else value


def _empty(value: object) -> bool:
    return value is None or isinstance(value, float) and math.isnan(value)


def typed(name: str, value: object) -> object:
    """Setting `name`'s value from what a form or table hands back (`shown` read back). What cannot be the
    setting stays as typed, for its check to name (a 2.5 for a whole number): nothing typed is dropped. An empty
    number is 0, and 0 is None where the setting takes None; a whole number is an int where the setting is one; a
    list's text is read (text that is not one raises ConfigError naming the setting)."""
    leaf = LEAVES[name]
    if leaf.kind is tuple:
        return value if isinstance(value, tuple) else _listed(name, leaf, str(value))
    if leaf.kind is bool:
        return value is True
    if leaf.kind is str:
        return str(value)
    if _empty(value):
        value = 0
    if leaf.optional and value == 0 and not isinstance(value, bool):
        return None
    if leaf.kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if leaf.kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _listed(name: str, leaf: Leaf, text: str) -> tuple:
    items = [item.strip() for item in text.replace(";", ",").split(",") if item.strip()]
    try:
        if typing.get_origin(leaf.item) is tuple:  # (name, share) pairs
            pairs = [item.rpartition("=") for item in items]
            return tuple((key.strip(), float(share)) for key, _, share in pairs)
        return tuple(int(item) for item in items)
    except ValueError:
        raise ConfigError(name, LIST_FORMATS[name]) from None


# A fleet's settings (sim.core.cluster's Routing and Split) by the names the command line and the capacity lab's
# policies table give them, with the value an empty one means.
FLEET = {"replicas": 1, "router": "round-robin", "router_seed": 0, "prefill_replicas": 0, "decode_replicas": 0,
         "kv_transfer_latency": 0.0, "kv_transfer_per_block": 0.0}


def fleet(values: Mapping[str, object]) -> tuple[Routing, Split | None]:
    """The fleet of a flat dict of FLEET's settings (others in it are left alone): its replicas behind its router,
    and a prefill/decode split when it gives prefill or decode engines, which replace the replicas (ConfigError
    naming `replicas` unless they are left at 1). An empty or missing value is FLEET's; a whole float is an int."""
    def get(name: str) -> object:
        value = values.get(name)
        if _empty(value) or value == "":
            return FLEET[name]
        return int(value) if type(FLEET[name]) is int and isinstance(value, float) and value.is_integer() else value
    routing = Routing(get("replicas"), get("router"), get("router_seed"))
    if not get("prefill_replicas") and not get("decode_replicas"):
        return routing, None
    if routing.replicas != 1:
        raise ConfigError("replicas", "split_replaces_replicas")
    return routing, Split(get("prefill_replicas"), get("decode_replicas"), get("kv_transfer_latency"),
                          get("kv_transfer_per_block"))


def tree(settings: object) -> object:
    """A dataclass as nested dicts of its fields (a Config's SLO, cost model and MoE as dicts of their own)."""
    if not is_dataclass(settings):
        return settings
    return {f.name: tree(getattr(settings, f.name)) for f in fields(settings)}


def from_tree(cls: type, data: object, where: str = "") -> dict[str, object]:
    """The settings by flat name of nested dicts of field names (`tree` read back; fields left out are not in
    it). Raises ValueError saying where (after `where`, a prefix such as "policy.") the dicts hold what is not one
    of cls's fields, or a value that is not a dict where a nested dataclass is."""
    return _from_tree(cls, data, (), where)


def _from_tree(cls: type, data: object, path: tuple[str, ...], where: str) -> dict[str, object]:
    where += "".join(f"{part}." for part in path[-1:])
    if not isinstance(data, dict):
        raise ValueError(f"{where or 'the settings'} must be an object, got {_short(data)}")
    out: dict[str, object] = {}
    for key, value in data.items():
        here = (*path, key)
        if (cls, here) in _NAMES:
            out[_NAMES[cls, here]] = value
        elif any(leaf.owner is cls and leaf.path[:-1] == here for leaf in LEAVES.values()):  # a nested dataclass
            out |= _from_tree(cls, value, here, where)
        else:
            raise ValueError(f"unknown setting {_short(where + str(key))}")
    return out


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
