"""The measured cost profile (gpu_demo.profile), sim's profile cost model and the out-of-sample comparison
(gpu_demo.compare, `gpu_demo run --compare-sim`): the format, the fit, the shape both sides count, the fields."""
import itertools
import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_demo import profile as gp
from gpu_demo.batch import Sequences, pack
from gpu_demo.compare import FIGURES, comparison, predict
from gpu_demo.engine import engine_config
from gpu_demo.kv_cache import PagedKVCache
from gpu_demo.loading import load_model
from sim.core.config import Config, ConfigError, CostModel, Policy
from sim.core.engine import batch_shape
from sim.core.engine import run as sim_run
from sim.core.policies import make_scheduler
from sim.core.profile import ProfileError, load_profile, read_profile
from sim.report.metrics import compute
from sim.trace.generate import Uniform, generate

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = gp.path_for("cpu", "float32")


@pytest.fixture(scope="module")
def model():
    return load_model("cpu", "float32")


# -- the fit ------------------------------------------------------------------------------------------------------

def brute_nnls(rows, targets):
    """The best least-squares fit over every subset of columns whose unconstrained solution is >= 0."""
    a, b = torch.tensor(rows, dtype=torch.float64), torch.tensor(targets, dtype=torch.float64)
    best, best_x = float("inf"), None
    n = a.shape[1]
    for k in range(n + 1):
        for subset in itertools.combinations(range(n), k):
            x = torch.zeros(n, dtype=torch.float64)
            if subset:
                x[list(subset)] = torch.linalg.lstsq(a[:, list(subset)], b.unsqueeze(1)).solution.squeeze(1)
            if (x >= -1e-12).all():
                residual = float(((a @ x - b) ** 2).sum())
                if residual < best:
                    best, best_x = residual, x
    return best, best_x


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(5, 12), n=st.integers(1, 4))
def test_nnls_finds_the_best_non_negative_fit(seed, m, n):
    rng = random.Random(seed)
    rows = [[rng.uniform(0, 10) for _ in range(n)] for _ in range(m)]
    targets = [rng.uniform(-5, 20) for _ in range(m)]
    x = gp.nnls(rows, targets)
    assert all(v >= 0 for v in x)
    a, b = torch.tensor(rows, dtype=torch.float64), torch.tensor(targets, dtype=torch.float64)
    residual = float(((a @ torch.tensor(x, dtype=torch.float64) - b) ** 2).sum())
    best, _ = brute_nnls(rows, targets)
    assert residual <= best * (1 + 1e-6) + 1e-9


def test_fit_recovers_a_cost_it_was_made_from_and_holds_shapes_out():
    truth = {"c0": 1.2, "c_token": 0.02, "c_seq": 0.05, "c_key": 0.002, "c_cell": 3e-5}
    measured = []
    for shape in gp.grid(256):
        rows, groups, query, longest = gp.features(shape)
        ms = sum(c * f for c, f in zip(truth.values(), gp.design_row(rows, groups, query, longest)))
        measured.append({"rows": rows, "groups": groups, "query": query, "longest": longest, "ms": ms})
    coefficients, fit_error, held_out = gp.fit(measured)
    assert coefficients == pytest.approx(truth, rel=1e-6)
    assert fit_error < 1e-6 and held_out < 1e-6
    # a shape held out of the fit does not move it
    broken = [dict(m, ms=m["ms"] * (5 if i == 3 else 1)) for i, m in enumerate(measured)]
    assert gp.fit(broken)[0] == pytest.approx(truth, rel=1e-6)
    assert gp.fit(broken)[2] > 1


def test_the_grid_is_mixed_and_pure_and_within_the_context():
    shapes = gp.grid(256)
    kinds = {(bool(s.prefill), bool(s.decode)) for s in shapes}
    assert kinds == {(True, False), (False, True), (True, True)}
    assert all(max([f + n for f, n in s.prefill] + list(s.decode)) <= 256 for s in shapes)
    assert len({s.name for s in shapes}) == len(shapes)


# -- sim counts the batch the engine packs ------------------------------------------------------------------------

