"""The capacity planner on the Azure conversation trace: "how many H100s does Llama-3.1-70B need for it at this
SLO?" Goal (issue 30): under 60 s here.

The whole `python -m sim plan` process on AzureLLMInferenceTrace_conv.csv (19,366 requests over an hour, 1 ms a
tick): Llama-3.1-70B in bf16 on H100s at tensor parallel 2, 4 and 8, 1-16 replicas behind least-requests, token
budget 8,192 with chunks of 2,048, 256 sequences, KV blocks of 16 tokens sized from memory, overcommitted; SLO
TTFT 1 s, TPOT 25 ms, 90% of requests. The median of the runs after a warm-up left out; the answer and the points
simulated printed with it. Then the same with A100s beside the H100s, priced (the README's example).
Usage: python bench/plan_azure.py [--runs N]
"""
import argparse
import json

from common import SHARED, cli, median_time

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=3)
args = parser.parse_args()

path = SHARED / "traces" / "AzureLLMInferenceTrace_conv.csv"
if not path.exists():
    raise SystemExit(f"{path} is not present: this benchmark plans for it")
COMMON = ["plan", "--trace", str(path), "--ms-per-tick", "1", "--token-budget", "8192", "--chunk-size", "2048",
          "--max-seqs", "256", "--block-size", "16", "--kv-admission", "overcommit", "--slo-ttft", "1000",
          "--slo-tpot", "25", "--model", "Llama-3.1-70B", "--tp", "2,4,8", "--replicas", "1:16", "--json"]
for name, extra in (("H100s", ["--hardware", "H100"]),
                    ("H100s and A100s, priced", ["--hardware", "H100,A100-80GB", "--price", "H100=2.5,A100-80GB=1.6"])):
    seconds, out = median_time(lambda extra=extra: cli(*COMMON, *extra), runs=args.runs)
    plan = json.loads(out)
    best = plan["cheapest"]
    answer = "none" if best is None else (f"{best['replicas']} x {best['hardware']} x{best['tp']} = {best['gpus']} "
                                          f"GPUs, {best['attainment']:.1%} within the SLO")
    print(f"{name}: {seconds:.1f} s (median of {args.runs}; goal < 60 s), {len(plan['rows'])} configurations "
          f"simulated, {len(plan['unfit'])} unfit; cheapest: {answer}")
