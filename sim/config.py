"""Scheduler budgets and SLO thresholds: frozen, validated on construction, passed explicitly."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

FIRST_TOKEN_MODES = ("decode", "prefill")
POLICIES = ("static", "continuous")


class ConfigError(ValueError):
    """A budget or threshold out of range; `field` names the input to fix."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


def _positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(name, f"must be a whole number >= 1, got {value!r}")


@dataclass(frozen=True, slots=True)
class SLO:
    """Latency thresholds a request must meet to count toward goodput; None means no limit."""
    ttft: float | None = None
    tpot: float | None = None
    e2e: float | None = None

    def __post_init__(self):
        for name in ("ttft", "tpot", "e2e"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                    or value <= 0:
                raise ConfigError(f"slo_{name}", f"must be a number > 0, got {value!r}")


@dataclass(frozen=True, slots=True)
class Config:
    """What one scheduler may do per tick.

    token_budget: token-work per tick (prefill tokens + decode tokens + padding slots).
    max_seqs: most requests in one iteration's batch (None: limited only by the token budget).
    first_token: "decode" (the seed's teaching mode: a prefill tick emits nothing, the first token comes
        from the first decode tick) or "prefill" (the prefill iteration samples the first token, as vLLM).
    """
    token_budget: int = 8
    max_seqs: int | None = None
    first_token: str = "decode"
    slo: SLO = field(default_factory=SLO)

    def __post_init__(self):
        _positive_int("token_budget", self.token_budget)
        if self.max_seqs is not None:
            _positive_int("max_seqs", self.max_seqs)
        if self.first_token not in FIRST_TOKEN_MODES:
            raise ConfigError("first_token", f"must be one of {', '.join(FIRST_TOKEN_MODES)}, "
                                             f"got {self.first_token!r}")
        if not isinstance(self.slo, SLO):
            raise ConfigError("slo", "must be an SLO")

    @property
    def seq_limit(self) -> int:
        """Slots that can ever be used at once: every running request costs at least one token a tick."""
        return self.token_budget if self.max_seqs is None else min(self.max_seqs, self.token_budget)