@pytest.mark.parametrize("policy", [Policy(), Policy(chunk_size=16), Policy(batching="static"),
                                    Policy(graph_buckets=(2, 4, 8))], ids=["continuous", "chunked", "static", "graphs"])
@pytest.mark.parametrize("first_token", ["decode", "prefill"])
def test_batch_shape_is_the_shape_the_engine_packs(model, policy, first_token):
    trace = generate(12, rate=2.0, prompt=Uniform(4, 60), output=Uniform(1, 20), seed=7)
    config = engine_config(Config(64, max_seqs=5, first_token=first_token), model)
    scheduler = make_scheduler(policy, trace, config, unit="ms")
    cache = PagedKVCache(model.config, config.kv_blocks, config.block_size, torch.device("cpu"), torch.float32,
                         len(trace.requests))
    sequences = Sequences([bytes(65 + j % 26 for j in range(r.prompt)) for r in trace.requests], cache.row,
                          torch.device("cpu"))  # grown as the engine does
    done, now, seen = [0] * len(trace.requests), 0, 0
    while scheduler.remaining:
        scheduler.advance(now)
        it = scheduler.plan(now, 1)
        if it is None:
            now = scheduler.next_event()
            continue
        rows, groups, query, longest = batch_shape(scheduler, it)
        batch, emitters, packed, emit_at = pack(it, cache, sequences, done, torch.device("cpu"))
        assert (rows, groups, query, longest) == (len(batch.tokens), *packed)
        sequences.append(emitters, torch.full((len(emitters),), 66), emit_at)
        scheduler.commit(it, now, now + 1)
        now, seen = now + 1, seen + 1
    assert seen > 10


# -- the profile document and sim's cost model ---------------------------------------------------------------------

def test_the_shipped_cpu_profile_is_read_as_a_cost_model():
    document = read_profile(SHIPPED)
    assert document["device"] == "cpu" and document["dtype"] == "float32"
    assert len(document["shapes"]) == len(gp.grid(256))
    assert {"held_out_error_percent", "fit_error_percent", "spread_percent", "loop_ms"} <= document.keys()
    cost = load_profile(SHIPPED)
    assert cost.kind == "profile" and cost.unit == "ms" and "cpu float32" in cost.source
    assert cost.c0 == pytest.approx(document["coefficients"]["c0"] + document["loop_ms"])
    small, large = cost.shape_duration(1, 1, 1, 16), cost.shape_duration(256, 32, 64, 256)
    assert 0 < small < large


@pytest.mark.parametrize("content, message", [
    (None, "cannot read cost profile"), ("{", "is not JSON"), ("[]", "has no 'coefficients'"),
    ('{"coefficients": {"c0": 1}}', "coefficients.c_token"),
    ('{"coefficients": {"c0": 1, "c_token": -1, "c_seq": 0, "c_key": 0, "c_cell": 0}}', "c_token"),
])
def test_a_bad_profile_is_named(tmp_path, content, message):
    path = tmp_path / "profile.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ProfileError, match=message):
        read_profile(path)


def test_a_profile_cost_with_no_time_is_refused():
    with pytest.raises(ConfigError, match="c0"):
        CostModel("profile", c0=0.0, c_token=0.0, c_seq=0.0)


def test_a_profile_run_follows_the_shape_and_does_not_merge():
    cost = load_profile(SHIPPED)
    trace = generate(30, rate=1.0, prompt=Uniform(4, 80), output=Uniform(1, 30), seed=2)
    config = Config(128, max_seqs=6, cost=cost)
    merged = sim_run(make_scheduler(Policy(), trace, config))
    single = sim_run(make_scheduler(Policy(), trace, config), max_repeat=1)
    assert merged.requests == single.requests
    assert all(step.iterations == 1 for step in merged.steps)
    assert merged.unit == "ms" and merged.makespan > 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), chunk=st.sampled_from([None, 4]), static=st.booleans())
