"""The real engine's cost profile, measured as Vidur does: each iteration shape of a grid (prefill chunks,
decoding sequences, the context they read; mixed and pure) is run through the engine's own batch building and
forward pass, timed after a warm-up, repeated, and its median kept. A cost model of sim (`CostModel` of kind
"profile") is then fitted to the grid by non-negative least squares over the features of the packed batch the
engine builds, and its error is reported on shapes held out of the fit.

The features follow the layout of `batch.pack`: every projection and MLP runs on the `rows` token rows; each
of the `groups` (a prefill chunk, a decode token, a padding row) is one attention row group, padded to the
longest `query` chunk and the `longest` KV span, so attention costs groups x query x longest cells.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from sim.core.config import Config, Policy
from sim.core.iteration import Iteration
from sim.core.kv import blocks_for
from sim.trace.generate import Uniform, generate

from .batch import Sequences, pack
from .engine import run
from .kv_cache import PagedKVCache
from .machine import fingerprint, machine_id
from .model import GPT, forward_packed
from .prompts import prompts_for

PROFILES = Path(__file__).with_name("profiles")
BLOCK_SIZE = 4  # sim's default block size, the one the page's runs use
FEATURES = ("c0", "c_token", "c_seq", "c_key", "c_cell")


@dataclass(frozen=True)
class Shape:
    """One iteration's work: prefill chunks as (first position, tokens), and each decoder's context."""
    prefill: tuple[tuple[int, int], ...] = ()
    decode: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        chunks = "+".join(f"{n}@{first}" if first else str(n) for first, n in self.prefill) or "0"
        contexts = sorted(set(self.decode))
        return f"prefill {chunks}, decode {len(self.decode)} x ctx {'/'.join(map(str, contexts)) or '-'}"


def grid(context: int) -> list[Shape]:
    """Pure prefills (one or several chunks, a chunk that continues a prompt), pure decodes over batch sizes
    and contexts, and mixed iterations of both: the shapes the schedulers make, within the model's context."""
    shapes = [Shape(prefill=((0, n),)) for n in (4, 16, 48, 96, 160, 224)]
    shapes += [Shape(prefill=tuple((0, n) for _ in range(k))) for k, n in ((2, 32), (4, 24), (3, 80), (8, 16))]
    shapes += [Shape(prefill=((64, 64),)), Shape(prefill=((128, 96),))]
    shapes += [Shape(decode=(c,) * d) for d in (1, 2, 4, 6, 8, 12, 16, 32) for c in (16, 64, 128, 200, 250)]
    shapes += [Shape(prefill=((0, n),), decode=(c,) * d) for n, d, c in
               ((16, 4, 64), (64, 8, 128), (128, 16, 48), (32, 24, 200), (96, 3, 180), (200, 12, 24),
                (8, 7, 160), (48, 6, 220), (24, 2, 100), (140, 5, 150), (60, 8, 60))]
    shapes += [Shape(prefill=((0, 40), (0, 72)), decode=(30, 90, 150, 210) * 3)]
    return [s for s in shapes if all(first + n <= context for first, n in s.prefill) and max(s.decode, default=0)
            <= context]


def features(shape: Shape) -> tuple[int, int, int, int]:
    """(rows, groups, query, longest) of the packed batch the engine builds for this shape."""
    rows = sum(n for _, n in shape.prefill) + len(shape.decode)
    groups = len(shape.prefill) + len(shape.decode)
    query = max((n for _, n in shape.prefill), default=1)
    longest = max([first + n for first, n in shape.prefill] + list(shape.decode))
    return rows, groups, query, longest


def design_row(rows: int, groups: int, query: int, longest: int) -> list[float]:
    return [1.0, float(rows), float(groups), float(groups * longest), float(groups * query * longest)]


