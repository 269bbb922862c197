"""What reads a schedule per iteration (a latency model's iterations are a step each) reads what reading it token by
token reads: the emitted times, their gaps, the CLI's JSON text, and the context the decode rounds keep. Over every
scenario of tests/schedule_cases.py (every option, ticks, linear costs, profiles, experts, presets)."""
import copyreg
import io
import json
import pickle
from collections import Counter
from dataclasses import fields, replace

import pytest

from sim.core.config import Config, ConfigError, CostModel, Policy
from sim.core.engine import length, run
from sim.core.memory import Memory
from sim.core.policies import make_scheduler
from sim.core.presets import NanoVllm
from sim.core.request import RUNNING, RequestState
from sim.core.schedule import IterationRun, RequestTimeline
from sim.report.export import run_json, run_json_text, runs_json_text
from sim.report.metrics import compute, gap_counts
from sim.trace.trace import TraceError
from tests.schedule_cases import PROFILE, decode, load
from tests.scheduler_kit import trace as make_trace

CASES = [decode(case) for case in load() if not case["digest"].startswith("error:")]
LINEAR = CostModel("linear")
WHOLE = CostModel("linear", c0=2.0, c_prefill=1.0, c_decode=1.0, c_attn=1.0)  # (whole ms)
# A roofline with every term: experts, tensor-parallel all-reduces (sim.core.hardware)
ROOFLINE = CostModel("roofline", hardware="A100-80GB", model="Mixtral-8x7B", tp=2)
COSTS = {"linear": LINEAR, "profile": PROFILE, "whole": WHOLE, "roofline": ROOFLINE}


