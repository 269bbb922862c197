"""What the scheduler may do: the shared budgets and hardware (Config) and one policy's choices (Policy).

Both are frozen and validated on construction. A fair A/B runs two Policies under one Config."""
from __future__ import annotations

from dataclasses import dataclass, field, fields

from .errors import ConfigError, choice, number, whole
from .hardware import DTYPES, GPUS, MODELS, Roofline, roofline
from .moe import MoE

FIRST_TOKEN_MODES = ("decode", "prefill")
POLICIES = ("static", "continuous")  # the batching of a Policy
ORDERS = ("fcfs-skip", "fcfs", "priority", "sjf", "edf", "aging", "lpm")
SJF_KEYS = ("prompt", "output")
MIXING = ("decode-first", "prefill-first")
KV_ADMISSION = ("reserve", "overcommit", "chunk")
PREEMPT = ("recompute", "swap")
VICTIMS = ("latest", "lowest-priority", "newest")
# Real engines' schedulers the simulator reproduces (sim.core.presets), each at a named commit; "" for none.
PRESETS = ("", "nano-vllm", "vllm-v1", "sglang", "trt-guaranteed-no-evict")
# Policy's fields that are a choice, with their options (the forms draw these as choices)
POLICY_CHOICES = {"batching": POLICIES, "order": ORDERS, "sjf_key": SJF_KEYS, "mixing": MIXING,
                  "kv_admission": KV_ADMISSION, "preempt": PREEMPT, "victim": VICTIMS, "preset": PRESETS}
COST_MODELS = ("ticks", "linear", "profile", "roofline")
ROOFLINE_FIELDS = ("hardware", "model", "tp", "precision")  # CostModel's fields that only a roofline reads


@dataclass(frozen=True, slots=True)
class SLO:
    """Latency thresholds a request must meet to count toward goodput; None means no limit."""
    ttft: float | None = None
    tpot: float | None = None
    e2e: float | None = None

    def __post_init__(self):
        for name in ("ttft", "tpot", "e2e"):
            if getattr(self, name) is not None:
                number(f"slo_{name}", getattr(self, name), open_low=True)


