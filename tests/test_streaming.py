"""Streaming to clients: read rates, output credits (backpressure), paused and released requests, clients that
go away, and the tokens made but never read."""
import json
import math
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.core.config import Config, ConfigError, Policy
from sim.core.engine import simulate
from sim.core.stream import Reader, sent_by
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.trace import TraceError, validate
from tests.scheduler_kit import segs

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def two(read_rate=0.5, **columns):
    """A (slow reader) and B (no read rate), both arriving at 0 with prompts of 2 and outputs of 8."""
    return validate([{"name": "A", "arrival": 0, "prompt": 2, "output": 8, "read_rate": read_rate, **columns},
                     {"name": "B", "arrival": 0, "prompt": 2, "output": 8}])


def emitted(schedule, name):
    return next(t for r, t in zip(schedule.requests, schedule.emitted()) if r.name == name)


# -- the client model ---------------------------------------------------------------------------------------

def test_a_reader_reads_at_its_rate_only_what_has_arrived():
    reader = Reader(0.5)
    reader.emit(2, 1)  # one token at 2
    assert reader.done == 4  # read by 4
    assert reader.sent(3) == 0 and reader.unread(3) == 1  # half of it read by 3
    reader.emit(3, 1)
    assert reader.sent(4) == 1 and reader.unread(4) == 1
    assert reader.sent(100) == 2  # it never reads more than it got
    idle = Reader(1.0)
    idle.emit(10, 1)  # nothing to read before 10: no reading banked
    assert idle.sent(10.5) == 0 and idle.sent(11) == 1


def test_credit_back_is_when_enough_is_read():
    reader = Reader(0.25)
    reader.emit(0, 3)
    # credits 2 and a step of 1: it may hold 2 - 1 = 1 token unread, so it must have read 2 tokens whole, at
    # 2 / 0.25 = 8
    assert reader.room_at(1) == 8
    early = Reader(0.25)
    early.emit(0, 3)
    assert early.unread(7.9) + 1 > 2 and reader.unread(8) + 1 <= 2


def test_sent_by_reads_until_the_client_leaves():
    assert sent_by([2, 3, 4], None, None) == 3
    assert sent_by([2, 3, 4], None, 3) == 2  # as fast as they come: what was emitted by then
    assert sent_by([2, 3, 4], 0.5, 4) == 1  # 0.5 a tick from 2: one whole token by 4
    assert sent_by([2, 3, 4], 0.5, None) == 3  # a client that stays reads everything in the end


# -- backpressure, by hand ----------------------------------------------------------------------------------

def test_a_slow_reader_is_paused_and_decodes_at_its_clients_pace():
    """A reads 0.5 tokens a tick with 2 credits: tokens at 2 and 3 fill them (0.5 read by 3); from then on A
    decodes every other tick, paused in between, holding its slot; B goes on at one token a tick."""
    schedule = simulate(two(), Config(8), Policy(stream_credits=2))
    assert emitted(schedule, "A") == [2, 3, 5, 7, 9, 11, 13, 15]
    assert emitted(schedule, "B") == list(range(2, 10))
    assert segs(schedule, "A")[:5] == [("prefill", 0, 1, 2), ("decode", 1, 3, 2), ("paused", 3, 4, 0),
                                       ("decode", 4, 5, 1), ("paused", 5, 6, 0)]
    assert [s.paused for s in schedule.steps if s.start in (3, 4)] == [1, 0]
    a = next(r for r in compute(schedule).requests if r.name == "A")
    assert (a.generated, a.sent, a.paused) == (8, 8, 6)


def test_without_credits_a_slow_reader_changes_nothing_in_the_schedule():
    slow, plain = simulate(two(), Config(8), Policy()), simulate(two(None), Config(8), Policy())
    assert [r.segments for r in slow.requests] == [r.segments for r in plain.requests]
    assert slow.steps == plain.steps
    a = next(r for r in compute(slow).requests if r.name == "A")
    assert (a.generated, a.sent) == (8, 8)  # its client reads them all, later


def test_release_paused_gives_the_slot_up_and_recomputes():
    """Released at 3 (0.5 read, 2 unread), A waits out of the queue until its client has read one token (4),
    then prefills its prompt and 2 tokens again."""
    schedule = simulate(two(), Config(8), Policy(stream_credits=2, release_paused=True))
    assert segs(schedule, "A")[:4] == [("prefill", 0, 1, 2), ("decode", 1, 3, 2), ("preempted", 3, 4, 0),
                                       ("prefill", 4, 5, 4)]
    assert (3, "preempt", 0) in schedule.events
    assert emitted(schedule, "A")[:4] == [2, 3, 6, 7]


