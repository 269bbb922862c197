"""The real model's engine on this machine's CPU (or its GPU): static vs continuous batching (plain, and
speculative with k = 2 draft tokens) on the same 48-request trace (outputs 2 to 120 tokens, at most 16 running),
against serving the requests one at a time, and the share of iteration time spent outside the model. Goals:
continuous >= 1.5x static, batched >= 3x one at a time, time outside the model <= 10% of iteration time.
Medians of several runs after a warm-up.
Usage: python bench/model_speed.py [--runs N] [--device cpu|cuda]
"""
import argparse

import common  # noqa: F401  (puts the project on the path)

from gpu_demo.bench import bench

parser = argparse.ArgumentParser()
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--device", default="auto")
args = parser.parse_args()
print(bench(device=args.device, runs=args.runs))
