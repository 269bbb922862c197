"""Real engines' schedulers, reproduced on the simulator's machinery (`Policy.preset`).

`nano-vllm` follows nano-vllm's `nanovllm/engine/scheduler.py` and `block_manager.py` (GeeeekExplorer/nano-vllm,
commit 9e8507ef412efe9d921ecc70d65bcc2fc3dd18eb, the last before chunked prefill) rule by rule, and
tests/test_presets.py holds it to that code, run tick by tick, request by request and token by token. The
others (`vllm-v1`, `sglang`, `trt-guaranteed-no-evict`), whose code cannot run here, are the simulator's options
that follow the rules read in their code (`PRESET_OPTIONS`, each rule tested with its source line cited).
"""
from __future__ import annotations

from collections import deque
from dataclasses import fields, replace

from ..trace.trace import Trace
from .config import Config, ConfigError, Policy
from .continuous import Continuous
from .iteration import Iteration
from .scheduler import Scheduler


class FifoQueue:
    """nano-vllm's waiting deque: arrivals at the back, preempted requests at the front; the head only."""
    head_of_line, aging, sorts, prefix_found = True, None, False, None

    def __init__(self):
        self.order: deque[int] = deque()

    def push(self, i: int, cost: int = 0) -> None:
        self.order.append(i)

    def push_front(self, i: int) -> None:
        self.order.appendleft(i)

    def remove(self, i: int) -> None:
        self.order.remove(i)  # (those a prefill step brings in are found at the head)

    @property
    def count(self) -> int:
        return len(self.order)

    def __len__(self) -> int:
        return len(self.order)


class NanoVllm(Continuous):
    """nano-vllm's `Scheduler.schedule()`:
    1. a prefill step first: waiting requests from the head, in order, while the step has fewer than
       `max_num_seqs` (Config.max_seqs) and the request's whole length (prompt + tokens made) fits what is left of
       `max_num_batched_tokens` (the token budget) and the free blocks hold all its blocks; the first that does
       not fit ends it (no skipping). It prefills what the prefix cache does not hold (maybe nothing) and
       samples each one's first token;
    2. else a decode step: running requests from the oldest, up to `max_num_seqs` of them (the running set
       itself is not bounded); one whose length crosses into a new block needs a free block, and while none is
       free the newest running request is preempted (its blocks freed, back to the head of the queue, to be
       prefilled again), or itself when no other is left.
    Prefix caching is always on (nano-vllm hashes every full block); free blocks are reused oldest first."""

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None,
                 replica: str = ""):
        if not config.kv_blocks:  # (its prefix cache is its KV cache's blocks)
            raise ConfigError("kv_blocks", "preset_needs_kv", preset=policy.preset)
        super().__init__(trace, config, Policy(prefix_cache=True, stream_credits=policy.stream_credits,
                                               release_paused=policy.release_paused, timeout=policy.timeout),
                         unit, replica)
        self.schedule.options = policy  # (what was asked for: the preset)
        longest = max((r.prompt + r.output - 1 for r in trace.requests), default=0)
        if longest > config.token_budget:  # (nano-vllm asserts max_num_batched_tokens >= max_model_len)
            raise ConfigError("token_budget", "nano_budget", longest=longest)
        self.queue = FifoQueue()
        self.prefill_emits = True  # its prefill step samples the first token
        # Blocks grow as decodes need them, checked as each decode is scheduled (decode_step); each decoder's next
        # block is watched (Memory.watch: `block_round`), so a decoder whose blocks hold what it feeds is known
        # without working its tokens out.
        self.overcommit = True

    def plan(self, now: float, max_repeat: int = 1) -> Iteration | None:
        self.planning(now)
        it = Iteration()
        self.prefill_step(it, now)
        if it.prefill:
            it.stalled = list(self.phases.decoding)  # a prefill step decodes nobody
            return self.hand_over(it)
        self.decode_step(it, now)
        return self.hand_over(it) if it.decoding else None

    def at_start(self, now: float) -> None:
        """What happens at a step's start: arrivals, and stops (nothing preempts for room, nobody is paused)."""
        Scheduler.at_start(self, now)

    def prefill_step(self, it: Iteration, now: float) -> None:
        """Waiting requests from the head come in (at commit: `it.admitted`), their blocks taken now."""
        budget, admitted = self.config.token_budget, []
        for i in self.queue.order:
            s = self.states[i]
            if len(admitted) == self.seq_limit or s.target > budget or self.memory.short(s.target):
                break
            admitted.append(i)
            first = max(s.prefilled, self.memory.take_prompt(i, s.target, now, keep_all=True))
            budget = self.prefill(it, i, first, s.target - first, budget, {})
        it.admitted = admitted

    def decode_step(self, it: Iteration, now: float) -> None:
        order, decoding, memory, states = deque(self.phases.running), [], self.memory, self.states
        round_now = self.rounds.now
        while order and len(decoding) < self.seq_limit:
            i = order.popleft()
            if states[i].block_round > round_now:  # (watched: its blocks hold what it feeds, as most do)
                decoding.append(i)
                continue
            needed, room = self.fed(i), memory.capacity(i)
            if needed <= room:  # (it was stalled since it was watched: its tokens grew less)
                memory.watch(i, needed, round_now)
                decoding.append(i)
                continue
            while memory.short(needed - room):
                victim = order.pop() if order else i
                self.preempt(victim, now, requeue=False)
                self.queue.push_front(victim)
                if victim == i:
                    break
            else:
                memory.take(i, needed, now)
                memory.watch(i, needed, round_now)
                decoding.append(i)
        it.decoding, it.decode_work, chosen = decoding, len(decoding), set(decoding)
        it.stalled = [i for i in self.phases.decoding if i not in chosen]
        it.finishing = self.finishing_now(set(it.stalled))