def test_release_paused_by_swap_keeps_the_kv_in_host_memory():
    schedule = simulate(two(), Config(8, kv_blocks=20, block_size=2, swap_cost=2),
                        Policy(stream_credits=2, release_paused=True, preempt="swap"))
    phases = [s[0] for s in segs(schedule, "A")]
    assert phases[:5] == ["prefill", "decode", "swapped", "swapping", "decode"]
    assert "prefill" not in phases[1:]  # nothing recomputed


def test_a_paused_request_holds_its_kv_blocks_that_others_wait_for():
    """The lesson's point: with 8 blocks of 2 tokens, slow A (reserving 5 blocks for its 2 + 8 - 1 tokens)
    stays in the cache while paused, so C, which needs 4, waits until A finishes; released, A lets C in."""
    rows = [{"name": "A", "arrival": 0, "prompt": 2, "output": 8, "read_rate": 0.25},
            {"name": "C", "arrival": 3, "prompt": 4, "output": 4}]
    config, held = Config(8, kv_blocks=8, block_size=2), Policy(stream_credits=1)
    kept = simulate(validate(rows), config, held)
    released = simulate(validate(rows), config, replace(held, release_paused=True))
    c_kept = next(r for r in kept.requests if r.name == "C")
    c_released = next(r for r in released.requests if r.name == "C")
    a_done = next(r for r in kept.requests if r.name == "A").completion
    assert c_kept.first_work >= a_done - 1  # C waited for the slow reader's blocks
    assert c_released.first_work < c_kept.first_work


# -- invariants ---------------------------------------------------------------------------------------------

def read_whole(times: list[float], rate: Fraction, at: float) -> int:
    """An independent account of the client: a fluid reader at `rate` has read min over s <= at of
    (tokens that arrived before s + rate x (at - s)), and all that arrived by `at` at most (whole tokens)."""
    arrived = sum(1 for t in times if t <= at)
    best = Fraction(arrived)
    for s in {t for t in times if t <= at}:
        before = sum(1 for t in times if t < s)
        best = min(best, before + rate * (Fraction(at) - Fraction(s)))
    return math.floor(best)


@st.composite
def streams(draw):
    budget = draw(st.integers(2, 12))
    n = draw(st.integers(1, 10))
    rows = []
    for i in range(n):
        arrival = draw(st.integers(0, 12))
        rows.append({"name": f"r{i}", "arrival": arrival, "prompt": draw(st.integers(1, budget)),
                     "output": draw(st.integers(1, 14)),
                     "read_rate": draw(st.none() | st.sampled_from((0.25, 0.5, 0.75, 1.0, 2.0))),
                     "disconnect_at": draw(st.none() | st.integers(arrival, arrival + 30))})
    config = Config(budget, draw(st.none() | st.integers(1, 6)), draw(st.sampled_from(("decode", "prefill"))),
                    kv_blocks=draw(st.none() | st.integers(8, 30)), block_size=2,
                    read_rate=draw(st.none() | st.sampled_from((0.5, 1.0))))
    spec = draw(st.integers(0, min(2, budget - 1)))
    policy = Policy(stream_credits=draw(st.integers(1 + spec, 5)), spec_tokens=spec,
                    release_paused=draw(st.booleans()), preempt=draw(st.sampled_from(("recompute", "swap"))),
                    mixing=draw(st.sampled_from(("decode-first", "prefill-first"))),
                    kv_admission=draw(st.sampled_from(("reserve", "overcommit"))))
    return validate(rows), config, policy


@settings(max_examples=150, deadline=None)
@given(streams())
def test_no_request_ever_holds_more_unread_tokens_than_its_credits(scenario):
    trace, config, policy = scenario
    schedule = simulate(trace, config, policy)
    for r, times in zip(schedule.requests, schedule.emitted()):
        if r.read_rate is None:
            continue
        rate = Fraction(str(r.read_rate))
        for at in sorted(set(times)):  # unread tokens peak just as tokens arrive
            unread = sum(1 for t in times if t <= at) - read_whole(times, rate, at)
            assert unread <= policy.stream_credits, (r.name, at, unread)


@settings(max_examples=100, deadline=None)
@given(streams())
def test_with_credits_unlimited_the_schedule_is_unchanged(scenario):
    """Credits no request could use up (its whole output) plan every iteration on its own, but change nothing:
    the same schedule as without credits."""
    trace, config, policy = scenario
    base = replace(policy, stream_credits=None, release_paused=False)
    unlimited = replace(policy, stream_credits=max(r.output for r in trace) + policy.spec_tokens + 1)
    a, b = simulate(trace, config, base), simulate(trace, config, unlimited)
    assert [r.segments for r in a.requests] == [r.segments for r in b.requests]
    assert a.events == b.events
    assert [(s.start, s.end, s.token_work, s.running) for s in a.steps] == \
        [(s.start, s.end, s.token_work, s.running) for s in b.steps] or _same_after_merging(a, b)