def emitted_by_steps(schedule) -> list[list[float]]:
    """Each request's emitted times read as emitted() read them before: the iteration ends of every step that
    overlaps each decode segment, then the prefill's sampled tokens."""
    out = []
    for request in schedule.requests:
        times = []
        for segment in request.segments:
            if segment.phase != "decode":
                continue
            ends = [t for step in schedule.steps for t in step.iteration_ends() if segment.start < t <= segment.end]
            times += [t for t in ends for _ in range(segment.tokens // len(ends))]
        out.append(sorted(times + request.prefill_emits) if request.prefill_emits else times)
    return out


class CheckedRounds:
    """Wraps a scheduler's plan: before each, the decode rounds' context sum and longest context are the ones
    counted decoder by decoder."""

    def __init__(self, scheduler):
        self.scheduler, self.plan, self.checked = scheduler, scheduler.plan, 0
        scheduler.plan = self

    def __call__(self, *args, **kwargs):
        s = self.scheduler
        contexts = [s.context(i) for i in s.phases.decoding]
        assert s.rounds.context() == sum(contexts)
        if s.rounds.states is not None:
            assert s.rounds.longest() == max(contexts, default=0)
        self.checked += 1
        return self.plan(*args, **kwargs)


def _schedule(trace, config, policy):
    try:
        return run(make_scheduler(policy, trace, config))
    except (ConfigError, TraceError):
        return None


@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("cost", ["as drawn", "linear", "profile", "roofline"])
def test_emitted_times_gaps_and_json_text_equal_the_token_by_token_ones(chunk, cost):
    compact_runs = 0
    for trace, config, policy in CASES[chunk::4]:
        if cost != "as drawn":
            config = replace(config, cost=COSTS[cost])
        schedule = _schedule(trace, config, policy)
        if schedule is None:
            continue
        compact = schedule.emitted(compact=True)
        listed = emitted_by_steps(schedule)
        assert schedule.emitted() == listed
        assert [list(times) for times in compact] == listed
        compact_runs += sum(isinstance(times, IterationRun) for times in compact)
        assert gap_counts(compact) == Counter(b - a for times in listed for a, b in zip(times, times[1:]))
        metrics = compute(schedule, emitted=compact)
        assert run_json_text(schedule, metrics, compact) == json.dumps(run_json(schedule, metrics),
                                                                        separators=(",", ":"))
        # several runs in one object (the lab's download, the CLI's example), under names that need escaping
        named = [('A_"static"', schedule, metrics, None), ("B_连续", schedule, metrics, compact)]
        assert runs_json_text(named) == json.dumps({name: run_json(schedule, metrics) for name, *_ in named},
                                                   separators=(",", ":"))
    assert compact_runs > 0 or cost == "as drawn"


@pytest.mark.parametrize("cost", ["linear", "profile"])
def test_the_decode_rounds_keep_the_decoders_context(cost):
    """DecodeRounds.context and .longest (what a latency model's iteration costs O(1) to time with) equal the
    context summed and maximised over the decoders, before every plan, under every option."""
    checked = 0
    for trace, config, policy in CASES[::3]:
        config = replace(config, cost=LINEAR if cost == "linear" else PROFILE)
        try:
            scheduler = make_scheduler(policy, trace, config)
        except (ConfigError, TraceError):
            continue
        rounds = CheckedRounds(scheduler)
        run(scheduler)
        checked += rounds.checked
    assert checked > 1000


def test_an_iterations_length_uses_the_kept_context():
    """The linear model's time of an iteration reads the kept context sum: the same as the one summed here."""
    trace, config, policy = next((t, c, p) for t, c, p in CASES if p.batching == "continuous" and not p.preset)
    config = replace(config, cost=LINEAR)
    scheduler = make_scheduler(policy, trace, config)
    lengths = []
    plan = scheduler.plan

    def planned(*args, **kwargs):
        it = plan(*args, **kwargs)
        if it is not None:
            assert it.context_read == (sum(scheduler.context(i) for i in it.decoding)
                                       + sum(first + tokens for _, first, tokens in it.prefill))
            lengths.append(length(scheduler, it))
        return it

    scheduler.plan = planned
    run(scheduler)
    assert lengths


@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("cost", ["linear", "profile", "whole", "roofline"])
def test_merged_runs_of_lengthening_iterations_equal_one_iteration_at_a_time(chunk, cost):
    """Under a latency model that reads context, a run of pure-decode iterations (alike but for their lengths) is
    one plan and one commit (Iteration.ends); planning every iteration on its own gives the same schedule: every
    step's start and end, every request's times, to the last bit of every float. (Static batching reads no context:
    its runs are of equal iterations, as are those of a model without c_attn.) Under `whole` every iteration lasts
    whole ms, so iterations start at the very times requests arrive (and stop)."""
    merged_plans = 0
    for trace, config, policy in CASES[chunk::4]:
        if policy.batching == "static":
            continue
        config = replace(config, cost=COSTS[cost])
        try:
            scheduler = make_scheduler(policy, trace, config)
        except (ConfigError, TraceError):
            continue
        plan = scheduler.plan

        def counted(*args, plan=plan, **kwargs):
            nonlocal merged_plans
            it = plan(*args, **kwargs)
            merged_plans += it is not None and bool(it.ends)
            return it

        scheduler.plan = counted
        merged = run(scheduler)
        single = run(make_scheduler(policy, trace, config), max_repeat=1)
        merged_json, single_json = run_json(merged, compute(merged)), run_json(single, compute(single))
        assert json.dumps(merged_json) == json.dumps(single_json)  # (floats compared by their repr: bit for bit)
    assert merged_plans > 100


@pytest.mark.parametrize("policy", [Policy(), Policy(batching="static"), Policy(preset="nano-vllm")],
                         ids=["continuous", "static", "nano-vllm"])
def test_a_plan_follows_an_advance_to_its_time_once(policy):
    """The executor's loop is advance(now), plan(now), run, commit: a plan with no advance to its time just before
    it (none, another time's, or one a plan used already) is refused, never made on events not yet done."""

    scheduler = make_scheduler(policy, make_trace(("A", 0, 3, 2), ("B", 1, 2, 2)), Config(8, kv_blocks=8, block_size=4))
    with pytest.raises(RuntimeError, match="without advance"):
        scheduler.plan(0)
    scheduler.advance(0)
    assert scheduler.queue.count == 1  # (the advance did the arrivals)
    it = scheduler.plan(0)
    assert [i for i, _, _ in it.prefill] == [0]
    with pytest.raises(RuntimeError, match="without advance"):
        scheduler.plan(0)
    scheduler.commit(it, 0, 1)
    scheduler.advance(1)
    with pytest.raises(RuntimeError, match="without advance"):
        scheduler.plan(2)


# What a plan may change, as vLLM's schedule() does: the KV side, the pool's blocks (the memory), the decode round
# that needs a request's next block, and their record on each timeline
KV_SIDE = ("kv", "queried", "cached", "recomputed")  # (a timeline's; a request state's: block_round)


def without_kv_side(value) -> tuple:
    """A request's timeline or state pickled as its fields, but those of the KV side."""
    return tuple, (tuple(getattr(value, f.name) for f in fields(value)
                         if f.name not in KV_SIDE and f.name != "block_round"),)


# Picklers' tables: the state but the KV side, and the KV side alone (the memory names request states by index)
WITHOUT_KV_SIDE = {**copyreg.dispatch_table, Memory: lambda memory: (str, ("the memory",)),
                   RequestTimeline: without_kv_side, RequestState: without_kv_side}
KV_ALONE = {**copyreg.dispatch_table, RequestState: lambda state: (int, (state.index,))}


def dumps(value, table: dict) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer)
    pickler.dispatch_table = table
    pickler.dump(value)
    return buffer.getvalue()


class PlansChangeNothing:
    """Wraps a scheduler's plan and holds it to changing nothing but the KV side (pickled, bar the `advanced` mark
    the plan uses up). Of the plans that move nobody between phases (the KV side's one move: a preemption for a
    chunk's blocks, or nano-vllm's decode step's for a block):
    - without a KV cache, every one that starts no swap-in changes nothing, those that bring requests in
      (`admitted`: they take their slots at commit) and a static batch's first included (`whole`);
    - every one changes nothing but the KV side (`besides_kv`), and with a KV cache one that prefills and swaps
      in nobody (or a static batch formed before it) nothing at all (`whole`; nano-vllm's decode step, which
      takes its decoders' blocks as it plans them, as nano-vllm's does, is left out of this one)."""

    def __init__(self, scheduler):
        self.scheduler, self.plan = scheduler, scheduler.plan
        self.whole, self.besides_kv, self.admitting = 0, 0, 0  # plans checked, and of the whole, those admitting
        self.due_waited = 0  # of the plans checked whole, those in which a decoder due to finish waited
        scheduler.plan = self

    def state(self) -> tuple[bytes, bytes]:
        """The scheduler's fields but the KV side, pickled in one pass (its parts share the request states), and the
        KV side alone: the memory, and each request's KV fields."""
        s = self.scheduler
        kept = {k: v for k, v in vars(s).items() if k not in ("advanced", "plan", "iteration_time")}  # (the last:
        # a function of the scheduler)
        kv = [x and (x.block_round, *(getattr(x.timeline, f) for f in KV_SIDE)) for x in s.states]
        return dumps(kept, WITHOUT_KV_SIDE), dumps((s.memory, kv), KV_ALONE)

    def same(self, before: tuple[bytes, bytes], when: float, kv_side: bool = True) -> None:
        """The state is as `before`, the KV side too if `kv_side`; else the fields that changed are named."""
        after = self.state()
        if after[0] != before[0] or kv_side and after[1] != before[1]:
            old, new = pickle.loads(before[0]), pickle.loads(after[0])  # (each field read back, to compare alone)
            changed = [k for k in new if pickle.dumps(new[k]) != pickle.dumps(old.get(k))]
            changed += ["the KV side"] if kv_side and after[1] != before[1] else []
            raise AssertionError(f"a plan at {when} changed {changed}" + ("" if kv_side else " (besides the KV side)"))

    def __call__(self, *args, **kwargs):
        s = self.scheduler
        static, kv, phases = s.policy.batching == "static", s.kv_cache, list(s.phases.of)
        formed, before = static and bool(s.batch), self.state()
        it = self.plan(*args, **kwargs)
        if any(old in RUNNING and new != old for old, new in zip(phases, s.phases.of)):
            return it  # a preemption for a chunk's blocks (or nano-vllm's decode step's)
        swaps_in = bool(it and it.swapping_in)  # (the copies back are the KV side's)
        quiet = not static and not isinstance(s, NanoVllm) and not (it and it.prefill)  # (takes no blocks)
        if formed or not swaps_in and (not kv or quiet):
            self.same(before, args[0])
            self.whole += 1
            self.admitting += bool(it and it.admitted)
            waiting = {*(it.stalled if it else ()), *getattr(s, "paused", ())}  # (a plan of paused decoders alone
            self.due_waited += bool(set(s.due) & waiting)  # runs nothing)
        else:
            self.same(before, args[0], kv_side=False)
            self.besides_kv += 1
        return it


@pytest.mark.parametrize("chunk", range(4))
def test_a_plan_changes_nothing_but_the_kv_side(chunk):
    """Every scenario of the property tests (ticks and every cost model): every plan changes nothing but the KV
    side (the events of an iteration's start are `advance`'s; the requests a plan brings in or back take their
    slots, speculation's draws are used up and decoders due that waited are noted again, at commit)."""
    whole = besides_kv = admitting = 0
    for trace, config, policy in CASES[chunk::4]:
        plans = PlansChangeNothing(make_scheduler(policy, trace, config))
        run(plans.scheduler)
        whole, besides_kv, admitting = whole + plans.whole, besides_kv + plans.besides_kv, admitting + plans.admitting
    assert whole > 1000 and besides_kv > 100 and admitting > 100, (whole, besides_kv, admitting)


def test_a_plan_in_which_a_decoder_due_to_finish_waits_changes_nothing():
    """Decoders whose last token is due wait for their client (one credit, a client reading half a token a tick):
    the plans that pause them change nothing (they are noted again at commit), and each finishes once its client
    has read enough."""
    scheduler = make_scheduler(Policy(stream_credits=1), make_trace(("A", 0, 1, 3), ("B", 0, 1, 3), ("C", 0, 1, 3)),
                               Config(8, read_rate=0.5))
    plans = PlansChangeNothing(scheduler)
    schedule = run(scheduler)
    assert plans.due_waited > 0 and plans.whole >= 5
    assert all(r.completion is not None for r in schedule.requests)