def test_arrivals_read_on_iterations_are_arrivals_in_ticks(seed, chunk, static):
    # With one tick an iteration the iteration count is the clock while work goes on: reading arrivals on it
    # plans the same iterations. Only an idle wait differs: the engine counts ticks through it without time
    # passing (it does not sleep for arrivals in ticks), so every iteration starts no later than on the clock.
    trace = generate(15, rate=0.7, prompt=Uniform(1, 12), output=Uniform(1, 9), seed=seed)
    policy = Policy(batching="static") if static else Policy(chunk_size=chunk)
    config = Config(16, max_seqs=4)
    expected = sim_run(make_scheduler(policy, trace, config), max_repeat=1)
    counted = sim_run(make_scheduler(policy, trace, config), arrivals_on_iterations=True)
    def work(schedule):
        return [(s.iterations, s.prefill_tokens, s.decode_tokens, s.padding_tokens, s.running, s.changes)
                for s in schedule.steps]

    assert work(counted) == work(expected)
    assert all(a.start <= b.start for a, b in zip(counted.steps, expected.steps))
    assert [len(t.segments) for t in counted.requests] == [len(t.segments) for t in expected.requests]


def test_sim_cli_takes_a_cost_profile(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("name,arrival,prompt,output\na,0,40,5\nb,3,10,8\n")
    done = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(trace), "--token-budget", "64", "--json",
                           "--cost-profile", str(SHIPPED)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["unit"] == "ms"
    bad = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(trace), "--token-budget", "64",
                          "--cost-profile", str(tmp_path / "no")],
                         cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read cost profile" in bad.stderr and "Traceback" not in bad.stderr
    mixed = subprocess.run([sys.executable, "-m", "sim", "run", "--trace", str(trace), "--token-budget", "64",
                            "--cost-profile", str(SHIPPED), "--cost-preset", "small-gpu"],
                           cwd=ROOT, capture_output=True, text=True)
    assert mixed.returncode == 2 and "--cost-profile" in mixed.stderr


# -- the comparison ----------------------------------------------------------------------------------------------

def test_comparison_fields_and_errors():
    trace = generate(10, rate=1.0, prompt=Uniform(4, 40), output=Uniform(2, 20), seed=1)
    cost = load_profile(SHIPPED)
    measured = compute(predict(trace, Config(64, max_seqs=4), Policy(), cost, "tick"))
    slower = compute(predict(trace, Config(64, max_seqs=4), Policy(), replace(cost, c0=cost.c0 * 3), "tick"))
    same = comparison(measured, measured)
    assert list(same) == list(FIGURES)
    assert all(row["error"] == 0 and row["measured"] == row["predicted"] for row in same.values())
    off = comparison(measured, slower)
    assert off["makespan"]["error"] > 0.5 and off["throughput"]["error"] < 0
    for row in off.values():
        assert row["error"] == pytest.approx(row["predicted"] / row["measured"] - 1)


