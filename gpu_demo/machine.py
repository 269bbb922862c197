"""The machine the engine runs on, as it is now: how many of its cores other work is using, the torch threads the
engine runs on, and which machine a cost profile belongs to.

Threads: torch's intra-op threads wait for each other by spinning (OpenMP). When other processes share the
cores, a thread that loses its core stalls every other one: with a browser test on the same two cores, two
threads served static batching at a fifth of one thread's speed (issue 28; bench/busy_threads.py measures it).
The engine therefore takes only the cores other work leaves free, measured over a short window just before a
run (and in every measurement of the last minute: a class's load comes in bursts), and never fewer than one.
"""
from __future__ import annotations

import hashlib
import math
import os
import platform
import time
from dataclasses import dataclass
from functools import cache

import torch

WINDOW = 0.2  # seconds over which the other work on the cores is measured
FREE = 0.25  # a core counts as free while other work takes less than this share of it ...
RECENT = 60.0  # ... in every measurement of the last minute: a class's load comes in bursts, a lull between two
# is no promise, and a second thread that meets the next burst costs far more than it saves
_measured: list[tuple[float, float]] = []  # (when, busy cores) of this process's recent measurements


def _mine() -> set[int]:
    """The CPUs this process may run on."""
    try:
        return os.sched_getaffinity(0)
    except AttributeError:  # (not Linux)
        return set(range(os.cpu_count() or 1))


def cores() -> int:
    """How many cores this process may run on."""
    return len(_mine())


def _cpu_times() -> tuple[float, float] | None:
    """(busy, total) jiffies since boot of the cores this process may run on, from /proc/stat's per-core lines
    (None where there is none)."""
    mine, busy, total = _mine(), 0.0, 0.0
    try:
        with open("/proc/stat") as f:
            for line in f:
                name, *values = line.split()
                if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in mine:
                    ticks = [float(v) for v in values]
                    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0.0)  # idle + iowait
                    busy, total = busy + sum(ticks) - idle, total + sum(ticks)
    except (OSError, ValueError, IndexError):
        return None
    return (busy, total) if total else None


def busy_cores(window: float = WINDOW) -> float:
    """Cores' worth of work other than the calling thread's over `window` seconds (the caller sleeps through it,
    so all that is measured is the others'); the one-minute load average where /proc/stat cannot be read."""
    before = _cpu_times()
    if before is None:
        return min(float(cores()), os.getloadavg()[0]) if hasattr(os, "getloadavg") else 0.0
    time.sleep(window)
    after = _cpu_times() or before
    total = after[1] - before[1]
    return (after[0] - before[0]) / total * cores() if total > 0 else 0.0


@dataclass(frozen=True)
class Threads:
    """The torch threads a run uses, and why: given by the user (`asked`), or chosen from the cores other work
    left free."""
    threads: int
    cores: int
    busy: float | None  # cores' worth of other work they were chosen by, the most of the last minute (None: asked)

    @property
    def asked(self) -> bool:
        return self.busy is None

    def json(self) -> dict:
        return {"threads": self.threads, "cores": self.cores, "asked": self.asked,
                "busy_cores": None if self.busy is None else round(self.busy, 2)}

    def words(self) -> str:
        if self.asked:
            return f"{self.threads} torch thread(s), as asked"
        return (f"{self.threads} torch thread(s): {self.cores} core(s), up to {self.busy:.1f} of them busy with "
                "other work in the last minute")


def choose_threads(asked: int | None = None) -> Threads:
    """Set torch's intra-op threads for the next run: `asked`, or as many cores as other work has left free (FREE)
    in every measurement of the last RECENT seconds, this one's included; at least one, at most one a core. (On
    a GPU they run only the host's side of a step, alike.)"""
    n = cores()
    if asked:
        torch.set_num_threads(asked)
        return Threads(asked, n, None)
    now = time.monotonic()
    _measured[:] = [(at, busy) for at, busy in _measured if now - at < RECENT] + [(now, busy_cores())]
    busy = max(b for _, b in _measured)
    threads = max(1, n - math.ceil(busy - FREE))
    torch.set_num_threads(threads)
    return Threads(threads, n, busy)


@cache  # (a machine does not change while a process runs; the page asks at every rerun)
def fingerprint(device: str, dtype: str) -> dict:
    """What names this machine for a cost profile: its host, CPU model and cores, the device and dtype, torch."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    gpu = torch.cuda.get_device_name() if device == "cuda" and torch.cuda.is_available() else ""
    return {"host": platform.node(), "cpu": cpu, "cores": cores(), "gpu": gpu, "device": device, "dtype": dtype,
            "torch": torch.__version__}


def machine_id(found: dict) -> str:
    """A short name of a fingerprint, for a file name."""
    return hashlib.sha256(repr(sorted(found.items())).encode()).hexdigest()[:12]
