"""The run options shared by sim's and gpu_demo's command lines: the argument parser that turns bad input into
InputError (one line, exit code 2), the trace, budget and scheduler options (`add_run_options`), and what they
build: the Config and Policy (`config_and_policy`) and the trace (`load_trace`)."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from . import codec
from .core.cluster import Routing, Split
from .core.config import (
    COST_MODELS,
    COST_PRESETS,
    FIRST_TOKEN_MODES,
    KV_ADMISSION,
    MIXING,
    ORDERS,
    POLICIES,
    PREEMPT,
    PRESETS,
    ROOFLINE_FIELDS,
    SJF_KEYS,
    VICTIMS,
    Config,
    CostModel,
    Policy,
)
from .core.errors import number
from .core.hardware import DTYPES, GPUS, MODELS, HardwareError, kv_blocks
from .core.profile import load_profile
from .trace.chat import BYTES, TEMPLATES, TOKENIZERS, with_template
from .trace.importers import FORMATS, ImportOptions, import_trace
from .trace.trace import Trace

DEFAULTS = codec.flat(Config()) | codec.flat(Policy())  # each option's default (the dataclasses'), for its help
LINEAR = ("c0", "c_prefill", "c_decode", "c_attn")  # the linear model's coefficients, each an option


class InputError(Exception):
    """Bad input from the command line: printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises InputError instead of exiting."""

    def error(self, message):
        raise InputError(message)


def _buckets(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(b) for b in text.split(",") if b.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: use captured batch sizes like 1,2,4,8") from None


def _kv_blocks(text: str) -> int | str:
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of blocks, or auto") from None


def _policies(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names or any(n not in POLICIES for n in names):
        raise argparse.ArgumentTypeError(f"{text!r}: a comma list of {', '.join(POLICIES)}")
    return names


def _quota(text: str) -> tuple[str, float]:
    tenant, _, share = text.rpartition("=")
    try:
        return tenant, float(share)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: use TENANT=SHARE, for example vip=0.5") from None


def add_run_options(run, policies: bool = False) -> None:
    """The trace, budgets and scheduler options of `python -m sim run` (the real engine's CLI shares them);
    `policies`: a comma list of policies (the sweep) instead of one."""
    run.add_argument("--trace", required=True, help="trace file (native CSV/JSON, Azure, Mooncake, BurstGPT)")
    if policies:
        run.add_argument("--policies", type=_policies, default=("static", "continuous"),
                         help="comma list of policies compared (continuous-only options apply to continuous)")
    else:
        run.add_argument("--policy", choices=POLICIES, dest="batching")
    run.add_argument("--token-budget", type=int, required=True, help="token-work per tick")
    run.add_argument("--max-seqs", type=int, help="requests in one iteration's batch")
    run.add_argument("--first-token", choices=FIRST_TOKEN_MODES,
                     help="decode: the seed's teaching mode; prefill: the prefill iteration emits it (vLLM)")
    for name in ("ttft", "tpot", "e2e"):
        run.add_argument(f"--slo-{name}", type=float, help=f"{name.upper()} limit for goodput, in ticks")
    run.add_argument("--format", choices=("auto", *FORMATS), default="auto", help="trace file format")
    run.add_argument("--ms-per-tick", type=float, default=1000.0, help="importers: milliseconds per tick")
    run.add_argument("--token-scale", type=float, default=1.0, help="importers: multiply token counts by this")
    run.add_argument("--start-s", type=float, help="importers: keep rows from this many seconds in")
    run.add_argument("--end-s", type=float, help="importers: keep rows before this many seconds in")
    run.add_argument("--limit", type=int, help="importers: keep at most this many requests")
    add_chat_options(run)
    add_scheduler_options(run)


def add_chat_options(run) -> None:
    """How a prompt given in words (the columns text, system, messages) becomes its number of tokens."""
    group = run.add_argument_group(
        "chat template and tokenizer", "for requests that give their prompt in words (text, system, messages); "
        "with neither option, such a prompt counts the UTF-8 bytes of its messages as they are")
    group.add_argument("--chat-template", choices=tuple(TEMPLATES),
                       help="wrap the messages as this model family's server does: none, chatml (<|im_start|>), "
                            "llama3 (<|start_header_id|>) or llama2 ([INST])")
    group.add_argument("--tokenizer", choices=TOKENIZERS,
                       help="count the templated text's tokens: bytes (the tiny model's, one a UTF-8 byte) or "
                            "classroom-bpe (a subword BPE trained on the same corpus)")


def add_scheduler_options(run) -> None:
    """The options of the scheduler (sim.core.config.Policy) and of the cache and cost model (its Config)."""
    group = run.add_argument_group("scheduler options")
    group.add_argument("--chunk-size", type=int, help="chunked prefill: at most N prompt tokens a request a tick")
    group.add_argument("--mixing", choices=MIXING)
    group.add_argument("--order", choices=ORDERS, help="waiting-queue order")
    group.add_argument("--sjf-key", choices=SJF_KEYS)
    group.add_argument("--aging-rate", type=float, help="priority gained a tick of waiting")
    group.add_argument("--preemptive-priority", action="store_true",
                       help="a waiting request may preempt running ones of lower priority")
    group.add_argument("--tenant-quota", type=_quota, action="append", dest="tenant_quotas",
                       help="TENANT=SHARE of the token budget a tick (repeat for several)")
    group.add_argument("--timeout", type=int, help="cancel a request this long after its arrival")
    group.add_argument("--kv-blocks", type=_kv_blocks, help="paged KV cache: number of blocks (default: unlimited); "
                       "auto: what a roofline's GPUs hold after the weights (--hardware, --model)")
    group.add_argument("--block-size", type=int, help="tokens a KV block holds")
    group.add_argument("--kv-admission", choices=KV_ADMISSION)
    group.add_argument("--preempt", choices=PREEMPT)
    group.add_argument("--victim", choices=VICTIMS)
    group.add_argument("--swap-cost", type=int, help="time to swap a request's blocks back in")
    group.add_argument("--graph-buckets", type=_buckets, help="captured decode batch sizes: 1,2,4,8")
    group.add_argument("--spec-tokens", type=int, help="speculative decoding: draft tokens a step")
    group.add_argument("--spec-accept", type=float, help="chance each draft token is accepted")
    group.add_argument("--seed", type=int, help="seed of the speculative acceptance draws")
    group.add_argument("--cost-model", choices=COST_MODELS[:2], dest="cost_kind",
                       help="ticks (each iteration one tick) or linear (ms; arrivals read as ms)")
    group.add_argument("--cost-profile", metavar="FILE",
                       help="a measured engine's cost profile (python -m gpu_demo profile writes one; "
                            "gpu_demo/profiles/cpu-float32.json ships): iterations take the time it predicts (ms)")
    group.add_argument("--cost-preset", choices=sorted(COST_PRESETS), help="linear coefficients of a preset")
    for name in LINEAR:
        flag = name.replace("_", "-")
        group.add_argument(f"--{flag}", type=float, help=f"linear model: {flag} in ms (default {DEFAULTS[name]})")
    add_moe_options(run)
    add_stream_options(run)
    add_prefix_options(run)


def add_roofline_options(run) -> None:
    """A real GPU running a real model (sim.core.hardware): the roofline cost model, and the KV cache its memory
    holds. `python -m sim hardware` lists the GPUs and models."""
    group = run.add_argument_group("a real GPU (roofline)", "each iteration takes the slower of its FLOPs and "
                                   "its bytes moved on the GPU, plus tensor-parallel all-reduces (ms)")
    group.add_argument("--hardware", help="the GPU: " + ", ".join(GPUS))
    group.add_argument("--model", help="the model: " + ", ".join(MODELS))
    group.add_argument("--tp", type=int, help="tensor parallel: GPUs one engine spans (default 1)")
    group.add_argument("--dtype", choices=tuple(DTYPES), dest="precision",
                       help="weights and KV cache in bf16 (default) or fp8")
    group.add_argument("--gpu-memory-utilization", type=float, default=0.9,
                       help="share of each GPU's memory the engine may use, as vLLM's (default 0.9): with "
                            "--kv-blocks auto, the KV cache is what the weights leave of it")


def add_prefix_options(run) -> None:
    """Prefix caching, and the real engines' schedulers reproduced."""
    group = run.add_argument_group("prefix caching and presets")
    group.add_argument("--prefix-cache", action="store_true",
                       help="automatic prefix caching in the KV cache (needs --kv-blocks): cached tokens skip prefill")
    group.add_argument("--prefix-block", type=int,
                       help="tokens each of a trace's hash_ids covers (Mooncake's: 512)")
    group.add_argument("--preset", choices=[p for p in PRESETS if p],
                       help="a real engine's scheduler, reproduced at a named commit (see the README)")


def add_stream_options(run) -> None:
    """Streaming to clients: how fast they read, and the output credits that hold a request back."""
    group = run.add_argument_group("streaming (backpressure)")
    group.add_argument("--read-rate", type=float,
                       help="tokens a client reads a time unit, for requests whose trace has no read_rate column "
                            "(default: as fast as they come)")
    group.add_argument("--stream-credits", type=int,
                       help="a request may hold at most N tokens its client has not read; with none left it "
                            "does not decode (paused, keeping its slot and KV blocks)")
    group.add_argument("--release-paused", action="store_true",
                       help="a paused request gives its slot and KV blocks up instead (preempted as --preempt says)")


# The MoE flags (--moe-NAME) and what each sets; their defaults are MoE's own.
MOE_FLAGS = {"experts": (int, "experts a token can be routed to (0: a dense model, no routing)"),
             "top-k": (int, "experts each token goes to"),
             "skew": (float, "Zipf exponent of expert popularity (0: uniform; larger: a few experts get most)"),
             "devices": (int, "expert parallelism: devices the experts are split over (must divide the experts)"),
             "c-expert": (float, "ms per token choice on the busiest expert, added to each iteration"),
             "c-a2a": (float, "ms per token choice that crosses devices in the all-to-all"),
             "seed": (int, "seed of the routing draws")}


def add_moe_options(run) -> None:
    """Mixture-of-experts routing (sim.core.moe), simulated only: the options of Config.moe."""
    group = run.add_argument_group("MoE routing", "simulated only: each iteration's tokens are routed, seeded, "
                                   "to top-k experts; the busiest expert and the all-to-all add to its time")
    for name, (kind, text) in MOE_FLAGS.items():
        default = DEFAULTS["moe_" + name.replace("-", "_")]
        group.add_argument(f"--moe-{name}", type=kind, help=f"{text} (default {default})")


def add_fleet_options(run) -> None:
    """Many engines (sim.core.cluster): replicas behind a router, or a prefill/decode split."""
    run.add_argument("--replicas", type=int, default=1, help="identical engines, each with these budgets and "
                     "options, behind a router (default 1)")
    run.add_argument("--router", default="round-robin", help="how a request is placed when it arrives: "
                     "round-robin, least-requests, least-tokens, prefix-affinity or random")
    run.add_argument("--router-seed", type=int, default=0, help="the random router's seed")
    run.add_argument("--prefill-replicas", type=int, help="prefill/decode disaggregation (instead of --replicas): "
                     "engines that prefill each request and sample its first token")
    run.add_argument("--decode-replicas", type=int, help="engines that decode a request once its prompt's KV blocks "
                     "land (the one with the fewest requests waiting or running)")
    run.add_argument("--kv-transfer-latency", type=float, default=0.0, help="time a KV transfer takes before its "
                     "blocks, in the run's time unit")
    run.add_argument("--kv-transfer-per-block", type=float, default=0.0, help="time a transfer takes a KV block")


def fleet_of(args) -> tuple[Routing, Split | None]:
    """The routing of add_fleet_options' flags, and the split when --prefill-replicas or --decode-replicas is
    given (they replace --replicas)."""
    return codec.fleet(vars(args))


def config_and_policy(args) -> tuple[Config, Policy]:
    """The Config and Policy that parsed run options (`add_run_options`) ask for: each option is the setting of its
    name (sim.codec's flat names); one not given keeps the dataclass's default."""
    given = {name: value for name in codec.LEAVES if (value := getattr(args, name, None)) is not None}
    if "tenant_quotas" in given:
        given["tenant_quotas"] = tuple(given["tenant_quotas"])
    check_moe(given)
    auto = given.get("kv_blocks") == "auto"
    if auto:
        del given["kv_blocks"]
    if any(name in given for name in ROOFLINE_FIELDS):
        if not ("hardware" in given and "model" in given):
            raise InputError("a roofline needs both --hardware and --model (python -m sim hardware lists them)")
        if args.cost_preset or args.cost_profile or given.get("cost_kind", "roofline") != "roofline" \
                or any(name in given for name in LINEAR):
            raise InputError("--hardware and --model are a cost model of their own: leave out --cost-model, "
                             "--cost-preset, --cost-profile and the linear coefficients")
        given["cost_kind"] = "roofline"
    config, policy = _built(args, given)
    if auto:
        config = replace(config, kv_blocks=auto_kv_blocks(config, args.gpu_memory_utilization))
    return config, policy


def auto_kv_blocks(config: Config, utilization: float) -> int:
    """--kv-blocks auto: the blocks a roofline's GPUs hold after the weights (sim.core.hardware.kv_blocks)."""
    cost = config.cost
    if cost.kind != "roofline":
        raise InputError("--kv-blocks auto sizes the cache from a GPU's memory: give --hardware and --model")
    try:
        number("gpu_memory_utilization", utilization, high=1.0, open_low=True)
        return kv_blocks(cost.hardware, cost.model, cost.tp, cost.precision, config.block_size, utilization)
    except (ValueError, HardwareError) as error:
        raise InputError(str(error)) from None


def _built(args, given: dict[str, object]) -> tuple[Config, Policy]:
    cost = CostModel()
    if args.cost_preset:
        cost, given["cost_kind"] = COST_PRESETS[args.cost_preset], "linear"
    if args.cost_profile:
        if args.cost_preset or given.get("cost_kind", "ticks") != "ticks" or any(name in given for name in LINEAR):
            raise InputError("--cost-profile is a cost model of its own: leave out --cost-model, --cost-preset "
                             "and the linear coefficients")
        cost = load_profile(args.cost_profile)
    return codec.config_and_policy(given, Config(cost=cost))


def check_moe(given: dict[str, object]) -> None:
    """The --moe-* flags other than --moe-experts apply only with it."""
    others = [f"--moe-{name.removeprefix('moe_').replace('_', '-')}" for name in given
              if name.startswith("moe_") and name != "moe_experts"]
    if others and not given.get("moe_experts"):
        raise InputError(f"{', '.join(others)}: MoE routing is off; turn it on with --moe-experts N (N >= 1)")


def load_trace(args) -> Trace:
    """The trace file that parsed run options name, imported with their importer options."""
    try:
        with open(args.trace, "rb") as file:
            data = file.read()
    except OSError as error:
        raise InputError(f"cannot read trace {args.trace}: {error.strerror or error}") from None
    options = ImportOptions(args.ms_per_tick, args.token_scale, args.start_s, args.end_s, args.limit)
    fmt = "native" if args.format == "auto" and args.trace.lower().endswith(".json") else args.format
    result = import_trace(data, fmt, options)
    if result.report.rows_dropped:
        print(f"note: {result.report}", file=sys.stderr)
    if args.chat_template or args.tokenizer:  # the prompts given in words, counted as the options ask
        return with_template(result.trace, args.chat_template or "none", args.tokenizer or BYTES)
    return result.trace