@dataclass(frozen=True, slots=True)
class CostModel:
    """How long an iteration takes. `ticks`: one tick each, the seed's token-work model. `linear`:
    t = c0 + c_prefill * prefill_tokens + c_decode * decode_sequences + c_attn * context_tokens_read, in ms
    (prefill and decode tokens cost differently, as the design document warns they do). `profile`: a real
    engine's measured cost (`python -m gpu_demo profile`, which fits it) over the shape of the batch it packs:
    t = c0 + c_token * rows + c_seq * groups + c_key * groups * longest + c_cell * groups * query * longest, in
    ms, where rows are the token rows computed, groups the sequences (each prefill chunk, decode token and padding
    row), query the longest chunk and longest the longest KV span read; `source` names the profile. `roofline`: a
    real GPU (`hardware`, sim.core.hardware.GPUS) running a real model (`model`, .MODELS) split over `tp` GPUs,
    weights and KV cache in `precision` (bf16 or fp8): each kernel of an iteration as slow as the slower of its
    FLOPs and its bytes moved, at the GPU's datasheet peaks, plus the tensor-parallel all-reduces
    (sim.core.hardware.Roofline), in ms."""
    kind: str = "ticks"
    c0: float = 8.0
    c_prefill: float = 0.1
    c_decode: float = 0.5
    c_attn: float = 0.002
    c_token: float = 0.0
    c_seq: float = 0.0
    c_key: float = 0.0
    c_cell: float = 0.0
    source: str = ""
    hardware: str = "H100"
    model: str = "Llama-3.1-8B"
    tp: int = 1
    precision: str = "bf16"

    def __post_init__(self):
        choice("cost_model", self.kind, COST_MODELS)
        for name in ("c0", "c_prefill", "c_decode", "c_attn", "c_token", "c_seq", "c_key", "c_cell"):
            number(name, getattr(self, name))
        if self.kind == "linear" and self.c0 + self.c_prefill + self.c_decode == 0:
            raise ConfigError("c0", "no_time_linear")
        if self.kind == "profile" and self.c0 + self.c_token + self.c_seq == 0:
            raise ConfigError("c0", "no_time_profile")
        choice("hardware", self.hardware, tuple(GPUS))
        choice("model", self.model, tuple(MODELS))
        whole("tp", self.tp)
        choice("precision", self.precision, tuple(DTYPES))
        if self.kind == "roofline" and self.precision == "fp8" and GPUS[self.hardware].fp8_tflops is None:
            raise ConfigError("precision", "no_fp8", hardware=self.hardware)

    @property
    def unit(self) -> str:
        return "tick" if self.kind == "ticks" else "ms"

    @property
    def reads_context(self) -> bool:
        """Whether an iteration's time grows with the context its attention reads (so no two are alike)."""
        return self.kind in ("profile", "roofline") or self.kind == "linear" and self.c_attn > 0

    @property
    def roofline(self) -> Roofline:
        """The roofline's per-GPU constants (kind `roofline`)."""
        return roofline(self.hardware, self.model, self.tp, self.precision)

    @property
    def label(self) -> str:
        """The model in words: a roofline's GPU, model, tensor parallel and dtype; a profile's source."""
        if self.kind == "roofline":
            return f"{self.model} on {self.tp} x {self.hardware} ({self.precision})"
        return self.source or self.kind

    def duration(self, prefill_tokens: int, decode_sequences: int, context_read: int) -> float:
        if self.kind == "ticks":
            return 1
        if self.kind in ("profile", "roofline"):
            raise ValueError(f"a {self.kind}'s time follows the batch's shape (sim.core.engine.length)")
        return self.c0 + self.c_prefill * prefill_tokens + self.c_decode * decode_sequences \
            + self.c_attn * context_read

    def shape_duration(self, rows: int, groups: int, query: int, longest: int) -> float:
        """A profile's time (ms) for a packed batch of this shape."""
        return (self.c0 + self.c_token * rows + self.c_seq * groups + self.c_key * groups * longest
                + self.c_cell * groups * query * longest)


# Coefficients (ms) of a few teaching setups; the lab lets users edit them.
COST_PRESETS = {
    "small-gpu": CostModel("linear", c0=8.0, c_prefill=0.1, c_decode=0.5, c_attn=0.002),
    "big-gpu": CostModel("linear", c0=4.0, c_prefill=0.02, c_decode=0.15, c_attn=0.0005),
    "cpu-tiny-model": CostModel("linear", c0=1.5, c_prefill=0.05, c_decode=0.3, c_attn=0.001),
}


