"""`python -m sim hardware`: the GPUs and models of sim.core.hardware, as text tables or JSON, each with its
source."""
from __future__ import annotations

from dataclasses import asdict

from ..core.hardware import COMPUTE_EFFICIENCY, GPUS, MEMORY_EFFICIENCY, MODELS


def hardware_json() -> dict:
    """Every GPU and model with its figures and source, the models' parameter counts, and the efficiencies."""
    models = [asdict(m) | {"params": m.params, "active_params": m.active_params,
                           "kv_bytes_per_token_bf16": m.kv_bytes_per_token(2)} for m in MODELS.values()]
    return {"gpus": [asdict(g) for g in GPUS.values()], "models": models,
            "compute_efficiency": COMPUTE_EFFICIENCY, "memory_efficiency": MEMORY_EFFICIENCY}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    line = "  ".join
    return [line(h.ljust(w) for h, w in zip(header, widths)),
            *(line(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in rows)]


def hardware_text() -> str:
    gpus = _table(["GPU", "bf16 TFLOP/s", "fp8 TFLOP/s", "memory GB", "HBM GB/s", "link GB/s", "link"],
                  [[g.name, f"{g.bf16_tflops:g}", "-" if g.fp8_tflops is None else f"{g.fp8_tflops:g}",
                    f"{g.memory_gb:g}", f"{g.bandwidth_gb_s:,g}", f"{g.link_gb_s:g}", g.link] for g in GPUS.values()])
    models = _table(["model", "params", "active", "layers", "hidden", "heads", "KV heads", "MLP", "vocab",
                     "experts", "KV a token (bf16)"],
                    [[m.name, f"{m.params / 1e9:.1f} B", f"{m.active_params / 1e9:.1f} B", str(m.layers),
                      str(m.hidden), str(m.heads), str(m.kv_heads), str(m.intermediate), f"{m.vocab:,}",
                      f"{m.experts} (top {m.top_k})" if m.experts else "-", f"{m.kv_bytes_per_token(2) / 1024:g} KiB"]
                     for m in MODELS.values()])
    sources = [f"  {g.name}: {g.source}" for g in GPUS.values()] + [f"  {m.name}: {m.source}" for m in MODELS.values()]
    notes = [f"Efficiencies: compute {COMPUTE_EFFICIENCY:.0%} of the dense peak, memory {MEMORY_EFFICIENCY:.0%} of "
             "the HBM bandwidth (see the README's \"A real GPU\"). Dense peaks: the datasheets' sparsity figures "
             "halved. Link: both directions together."]
    return "\n".join([*gpus, "", *models, "", *notes, "", "Sources:", *sources])