class VllmV1(Continuous):
    """vLLM V1's `Scheduler.schedule()` at vLLM 0.33.0 (the v0.33.0 release, commit 4ba787ec9): the options of
    PRESET_OPTIONS["vllm-v1"] on the continuous loop, and vLLM's block rules besides, which
    tests/test_vllm_oracle.py holds to vLLM's own scheduler, token tick by token tick:
    - blocks taken chunk by chunk, as each step's tokens are scheduled (`allocate_slots`,
      vllm/v1/core/kv_cache_manager.py:380, called at vllm/v1/core/sched/scheduler.py:914 for running requests
      and :1435 for waiting ones): `Continuous.chunk_blocks`;
    - a waiting request comes in only if the blocks of its whole prompt are free (`full_sequence_must_fit`, from
      `scheduler_reserve_full_isl`, vllm/config/scheduler.py:190, on by default), less the cached blocks it
      shares that a running request holds (`get_num_blocks_to_allocate`); `kv_admission` chunk turns that off:
      the first chunk's blocks suffice, as before 0.33;
    - a freed block that holds no hash goes to the head of the free queue, hashed ones to its tail
      (`BlockPool.free_blocks`, vllm/v1/core/block_pool.py:816: `prepend_n` :845, `append_n` :847);
    - the running list walked in admission order, each request's tokens (a decode, or a chunk of its prompt)
      taking blocks in turn, and `self.running.pop()` (:970) preempted when they run out. With a chunk as
      large as the budget, a prefill under way is always the newest running request (one admitted after it
      would need budget its chunk left, so its chunk ended its prompt), so the continuous loop's decodes first
      and chunks after are that same order."""
    chunk_blocks = True

    def __init__(self, trace: Trace, config: Config, policy: Policy, unit: str | None = None,
                 replica: str = ""):
        super().__init__(trace, config, policy, unit, replica)
        self.memory.prefix.unhashed_first = True


