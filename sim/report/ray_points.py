"""The planner's points as Ray tasks (`python -m sim plan --executor ray [--ray-address ADDR]`): each task runs
sim.report.plan.run_point on one configuration, as a local worker process would, so the rows are the same.

Ray is a dependency of the tests and of a cluster, never of the app: it is imported only when asked for. Without
an address Ray starts a local instance on this machine; `--ray-address auto` joins the cluster this machine
belongs to (`ray start --head` on one machine, `ray start --address HEAD:6379` on the others), and
`ray://HOST:10001` reaches one through Ray Client. Every machine needs this project and its requirements at the
same path (or a runtime_env that ships them)."""
from __future__ import annotations

from collections.abc import Callable

from ..trace.trace import Trace
from .plan import run_point
from .sweep import Entry


def _point(trace: Trace, one: Entry, replicas: int) -> dict:
    return run_point((trace, one, replicas))


def ray_runner(address: str | None = None, num_cpus: int | None = None) -> tuple[
        Callable[[Trace, list[tuple[Entry, int]]], list[dict]], Callable[[], None]]:
    """Points as Ray tasks on the cluster at `address` (None: a local Ray with `num_cpus`); the trace is put in
    Ray's object store once and every task reads it from there. The second function disconnects."""
    try:
        import ray
    except ImportError:
        raise ImportError("--executor ray needs Ray: pip install 'ray>=2.40' (the tests' requirements have it)") \
            from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, num_cpus=None if address else num_cpus, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    task = ray.remote(_point)
    stored: dict[int, object] = {}

    def run(trace: Trace, jobs: list[tuple[Entry, int]]) -> list[dict]:
        ref = stored.get(id(trace))
        if ref is None:
            ref = stored[id(trace)] = ray.put(trace)
        return ray.get([task.remote(ref, one, n) for one, n in jobs])

    def stop() -> None:
        if started:
            ray.shutdown()
    return run, stop
