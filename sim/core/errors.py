"""What a bad budget or option is: ConfigError, naming its field, with a code a page can say in its own language;
and the checks of a whole number, a number in a range and a choice that raise it."""
from __future__ import annotations

import math

# What a ConfigError can say, by code: the English text (the CLI's), filled in from its params. The web app shows
# the translation of each code (ui/lang: cfg_err_<code>, the same fields) after the label of the field it names.
MESSAGES = {
    "whole": "must be a whole number >= {low}, got {value}",
    "at_least": "must be a number >= {low}, got {value}",
    "above": "must be a number > {low}, got {value}",
    "at_least_at_most": "must be a number >= {low} and <= {high}, got {value}",
    "above_at_most": "must be a number > {low} and <= {high}, got {value}",
    "choice": "must be one of {choices}, got {value}",
    "no_time_linear": "an iteration must take some time: c0, c_prefill or c_decode must be > 0",
    "no_time_profile": "an iteration must take some time: c0, c_token or c_seq must be > 0",
    "no_fp8": "the {hardware} has no fp8 tensor cores: use bf16",
    "not_slo": "must be an SLO",
    "not_cost_model": "must be a CostModel",
    "not_moe": "must be a MoE",
    "not_bool": "must be true or false",
    "quota_pairs": "must be (tenant, share) pairs",
    "quota_name": "tenant names are text, got {value}",
    "quota_twice": "names a tenant twice",
    "quota_list": "write tenant=share pairs separated by commas, such as vip=0.5, free=0.5",
    "buckets_whole": "must be whole numbers >= 1",
    "buckets_order": "must be increasing, each size once",
    "bucket_list": "write batch sizes separated by commas, such as 1, 2, 4, 8",
    "continuous_only": "applies to continuous batching only",
    "release_needs_credits": "applies only with stream credits (a request is paused only then)",
    "lpm_needs_cache": "lpm orders by the prefix found in the prefix cache: turn prefix caching on",
    "cache_needs_kv": "caches KV blocks: give the KV cache a size (kv_blocks)",
    "split_first_token": "prefill/decode disaggregation samples the first token on the prefill replica: use "
                         "--first-token prefill",
    "split_whole_ticks": "in ticks a KV transfer takes whole ticks: give the latency and the time a block in whole "
                         "ticks",
    "split_replaces_replicas": "prefill_replicas and decode_replicas replace replicas: give one or the other",
    "sweep_split_replicas": "a split's engines are its prefill and decode replicas: sweep prefill_replicas",
    "sweep_no_decode": "a split of {engines} engines needs at least one decode engine, so at most {engines} - 1 "
                       "prefill engines, got {value}",
    "affinity_needs_cache": "prefix-affinity reads each replica's prefix cache: turn prefix caching on",
    "spec_over_budget": "verifying {tokens} draft tokens costs {cost} token-work a request, more than the token "
                        "budget {budget}",
    "nano_budget": "nano-vllm prefills a preempted request's whole length in one step: the budget must hold the "
                   "longest request, {longest} tokens",
    "preset_sets": "is set by the {preset} preset (to {value})",
    "preset_needs_kv": "the {preset} preset caches prefixes in its KV cache: give the cache a size",
    "moe_too_many": "must be at most {most}, got {value}",
    "moe_top_k": "each token goes to top_k distinct experts, so at most {experts} (moe_experts), got {value}",
    "moe_devices": "the {experts} experts are split evenly over the devices: {devices} does not divide them",
    "no_cuda": "CUDA is not available on this machine",
    "weights_missing": "{path} is missing: train it with `python -m gpu_demo train`",
    "weights_unreadable": "{path} cannot be loaded ({reason}); train it again",
}


class ConfigError(ValueError):
    """A budget or option out of range: `field` names the input to fix, `code` (a key of MESSAGES) and `params`
    say what is wrong, so that a page can say it in its own language; its text is the English one."""

    def __init__(self, field: str, code: str, **params: object):
        self.field, self.code, self.params = field, code, params
        super().__init__(f"{field}: {MESSAGES[code].format(**params)}")


# The checks every config part uses (sim.core.config, .moe, .profile), each raising a ConfigError that names its
# field.
def whole(name: str, value: object, low: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(name, "whole", low=low, value=repr(value))


def number(name: str, value: object, low: float = 0.0, high: float = math.inf, open_low: bool = False) -> None:
    bad = isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
    if bad or value < low or (open_low and value == low) or value > high:
        code = ("above" if open_low else "at_least") + ("_at_most" if high < math.inf else "")
        raise ConfigError(name, code, low=low, value=repr(value), **({"high": high} if high < math.inf else {}))


def choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(name, "choice", choices=", ".join(choices), value=repr(value))