def _same_after_merging(a, b) -> bool:
    """The same iterations, however they were merged into steps."""
    def ticks(schedule):
        return [(end, s.token_work, s.running) for s in schedule.steps for end in s.iteration_ends()]
    return ticks(a) == ticks(b)


@settings(max_examples=100, deadline=None)
@given(streams())
def test_generated_and_sent_add_up(scenario):
    trace, config, policy = scenario
    schedule = simulate(trace, config, policy)
    metrics = compute(schedule)
    for r in metrics.requests:
        assert 0 <= r.sent <= r.generated <= r.output
        if r.finish_reason == "finished" and r.generated:
            assert r.generated == r.output
    assert metrics.unsent_tokens == sum(r.generated - r.sent for r in metrics.requests)


# -- a client that goes away --------------------------------------------------------------------------------

def test_a_client_that_goes_away_stops_its_request_at_the_next_boundary_and_frees_its_blocks():
    """C's client leaves at 6: the iteration under way still makes a token (at 7), never read; C's slot and
    blocks go back at 7."""
    trace = validate([{"name": "C", "arrival": 1, "prompt": 3, "output": 10, "disconnect_at": 6}])
    schedule = simulate(trace, Config(8, kv_blocks=10, block_size=2), Policy())
    c = schedule.requests[0]
    assert (c.finish_reason, c.cancel_time) == ("disconnected", 6)
    assert (6, "disconnect", 0) in schedule.events
    assert c.kv[-1] == (7, 0)  # its blocks freed when it left the batch
    m = compute(schedule).requests[0]
    assert (m.generated, m.sent, m.wasted) == (5, 4, 1)


def test_a_finished_request_whose_client_leaves_early_leaves_tokens_unread():
    trace = validate([{"name": "A", "arrival": 0, "prompt": 2, "output": 6, "read_rate": 0.5,
                       "disconnect_at": 8}])
    schedule = simulate(trace, Config(8), Policy())
    m = compute(schedule)
    assert m.requests[0].finish_reason == "finished"  # the server was done at 7
    assert (m.requests[0].generated, m.requests[0].sent, m.unsent_tokens) == (6, 3, 3)  # read 0.5 a tick from 2


# -- input and output ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows, column", [
    ([{"name": "A", "arrival": 0, "prompt": 2, "output": 3, "read_rate": 0}], "read_rate"),
    ([{"name": "A", "arrival": 0, "prompt": 2, "output": 3, "read_rate": "fast"}], "read_rate"),
    ([{"name": "A", "arrival": 4, "prompt": 2, "output": 3, "disconnect_at": 2}], "disconnect_at"),
])
def test_bad_client_columns_are_named(rows, column):
    with pytest.raises(TraceError) as error:
        validate(rows)
    assert [p.column for p in error.value.problems] == [column]


def test_bad_credits_are_named():
    with pytest.raises(ConfigError, match="stream_credits"):
        Policy(stream_credits=0)
    with pytest.raises(ConfigError, match="stream_credits"):
        Policy(stream_credits=2, spec_tokens=2)  # a step could make 3 tokens: it would never fit
    with pytest.raises(ConfigError, match="release_paused"):
        Policy(release_paused=True)
    with pytest.raises(ConfigError, match="stream_credits"):
        Policy(batching="static", stream_credits=2)
    with pytest.raises(ConfigError, match="read_rate"):
        Config(read_rate=-1)


def test_json_has_the_streaming_fields():
    schedule = simulate(two(), Config(8), Policy(stream_credits=2))
    data = run_json(schedule, compute(schedule))
    assert data["unsent_tokens"] == 0
    a = next(r for r in data["requests"] if r["name"] == "A")
    assert (a["generated"], a["sent"], a["paused_ticks"]) == (8, 8, 6)
    assert [s["paused"] for s in data["steps"]][:4] == [0, 0, 1, 0]
    plain = simulate(two(None), Config(8), Policy())
    assert "unsent_tokens" not in run_json(plain, compute(plain))  # fields of an option appear when it is on


