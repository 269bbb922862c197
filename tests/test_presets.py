"""Real engines' schedulers reproduced (sim.core.presets): `--preset nano-vllm` against nano-vllm's own scheduler
code, run tick by tick (kit/nano_oracle.py; ../shared/oracles/nano-vllm, skipped cleanly when absent)."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kit import nano_oracle
from kit.nano_oracle import Setup
from sim.core.config import Config, ConfigError, Policy
from sim.core.engine import simulate
from sim.trace.trace import validate

NANO = Policy(preset="nano-vllm")
needs_oracle = pytest.mark.skipif(nano_oracle.missing() is not None,
                                  reason=f"nano-vllm oracle: {nano_oracle.missing()}")


def hash_ids(tokens: list[int], block_size: int, ids: dict) -> list[int]:
    """One id per full block of `tokens`, naming the whole prefix up to its end (equal prefixes, equal ids)."""
    return [ids.setdefault(tuple(tokens[:(j + 1) * block_size]), len(ids)) for j in range(len(tokens) // block_size)]


def simulated(requests: list[tuple[int, list[int], int]], setup: Setup):
    """The same requests through `--preset nano-vllm`, their prompts' blocks named by hash_ids."""
    ids: dict = {}
    trace = validate([{"name": f"r{i}", "arrival": arrival, "prompt": len(tokens), "output": output,
                       "hash_ids": hash_ids(tokens, setup.block_size, ids)}
                      for i, (arrival, tokens, output) in enumerate(requests)])
    config = Config(setup.max_num_batched_tokens, setup.max_num_seqs, kv_blocks=setup.num_blocks,
                    block_size=setup.block_size, prefix_block=setup.block_size)
    return simulate(trace, config, NANO)


@st.composite
def nano_scenarios(draw):
    """Random traces for a small nano-vllm: prompts that may share one of three prefixes, KV caches from barely
    enough for the longest request to about twice that (so preemptions are common)."""
    block_size = draw(st.sampled_from((2, 4, 8)))
    budget = draw(st.integers(16, 64))
    prefixes = [[1000 + g] * draw(st.integers(0, 16)) for g in range(3)]
    requests, now = [], 0
    for i in range(draw(st.integers(1, 12))):
        now += draw(st.integers(0, 3))
        shared = draw(st.sampled_from(prefixes)) if draw(st.booleans()) else []
        tokens = (shared + [i + 1] * draw(st.integers(1, 12)))[:budget]
        # the preset refuses a budget that could not take a preempted request back in one step (tested below)
        requests.append((now, tokens, min(draw(st.integers(1, 12)), budget + 1 - len(tokens))))
    longest = -(-max(len(t) + o for _, t, o in requests) // block_size)
    blocks = draw(st.integers(longest + 1, 2 * longest + 2))
    return requests, Setup(draw(st.integers(1, 6)), budget, block_size, blocks)


@needs_oracle
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nano_scenarios())
def test_the_nano_vllm_preset_emits_every_token_when_nano_vllm_does(scenario):
    """Request by request and token by token, tight KV caches and shared prefixes included: prefill-only and
    decode-only steps, strict FCFS, max_num_seqs a step, growth preemption of the newest request to the front of
    the queue, and the prefix cache finding shared prompts and a preempted request's own blocks again."""
    requests, setup = scenario
    try:
        expected = nano_oracle.run(requests, setup)
    except AssertionError:  # nano-vllm itself cannot run it (nothing fits and nothing runs): not a case
        return
    schedule = simulated(requests, setup)
    assert [list(times) for times in schedule.emitted()] == expected


@needs_oracle
def test_the_differential_test_sees_preemptions_and_cache_hits():
    """The comparison above is worth something only where the hard parts happen: a hand-picked case with both."""
    requests = [(0, [1001] * 12 + [1] * 5, 6), (0, [1001] * 12 + [2] * 2, 5), (1, [3] * 5, 11),
                (2, [1001] * 12 + [4] * 12, 4)]
    setup = Setup(4, 45, 8, 5)
    schedule = simulated(requests, setup)
    assert [list(times) for times in schedule.emitted()] == nano_oracle.run(requests, setup)
    assert sum(r.preemptions for r in schedule.requests) > 0
    assert schedule.requests[1].cached == 8  # it shares the first block of the first request's prompt
    assert schedule.requests[3].cached >= 24  # preempted, it finds its own three blocks again


def test_the_nano_vllm_preset_bounds_a_steps_batch_not_the_running_set():
    """Four requests of 2 tokens with max_num_seqs 2: all four are admitted in two prefill steps, and each
    decode step serves the two oldest (nano-vllm's running list is not bounded, its steps are)."""
    trace = validate([{"name": f"r{i}", "arrival": 0, "prompt": 2, "output": 3} for i in range(4)])
    schedule = simulate(trace, Config(64, 2, kv_blocks=40, block_size=2), NANO)
    assert [list(t) for t in schedule.emitted()] == [[1, 3, 4], [1, 3, 4], [2, 5, 6], [2, 5, 6]]
    assert max(s.running for s in schedule.steps) == 4


def test_a_preset_needs_continuous_batching():
    with pytest.raises(ConfigError, match="preset"):
        Policy(batching="static", preset="nano-vllm")


@needs_oracle
def test_a_prompt_found_whole_in_the_cache_prefills_nothing_as_in_nano_vllm():
    """r1's prompt is r0's, two full blocks: nano-vllm finds all 8 tokens and prefills none (vLLM would compute
    the last block again), so r2 still fits the step's budget of 11 beside it."""
    requests = [(0, [7] * 8, 4), (1, [7] * 8, 2), (1, [9] * 8, 2)]
    setup = Setup(4, 11, 4, 20)
    schedule = simulated(requests, setup)
    assert [list(times) for times in schedule.emitted()] == nano_oracle.run(requests, setup)
    assert schedule.requests[1].cached == 8
    assert schedule.requests[2].first_token == 2  # admitted in the same step as r1


def test_the_nano_vllm_preset_refuses_a_budget_a_preempted_request_could_never_fit():
    """nano-vllm takes a preempted request back with its whole length in one prefill: a request longer than
    max_num_batched_tokens could wait for ever, so the preset says so before running."""
    trace = validate([{"name": "long", "arrival": 0, "prompt": 16, "output": 2}])
    with pytest.raises(ConfigError, match="17 tokens"):
        simulate(trace, Config(16, kv_blocks=10, block_size=2), NANO)
    assert simulate(trace, Config(17, kv_blocks=10, block_size=2), NANO).requests[0].completion is not None
