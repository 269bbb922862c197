"""What a committed iteration does, shared by every policy: prefills advance and may emit a token, the decode
round moves on, finished requests leave, and each request's timeline and the Schedule's steps are recorded.
A part of the Scheduler (sim.core.scheduler), kept apart so that each reads in one sitting."""
from __future__ import annotations

import math

from .iteration import Iteration
from .request import DONE, STOP_EVENTS, Pauses
from .schedule import Segment, Step, iteration_length


class Recording:
    """The commit side of the Scheduler (its state is the Scheduler's)."""

    def init_recording(self) -> None:
        """The commit side's state: the decode segments under way and the batch changes not yet recorded."""
        self.starting: dict[int, None] = {}  # decoders whose next decode round opens a decode segment
        self.decode_open: dict[int, tuple[float, int, int, int]] = {}  # open decode segments (open_decodes)
        self.pauses = Pauses()  # iterations in which every decoder waited
        # open stalls: decoders holding their slot without decoding, since when and why ("stalled" for the budget
        # or a prefill, "paused" for their client)
        self.stalled_since: dict[int, tuple[float, str]] = {}
        self.iterations = 0
        self.version = 0  # bumped whenever batch membership changes (steps merge only within one version)
        self.changes: list[int] = []  # joins (i) and leaves (~i) of the batch since the last recorded step

    def close_decode(self, i: int, end: float) -> None:
        """Decoder i's open segment, a decode or a stall, ends at `end`."""
        opened = self.decode_open.pop(i, None)
        if opened is not None:
            self.pauses.draw(self.timelines[i], opened, end, self.generated(i))
        self.end_stall(i, end)

    def end_stall(self, i: int, end: float) -> None:
        stall = self.stalled_since.pop(i, None)
        if stall is not None:
            self.timelines[i].add(stall[1], stall[0], end, 0)

    def open_decodes(self, start: float, first_end: float, skip) -> None:
        """Decoders decoding for the first time since they started (or stalled) open a decode segment: (start,
        tokens made, decode round, pauses so far), closed by `close_decode`."""
        opening = [i for i in self.starting if i not in skip] if skip else list(self.starting)
        timelines, decode_open, stalled_since = self.timelines, self.decode_open, self.stalled_since
        round_now, pauses = self.rounds.now, len(self.pauses.ends)
        for i in opening:
            del self.starting[i]
            if i in stalled_since:
                self.end_stall(i, start)
            decode_open[i] = (start, self.generated(i), round_now, pauses)
            if timelines[i].first_token is None:
                timelines[i].first_token = first_end

    def stall(self, requests, start: float, phase: str = "stalled") -> None:
        """Decoders that hold their slot but do not decode from `start` on: each one's decode segment closes and
        a stall (or a pause for its client) opens, written when it decodes again or leaves. A pause goes on
        through a stall; a stall that turns into a pause is written up to `start`."""
        stalled_since, decode_open, starting = self.stalled_since, self.decode_open, self.starting
        for i in requests:
            if i in stalled_since:
                if phase == "stalled" or stalled_since[i][1] == phase:
                    continue
                self.end_stall(i, start)
            if i in decode_open:
                self.pauses.draw(self.timelines[i], decode_open.pop(i), start, self.generated(i))
            stalled_since[i] = (start, phase)
            starting[i] = None

    def pause(self, start: float) -> None:
        """Every decoder waits from `start` on (a prefill-first prefill): one pause for all (sim.core.request.
        Pauses). Only decoders with no open decode segment (just started, or speculating: each step is written
        apart) stall one by one; without shared pauses, every decoder does."""
        if not self.shared_pauses:
            self.stall(self.decoders, start)
            return
        self.pauses.begin(start, self.rounds.now)
        self.stall(self.decoders.keys() - self.decode_open.keys(), start)

    def commit_prefill(self, it: Iteration, start: float, end: float) -> None:
        """Record the prefill chunks; a completed prefill emits a token in the engine's first-token mode, then
        the request decodes from the next decode round on."""
        states = self.states
        for i, first, tokens in it.prefill:
            # A recompute's first chunk starts a segment of its own, even right after the preemption: it stays
            # apart from the prefill it repeats.
            timeline = states[i].timeline
            timeline.add("prefill", start, end, tokens, merge=first > 0 or not timeline.preemptions)
            states[i].prefilled += tokens
        for i in it.prefill_emits:
            s = states[i]
            s.made += 1
            s.timeline.prefill_emits.append(end)
            if s.timeline.first_token is None:
                s.timeline.first_token = end
        for i in it.prefill_done:
            del self.prefilling[i]
            if states[i].made < states[i].output:
                self.start_decoding(i)

    def commit_decodes(self, it: Iteration, start: float, end: float) -> None:
        """Move the decode round on: lazily for everyone, plus the extra tokens of speculative steps; decoders
        that did not decode lose the round (and stall), and those that just started open their segment."""
        if not it.decoding and not it.stalled and not it.paused:
            return
        if not it.decoding and len(it.stalled) == len(self.decoders):
            # Every decoder waits (a prefill-first iteration): no decode round happens, so no lazy count moves.
            self.pause(start)
            return
        self.pauses.end(start, self.rounds.now)
        first_end = (start + iteration_length(start, it.ends[0], 1) if it.ends  # (iterations of their own lengths)
                     else start + iteration_length(start, end, it.repeat))
        states = self.states
        waiting = (*it.stalled, *it.paused) if it.paused else it.stalled
        if it.accepted:
            self.commit_speculation(it.accepted, start, end, first_end)
        elif self.starting:
            self.open_decodes(start, first_end, set(waiting) if waiting else ())
        for i in waiting:  # held back by the budget or by its client: the round passes it by
            self.rounds.adjust(states[i], -it.repeat)
        self.rounds.advance(it.repeat)
        self.stall(it.stalled, start)  # (the paused were drawn as the iteration was planned)
        if self.overcommit:
            for i in (*waiting, *it.accepted):
                self.watch_growth(i)

    def commit_speculation(self, accepted: dict[int, int], start: float, end: float, first_end: float) -> None:
        """Speculative steps: each decoder's step is a decode segment of its own, of 1 + accepted tokens (the
        number differs from step to step, so steps do not merge)."""
        starting, stalled_since, states = self.starting, self.stalled_since, self.states
        for i, n in accepted.items():
            if i in starting:
                del starting[i]
            if i in stalled_since:
                self.end_stall(i, start)
            s = states[i]
            if s.timeline.first_token is None:
                s.timeline.first_token = first_end
            s.timeline.segments.append(Segment("decode", start, end, n + 1))
            self.rounds.adjust(s, n)

    def finish(self, i: int, end: float) -> None:
        """Request i made its last token at `end` (or was stopped during that iteration): it is done."""
        s = self.states[i]
        timeline = s.timeline
        self.close_decode(i, end)
        if i in self.decoders:
            del self.decoders[i]
            self.rounds.stop(s)
        self.starting.pop(i, None)
        s.phase = DONE
        self.remaining -= 1
        if s.stop_at is not None and s.stop_at < end and self.clock is None:
            # The user stopped it during the iteration that made its last token: that token never arrives.
            timeline.cancel_time, timeline.finish_reason = s.stop_at, s.stop_reason
            self.schedule.events.append((s.stop_at, STOP_EVENTS[s.stop_reason], i))
        else:
            timeline.completion, timeline.finish_reason = end, "finished"

    def record_step(self, it: Iteration, start: float, end: float) -> None:
        if it.ends:  # iterations of their own lengths: each is recorded as it would be alone
            for begins, ends in zip((start, *it.ends), it.ends):
                self.record_one(it, begins, ends, 1)
        else:
            self.record_one(it, start, end, it.repeat)

    def record_one(self, it: Iteration, start: float, end: float, repeat: int) -> None:
        step = Step(start, end, repeat, it.prefill_tokens, it.decode_work, it.padding, len(self.running),
                    decode_sequences=len(it.decoding), kv_blocks=None if self.kv is None else self.kv.used,
                    graph_padding=it.graph_padding, changes=self.changes or ())
        if it.accepted:
            step.spec_accepted = sum(it.accepted.values())
        if it.paused:
            step.paused = len(it.paused)
        if it.expert_tokens:
            step.expert_tokens = it.expert_tokens
        self.schedule.add_step(step, self.version)
        if self.changes:
            self.changes = []

    # -- what a plan needs to know of the options -----------------------------------------------------------
    def route(self, it: Iteration) -> None:
        """MoE: the iteration's tokens (prefill and decode work, not padding) routed to the experts, seeded by
        the iteration's index (sim.core.moe)."""
        if self.config.moe.experts:
            it.expert_tokens = self.config.moe.route(it.prefill_tokens + it.decode_work, self.iterations)

    def graph_padding(self, batch: int) -> int:
        """Slots that pad a decode batch of `batch` up to the next captured size (0 above the largest)."""
        if not self.policy.graph_buckets:
            return 0
        bucket = next((b for b in self.policy.graph_buckets if b >= batch), None)
        return 0 if bucket is None or batch == 0 else bucket - batch

    def speculate(self, decoding) -> tuple[dict[int, int], list[int]]:
        """Draft tokens the target model accepts this step, per decoder: each of k is accepted with probability
        p until the first rejection (one draw per step from the request's own seeded stream), never past its last
        token; and the decoders whose step makes their last token."""
        k, p, made = self.policy.spec_tokens, self.policy.spec_accept, self.rounds.made
        accepted, finishing = {}, []
        for i in decoding:
            s = self.states[i]
            left = s.request.output - made(s) - 1  # tokens still to make after the step's own
            n, rng = 0, s.rng
            while n < k and rng.random() < p:
                n += 1
            accepted[i] = n = min(n, left)
            if n == left:
                finishing.append(i)
        return accepted, finishing

    def settle(self, it: Iteration, accepted: dict[int, int]) -> None:
        """An executor that verifies the drafts itself (the real engine) replaces the plan's draws with the
        drafts each decoder accepted, before it commits `it`; the decoders whose step makes their last token are
        found again (a prefill's sampled last token stays). The simulator's executor keeps the draws."""
        made, k, finishing = self.rounds.made, self.policy.spec_tokens, []
        for i in it.decoding:
            s = self.states[i]
            left, n = s.request.output - made(s) - 1, accepted.get(i, 0)
            if not 0 <= n <= min(k, left):
                raise ValueError(f"request {i}: {n} drafts accepted, of at most {min(k, left)}")
            if n == left:
                finishing.append(i)
        it.finishing = finishing + [i for i in it.finishing if i not in it.accepted]
        it.accepted = {i: accepted.get(i, 0) for i in it.decoding}

    def steps_until(self, when: float, now: float, length: float) -> int:
        """Iterations of `length` starting before `when` (from `now`)."""
        return max(1, math.ceil((when - now) / length))

    def steady_limit(self, now: float, length: float, repeat: int) -> int:
        """`repeat` identical iterations of `length`, cut at the first boundary from a stop (a waiting request
        leaves then, a running one at the boundary after it), from the end of a swap-in, or from a released
        request's return."""
        stop = self.stops.next_stop() if self.stops else None
        if stop is not None:
            repeat = min(repeat, self.steps_until(stop, now, length))
        if self.swap_done:
            repeat = min(repeat, self.steps_until(self.swap_done[0][0], now, length))
        if self.held:  # a request released for its client comes back
            repeat = min(repeat, self.steps_until(self.held[0][0], now, length))
        return max(1, repeat)