class Timer:
    """One shape, laid out once as the engine would hold it (a KV cache, block tables, token sequences, the
    Iteration): `once()` times the engine's batch building + forward pass + greedy pick for it, in ms, the
    device synchronized before each clock read. A pure decode is timed as the engine runs one after another: the
    last decode batch moved on (gpu_demo.batch.Steady)."""

    def __init__(self, model: GPT, shape: Shape):
        self.model, self.shape = model, shape
        param = next(model.parameters())
        self.device = param.device
        requests = len(shape.prefill) + len(shape.decode)
        per = blocks_for(features(shape)[3] + 1, BLOCK_SIZE)
        self.cache = PagedKVCache(model.config, requests * per, BLOCK_SIZE, param.device, param.dtype, requests)
        tables = {i: list(range(i * per, (i + 1) * per)) for i in range(requests)}
        lengths = [min(per * BLOCK_SIZE, self.cache.row)] * len(shape.prefill) + list(shape.decode)
        self.sequences = Sequences([bytes(65 + (i + j) % 26 for j in range(n)) for i, n in enumerate(lengths)],
                                   self.cache.row, param.device)
        chunks = [(i, first, n) for i, (first, n) in enumerate(shape.prefill)]
        self.it = Iteration(prefill=chunks, decoding=list(range(len(shape.prefill), requests)),
                            prefill_emits=[i for i, _, _ in chunks], blocks=tables)
        self.done = [0] * len(shape.prefill) + [c - 1 for c in shape.decode]
        self.steady = self.made = None
        if not shape.prefill:  # the decode before this one, whose batch this one moves on
            packed = pack(self.it, self.cache, self.sequences, list(self.done), self.device)
            self.sequences.append(packed.emitters, packed.emit_at * 0 + 66, packed.emit_at)
            self.steady, self.made = self.sequences.steady, self.sequences.made
        self.sync = torch.cuda.synchronize if param.device.type == "cuda" else (lambda: None)

    def once(self) -> float:
        done = list(self.done)
        self.sequences.steady, self.sequences.made = self.steady, self.made
        self.sync()
        start = time.perf_counter()
        batch = pack(self.it, self.cache, self.sequences, done, self.device).batch
        forward_packed(self.model, batch, self.cache.k, self.cache.v).argmax(dim=-1).tolist()
        self.sync()
        return (time.perf_counter() - start) * 1000


@torch.inference_mode()  # as the engine runs
def time_shapes(model: GPT, shapes: list[Shape], repeats: int) -> list[list[float]]:
    """Each shape's timings (ms) over `repeats` rounds, after one warm-up round left out. A round times every
    shape once, so a machine that speeds up or slows down over the minute moves all shapes alike instead of
    bending the fit."""
    timers = [Timer(model, shape) for shape in shapes]
    times = [[] for _ in shapes]
    for attempt in range(repeats + 1):
        for timer, kept in zip(timers, times):
            ms = timer.once()
            if attempt:
                kept.append(ms)
    return times


def nnls(rows: list[list[float]], targets: list[float], iterations: int = 500) -> list[float]:
    """Least squares with every coefficient >= 0 (Lawson and Hanson's active set), columns scaled to unit
    norm so that features of very different sizes are solved alike."""
    a = torch.tensor(rows, dtype=torch.float64)
    b = torch.tensor(targets, dtype=torch.float64)
    scale = a.norm(dim=0).clamp(min=1e-12)
    a = a / scale
    n = a.shape[1]
    passive = torch.zeros(n, dtype=torch.bool)
    x = torch.zeros(n, dtype=torch.float64)
    for _ in range(iterations):
        gradient = a.T @ (b - a @ x)
        free = ~passive & (gradient > 1e-10)
        if not free.any():
            break
        passive[torch.argmax(torch.where(free, gradient, -torch.inf))] = True
        while True:
            z = torch.zeros(n, dtype=torch.float64)
            z[passive] = torch.linalg.lstsq(a[:, passive], b.unsqueeze(1)).solution.squeeze(1)
            if (z[passive] > 0).all():
                x = z
                break
            blocking = passive & (z <= 0)
            alpha = torch.min(x[blocking] / (x[blocking] - z[blocking]))
            x = x + alpha * (z - x)
            passive &= x > 1e-12
    return (x / scale).tolist()


def fit(measured: list[dict]) -> tuple[dict[str, float], float, float]:
    """Coefficients (ms) fitted on the shapes not held out, and the mean absolute error, in percent of each
    shape's time, on the fitted shapes and on the held-out ones (every fourth shape)."""
    rows = [design_row(m["rows"], m["groups"], m["query"], m["longest"]) for m in measured]
    held = [i % 4 == 3 for i in range(len(measured))]
    train = [i for i, h in enumerate(held) if not h]
    # Each shape weighted by 1 / its time: the fit minimises relative errors, so that the many short decode
    # iterations of a run are fitted as well as the long prefills.
    coefficients = nnls([[f / measured[i]["ms"] for f in rows[i]] for i in train], [1.0] * len(train))

    def error(indices):
        errors = [abs(sum(c * f for c, f in zip(coefficients, rows[i])) - measured[i]["ms"]) / measured[i]["ms"]
                  for i in indices]
        return 100 * statistics.fmean(errors) if errors else 0.0

    return dict(zip(FEATURES, coefficients)), error(train), error([i for i, h in enumerate(held) if h])


