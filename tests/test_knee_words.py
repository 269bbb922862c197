"""The capacity lab's knees in words and on the chart: a knee at the sweep's last point is said to lie beyond it
("≥ 4 (the end of the sweep)"), never read as where the policy breaks."""
from sim.report.sweep import knees
from ui import capacity


def rows(policy: str, attained: dict[float, float]) -> list[dict]:
    return [{"policy": policy, "value": value, "attainment": a, "error": ""} for value, a in attained.items()]


SWEEP = rows("static", {1: 1.0, 2: 0.95, 3: 0.5, 4: 0.2}) + rows("continuous", {1: 1.0, 2: 1.0, 3: 0.99, 4: 0.97})


def test_a_knee_at_the_end_of_a_rate_sweep_lies_beyond_it():
    found = knees(SWEEP, "rate", 0.9)
    assert found == {"static": 2, "continuous": 4}
    assert capacity.knee_labels(SWEEP, found, "rate") == {"static": "2", "continuous": "≥ 4 (the end of the sweep)"}
    static, continuous = capacity.knee_sentences(SWEEP, found, "rate", 0.9, 0.25)
    assert "up to **2x** the trace's arrival rate (0.5 requests a tick)." in static
    assert "at every load swept, up to **4x**" in continuous and "its knee lies beyond" in continuous


def test_a_capacity_knee_at_the_smallest_value_swept_lies_below_it():
    sweep = rows("chunked", {8: 0.95, 16: 0.97, 32: 1.0}) + rows("plain", {8: 0.1, 16: 0.92, 32: 1.0})
    found = knees(sweep, "token_budget", 0.9)
    assert capacity.knee_labels(sweep, found, "token_budget") == {"chunked": "≤ 8 (the start of the sweep)",
                                                                  "plain": "16"}
    chunked, plain = capacity.knee_sentences(sweep, found, "token_budget", 0.9, 1.0)
    assert "down to **8**, the start of the sweep" in chunked and "from a token budget of **16** upwards" in plain