# The options each preset stands for, read from the engine's code at the commit named (README: how close each is):
# - vllm-v1: vllm/v1/core/sched/scheduler.py at vLLM 0.33.0, Scheduler.schedule() (VllmV1 above for its block
#   rules): running requests first, one token budget (decodes and chunks of prefills under way); then waiting
#   ones in FCFS (a waiting one that does not fit ends it: `break`), each prefill cut to the budget left
#   (chunked prefill); KV blocks allocated as tokens come (allocate_slots), and when that fails
#   `self.running.pop()`, the last admitted, is preempted (recomputed); no waiting request is scheduled in a
#   step that preempted (`if not preempted_reqs`, :1050); automatic prefix caching on.
# - sglang: python/sglang/srt/managers/schedule_policy.py at ad0119fdde519598c25f5c48b95dacaa2b85d607:
#   `_sort_by_longest_prefix` orders the waiting queue by the prefix the radix cache holds (longest first,
#   a stable sort: arrival order among equals), `_determine_active_policy` falls back to FCFS past 128
#   waiting; PrefillAdder stops at the first request that does not fit; chunked prefill; the radix cache.
# - trt-guaranteed-no-evict: cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp at
#   cf6abc45df6e3470d8c378366896882e1f43e60c, GuaranteedNoEvictScheduler::impl: requests in generation first,
#   each taking off the blocks it will still need (`decrementReservedBlocks`); then pending ones in arrival
#   order, each only if the blocks for its whole sequence are left (`enoughAvailableBlocks`), and the first that
#   is not ends the pass (`// If one requests fails to be scheduled, break`): the simulator's reserving
#   admission, FCFS, nothing ever evicted. Its `beneficialToSkip` (wait for a context another is writing) and
#   the micro-batch scheduler's token budget are not modelled (the simulator's own budget stands in).
PRESET_OPTIONS = {
    "vllm-v1": {"order": "fcfs", "kv_admission": "overcommit", "preempt": "recompute", "victim": "newest",
                "mixing": "decode-first", "prefix_cache": True},
    "sglang": {"order": "lpm", "kv_admission": "overcommit", "preempt": "recompute", "victim": "newest",
               "mixing": "decode-first", "prefix_cache": True},
    "trt-guaranteed-no-evict": {"order": "fcfs", "kv_admission": "reserve", "mixing": "decode-first"},
}
# Options a preset sets that may still be set otherwise: vLLM's scheduler_reserve_full_isl is an option.
PRESET_ALLOWS = {"vllm-v1": {"kv_admission": ("chunk",)}}
CHUNKED = ("vllm-v1", "sglang")  # their prefills are cut to the budget left (chunk size: the whole budget)
# nano-vllm's rules in the options' terms, for a form to show what it decides (NanoVllm runs its own code): a step
# prefills or decodes, never both (prefill-first); strict arrival order (fcfs); blocks as tokens come, the whole
# prompt's at admission (overcommit); the newest running request recomputed when a block is short; prefix caching
# always on. Of the options it reads only NANO_VLLM_READS; every other one is its own (at the default: nano-vllm
# has no such thing).
NANO_VLLM_RULES = {"order": "fcfs", "mixing": "prefill-first", "kv_admission": "overcommit", "preempt": "recompute",
                   "victim": "newest", "prefix_cache": True}
NANO_VLLM_READS = ("timeout", "stream_credits", "release_paused")


def decided(preset: str, token_budget: int) -> dict[str, object]:
    """The options `preset` decides, with the values it runs with under `token_budget`: what a form shows as the
    preset's, not the policy's own ({} for no preset)."""
    if preset == "nano-vllm":
        plain = Policy()
        return {f.name: NANO_VLLM_RULES.get(f.name, getattr(plain, f.name)) for f in fields(Policy)
                if f.name not in ("batching", "preset", *NANO_VLLM_READS)}
    chunk = {"chunk_size": token_budget} if preset in CHUNKED else {}
    return {**PRESET_OPTIONS.get(preset, {}), **chunk}


def caches_prefixes(preset: str) -> bool:
    """Whether `preset` keeps a prefix cache, which lives in a KV cache of a given size."""
    return preset == "nano-vllm" or PRESET_OPTIONS.get(preset, {}).get("prefix_cache", False)


def expand(policy: Policy, config: Config) -> Policy:
    """The plain Policy a preset (other than nano-vllm, a scheduler of its own) stands for under `config`.
    An option the preset sets may not be set apart from it (a ConfigError names it)."""
    options = PRESET_OPTIONS[policy.preset]
    plain, allows = Policy(), PRESET_ALLOWS.get(policy.preset, {})
    kept = {}  # the options set otherwise, where the preset allows it
    for name, value in options.items():
        asked = getattr(policy, name)
        if asked in allows.get(name, ()):
            kept[name] = asked
        elif asked != getattr(plain, name) and asked != value:
            raise ConfigError(name, "preset_sets", preset=policy.preset, value=value)
    if options.get("prefix_cache") and not config.kv_blocks:
        raise ConfigError("kv_blocks", "preset_needs_kv", preset=policy.preset)
    return replace(policy, preset="", **{**decided(policy.preset, config.token_budget), **kept})
