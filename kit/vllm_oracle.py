"""vLLM's own V1 scheduler as an oracle: drives vllm.v1.core.sched.scheduler.Scheduler (vLLM 0.33.0, installed in
the separate environment kit/vllm_oracle_env.sh builds) through a trace with no model, one `schedule()` and one
`update_from_output()` a tick, and prints each request's token ticks.

Run by that environment's interpreter, never by the project's: it imports nothing of the project, so vLLM and
torch stay out of the project's requirements. It reads a JSON trace on stdin:

    {"requests": [{"name": "a", "arrival": 0, "prompt": 12, "output": 3, "hash_ids": [7, 9]}, ...],
     "token_budget": 8, "max_seqs": 4, "kv_blocks": 16, "block_size": 4, "prefix_cache": true,
     "prefix_block": 8, "reserve_full_isl": true}

(`hash_ids`, `prefix_block` and `reserve_full_isl` may be left out: no shared prefixes; vLLM's default, on)

and prints {"vllm": "0.33.0", "emitted": {"a": [3, 4, 5], ...}, "preemptions": 0} (for a JSON list of
traces, a list of those): the tick each output token is emitted at, in the simulator's convention (a token made
in the step of tick t is emitted at t + 1), and how many preemptions vLLM made. The step that ends a prompt
samples the first token, as vLLM's model runner does (the simulator's `--first-token prefill`).

What stands in for the model, and why:
- No ModelConfig: building one reads a model's files from a hub. The scheduler reads a handful of its fields
  (`uses_mrope`, `max_model_len`, `runner_type`...); `_Model` answers them for a plain decoder-only text model.
- One full-attention KV group of `kv_blocks` + 1 blocks: vLLM's BlockPool keeps its first block as the null
  block, never handed out, so `kv_blocks` are usable, as in the simulator's `--kv-blocks`.
- The model's output: a request whose scheduled tokens reach the end of what it has so far samples one token
  (its own id, so no two requests share generated blocks: a shared dummy token would let the prefix cache
  "find" another request's output, which no real model would make); a request still mid-prompt samples none,
  as the model runner discards a partial prefill's token.
- Each prompt's token ids are its own (`index * 100_000 + position`) but where a request has `hash_ids` (the
  simulator's trace column, as Mooncake's): the tokens of its k-th hash block of `prefix_block` tokens are that
  id's own, so requests whose ids agree share those tokens, and vLLM's prefix cache finds their blocks.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass

OWN = 100_000  # a request's token ids: index * OWN + position (prompts) and MADE + index (what it makes)
HASHED = 5 * 10**8  # and a hash block's: HASHED + id * prefix_block + position in the block
MADE = 10**9


@dataclass
class _Model:
    """The fields of a ModelConfig that the scheduler, its KV cache manager and the request read, for a plain
    decoder-only text model: no mrope, no encoder, no multimodal inputs, a generating (not pooling) runner."""
    max_model_len: int
    uses_mrope: bool = False
    is_encoder_decoder: bool = False
    is_diffusion: bool = False
    runner_type: str = "generate"
    supports_multimodal_inputs: bool = False
    return_sampling_mask: bool = False
    skip_tokenizer_init: bool = True
    multimodal_config: None = None


def build(setup: dict):
    """A vLLM Scheduler with the trace's budgets, its KV cache of `kv_blocks` blocks, and no model."""
    import torch
    from vllm.config import CacheConfig, SchedulerConfig, VllmConfig
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec
    from vllm.v1.structured_output import StructuredOutputManager

    longest = max((r["prompt"] + r["output"] for r in setup["requests"]), default=1)
    max_model_len = longest + setup["block_size"]
    scheduler_config = SchedulerConfig(
        max_num_seqs=setup["max_seqs"],
        max_num_batched_tokens=setup["token_budget"],
        max_model_len=max_model_len,
        is_encoder_decoder=False,
        enable_chunked_prefill=True,
        scheduler_reserve_full_isl=setup.get("reserve_full_isl", True),
    )
    cache_config = CacheConfig(block_size=setup["block_size"], enable_prefix_caching=setup["prefix_cache"])
    num_blocks = setup["kv_blocks"] + 1  # and one null block (BlockPool's first), which no request is given
    cache_config.num_gpu_blocks = num_blocks
    config = VllmConfig(scheduler_config=scheduler_config, cache_config=cache_config)
    # VllmConfig checks a model it is given against the rest; the stand-in is set after it has checked nothing.
    object.__setattr__(config, "model_config", _Model(max_model_len))
    spec = FullAttentionSpec(block_size=setup["block_size"], num_kv_heads=1, head_size=1, dtype=torch.float32)
    kv_cache_config = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[],
                                    kv_cache_groups=[KVCacheGroupSpec(["layer"], spec)])
    scheduler = Scheduler(vllm_config=config, kv_cache_config=kv_cache_config, block_size=setup["block_size"],
                          structured_output_manager=StructuredOutputManager(config), log_stats=False)
    # The platform's config hook may rewrite budgets; the oracle is only worth its name on the trace's own.
    kept = (scheduler.max_num_scheduled_tokens, scheduler.max_num_running_reqs, scheduler.block_size,
            scheduler.cache_config.enable_prefix_caching, scheduler_config.enable_chunked_prefill,
            scheduler.kv_cache_manager.block_pool.get_num_free_blocks())
    asked = (setup["token_budget"], setup["max_seqs"], setup["block_size"], setup["prefix_cache"], True,
             setup["kv_blocks"])
    if kept != asked:
        raise RuntimeError(f"vLLM changed the setup: {kept} instead of {asked}")
    return scheduler, config


