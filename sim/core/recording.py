"""What a committed iteration does, shared by every policy: prefills advance and may emit a token, the decode
round moves on, finished requests leave, and each request's timeline and the Schedule's steps are recorded.
A part of the Scheduler (sim.core.scheduler), kept apart so that each reads in one sitting."""
from __future__ import annotations

import math

from .iteration import Iteration
from .request import DONE
from .schedule import Step, iteration_length


class Recording:
    """The commit side of the Scheduler (its state is the Scheduler's)."""

    def close_decode(self, i: int, end: float) -> None:
        """Decoder i's open segment, a decode or a stall, ends at `end`."""
        opened = self.decode_open.pop(i, None)
        if opened is not None:
            start, made_then = opened
            self.timelines[i].add("decode", start, end, self.generated(i) - made_then)
        self.end_stall(i, end)

    def end_stall(self, i: int, end: float) -> None:
        since = self.stalled_since.pop(i, None)
        if since is not None:
            self.timelines[i].add("stalled", since, end, 0)

    def open_decodes(self, start: float, first_end: float, skip) -> None:
        """Decoders decoding for the first time since they started (or stalled) open a decode segment."""
        opening = [i for i in self.starting if i not in skip] if skip else list(self.starting)
        timelines, decode_open, stalled_since = self.timelines, self.decode_open, self.stalled_since
        for i in opening:
            del self.starting[i]
            if i in stalled_since:
                self.end_stall(i, start)
            decode_open[i] = (start, self.generated(i))
            if timelines[i].first_token is None:
                timelines[i].first_token = first_end

    def stall(self, requests, start: float) -> None:
        """Decoders that hold their slot but do not decode from `start` on: each one's decode segment closes and
        a stall opens, written when it decodes again or leaves (a prefill-first run stalls every decoder at
        every prefill iteration, so a decoder already stalled costs only a look-up)."""
        stalled_since, decode_open, starting = self.stalled_since, self.decode_open, self.starting
        for i in requests:
            if i in stalled_since:
                continue
            if i in decode_open:
                start_then, made_then = decode_open.pop(i)
                self.timelines[i].add("decode", start_then, start, self.generated(i) - made_then)
            stalled_since[i] = start
            starting[i] = None

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
            if states[i].made < states[i].output:
                self.start_decoding(i)

    def commit_decodes(self, it: Iteration, start: float, end: float) -> None:
        """Move the decode round on: lazily for everyone, plus the extra tokens of speculative steps; decoders
        that did not decode lose the round (and stall), and those that just started open their segment."""
        if not it.decoding and not it.stalled:
            return
        if not it.decoding and len(it.stalled) == len(self.decoders):
            # Every decoder waits (a prefill-first iteration): no decode round happens, so no lazy count moves.
            self.stall(it.stalled, start)
            return
        first_end = start + iteration_length(start, end, it.repeat)
        states = self.states
        # speculation: each step its own segment of 1 + accepted tokens
        for i, accepted in it.accepted.items() if it.accepted else ():
            self.starting.pop(i, None)
            self.end_stall(i, start)
            if states[i].timeline.first_token is None:
                states[i].timeline.first_token = first_end
            states[i].timeline.add("decode", start, end, accepted + 1, merge=False)
            states[i].made += accepted
        if self.starting and not it.accepted:
            self.open_decodes(start, first_end, set(it.stalled) if it.stalled else ())
        for i in it.stalled:  # held back by the budget or a prefill-first iteration: the round passes it by
            states[i].made -= it.repeat
        self.rounds.advance(it.repeat)
        self.stall(it.stalled, start)
        if it.stalled or it.accepted:
            for i in (*it.stalled, *it.accepted):
                self.expect_last(i)
                self.watch_growth(i)

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
            timeline.cancel_time, timeline.finish_reason = s.stop_at, "cancelled"
            self.schedule.events.append((s.stop_at, "cancel", i))
        else:
            timeline.completion, timeline.finish_reason = end, "finished"

    def record_step(self, it: Iteration, start: float, end: float) -> None:
        # (positional: the fields of Step in order, the quicker call once an event)
        self.schedule.add_step(Step(start, end, it.repeat, it.prefill_tokens, it.decode_work, it.padding,
                                    len(self.running), len(it.decoding), None if self.kv is None else self.kv.used,
                                    it.graph_padding, sum(it.accepted.values()) if it.accepted else 0,
                                    self.changes or ()), self.version)
        if self.changes:
            self.changes = []

    # -- what a plan needs to know of the options -----------------------------------------------------------
    def graph_padding(self, batch: int) -> int:
        """Slots that pad a decode batch of `batch` up to the next captured size (0 above the largest)."""
        if not self.policy.graph_buckets:
            return 0
        bucket = next((b for b in self.policy.graph_buckets if b >= batch), None)
        return 0 if bucket is None or batch == 0 else bucket - batch

    def speculate(self, i: int) -> int:
        """Draft tokens the target model accepts this step for request i: each of k is accepted with
        probability p until the first rejection (one draw per step from the request's own seeded stream)."""
        accepted, rng = 0, self.states[i].rng
        while accepted < self.policy.spec_tokens and rng.random() < self.policy.spec_accept:
            accepted += 1
        return min(accepted, self.requests[i].output - self.generated(i) - 1)

    def steps_until(self, when: float, now: float, length: float) -> int:
        """Iterations of `length` starting before `when` (from `now`)."""
        return max(1, math.ceil((when - now) / length))

    def steady_limit(self, now: float, length: float, repeat: int) -> int:
        """`repeat` identical iterations of `length`, cut at the first boundary from a stop (a waiting request
        leaves then, a running one at the boundary after it) or from the end of a swap-in."""
        stop = self.stops.next_stop() if self.stops else None
        if stop is not None:
            repeat = min(repeat, self.steps_until(stop, now, length))
        if self.swap_done:
            repeat = min(repeat, self.steps_until(self.swap_done[0][0], now, length))
        return max(1, repeat)
