"""How well the simulator predicts the real engine, out of sample: each trace is served by the tiny model, then
simulated with this machine's cost profile (measured beforehand on a grid of batch shapes, once, and kept; it has
never seen these traces) scaled by the calibration taken just before the run, and each figure's relative error
(predicted / measured - 1) is printed.

Traces: five mixed traces of 24-48 requests whose shapes the profile's grid does not hold (seeded lengths and
arrivals, one bursty), each under static batching, continuous batching and chunked prefill (chunks of 32), with
the real-model page's budgets (token budget 512, 8 sequences), arrivals read on the iteration count.
Method: rounds, each running every case once (as the profile times its shapes: the machine's drift over a
minute then falls on every case alike, not on the cases that ran while it lasted); the first round warms up and
is left out, then `--runs` rounds; each figure's error is the median over them.
Goals: makespan and throughput within 15%, TTFT and TPOT p50 within 20%.
Usage: python bench/sim_accuracy.py [--runs N] [--device cpu|cuda] [--dtype float32|float64] [--threads N]
"""
import argparse
import statistics

from common import ROOT  # noqa: F401  (puts the project on sys.path)

from gpu_demo.compare import FIGURES, calibrate, compare
from gpu_demo.engine import run
from gpu_demo.loading import load_model
from gpu_demo.machine import choose_threads
from gpu_demo.profile import machine_profile
from gpu_demo.prompts import fit_to_context, prompts_for
from sim.core.config import Config, Policy
from sim.core.profile import read_profile
from sim.trace.generate import Uniform, generate

GOALS = {"makespan": 0.15, "throughput": 0.15, "ttft_p50": 0.20, "tpot_p50": 0.20}
CONFIG = Config(512, max_seqs=8)
POLICIES = {"static": Policy(batching="static"), "continuous": Policy(), "chunked 32": Policy(chunk_size=32)}


def traces(context: int) -> dict:
    """Hidden-shape traces, each fitted to the model's context as the engine serves them."""
    made = {
        "24 mixed": generate(24, rate=1.2, prompt=Uniform(12, 120), output=Uniform(4, 90), seed=101),
        "32 short": generate(32, rate=2.5, prompt=Uniform(8, 40), output=Uniform(6, 40), seed=102),
        "36 long prompts": generate(36, rate=1.0, prompt=Uniform(80, 180), output=Uniform(4, 50), seed=103),
        "40 bursty": generate(40, rate=1.5, prompt=Uniform(16, 100), output=Uniform(8, 80), burstiness=0.3,
                              seed=104),
        "48 long outputs": generate(48, rate=0.8, prompt=Uniform(16, 64), output=Uniform(40, 150), seed=105),
    }
    return {name: fit_to_context(trace, context) for name, trace in made.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--threads", type=int)
    args = parser.parse_args()
    model = load_model(args.device, args.dtype)
    threads = choose_threads(args.threads)  # (once: every case alike)
    path, made = machine_profile(model)
    document = read_profile(path)
    print(f"{threads.words()}; profile {path}" + (" (measured now: this machine had none)" if made else ""))
    print(f"runs {args.runs} after a warm-up; errors are predicted / measured - 1, the median over runs; "
          f"goals: {', '.join(f'{k} within {v:.0%}' for k, v in GOALS.items())}")
    print(f"{'trace':<17}{'policy':<12}" + "".join(f"{name:>11}" for name in FIGURES) + "  void")
    cases = [(name, trace, prompts_for(trace), label, policy)
             for name, trace in traces(model.config.context).items() for label, policy in POLICIES.items()]
    errors = [{figure: [] for figure in FIGURES} for _ in cases]
    void, scales = [0] * len(cases), []
    for round_ in range(args.runs + 1):  # rounds over every case: the machine's drift spreads over all of them
        for k, (_, trace, prompts, _, policy) in enumerate(cases):
            calibration = calibrate(model, document)
            result = run(model, trace, prompts, CONFIG, policy)
            if round_:  # (round 0 warms up)
                figures, about, _ = compare(result, trace, policy, "tick", path, calibration)
                for figure in FIGURES:
                    errors[k][figure].append(figures[figure]["error"])
                void[k] += about["void"]
                scales.append(calibration.scale)
    worst = {name: [] for name in FIGURES}
    for (name, _, _, label, _), case_errors, case_void in zip(cases, errors, void):
        medians = {figure: statistics.median(values) for figure, values in case_errors.items()}
        for figure, value in medians.items():
            worst[figure].append(abs(value))
        print(f"{name:<17}{label:<12}" + "".join(f"{medians[f]:>+11.1%}" for f in FIGURES)
              + f"  {case_void}/{args.runs}")
    print(f"{'median |error|':<29}" + "".join(f"{statistics.median(worst[f]):>11.1%}" for f in FIGURES))
    print(f"{'largest |error|':<29}" + "".join(f"{max(worst[f]):>11.1%}" for f in FIGURES))
    print(f"calibration scale: median {statistics.median(scales):.2f}, {min(scales):.2f} to {max(scales):.2f}")
    for figure, goal in GOALS.items():
        met = sum(value <= goal for value in worst[figure])
        print(f"{figure}: within {goal:.0%} in {met} of {len(worst[figure])} cases")


if __name__ == "__main__":
    main()