@dataclass(frozen=True, slots=True)
class Config:
    """The budgets, output semantics and hardware shared by every policy compared.

    token_budget: token-work per iteration (prefill tokens + decode token-work + padding slots).
    max_seqs: most requests in one iteration's batch (None: limited only by the token budget).
    first_token: "decode" (the seed's teaching mode: a prefill emits nothing, the first token comes from the
        first decode) or "prefill" (the iteration that completes a prefill samples a token, as vLLM does).
    kv_blocks, block_size: the paged KV cache (None: unlimited, not tracked).
    swap_cost: iterations a swapped-out request needs to bring its blocks back.
    read_rate: tokens a client reads a time unit, for requests whose trace gives none (None: as fast as they
        come); with a policy's stream_credits, a slow reader holds its request back (sim.core.stream).
    prefix_block: tokens each of a request's `hash_ids` covers (Mooncake's: 512); a KV block size that divides
        it lets prefix caching find shared blocks by those ids (sim.core.prefix).
    cost: the latency of an iteration (ticks, or a linear model in ms; arrivals are then read in ms).
    moe: mixture-of-experts routing, simulated (sim.core.moe: experts 0, the default, is a dense model).
    """
    token_budget: int = 8
    max_seqs: int | None = None
    first_token: str = "decode"
    slo: SLO = field(default_factory=SLO)
    kv_blocks: int | None = None
    block_size: int = 4
    swap_cost: int = 2
    read_rate: float | None = None
    prefix_block: int = 512
    cost: CostModel = field(default_factory=CostModel)
    moe: MoE = field(default_factory=MoE)

    def __post_init__(self):
        whole("token_budget", self.token_budget)
        if self.max_seqs is not None:
            whole("max_seqs", self.max_seqs)
        choice("first_token", self.first_token, FIRST_TOKEN_MODES)
        if not isinstance(self.slo, SLO):
            raise ConfigError("slo", "not_slo")
        if self.kv_blocks is not None:
            whole("kv_blocks", self.kv_blocks)
        whole("block_size", self.block_size)
        whole("swap_cost", self.swap_cost, low=0)
        if self.read_rate is not None:
            number("read_rate", self.read_rate, open_low=True)
        whole("prefix_block", self.prefix_block)
        if not isinstance(self.cost, CostModel):
            raise ConfigError("cost", "not_cost_model")
        if not isinstance(self.moe, MoE):
            raise ConfigError("moe", "not_moe")

    @property
    def seq_limit(self) -> int:
        """Slots that can ever be used at once: every running request costs at least one token a tick."""
        return self.token_budget if self.max_seqs is None else min(self.max_seqs, self.token_budget)


# Options of continuous batching only: a static batch is formed whole and runs to its end.
STATIC_UNSUPPORTED = ("chunk_size", "mixing", "kv_admission", "spec_tokens", "tenant_quotas", "preemptive_priority",
                      "stream_credits", "release_paused", "prefix_cache", "preset")


