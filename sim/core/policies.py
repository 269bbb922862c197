"""The batching policies, and `make_scheduler`, which picks the scheduler of a Policy: continuous batching
(sim.core.continuous), static batching (sim.core.static), or a real engine's (sim.core.presets)."""
from __future__ import annotations

from ..trace.trace import Trace
from .config import Config, Policy
from .continuous import Continuous
from .presets import NanoVllm, VllmV1, expand
from .scheduler import Scheduler
from .static import Static

__all__ = ["Continuous", "NanoVllm", "Static", "VllmV1", "make_scheduler"]


def make_scheduler(policy: Policy | str, trace: Trace, config: Config, unit: str | None = None,
                   replica: str = "") -> Scheduler:
    """The scheduler of `policy`; `unit`: the executor's time unit when it is not its cost model's; `replica`: the
    role of a replica behind a router, which gives it its requests one by one (Scheduler.offer)."""
    policy = Policy(batching=policy) if isinstance(policy, str) else policy
    if policy.batching == "static":
        return Static(trace, config, policy, unit, replica)
    if policy.preset == "nano-vllm":
        return NanoVllm(trace, config, policy, unit, replica)
    if policy.preset == "vllm-v1":
        scheduler = VllmV1(trace, config, expand(policy, config), unit, replica)
        scheduler.schedule.options = policy  # (what was asked for: the preset)
        return scheduler
    if policy.preset:
        scheduler = make_scheduler(expand(policy, config), trace, config, unit, replica)
        scheduler.schedule.options = policy  # (what was asked for: the preset)
        return scheduler
    return Continuous(trace, config, policy, unit, replica)