def requests(setup: dict, config) -> list:
    """vLLM Requests for the trace, in its order: each makes exactly `output` tokens (ignore_eos, max_tokens)."""
    from vllm.sampling_params import SamplingParams
    from vllm.utils.hashing import get_hash_fn_by_name
    from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash
    from vllm.v1.request import Request

    hasher = None
    if setup["prefix_cache"]:  # as EngineCore does: the block hasher only where prefix caching is on
        hash_fn = get_hash_fn_by_name(config.cache_config.prefix_caching_hash_algo)
        init_none_hash(hash_fn)
        hasher = get_request_block_hasher(setup["block_size"], hash_fn)
    made = []
    for index, r in enumerate(setup["requests"]):
        tokens = [index * OWN + position for position in range(r["prompt"])]
        size = setup.get("prefix_block", 0)
        for position in range(min(r["prompt"], len(r.get("hash_ids") or ()) * size)):
            tokens[position] = HASHED + r["hash_ids"][position // size] * size + position % size
        params = SamplingParams(max_tokens=r["output"], ignore_eos=True)
        made.append(Request(request_id=r["name"], prompt_token_ids=tokens, sampling_params=params,
                            pooling_params=None, arrival_time=float(r["arrival"]), block_hasher=hasher))
    return made


def run(setup: dict, limit: int = 100_000) -> tuple[dict[str, list[int]], int]:
    """Step the scheduler tick by tick: at tick t the requests that arrived by t are added, then one
    `schedule()`, a fabricated model output, and `update_from_output()`. Each request's token ticks, and how
    many preemptions there were (so a test can tell a tight trace that never ran short)."""
    from vllm.v1.outputs import ModelRunnerOutput

    scheduler, config = build(setup)
    pending = sorted(zip(requests(setup, config), setup["requests"]), key=lambda pair: pair[1]["arrival"])
    index = {r["name"]: i for i, r in enumerate(setup["requests"])}
    emitted: dict[str, list[int]] = {r["name"]: [] for r in setup["requests"]}
    tick, i, preemptions = 0, 0, 0
    while i < len(pending) or scheduler.has_unfinished_requests():
        if not scheduler.has_unfinished_requests() and pending[i][1]["arrival"] > tick:
            tick = pending[i][1]["arrival"]  # nothing to run until the next arrival
        while i < len(pending) and pending[i][1]["arrival"] <= tick:
            scheduler.add_request(pending[i][0])
            i += 1
        out = scheduler.schedule()
        preemptions += len(out.preempted_req_ids or ())
        ids = list(out.num_scheduled_tokens)
        sampled = [[] if scheduler.requests[rid].is_prefill_chunk else [MADE + index[rid]] for rid in ids]
        result = ModelRunnerOutput(req_ids=ids, req_id_to_index={rid: k for k, rid in enumerate(ids)},
                                   sampled_token_ids=sampled)
        scheduler.update_from_output(out, result)
        for rid, tokens in zip(ids, sampled):
            if tokens:
                emitted[rid].append(tick + 1)
        tick += 1
        if tick > limit:
            raise RuntimeError(f"vLLM's scheduler did not finish within {limit} ticks")
    return emitted, preemptions


def report(setup: dict) -> dict:
    """What the driver prints for one trace."""
    import vllm

    emitted, preemptions = run(setup)
    return {"vllm": vllm.__version__, "emitted": emitted, "preemptions": preemptions}


def main() -> None:
    # vLLM finds its platform on import; a CUDA build (the PyPI wheel) on a machine with no GPU finds none.
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # its warnings about the missing GPU kernels are expected
    given = json.load(sys.stdin)
    # Many traces in one process: importing vLLM takes seconds, a trace milliseconds.
    print(json.dumps([report(setup) for setup in given] if isinstance(given, list) else report(given)))


if __name__ == "__main__":
    main()
