"""The property tests' scenarios, kept with the schedule each gave: a refactor of the scheduler must leave every
one unchanged (tests/test_schedules_unchanged.py).

`python -m tests.schedule_cases` draws the scenarios again (hypothesis, derandomized) and writes them with their
schedules' digests to tests/data/schedule_cases.json.gz: run it only to take a new "before", on code whose
schedules are known to be right. `python -m tests.schedule_cases --preset NAME` takes again only the digests of the
cases of one preset, after a deliberate change to that preset's rules (each such change is in the git log: the
vllm-v1 cases after it followed vLLM 0.33.0's block rules, held to vLLM's own scheduler by
tests/test_vllm_oracle.py); every other case keeps its digest.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import asdict, fields, replace
from pathlib import Path

from sim.core.config import PRESETS, SLO, Config, ConfigError, CostModel, Policy
from sim.core.engine import simulate
from sim.core.moe import MoE
from sim.report.export import run_json
from sim.report.metrics import compute
from sim.trace.trace import Trace, TraceError, validate

CASES = Path(__file__).parent / "data" / "schedule_cases.json.gz"
# A latency model fitted to a batch's shape, and routing to experts: options the property tests leave out.
PROFILE = CostModel("profile", c0=1.0, c_token=0.01, c_seq=0.1, c_key=0.001, c_cell=0.0001, source="cases")
EXPERTS = MoE(experts=4, top_k=2, skew=1.0, devices=2, c_expert=0.2, seed=3)


def digest(trace: Trace, config: Config, policy: Policy) -> str:
    """The schedule's whole JSON (every request and step), hashed; or the error's code where it cannot run."""
    try:
        schedule = simulate(trace, config, policy)
    except ConfigError as error:
        return f"error:{error.field}:{error.code}"
    except TraceError as error:
        return f"error:trace:{len(error.problems)}"
    text = json.dumps(run_json(schedule, compute(schedule)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def encode(trace: Trace, config: Config, policy: Policy) -> dict:
    return {"trace": [r._asdict() for r in trace.requests], "config": asdict(config), "policy": asdict(policy)}


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def decode(case: dict) -> tuple[Trace, Config, Policy]:
    config = dict(case["config"])
    config["cost"], config["moe"], config["slo"] = (CostModel(**config["cost"]), MoE(**config["moe"]),
                                                SLO(**config["slo"]))
    names = {f.name for f in fields(Policy)}
    policy = Policy(**{k: _tuples(v) for k, v in case["policy"].items() if k in names})
    rows = [{k: v for k, v in row.items() if v is not None} for row in case["trace"]]
    return validate(rows), Config(**config), policy


def load() -> list[dict]:
    with gzip.open(CASES, "rt") as f:
        return json.load(f)


def draw_scenarios() -> list[tuple[Trace, Config, Policy]]:
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.test_properties import option_scenarios, prefill_first_scenarios, scenarios

    drawn = []
    for strategy, count in ((scenarios(), 300), (option_scenarios(), 700), (prefill_first_scenarios(), 150)):
        @settings(max_examples=count, derandomize=True, database=None, phases=[Phase.generate], deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(scenario):
            trace, config, policy = scenario
            if isinstance(policy, str):
                policy = Policy(batching=policy)
            drawn.append((trace, config, policy))

        collect()
    # Every tenth option scenario again under the latency model of a profile, and with experts.
    for trace, config, policy in drawn[300:1000:10]:
        drawn.append((trace, replace(config, cost=PROFILE), policy))
        drawn.append((trace, replace(config, moe=EXPERTS), policy))
    # Every engine preset on some of them, with a KV cache (what the presets need).
    for trace, config, policy in drawn[300:1000:7]:
        if max(r.prompt for r in trace) > config.token_budget:
            continue  # (drawn for chunked prefill)
        longest = max(r.prompt + r.output - 1 for r in trace)  # (the budget nano-vllm needs)
        for preset in PRESETS[1:]:
            budget = max(config.token_budget, longest) if preset == "nano-vllm" else config.token_budget
            drawn.append((trace, replace(config, kv_blocks=config.kv_blocks or 40, token_budget=budget),
                          Policy(preset=preset, timeout=policy.timeout)))
    return drawn


def main() -> None:
    import sys
    if sys.argv[1:2] == ["--preset"]:
        preset, cases = sys.argv[2], load()
        changed = 0
        for case in cases:
            scenario = decode(case)
            if scenario[2].preset == preset and digest(*scenario) != case["digest"]:
                case["digest"], changed = digest(*scenario), changed + 1
        with gzip.open(CASES, "wt") as f:
            json.dump(cases, f, separators=(",", ":"))
        print(f"{changed} digests of {preset} cases taken again in {CASES}")
        return
    cases = [encode(*scenario) | {"digest": digest(*scenario)} for scenario in draw_scenarios()]
    CASES.parent.mkdir(exist_ok=True)
    with gzip.open(CASES, "wt") as f:
        json.dump(cases, f, separators=(",", ":"))
    print(f"{len(cases)} cases written to {CASES}")


if __name__ == "__main__":
    main()
