"""The one formatter of figures (ui/numbers.py): the same number in the same form on every page."""
import pytest

from ui.numbers import number, quantity, rounded, share, signed


@pytest.mark.parametrize(("value", "text"), [
    (11, "11"), (3536, "3,536"), (1030.5, "1,031"), (2368.5, "2,369"), (1.375, "1.38"), (21.35, "21.4"),
    (0.04213, "0.0421"), (0.5, "0.5"), (100.0, "100"), (99.95, "100"), (1.0, "1"), (0, "0"), (-2.345, "-2.35"),
    (0.125, "0.125"), (123456.7, "123,457")])
def test_figures_are_rounded_for_reading_half_up(value, text):
    assert number(value) == text


def test_rounded_keeps_a_number_and_an_int_when_whole():
    assert rounded(1.375) == 1.38 and isinstance(rounded(8.0), int) and rounded(1030.5) == 1031
    # a whole number is returned at once; other numbers (a numpy or Decimal one) go by the rule as before
    from decimal import Decimal

    import numpy as np
    assert rounded(1e20) == 10**20 and rounded(-12.0) == -12 and rounded(7) == 7
    assert rounded(Decimal("2.345")) == 2.35 and rounded(np.int64(5)) == 5 and rounded(np.float32(2.5)) == 2.5


def test_shares_changes_and_missing_values():
    assert (share(0.375), share(1), share(None)) == ("37.5%", "100%", "—")
    assert (signed(2.5), signed(-1), signed(0)) == ("+2.5", "-1", "0")
    assert number(None, missing="…") == "…"


def test_a_figure_that_is_not_finite_reads_as_infinity_or_missing():
    """An infinite figure (a limit set to none, a rate over no time) is a sign, not a traceback; NaN is missing."""
    assert (number(float("inf")), number(float("-inf")), share(float("inf"))) == ("∞", "-∞", "∞%")
    assert (number(float("nan")), number(float("nan"), missing="n/a")) == ("—", "n/a")


def test_a_quantity_says_its_unit_and_reads_seconds_from_a_second_on():
    assert quantity(13.4, "ms") == "13.4 ms"
    assert quantity(2368.5, "ms") == "2.37 s"
    assert (quantity(1, "tick"), quantity(5, "tick")) == ("1 tick", "5 ticks")