def profile(model: GPT, repeats: int = 15, log=None) -> dict:
    """Time every shape of the grid, fit the cost model, and return the profile document."""
    shapes = grid(model.config.context)
    started = time.perf_counter()
    timings = time_shapes(model, shapes, repeats)
    measured, spreads = [], []
    for shape, times in zip(shapes, timings):
        rows, groups, query, longest = features(shape)
        ms = statistics.median(times)
        spreads.append(statistics.median(abs(t - ms) / ms for t in times))
        measured.append({"shape": shape.name, "prefill": [list(c) for c in shape.prefill],
                         "decode": list(shape.decode), "rows": rows, "groups": groups, "query": query,
                         "longest": longest, "ms": round(ms, 4)})
        if log:
            log(f"{shape.name}: {ms:.2f} ms")
    coefficients, fit_error, held_out_error = fit(measured)
    loop = loop_ms(model)
    device, dtype = placed(model)
    return {"device": device, "dtype": dtype, "fingerprint": fingerprint(device, dtype), "torch": torch.__version__,
            "threads": torch.get_num_threads(), "machine": platform.machine(),
            "repeats": repeats, "seconds": round(time.perf_counter() - started, 1),
            "coefficients": coefficients, "loop_ms": round(loop, 4), "fit_error_percent": round(fit_error, 2),
            "held_out_error_percent": round(held_out_error, 2),
            # how far one shape's timings stray from their median (the median over shapes), in percent: the
            # timer's own noise on this machine
            "spread_percent": round(100 * statistics.median(spreads), 2), "shapes": measured}


def loop_ms(model: GPT, runs: int = 3) -> float:
    """The engine's own time per iteration outside batch building and the forward pass (planning, committing),
    the median of `runs` runs of a fixed calibration trace after a warm-up run."""
    trace = generate(24, rate=0.5, prompt=Uniform(8, 96), output=Uniform(4, 48), seed=20261202)
    prompts = prompts_for(trace)
    results = [run(model, trace, prompts, Config(512, max_seqs=16), Policy()) for _ in range(runs + 1)][1:]
    return statistics.median((r.iteration_seconds - r.model_seconds - r.pack_seconds) / r.iterations * 1000
                             for r in results)


def placed(model: GPT) -> tuple[str, str]:
    """The device and dtype the model runs on, by name ("cpu", "float32")."""
    param = next(model.parameters())
    return param.device.type, str(param.dtype).removeprefix("torch.")


def path_for(device: str, dtype: str) -> Path:
    """The profile that ships with the project (measured on the machine that wrote it: used only when asked)."""
    return PROFILES / f"{device}-{dtype}.json"


def kept_dir() -> Path:
    """Where this machine's own profiles are kept: $CLASSROOM_PROFILES, else the user's cache folder."""
    if os.environ.get("CLASSROOM_PROFILES"):
        return Path(os.environ["CLASSROOM_PROFILES"])
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "batching-classroom" / "profiles"


def kept_path(device: str, dtype: str) -> Path:
    """This machine's profile for the device and dtype (one file a machine: its fingerprint names it)."""
    return kept_dir() / f"{device}-{dtype}-{machine_id(fingerprint(device, dtype))}.json"


def machine_profile(model: GPT, log=None) -> tuple[Path, bool]:
    """This machine's profile for the model's device and dtype: the one kept from before, or measured now and
    kept (then True), so that no prediction uses another machine's profile unless asked to."""
    path = kept_path(*placed(model))
    spare = Path(tempfile.gettempdir()) / "batching-classroom-profiles" / path.name  # (where the cache is read-only)
    for found in (path, spare):
        if found.exists():
            return found, False
    document = profile(model, log=log)
    try:
        return save(document, path), True
    except OSError:
        return save(document, spare), True


def save(document: dict, path: str | Path | None = None) -> Path:
    """Write a profile document (default: where this machine's is kept)."""
    path = Path(path) if path else kept_path(document["device"], document["dtype"])
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.part")  # (a reader never finds half a file)
    temporary.write_text(json.dumps(document, indent=1) + "\n")
    temporary.replace(path)
    return path
