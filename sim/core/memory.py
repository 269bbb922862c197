"""The paged KV cache as the scheduler uses it: blocks taken and freed (and drawn on the timeline), overcommit's
growth before each decode round, preemption (by recompute or swap) when the pool runs short, and swap-ins. A
part of the Scheduler (sim.core.scheduler), kept apart so that each reads in one sitting."""
from __future__ import annotations

import heapq

from .kv import BlockManager, PrefixCache, blocks_for
from .prefix import block_keys
from .queue import NEVER
from .request import RUNNING, SWAP_IN, SWAPPED, WAITING


class KVMemory:
    """The KV side of the Scheduler (its state is the Scheduler's)."""

    def init_memory(self) -> None:
        """The KV side's state: the block pool, overcommit's growth heap, swap's queues."""
        config, policy = self.config, self.policy
        pool = PrefixCache if policy.prefix_cache else BlockManager
        self.kv = pool(config.kv_blocks, config.block_size) if config.kv_blocks else None
        self.prefix = self.kv if policy.prefix_cache else None  # the pool, when it caches prefixes
        self.overcommit = self.kv is not None and policy.kv_admission == "overcommit"
        self.block_due: list[tuple[int, int]] = []  # overcommit: heap (decode round needing a block, request)
        self.resume: list[int] = []  # heap of swapped-out requests waiting to come back (earliest arrival first)
        self.swap_done: list[tuple[float, int]] = []  # heap (when its swap-in ends, request)
        # swap's block copies since the last committed iteration, which carries them (Iteration.swapped_out, .in)
        self.copies_out: dict[int, list[int]] = {}
        self.copies_in: dict[int, list[int]] = {}

    def free_blocks(self, i: int, now: float) -> None:
        if self.kv is not None and self.kv.held(i):
            if self.prefix is not None:  # its full blocks of computed tokens stay findable
                self.prefix.remember(i, self.block_keys(i, self.computed(i)))
            self.kv.free_request(i)
            self.timelines[i].kv.append((now, 0))

    def take_prompt_blocks(self, i: int, tokens: int, now: float, keep_all: bool = False) -> int:
        """Admission: request i takes the blocks for `tokens` tokens; with prefix caching its leading blocks
        the cache holds are shared, not computed. The tokens found cached (they skip prefill). When all of its
        prefill is found, the last block is computed again, as vLLM does (`keep_all`: not, as nano-vllm)."""
        if self.prefix is None:
            self.take_blocks(i, tokens, now)
            return 0
        target = self.states[i].target
        keys = self.block_keys(i, target)
        found = self.prefix.share(i, keys)
        if found * self.config.block_size >= target and not keep_all:  # all of it: compute the last block again
            self.prefix.free_request(i)
            found = self.prefix.share(i, keys[:found - 1])
        self.take_blocks(i, tokens, now)  # (its blocks are found once their prefill is planned: prefill())
        cached = found * self.config.block_size
        timeline = self.timelines[i]
        timeline.queried += target
        timeline.cached += cached
        if timeline.preemptions:  # (a recompute prefills again only what the cache did not keep)
            timeline.recomputed -= cached
        return cached

    def found_prefix(self, i: int) -> int:
        """Tokens of waiting request i's prefill the prefix cache holds now (what lpm orders by)."""
        keys = self.block_keys(i, self.states[i].target)
        return self.prefix.cached(keys) * self.config.block_size

    def block_keys(self, i: int, tokens: int) -> list[object]:
        return block_keys(self.requests[i], i, tokens, self.config.block_size, self.config.prefix_block)

    def computed(self, i: int) -> int:
        """Tokens of request i whose KV is computed: what its prefill got through, else its prompt and every
        token made but the last (a decode computes the KV of the token it feeds, not of the one it makes)."""
        s = self.states[i]
        if s.prefilled < s.target:
            return s.prefilled
        return max(s.target, s.prompt + self.generated(i) - 1)

    def take_blocks(self, i: int, tokens: int, now: float) -> bool:
        """Grow request i's blocks to hold `tokens` tokens; False (nothing taken) if the pool is short."""
        kv = self.kv
        if kv is None:
            return True
        held = kv.held(i)
        if not kv.grow_to(i, tokens):
            return False
        if kv.held(i) != held:
            self.timelines[i].kv.append((now, kv.held(i)))
        return True

    def blocks_short(self, tokens: int) -> bool:
        return self.kv is not None and blocks_for(tokens, self.kv.block_size) > self.kv.free

    def fed(self, i: int) -> int:
        """Tokens of KV decoder i's next round needs: its context (the prompt and every token made, the last one
        fed in) and the draft tokens it verifies (k, but never past its last token)."""
        s = self.states[i]
        made = self.generated(i)
        drafts = min(self.policy.spec_tokens, max(0, s.request.output - made - 1)) if self.policy.spec_tokens else 0
        return s.request.prompt + made + drafts

    def watch_growth(self, i: int) -> None:
        """Overcommit: note the decode round whose fed tokens no longer fit request i's blocks."""
        if self.overcommit:
            s = self.states[i]
            s.block_round = self.rounds.now + max(0, self.kv.capacity(i) - self.fed(i) + 1)
            heapq.heappush(self.block_due, (s.block_round, i))

    def grow_due(self, now: float) -> bool:
        """Before a decode round: decoders whose fed tokens need a new block get one, preempting the victim
        (maybe themselves) while the pool is short. True if it preempted."""
        heap, states, preempted = self.block_due, self.states, False
        while heap and heap[0][0] <= self.rounds.now:
            due, i = heapq.heappop(heap)
            if i not in self.decoders or due != states[i].block_round:
                continue  # it left, or was noted again since
            needed = self.fed(i)
            while not self.take_blocks(i, needed, now):
                # A request swapping back in holds blocks too: it can go out again.
                among = [j for j in self.running if states[j].phase in RUNNING]
                if self.policy.preemptive_priority:  # never push out a better class: it would push back
                    among = [j for j in among if self.requests[j].priority >= self.requests[i].priority]
                victim = self.victim(among)
                self.preempt(victim, now)
                preempted = True
                if victim == i:
                    break
            else:
                self.watch_growth(i)
        return preempted

    def rounds_to_next_block(self) -> int:
        """Overcommit: decode rounds until a decoder needs another block."""
        heap = self.block_due
        while heap and (heap[0][1] not in self.decoders or heap[0][0] != self.states[heap[0][1]].block_round):
            heapq.heappop(heap)
        return heap[0][0] - self.rounds.now if heap else NEVER

    def victim(self, among: list[int]) -> int:
        """The running request to preempt: the latest arrival, the lowest priority (then the latest), or the last
        admitted. With preemptive priority always the lowest class first: a better class pushed out would push
        back at once."""
        if self.policy.victim == "lowest-priority" or self.policy.preemptive_priority:
            return max(among, key=lambda j: (self.requests[j].priority, j))
        if self.policy.victim == "newest":
            return among[-1]  # (`among` is in admission order)
        return max(among)

    def preempt(self, i: int, now: float, recompute: bool = False, requeue: bool = True) -> None:
        """Evict running request i: recompute (drop its KV and wait in the queue, at its place in the policy's
        order, to prefill prompt + generated again) or swap (its blocks go to host memory; it comes back, before
        any waiting request, without recomputing). Without `requeue` the caller says when it may come back."""
        s = self.states[i]
        swap = self.policy.preempt == "swap" and (i in self.decoders or s.phase == SWAP_IN) and not recompute
        held = self.kv.held(i) if self.kv is not None else 0
        table = self.kv.tables.get(i, []) if swap and self.kv is not None else None
        self.drop_running(i, now)
        s.timeline.preemptions += 1
        if swap:
            if self.kv is not None:  # (the blocks it held, freed just now: an executor copies them out first)
                self.copies_out[i] = table
            s.phase, s.swapped_blocks = SWAPPED, held
            s.timeline.swapped_blocks += held
            self.schedule.events.append((now, "swap_out", i))
            if requeue:
                heapq.heappush(self.resume, i)
        else:
            s.phase, s.target, s.prefilled = WAITING, s.prompt + s.made, 0
            self.schedule.events.append((now, "preempt", i))
            if requeue:
                self.queue.push(i, self.admission_cost(i))

    def swap_in(self, i: int, now: float) -> None:
        """A swapped-out request takes its slot and blocks back; the copy takes `swap_cost` time."""
        timeline = self.timelines[i]
        timeline.add("swapped", timeline.segments[-1].end, now, 0)
        self.enter(i)
        self.states[i].phase = SWAP_IN
        self.take_blocks(i, self.states[i].swapped_blocks * self.config.block_size, now)
        if self.kv is not None:
            self.copies_in[i] = list(self.kv.tables.get(i, ()))
        self.schedule.events.append((now, "swap_in", i))
        heapq.heappush(self.swap_done, (now + self.config.swap_cost, i))  # done at a later plan, never this one

    def swap_ins_done(self, now: float) -> None:
        while self.swap_done and self.swap_done[0][0] <= now:
            _, i = heapq.heappop(self.swap_done)
            timeline = self.timelines[i]
            timeline.add("swapping", timeline.segments[-1].end, now, 0)  # it held its slot until this plan
            self.start_decoding(i)

    def hand_copies(self, it) -> None:
        """Swap: the iteration being planned carries the block copies made since the last one committed (live
        until it commits, as its block tables are: swap-ins are planned after it is made)."""
        if self.policy.preempt == "swap":
            it.swapped_out, it.swapped_in = self.copies_out, self.copies_in

    def copies_made(self, it) -> None:
        """The iteration that carried the copies committed: later ones start afresh."""
        if it.swapped_out or it.swapped_in:
            self.copies_out, self.copies_in = {}, {}

    def swapping(self) -> bool:
        return any(self.states[i].phase == SWAP_IN for i in self.running)
