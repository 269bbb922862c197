"""The recording, a part of the scheduler with its own state: each request's timeline (its decode segments under
way, its stalls and pauses) and the Schedule's steps. The scheduler (sim.core.scheduler) tells it what happened,
with explicit arguments; it writes, and changes no request's state."""
from __future__ import annotations

from .iteration import Iteration
from .request import STOP_EVENTS, DecodeRounds, Pauses, RequestState
from .schedule import Schedule, Segment, Step, iteration_length


class Recorder:
    """Writes the Schedule: `starting` decoders open a decode segment at their next decode round, `decode_open`
    are the segments under way, `stalled_since` the open stalls and pauses; `version` and `changes` say how the
    batch's membership moved since the last step."""

    def __init__(self, schedule: Schedule, states: list[RequestState], rounds: DecodeRounds):
        self.schedule, self.states, self.rounds = schedule, states, rounds  # (states and rounds read only)
        self.starting: dict[int, None] = {}
        self.decode_open: dict[int, tuple[float, int, int, int]] = {}  # (start, tokens made, decode round, pauses)
        self.pauses = Pauses()  # iterations in which every decoder waited
        # open stalls: decoders holding their slot without decoding, since when and why ("stalled" for the budget
        # or a prefill, "paused" for their client)
        self.stalled_since: dict[int, tuple[float, str]] = {}
        self.iterations = 0
        self.version = 0  # bumped whenever batch membership changes (steps merge only within one version)
        self.changes: list[int] = []  # joins (i) and leaves (~i) of the batch since the last recorded step

    def event(self, when: float, kind: str, i: int) -> None:
        self.schedule.events.append((when, kind, i))

    def joined(self, i: int) -> None:
        self.version += 1
        self.changes.append(i)

    def left(self, i: int) -> None:
        self.version += 1
        self.changes.append(~i)

    def step(self, it: Iteration, start: float, end: float, running: int, kv_used: int | None) -> None:
        """The iteration(s) of `it` ran in [start, end) with `running` requests holding a slot; a run of
        iterations of their own lengths (`it.ends`) is recorded one step each, as each would be alone."""
        if not it.ends:
            self.add_step(it, start, end, it.repeat, running, kv_used)
            return
        ends = it.ends
        counts = self.add_step(it, start, ends[0], 1, running, kv_used)  # (the batch's changes came before it)
        add, version = self.schedule.add_step, self.version
        for begins, finishes in zip(ends, ends[1:]):
            add(Step(begins, finishes, 1, *counts), version)
        self.iterations += len(ends) - 1

    def add_step(self, it: Iteration, start: float, end: float, repeat: int, running: int,
                 kv_used: int | None) -> tuple:
        """Record one step; its fields after `iterations` but the changes, for the steps of the same run."""
        counts = (it.prefill_tokens, it.decode_work, it.padding, running, len(it.decoding), kv_used, it.graph_padding,
                  sum(it.accepted.values()) if it.accepted else 0, len(it.paused), it.expert_tokens)
        self.schedule.add_step(Step(start, end, repeat, *counts, self.changes or ()), self.version)
        if self.changes:
            self.changes = []
        self.iterations += repeat
        return counts

    # -- decode segments ----------------------------------------------------------------------------------------
    def starts_decoding(self, i: int) -> None:
        """Request i's next decode round opens its decode segment."""
        self.starting[i] = None

    def stops_decoding(self, i: int, end: float) -> None:
        """Decoder i leaves the decode rounds at `end`: its open segment, a decode or a stall, ends."""
        opened = self.decode_open.pop(i, None)
        if opened is not None:
            s = self.states[i]
            self.pauses.draw(s.timeline, opened, end, self.rounds.made(s))
        if self.stalled_since:
            self.end_stall(i, end)
        if self.starting:
            self.starting.pop(i, None)

    def end_stall(self, i: int, end: float) -> None:
        stall = self.stalled_since.pop(i, None)
        if stall is not None:
            self.states[i].timeline.add(stall[1], stall[0], end, 0)

    def speculated(self, accepted: dict[int, int], start: float, end: float, first_end: float) -> None:
        """Speculative steps: each decoder's step is a decode segment of its own, of 1 + accepted tokens (the
        number differs from step to step, so steps do not merge)."""
        starting, stalled_since, states = self.starting, self.stalled_since, self.states
        for i, n in accepted.items():
            if i in starting:
                del starting[i]
            if i in stalled_since:
                self.end_stall(i, start)
            timeline = states[i].timeline
            if timeline.first_token is None:
                timeline.first_token = first_end
            timeline.segments.append(Segment("decode", start, end, n + 1))

    def stall(self, requests, start: float, phase: str = "stalled") -> None:
        """Decoders that hold their slot but do not decode from `start` on: each one's decode segment closes and
        a stall (or a pause for its client) opens, written when it decodes again or leaves. A pause goes on
        through a stall; a stall that turns into a pause is written up to `start`."""
        stalled_since, decode_open, starting, states = self.stalled_since, self.decode_open, self.starting, self.states
        draw, made, opens = self.pauses.draw, self.rounds.made, (start, phase)
        for i in requests:
            if i in stalled_since:
                if phase == "stalled" or stalled_since[i][1] == phase:
                    continue
                self.end_stall(i, start)
            opened = decode_open.pop(i, None)
            if opened is not None:
                s = states[i]
                draw(s.timeline, opened, start, made(s))
            stalled_since[i] = opens
            starting[i] = None

    def pause(self, start: float, decoding: dict) -> None:
        """Every decoder waits from `start` on (a prefill-first prefill): one pause for all (sim.core.request.
        Pauses). Only decoders with no open decode segment (just started, or speculating: each step is written
        apart) stall one by one."""
        self.pauses.begin(start, self.rounds.now)
        self.stall(decoding.keys() - self.decode_open.keys(), start)

    def round_starts(self, start: float, end: float, repeat: int, skip, opens: bool = True) -> None:
        """A decode round starts at `start` (`repeat` of them fill [start, end)): the pause under way, if any,
        ends, and the decoders that start decoding in it open their segment (not `opens`:
        speculative steps are segments of their own, `speculated`)."""
        if self.pauses.since is not None:
            self.pauses.end(start, self.rounds.now)
        if not opens or not self.starting:
            return
        # The decoders decoding for the first time since they started (or stalled) open a decode segment: (start,
        # tokens made, decode round, pauses so far), closed by `stops_decoding` (or a stall); `skip`: those that
        # did not decode in it.
        starting, states, decode_open, stalled_since = self.starting, self.states, self.decode_open, self.stalled_since
        opening = [i for i in starting if i not in skip] if skip else list(starting)
        round_now, pauses, made = self.rounds.now, len(self.pauses.ends), self.rounds.made
        first_end = start + iteration_length(start, end, repeat)  # (their first token)
        for i in opening:
            del starting[i]
            s = states[i]
            stall = stalled_since.pop(i, None)  # (end_stall)
            if stall is not None:
                s.timeline.add(stall[1], stall[0], start, 0)
            decode_open[i] = (start, made(s), round_now, pauses)
            if s.timeline.first_token is None:
                s.timeline.first_token = first_end

    # -- prefills and ends ---------------------------------------------------------------------------------------
    def prefills(self, prefill: list[tuple[int, int, int]], start: float, end: float) -> None:
        """The prefill chunks (request, first position, tokens) of [start, end). A recompute's first chunk starts
        a segment of its own, even right after the preemption: it stays apart from the prefill it repeats."""
        states = self.states
        for i, first, tokens in prefill:
            timeline = states[i].timeline
            timeline.add("prefill", start, end, tokens, merge=first > 0 or not timeline.preemptions)

    def prefill_emitted(self, i: int, end: float) -> None:
        timeline = self.states[i].timeline
        timeline.prefill_emits.append(end)
        if timeline.first_token is None:
            timeline.first_token = end

    def finished(self, i: int, end: float, stopped: bool, leaves: bool) -> None:
        """Request i made its last token at `end`; `stopped`: its user stopped it during that iteration, so that
        token never arrives; `leaves`: it leaves the batch too (`left`)."""
        if leaves:
            self.version += 1
            self.changes.append(~i)
        s = self.states[i]
        opened = self.decode_open.pop(i, None)  # (stops_decoding)
        if opened is not None:
            self.pauses.draw(s.timeline, opened, end, self.rounds.made(s))
        if self.stalled_since:
            self.end_stall(i, end)
        if self.starting:
            self.starting.pop(i, None)
        if stopped:
            s.timeline.cancel_time, s.timeline.finish_reason = s.stop_at, s.stop_reason
            self.event(s.stop_at, STOP_EVENTS[s.stop_reason], i)
        else:
            s.timeline.completion, s.timeline.finish_reason = end, "finished"

    def ended(self, i: int, when: float, reason: str, event: str, waited: str | None) -> None:
        """Request i ends without finishing (cancelled or rejected) at `when`; `waited`: the phase of the wait it
        was in (queued, preempted, swapped), drawn up to then."""
        timeline = self.states[i].timeline
        if waited is not None:
            since = timeline.segments[-1].end if timeline.segments else timeline.arrival
            timeline.add(waited, since, max(since, when), 0)
        timeline.finish_reason = reason
        self.event(when, event, i)
