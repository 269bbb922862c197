"""The real model on many engines (gpu_demo.fleet): replicas sharing the weights, each with its own paged KV pool,
behind sim's routers; and prefill/decode disaggregation, a request's prompt blocks copied out of one pool and
into another. In float64 every output equals generating the request alone."""
import json
import subprocess
import sys

import pytest
import torch

from gpu_demo import kv_cache
from gpu_demo.fleet import run_fleet
from gpu_demo.loading import load_model
from sim.core.cluster import Routing, Split
from sim.core.config import Config, ConfigError, Policy
from sim.core.kv import blocks_for
from sim.report.metrics import compute
from sim.trace.trace import write_csv
from tests.test_app import open_page
from tests.test_gpu_demo import OUTPUTS, PROMPTS, alone, trace_of
from ui import presenter

# (two requests share a prefix, so prefix-affinity has something to find)
FLEET_PROMPTS = [*PROMPTS, b"def add(a, b):\n    return a"]
FLEET_OUTPUTS = [*OUTPUTS, 7]
ARRIVALS = [0, 0, 1, 2, 4, 6]


@pytest.fixture(scope="module")
def model64():
    return load_model("cpu", "float64")


@pytest.fixture(scope="module")
def reference(model64):
    return [alone(model64, p, n) for p, n in zip(FLEET_PROMPTS, FLEET_OUTPUTS)]


def fleet_trace():
    return trace_of(FLEET_PROMPTS, FLEET_OUTPUTS, ARRIVALS)


@pytest.mark.parametrize("router", ["round-robin", "least-requests", "least-tokens", "prefix-affinity"])
@pytest.mark.parametrize("unit", ["tick", "ms"])
def test_replicas_outputs_equal_each_request_alone(model64, reference, router, unit):
    policy = Policy(prefix_cache=router == "prefix-affinity")
    fleet = run_fleet(model64, fleet_trace(), FLEET_PROMPTS, Config(64, block_size=4), policy, Routing(2, router),
                      arrival_unit=unit)
    assert fleet.outputs == reference
    assert sorted(set(fleet.run.placed)) == [0, 1]  # both replicas served
    assert [len(s.requests) for s in fleet.run.schedules] == [fleet.run.placed.count(k) for k in (0, 1)]
    assert all(r.timings and not r.copies for r in fleet.replicas)


SPLITS = {
    "1:1": (Split(1, 1), Config(64, first_token="prefill", block_size=4), Policy()),
    # a decode replica's cache holds one request at a time: the others wait there for room
    "1:1 tight": (Split(1, 1, latency=0.5), Config(64, first_token="prefill", block_size=4, kv_blocks=13), Policy()),
    "2:2 chunked": (Split(2, 2, per_block=0.1), Config(16, first_token="prefill", block_size=4),
                    Policy(chunk_size=8)),
}


@pytest.mark.parametrize("case", SPLITS)
def test_disaggregated_outputs_equal_each_request_alone(model64, reference, monkeypatch, case):
    """Every copy out of a prefill replica's pool is followed by spoiling the blocks it read (noise in K and V),
    as the next prefill there would overwrite them: the decode side reads only its own copy. (Finite noise: a
    request given those blocks next attends to their slots it has not written yet with weight 0, and 0 x NaN
    would be NaN.)"""
    split, config, policy = SPLITS[case]
    spoiled, noise = [], torch.Generator().manual_seed(0)
    copy_out = kv_cache.HostPool.swap_out

    def copy_then_spoil(self, request, blocks, cache=None):
        seconds = copy_out(self, request, blocks, cache)
        for tensor in (cache.k, cache.v):
            spoiled_blocks = cache.blocks(tensor)[:, blocks]
            cache.blocks(tensor)[:, blocks] = 100 * torch.randn(spoiled_blocks.shape, dtype=tensor.dtype,
                                                                generator=noise)
        spoiled.append(request)
        return seconds

    monkeypatch.setattr(kv_cache.HostPool, "swap_out", copy_then_spoil)
    fleet = run_fleet(model64, fleet_trace(), FLEET_PROMPTS, config, policy, split=split)
    assert fleet.outputs == reference
    assert sorted(spoiled) == list(range(len(FLEET_PROMPTS)))  # (every request makes more than its first token)
    for direction in ("send", "receive"):
        copies = sorted((c.request, c.blocks) for c in fleet.copies if c.direction == direction)
        assert copies == [(j, blocks_for(len(p), 4)) for j, p in enumerate(FLEET_PROMPTS)]
    transfers = fleet.run.transfers
    for j, t in enumerate(transfers):
        sent = next(c for c in fleet.copies if c.request == j and c.direction == "send")
        assert t.end == pytest.approx(t.start + split.latency + split.per_block * t.blocks + sent.ms)
    assert [r.role for r in fleet.replicas] == ["prefill"] * split.prefill + ["decode"] * split.decode
    if case == "1:1 tight":
        waits = [r.queue_time for r in compute(fleet.run.decode.schedules[0]).requests]
        assert max(waits) > 0  # (a request waited on the decode replica for its cache)


def test_a_split_needs_the_first_token_on_the_prefill_replica(model64):
    with pytest.raises(ConfigError, match="first_token"):
        run_fleet(model64, fleet_trace(), FLEET_PROMPTS, Config(64), Policy(), split=Split(1, 1))


