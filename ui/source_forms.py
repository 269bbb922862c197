"""What the trace sources' forms hold (ui.trace_sources draws them): the seeded generator's settings and the upload's
import options, kept in the page's state so that what a user set survives a page switch (Streamlit drops a
widget's own state when its page is left). Each field is named as its widget's key after the form's prefix."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class GeneratorForm:
    """The seeded generator: how many requests, how they arrive, and each length's distribution (its kind, and
    the value, bounds or median and sigma that kind reads)."""
    n: int = 60
    rate: float = 0.5
    burstiness: float = 1.0
    seed: int = 0
    prompt_kind: str = "uniform"
    prompt_v: int = 8
    prompt_lo: int = 1
    prompt_hi: int = 8
    prompt_m: float = 8.0
    prompt_s: float = 0.8
    output_kind: str = "uniform"
    output_v: int = 12
    output_lo: int = 1
    output_hi: int = 12
    output_m: float = 12.0
    output_s: float = 0.8

    @classmethod
    def starting(cls, n: int, rate: float, prompt: tuple[int, int], output: tuple[int, int]) -> GeneratorForm:
        """A form that starts from these settings (a fixed length and a median start at the range's top)."""
        return cls(n, rate, prompt_v=prompt[1], prompt_lo=prompt[0], prompt_hi=prompt[1], prompt_m=float(prompt[1]),
                   output_v=output[1], output_lo=output[0], output_hi=output[1], output_m=float(output[1]))


@dataclass(slots=True)
class UploadForm:
    """The upload's import options (sim.trace.importers.ImportOptions), and the report of the last import."""
    fmt: str = "auto"
    ms: float = 1000.0  # ms a tick
    scale: float = 1.0  # token scale
    limit: int = 500  # requests kept
    start: float = 0.0  # s into a real trace
    end: float = 0.0  # s into it (0: its end)
    report: str | None = None