def test_cli_flags(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("name,arrival,prompt,output,disconnect_at\nA,0,2,8,\nB,0,2,8,\nC,1,3,10,6\n")
    out = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "8",
                          "--read-rate", "0.5", "--stream-credits", "2", "--json"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    data = json.loads(out.stdout)
    assert data["read_rate"] == 0.5 and data["disconnected"] == 1
    assert {r["name"]: r["finish_reason"] for r in data["requests"]} == \
        {"A": "finished", "B": "finished", "C": "disconnected"}
    assert any(s["paused"] for s in data["steps"])
    bad = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(path), "--token-budget", "8",
                          "--release-paused"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "release_paused" in bad.stderr and "Traceback" not in bad.stderr


# -- the lesson ---------------------------------------------------------------------------------------------

def test_the_lesson_shows_a_slow_reader_holding_kv_that_others_wait_for():
    from statistics import median

    from ui import stream_lesson

    unbounded, paused, released = stream_lesson.stream_runs()
    ttft = {v.key: median(stream_lesson.others_ttft(v)) for v in (unbounded, paused, released)}
    slow = paused.metrics.requests[0]
    assert slow.paused > slow.e2e / 2  # the slow reader spends most of its life paused, holding its blocks
    assert ttft[paused.key] > 10 * ttft[unbounded.key]  # and the others wait for that memory
    assert ttft[released.key] < ttft[paused.key] / 10  # released, its blocks come back at once
    assert released.metrics.preemptions > 0 and released.metrics.recomputed_tokens > 0  # for recomputes
    assert unbounded.metrics.requests[0].e2e < slow.e2e / 2  # unbounded, the server runs ahead and buffers


# -- the real engine ----------------------------------------------------------------------------------------

ENGINE_PROMPTS = [b"def add(a, b):\n    return", b"import os\n", b"class Node:\n    def __init__(self):"]
ENGINE_OUTPUTS = [12, 24, 16]


@pytest.fixture(scope="module")
def model64():
    from gpu_demo.loading import load_model
    return load_model("cpu", "float64")


def engine_trace(**columns):
    rows = [{"name": f"r{i}", "arrival": i, "prompt": len(p), "output": o}
            for i, (p, o) in enumerate(zip(ENGINE_PROMPTS, ENGINE_OUTPUTS))]
    rows[1] |= columns
    return validate(rows)


@pytest.mark.parametrize("release", [False, True])
def test_the_real_engine_pauses_a_slow_reader_and_its_outputs_stay_exact(model64, release):
    """r1's client reads a token every 50 ms, far slower than the model makes them (a few ms a step here, and still
    under 50 on a machine loaded by other tests): with 2 credits the engine pauses r1 (or releases and recomputes
    it), and every output is still the request's greedy output alone."""
    from gpu_demo.engine import run
    from tests.test_gpu_demo import alone

    result = run(model64, engine_trace(read_rate=0.02), ENGINE_PROMPTS, Config(64),
                 Policy(stream_credits=2, release_paused=release))
    assert result.outputs == [alone(model64, p, n) for p, n in zip(ENGINE_PROMPTS, ENGINE_OUTPUTS)]
    slow = result.schedule.requests[1]
    if release:
        assert slow.preemptions > 0
    else:
        assert any(s.phase == "paused" for s in slow.segments)
    times = result.schedule.emitted()[1]
    for at in times:  # never more than 2 tokens unread, read at 0.02 a ms
        assert sum(1 for t in times if t <= at) - read_whole(times, Fraction(1, 50), at) <= 2


def test_the_real_engine_stops_a_request_whose_client_left_and_frees_its_blocks(model64):
    from gpu_demo.engine import run
    from tests.test_gpu_demo import alone

    result = run(model64, engine_trace(disconnect_at=4), ENGINE_PROMPTS, Config(64), Policy())
    left = result.schedule.requests[1]
    assert left.finish_reason == "disconnected"
    assert left.kv[-1][1] == 0 and left.kv[-1][0] <= left.segments[-1].end  # its blocks freed as it left
    made = result.outputs[1]
    assert 0 < len(made) < ENGINE_OUTPUTS[1]
    assert made == alone(model64, ENGINE_PROMPTS[1], len(made))  # what it made is still exact
    assert result.outputs[0] == alone(model64, ENGINE_PROMPTS[0], ENGINE_OUTPUTS[0])


@pytest.mark.parametrize("source", ["slow_reader", "disconnect"])
def test_the_real_model_page_runs_a_slow_reader_and_a_client_that_leaves(source):
    """Choosing the scenario puts its policies in the forms; the run shows B's slow reader paused, or the
    client that left stopped, in the engine's own schedule."""
    from tests.test_app import open_page

    at = open_page("pages/real_model.py")
    at.radio(key="w_rm_source").set_value(source).run()
    policy_b = at.session_state["real_model"].policy_b
    assert policy_b.stream_credits == (4 if source == "slow_reader" else None)
    at.button(key="rm_run").click().run(timeout=300)
    assert not at.exception, at.exception
    second = at.session_state["real_model"].shown.results[1].schedule.requests[1]
    if source == "slow_reader":
        assert second.read_rate and any(s.phase == "paused" for s in second.segments)
    else:
        assert second.finish_reason == "disconnected" and second.kv[-1][1] == 0
