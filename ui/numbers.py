"""The one form of every figure the pages show: rounded for reading, the same number the same way on every page.

The rule: whole numbers as they are, with thousands separators (11, 3,536); other figures of 100 or more to the
whole (1,031); smaller ones to three significant digits (1.38, 21.4, 0.0421). Shares are percentages by the
same rule (37.5%, 100%). A duration in ms of a second or more reads in seconds (2.37 s). Rounding is half up,
as people round, not to even."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from .i18n import t

SIGNIFICANT = 3


def rounded(value: float) -> float | int:
    """`value` rounded by the rule, as a number (for tables, which stay sortable): an int when it is whole."""
    if isinstance(value, bool) or value != value or value in (float("inf"), float("-inf")):
        return value
    if isinstance(value, int) or isinstance(value, float) and value.is_integer():  # (whole: most of a table in ticks)
        return int(value)
    exact = Decimal(repr(float(value)))
    if exact == 0:
        return 0
    digits = 0 if abs(exact) >= 100 else SIGNIFICANT - 1 - exact.adjusted()
    kept = exact.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return int(kept) if kept == kept.to_integral_value() else float(kept)


def number(value: float | None, missing: str = "—") -> str:
    """A figure for reading: 11, 3,536, 1,031, 1.38, 0.0421; ∞ for an infinity; `missing` for None and NaN."""
    if value is None or value != value:  # (NaN: no figure)
        return missing
    if value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "-∞"
    kept = rounded(value)
    return f"{kept:,}" if isinstance(kept, int) else f"{kept:,.{_decimals(kept)}f}"


def share(value: float | None, missing: str = "—") -> str:
    """A fraction as a percentage by the same rule: 0.375 -> 37.5%, 1 -> 100%."""
    return missing if value is None else number(value * 100) + "%"


def signed(value: float) -> str:
    """A change with its sign: +37.5, -2, 0."""
    text = number(value)
    return text if text.startswith("-") or rounded(value) == 0 else "+" + text


def quantity(value: float | None, unit: str, missing: str = "—") -> str:
    """A figure with its unit, in words of the chosen language: `unit` is tick, ms or s (the keys unit_<unit>);
    ms of a second or more read in seconds."""
    if value is None:
        return missing
    if unit == "ms" and abs(value) >= 1000:
        value, unit = value / 1000, "s"
    return t("with_value", value=number(value), unit=t(f"unit_{unit}" if unit != "tick" else _ticks(value)))


def duration(value_ms: float | None) -> str:
    """A duration measured in ms, for reading: 13 ms, 431 ms, 2.37 s."""
    return quantity(value_ms, "ms")


def _ticks(value: float) -> str:
    return "unit_tick_one" if rounded(value) == 1 else "unit_ticks"


def _decimals(value: float) -> int:
    """How many decimals the rounded `value` has (its repr never shows more than were kept)."""
    text = repr(value)
    return len(text.split(".")[1]) if "." in text and "e" not in text else max(0, -Decimal(text).as_tuple().exponent)