def test_gpu_demo_run_compare_sim_json(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("name,arrival,prompt,output\n" + "".join(f"r{i},{i},{20 + 7 * i},{6 + 3 * i}\n" for i in range(8)))
    done = subprocess.run([sys.executable, "-m", "gpu_demo", "run", "--trace", str(trace), "--token-budget", "256",
                           "--max-seqs", "4", "--compare-sim", "--json", "--device", "cpu"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert list(document["comparison"]) == list(FIGURES)
    for row in document["comparison"].values():
        assert row["measured"] > 0 and row["predicted"] > 0
        assert row["error"] == pytest.approx(row["predicted"] / row["measured"] - 1)
    about = document["cost_profile"]
    # this machine's own profile (measured by the first comparison of the session, then kept), calibrated
    assert Path(about["path"]).parent == gp.kept_dir() and about["own_machine"] and isinstance(about["void"], bool)
    assert about["calibration"]["shapes"] == len(gp.grid(256)[::6])
    assert about["scale"] == round(about["calibration"]["scale"], 3) > 0
    assert about["iteration_error_percent"] >= 0
    assert document["threads"]["threads"] >= 1 and not document["threads"]["asked"]
    text = subprocess.run([sys.executable, "-m", "gpu_demo", "run", "--trace", str(trace), "--token-budget", "256",
                           "--compare-sim", "--device", "cpu"], cwd=ROOT, capture_output=True, text=True)
    assert text.returncode == 0 and "makespan" in text.stdout and "predicted" in text.stdout


# -- this machine: its own profile, its speed now, its threads ------------------------------------------------------

def test_the_first_comparison_profiles_the_machine_once_and_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CLASSROOM_PROFILES", str(tmp_path))
    calls = []
    monkeypatch.setattr(gp, "profile", lambda model, log=None: calls.append(1) or {
        "device": "cpu", "dtype": "float32", "coefficients": dict.fromkeys(gp.FEATURES, 0.1), "shapes": []})
    model = load_model("cpu", "float32")
    path, made = gp.machine_profile(model)
    assert made and path.parent == tmp_path and path == gp.kept_path("cpu", "float32") and path.exists()
    assert gp.machine_profile(model) == (path, False) and len(calls) == 1  # kept: never measured again
    assert read_profile(path)["coefficients"]["c0"] == 0.1
    assert "cpu-float32-" in path.name and path.name != SHIPPED.name  # named by this machine, not the shipped file


def test_a_read_only_cache_keeps_the_profile_in_the_temporary_folder(tmp_path, monkeypatch):
    import tempfile

    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the folder should be: the cache cannot be written
    monkeypatch.setenv("CLASSROOM_PROFILES", str(blocked / "profiles"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(gp, "profile", lambda model, log=None: {
        "device": "cpu", "dtype": "float32", "coefficients": dict.fromkeys(gp.FEATURES, 0.1), "shapes": []})
    model = load_model("cpu", "float32")
    path, made = gp.machine_profile(model)
    assert made and path.parent == tmp_path / "tmp" / "batching-classroom-profiles" and path.exists()
    assert gp.machine_profile(model) == (path, False)  # found there again


def test_a_profile_names_the_machine_it_was_measured_on():
    from gpu_demo.machine import fingerprint, machine_id

    mine = fingerprint("cpu", "float32")
    assert set(mine) == {"host", "cpu", "cores", "gpu", "device", "dtype", "torch"} and mine["cores"] >= 1
    assert machine_id(mine) != machine_id(mine | {"host": mine["host"] + "-other"})
    assert machine_id(mine) != machine_id(fingerprint("cpu", "float64"))


def test_calibration_is_the_median_of_the_shapes_time_now_over_their_profiled_time(model, monkeypatch):
    import gpu_demo.compare as gc

    document = read_profile(SHIPPED)
    picked = document["shapes"][::gc.CALIBRATION_EVERY]
    factors = [1.0, 3.0, 2.0, 2.5, 9.0, 1.5, 2.2, 2.0, 0.5, 2.1, 2.4]
    assert len(picked) == len(factors) == 11

    def timed(_, shapes, repeats):  # each shape "now" takes its factor times its profiled time
        assert [(s.prefill, s.decode) for s in shapes] == [
            (tuple(tuple(c) for c in p["prefill"]), tuple(p["decode"])) for p in picked]
        return [[f * p["ms"]] * repeats for f, p in zip(factors, picked)]

    monkeypatch.setattr(gc, "time_shapes", timed)
    calibration = gc.calibrate(model, document)
    assert calibration.scale == pytest.approx(2.1) and calibration.shapes == 11  # the median factor
    monkeypatch.undo()
    real = gc.calibrate(model, document, repeats=2)  # the real timer: a positive scale, in well under a second
    assert real.scale > 0 and real.shapes == 11


def test_a_calibrated_prediction_scales_every_time():
    from gpu_demo.compare import Calibration
    from sim.core.profile import profile_cost

    document = read_profile(SHIPPED)
    trace = generate(12, rate=1.0, prompt=Uniform(4, 60), output=Uniform(2, 30), seed=3)
    one = compute(predict(trace, Config(128, max_seqs=4), Policy(), profile_cost(document), "tick"))
    twice = compute(predict(trace, Config(128, max_seqs=4), Policy(),
                            profile_cost(document, scale=Calibration(2.0, 11, 0.1).scale), "tick"))
    assert twice.makespan == pytest.approx(2 * one.makespan)
    assert twice.percentiles["ttft"][50] == pytest.approx(2 * one.percentiles["ttft"][50])


def test_a_run_whose_iterations_took_far_more_or_less_time_than_the_profile_gives_them_is_void():
    from types import SimpleNamespace

    from gpu_demo.compare import VOID_DRIFT, disturbance
    from gpu_demo.engine import Timing
    from sim.core.profile import profile_cost

    cost = profile_cost(read_profile(SHIPPED))
    shapes = [(0, 4, 4, 1, 60), (64, 0, 1, 64, 64)]  # prefill rows, decode rows, groups, query, longest

    def run_at(*factors):  # one iteration of each shape a factor, that factor times the profile's time
        timings = [Timing(p, d, g, q, n, f * cost.shape_duration(p + d, g, q, n))
                   for f, (p, d, g, q, n) in zip(factors, itertools.cycle(shapes))]
        return SimpleNamespace(timings=timings)

    quiet = disturbance(run_at(1.1, 0.9, 1.1, 0.9), cost)
    assert quiet["iteration_error_percent"] == 10.0 and not quiet["void"]
    # a slow spell on the long iterations moves the total, though most iterations are near the profile
    long_first = sorted(shapes, key=lambda s: -cost.shape_duration(s[0] + s[1], *s[2:]))
    spell = SimpleNamespace(timings=[Timing(*long_first[0], 3.0 * cost.shape_duration(
        long_first[0][0] + long_first[0][1], *long_first[0][2:]))] + run_at(1.0, 1.0, 1.0, 1.0).timings)
    slow = disturbance(spell, cost)
    assert slow["iteration_error_percent"] == 0.0 and slow["drift_percent"] > 100 * VOID_DRIFT and slow["void"]
    fast = disturbance(run_at(*[1 - VOID_DRIFT - 0.05] * 4), cost)
    assert fast["void"] and fast["drift_percent"] == pytest.approx(-100 * (VOID_DRIFT + 0.05))
    edge = disturbance(run_at(*[1 + VOID_DRIFT - 0.01] * 4), cost)
    assert not edge["void"]


@pytest.mark.parametrize("busy, threads", [(0.0, 2), (0.2, 2), (0.3, 1), (0.6, 1), (1.3, 1), (1.9, 1)])
def test_the_engine_takes_only_the_cores_other_work_leaves_free(monkeypatch, busy, threads):
    from gpu_demo import machine

    before = torch.get_num_threads()
    monkeypatch.setattr(machine, "cores", lambda: 2)
    monkeypatch.setattr(machine, "busy_cores", lambda: busy)
    monkeypatch.setattr(machine, "_measured", [])
    try:
        chosen = machine.choose_threads()
        assert (chosen.threads, chosen.busy, chosen.asked) == (threads, busy, False)
        assert torch.get_num_threads() == threads and f"up to {busy:.1f} of them busy" in chosen.words()
        asked = machine.choose_threads(3)
        assert (asked.threads, asked.asked, torch.get_num_threads()) == (3, True, 3) and "as asked" in asked.words()
    finally:
        torch.set_num_threads(before)


def test_a_lull_in_a_busy_minute_does_not_free_a_core(monkeypatch):
    from gpu_demo import machine

    before, clock, seen = torch.get_num_threads(), [1000.0], iter([1.0, 0.1, 0.0, 0.1])
    monkeypatch.setattr(machine, "cores", lambda: 2)
    monkeypatch.setattr(machine, "busy_cores", lambda: next(seen))
    monkeypatch.setattr(machine.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(machine, "_measured", [])
    try:
        assert machine.choose_threads().threads == 1  # a burst
        clock[0] += 30
        lull = machine.choose_threads()
        assert (lull.threads, lull.busy) == (1, 1.0)  # a lull 30 s after it: the burst still counts
        clock[0] += machine.RECENT - 20  # the burst is over a minute old: the quiet ones alone count
        assert machine.choose_threads().threads == 2
        clock[0] += 1
        assert machine.choose_threads().threads == 2
    finally:
        torch.set_num_threads(before)


def test_busy_cores_sees_a_process_that_spins():
    from gpu_demo.machine import busy_cores

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        import time

        time.sleep(0.3)
        assert busy_cores(0.5) >= 0.6  # one whole core, less what the scheduler gives to others
    finally:
        spinner.kill()
        spinner.wait()