def test_the_command_line_runs_the_fleets(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(write_csv(trace_of([b"x" * 12, b"y" * 20, b"z" * 9], [5, 6, 4])))
    base = [sys.executable, "-m", "gpu_demo", "run", "--trace", str(path), "--token-budget", "64", "--dtype",
            "float64", "--device", "cpu", "--threads", "1", "--json"]
    document = json.loads(subprocess.run([*base, "--replicas", "2", "--router", "least-requests"],
                                         capture_output=True, text=True, check=True).stdout)
    assert document["routing"]["router"] == "least-requests"
    assert [r["role"] for r in document["replicas"]] == ["mixed", "mixed"]
    assert [len(r["output_text"]) for r in document["requests"]] == [5, 6, 4]
    document = json.loads(subprocess.run([*base, "--prefill-replicas", "1", "--decode-replicas", "1",
                                          "--first-token", "prefill", "--kv-transfer-latency", "2"],
                                         capture_output=True, text=True, check=True).stdout)
    assert [r["role"] for r in document["replicas"]] == ["prefill", "decode"]
    for row in document["requests"]:
        transfer = row["transfer"]
        assert transfer["copy_out_ms"] > 0 and transfer["copy_in_ms"] > 0
        assert transfer["end"] == pytest.approx(transfer["start"] + 2 + transfer["copy_out_ms"])
        assert (row["prefill_replica"], row["replica"]) == (0, 1)
    for bad, says in ((["--prefill-replicas", "1", "--decode-replicas", "1"], "--first-token prefill"),
                      (["--replicas", "2", "--compare-sim"], "--compare-sim compares one engine"),
                      (["--replicas", "2", "--router", "prefix-affinity"], "turn prefix caching on")):
        done = subprocess.run([*base, *bad], capture_output=True, text=True)
        assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr


# -- the real-model page's fleet ------------------------------------------------------------------------------------
def test_the_real_model_page_runs_a_split_and_draws_its_copies():
    """The default fleet (1 prefill + 1 decode replica) on the page's preset: every request moved, each copy
    timed in the table, the fleet's Gantt chart with the transfers' panel between the replicas."""
    at = open_page("pages/real_model.py")
    at.button(key="rmf_run").click().run()
    assert not at.exception, at.exception
    shown = at.session_state["real_model"].fleet_shown
    trace = shown.trace
    assert [len(out) for out in shown.run.outputs] == [r.output for r in trace.requests]
    moved = sum(r.output > 1 for r in trace.requests)
    copies = next(d.value for d in at.dataframe if "copy" in d.value.columns)
    assert len(copies) == 2 * moved and set(copies["copy"]) == {"out of prefill cache", "into decode cache"}
    assert all(cell.endswith("ms") or cell.endswith(" s") for cell in copies["took"])
    gantt = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                 if json.loads(c.proto.spec)["layout"]["title"]["text"].startswith("The fleet's 2 engines"))
    labels = [a["text"] for a in gantt["layout"]["annotations"]]
    sample = f" · showing 8 of {len(trace)} requests, evenly sampled"  # each panel draws 8 lanes and says so
    assert [label for label in labels if "replica" in label or "KV" in label] == [
        "replica 0 · prefill" + sample, f"KV transfers · showing 8 of {moved} requests, evenly sampled",
        "replica 1 · decode" + sample]
    assert any(f"**{moved} requests moved.**" in m.value for m in at.markdown)


def test_the_real_model_page_runs_replicas_behind_a_router_and_names_what_cannot_run():
    at = open_page("pages/real_model.py")
    at.radio(key="w_rm_fleet_layout").set_value("replicas").run()
    at.selectbox(key="w_rm_fleet_router").set_value("least-requests").run()
    at.button(key="rmf_run").click().run()
    assert not at.exception, at.exception
    shown = at.session_state["real_model"].fleet_shown
    assert shown.fleet.roles == ("mixed", "mixed") and not shown.run.copies
    table = next(d.value for d in at.dataframe if "replica" in d.value.columns)
    assert list(table["replica"]) == ["replica 0", "replica 1"]
    assert sum(int(n) for n in table["requests"]) == len(shown.trace.requests)
    at.selectbox(key="w_rm_fleet_router").set_value("prefix-affinity").run()
    at.button(key="rmf_run").click().run()
    assert not at.exception, at.exception
    assert any("turn prefix caching on" in e.value for e in at.error)
    assert at.session_state["real_model"].fleet_shown is shown  # the last run stays shown


def test_the_real_model_pages_fleet_in_chinese():
    """(Run in English, then shown in Chinese: AppTest reads a radio's labels outside the page's session, in
    English, so it cannot click on a Chinese page with radios.)"""
    at = open_page("pages/real_model.py")
    at.button(key="rmf_run").click().run()
    at.sidebar.radio[0].set_value("zh").run()
    assert not at.exception, at.exception
    assert any(h.value == "模型上的多台服务器" for h in at.header)
    copies = next(d.value for d in at.dataframe if "复制" in d.value.columns)
    assert set(copies["复制"]) == {"复制出预填充缓存", "复制进解码缓存"}


def test_the_fleets_cards_take_two_a_row_in_and_out_of_presenter_mode():
    """Two cards a row: a quarter of a 1024 px page (129 px) cut "3,601 tokens/s" and "4.73 毫秒" to "…", and at a
    projector's 47 px card values every one (seen in Chromium: tests/test_layout.py checks the page after the run)."""
    def card_weights(at):
        return [c.weight for c in at.columns if any(m.label in {"TTFT p50", "TPOT p50", "Fleet throughput", "KV copies"}
                                                    for m in c.metric)]
    at = open_page("pages/real_model.py")
    at.button(key="rmf_run").click().run()
    assert not at.exception, at.exception
    assert card_weights(at) == [0.5] * 2  # (a column each holds two cards, one above the other)
    at.sidebar.toggle(key="w_" + presenter.STATE_KEY).set_value(True).run()  # (the last run stays shown)
    assert not at.exception, at.exception
    assert card_weights(at) == [0.5] * 2