@dataclass(frozen=True, slots=True)
class Policy:
    """One scheduler's choices; the defaults are the seed's continuous loop.

    batching: "static" (a batch at a time, padded) or "continuous" (iteration-level scheduling).
    order: waiting-queue order: fcfs-skip (arrival order, skipping requests that do not fit: the seed's loop),
        fcfs (arrival order with head-of-line blocking), priority (lower value first), sjf (shortest job
        first by `sjf_key`), edf (earliest deadline first), aging (priority improved by `aging_rate` a tick),
        lpm (the longest prefix found in the prefix cache first, arrival order among equals, and arrival order
        alone past 128 waiting, as SGLang's cache-aware policy; it stops at the first that does not fit).
    preemptive_priority: a waiting request may preempt running ones of lower priority to get in.
    tenant_quotas: (tenant, share) pairs: a tenant's token-work in an iteration stays within share x budget.
    chunk_size: chunked prefill (Sarathi): at most this many prompt tokens of a request an iteration.
    mixing: decode-first (decodes, then prefill in the budget left) or prefill-first (an iteration with
        prefill work does no decodes: prefill/decode interference made visible).
    kv_admission: reserve (blocks for prompt + whole output at admission), overcommit (the whole prompt's
        blocks at admission, then blocks as tokens grow; preempt when they run out) or chunk (blocks as each
        chunk of a prompt is planned, and admission needs only the first chunk's: vLLM with
        scheduler_reserve_full_isl off, as before 0.33). preempt: recompute or swap. victim: latest (the latest
        arrival), lowest-priority or newest (the last admitted: vLLM's and nano-vllm's `running.pop()`).
    timeout: cancel a request this many time units after its arrival if it has not finished.
    graph_buckets: captured decode batch sizes; a decode-only batch is padded up to the next one.
    spec_tokens, spec_accept, seed: speculative decoding with k draft tokens accepted with probability p
        each (deterministic for the seed); verification costs k + 1 token-work a request.
    stream_credits: backpressure: a request holds at most this many tokens its client has not read; with no
        credit left it does not decode (paused, keeping its slot and KV blocks; None: no limit).
        release_paused: a paused request gives its slot and blocks up instead (preempted as `preempt` says)
        and comes back once its client has read enough.
    prefix_cache: automatic prefix caching (needs a KV cache): a request's leading blocks that another (or it,
        before a preemption) computed are reused, and their tokens skip prefill (sim.core.kv.PrefixCache).
    preset: a real engine's scheduler, reproduced rule by rule (sim.core.presets); the other options apply only
        where the preset says they do.
    """
    batching: str = "continuous"
    order: str = "fcfs-skip"
    sjf_key: str = "prompt"
    aging_rate: float = 1.0
    preemptive_priority: bool = False
    tenant_quotas: tuple[tuple[str, float], ...] = ()
    chunk_size: int | None = None
    mixing: str = "decode-first"
    kv_admission: str = "reserve"
    preempt: str = "recompute"
    victim: str = "latest"
    timeout: int | None = None
    graph_buckets: tuple[int, ...] = ()
    spec_tokens: int = 0
    spec_accept: float = 0.6
    seed: int = 0
    stream_credits: int | None = None
    release_paused: bool = False
    prefix_cache: bool = False
    preset: str = ""

    def __post_init__(self):
        for name, options in POLICY_CHOICES.items():
            choice("policy" if name == "batching" else name, getattr(self, name), options)
        number("aging_rate", self.aging_rate)
        if not isinstance(self.preemptive_priority, bool):
            raise ConfigError("preemptive_priority", "not_bool")
        quotas = self.tenant_quotas
        if not isinstance(quotas, tuple) or not all(isinstance(q, tuple) and len(q) == 2 for q in quotas):
            raise ConfigError("tenant_quotas", "quota_pairs")
        for tenant, share in quotas:
            if not isinstance(tenant, str):
                raise ConfigError("tenant_quotas", "quota_name", value=repr(tenant))
            number("tenant_quotas", share, high=1.0, open_low=True)
        if len({tenant for tenant, _ in quotas}) < len(quotas):
            raise ConfigError("tenant_quotas", "quota_twice")
        if self.chunk_size is not None:
            whole("chunk_size", self.chunk_size)
        if self.timeout is not None:
            whole("timeout", self.timeout)
        buckets = self.graph_buckets
        if not isinstance(buckets, tuple) or any(isinstance(b, bool) or not isinstance(b, int) or b < 1
                                                 for b in buckets):
            raise ConfigError("graph_buckets", "buckets_whole")
        if list(buckets) != sorted(set(buckets)):
            raise ConfigError("graph_buckets", "buckets_order")
        whole("spec_tokens", self.spec_tokens, low=0)
        number("spec_accept", self.spec_accept, high=1.0)
        whole("seed", self.seed, low=0)
        self._check_credits()
        if self.batching == "static":
            for name in STATIC_UNSUPPORTED:
                if getattr(self, name) != getattr(_PLAIN, name):
                    raise ConfigError(name, "continuous_only")

    def _check_credits(self) -> None:
        if self.stream_credits is not None:
            whole("stream_credits", self.stream_credits, low=1 + self.spec_tokens)
        if not isinstance(self.release_paused, bool):
            raise ConfigError("release_paused", "not_bool")
        if self.release_paused and self.stream_credits is None:
            raise ConfigError("release_paused", "release_needs_credits")
        if not isinstance(self.prefix_cache, bool):
            raise ConfigError("prefix_cache", "not_bool")
        if self.order == "lpm" and not self.prefix_cache:
            raise ConfigError("order", "lpm_needs_cache")

    @classmethod
    def named(cls, batching: str) -> Policy:
        return cls(batching=batching)

    def changes(self) -> dict[str, object]:
        """The options that differ from the seed's defaults (batching aside), for labels and exports."""
        plain = Policy(batching=self.batching)
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "batching" and getattr(self, f.name) != getattr(plain, f.name)}


_PLAIN = Policy()
