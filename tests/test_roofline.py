"""The roofline cost model (sim.core.hardware): the models' sizes as their cards give them, times derived by hand,
the check against Vidur's profiled A100 figures for Llama-2-70B at tensor parallel 2 that the README states, the
KV cache sized from memory, and the command line (`--hardware`, `--model`, `--tp`, `--dtype`, `--kv-blocks auto`,
`python -m sim hardware`)."""
import json
import subprocess
import sys

import pytest

from sim.core.config import Config, ConfigError, CostModel, Policy
from sim.core.engine import simulate
from sim.core.hardware import COMPUTE_EFFICIENCY, GPUS, MEMORY_EFFICIENCY, MODELS, HardwareError, kv_blocks, roofline
from sim.report.metrics import compute
from sim.trace.trace import validate


def test_the_models_weights_are_the_counts_their_cards_give():
    """Parameter counts from the configs alone, equal to what Hugging Face's safetensors index of each model sums
    (norms included); Mixtral's active weights are the 12.9 billion its card rounds to."""
    assert MODELS["Llama-3.1-8B"].params == 8_030_261_248
    assert MODELS["Llama-2-70B"].params == 68_976_648_192
    assert MODELS["Mixtral-8x7B"].params == 46_702_792_704
    assert 12.7e9 < MODELS["Mixtral-8x7B"].active_params < 12.9e9
    assert MODELS["Llama-3.1-70B"].kv_bytes_per_token(2) == 80 * 2 * 8 * 128 * 2  # 320 KiB a token


def decode_time(r, decoders: int, context: int) -> float:
    return r.time(decoders, decoders, decode=(decoders * context, decoders * (context + 1)))


def prefill_time(r, tokens: int) -> float:
    """One prompt of `tokens` prefilled from its start: each token attends to the positions up to its own."""
    return r.time(tokens, 1, (tokens * (tokens + 1) / 2, tokens))


def test_one_decode_reads_the_weights_once_by_hand():
    """Llama-3.1-8B on one H100, one sequence at an empty context: memory-bound, 16.06 GB of bf16 weights at 75%
    of 3,350 GB/s, plus its token's KV written; no all-reduce on one GPU."""
    r = roofline("H100", "Llama-3.1-8B", 1, "bf16")
    dense = 8_030_261_248 - 32 * 2 * 4096 - 4096  # (the norms' weights are read with the activations, not here)
    expected = (dense * 2 + 131072) / (3350e9 * MEMORY_EFFICIENCY) * 1e3
    assert decode_time(r, 1, 0) == pytest.approx(expected, rel=1e-12)
    # A big prefill is compute-bound: 2 FLOPs a weight a token, at 70% of 989 TFLOP/s, and attention on top.
    # (the output projection only for the sampled last row; the input embedding is a lookup)
    flops = 4096 * 2 * (dense - 2 * 128256 * 4096) + 2 * 128256 * 4096 + 4 * 32 * 128 * 32 * 4096 * 4097 / 2
    assert prefill_time(r, 4096) == pytest.approx(flops / (989e12 * COMPUTE_EFFICIENCY) * 1e3, rel=1e-12)


# Vidur's profiled A100 data for Llama-2-70B at tensor parallel 2, fitted over batches of up to 4,096 tokens
# (issue 30): t = 50.5 ms + 0.353 ms a prefill token + 0.48 ms a decode sequence.
def vidur(prefill: int, decode: int) -> float:
    return 50.5 + 0.353 * prefill + 0.48 * decode


VIDUR_70B = roofline("A100-80GB", "Llama-2-70B", 2, "bf16")


@pytest.mark.parametrize("tokens", [512, 1024, 2048, 4096])
def test_prefill_is_within_30_percent_of_vidurs_a100_figures(tokens):
    assert prefill_time(VIDUR_70B, tokens) == pytest.approx(vidur(tokens, 0), rel=0.3)


def test_an_iterations_fixed_cost_and_a_decodes_cost_are_within_30_percent_of_vidurs():
    """The fixed cost: an iteration of one decode at a short context. A decode sequence's cost: what 64 more
    decoders add to a batch of 2,048 prefill tokens (compute-bound, as most of the fitted batches of up to
    4,096 tokens are), each at a context of 1,024 tokens."""
    assert decode_time(VIDUR_70B, 1, 128) == pytest.approx(vidur(0, 1), rel=0.3)
    base = prefill_time(VIDUR_70B, 2048)
    mixed = VIDUR_70B.time(2048 + 64, 65, (2048 * 2049 / 2, 2048), (64 * 1024, 64 * 1025))
    assert (mixed - base) / 64 == pytest.approx(0.48, rel=0.3)


def test_a_pure_decode_batch_is_where_the_straight_line_and_the_roofline_part():
    """The README says so: 128 decoders at 1,024 tokens of context stay memory-bound on the roofline (the weights
    once, 21.5 GB of KV a GPU), far under the straight line fitted through compute-bound batches."""
    t = decode_time(VIDUR_70B, 128, 1024)
    assert t < 0.7 * vidur(0, 128)
    assert t > decode_time(VIDUR_70B, 1, 1024) + 128 * 1024 * VIDUR_70B.kv_bytes / VIDUR_70B.memory_rate * 0.99


def test_more_work_never_takes_less_time_and_more_gpus_or_fp8_take_less():
    r = roofline("H100", "Llama-3.1-70B", 4, "bf16")
    times = [decode_time(r, n, 2000) for n in (1, 8, 64, 256)]
    assert times == sorted(times) and times[0] < times[-1]
    assert prefill_time(roofline("H100", "Llama-3.1-70B", 8, "bf16"), 4096) < prefill_time(r, 4096)
    assert decode_time(roofline("H100", "Llama-3.1-70B", 4, "fp8"), 8, 2000) < times[1]
    # A mixture reads only the experts its tokens use: one token two of eight, many tokens all of them.
    m = roofline("H100", "Mixtral-8x7B", 1, "bf16")
    assert decode_time(m, 1, 0) < 0.5 * decode_time(m, 64, 0)


def test_the_kv_cache_is_what_the_weights_leave():
    """Llama-3.1-8B on one H100 at 90%: 72 GB less 16.06 GB of weights, at 128 KiB a token, 16 tokens a block."""
    assert kv_blocks("H100", "Llama-3.1-8B", 1, "bf16", 16, 0.9) == int((72e9 - 8_030_261_248 * 2) // (131072 * 16)) \
        == 26_674  # (the README's figure)
    # Tensor parallel 2 splits the weights and the KV heads: each GPU holds half of each token's KV.
    assert kv_blocks("H100", "Llama-3.1-8B", 2, "bf16", 16, 0.9) == int((72e9 - 8_030_261_248) // (65536 * 16))
    with pytest.raises(HardwareError, match="raise --tp"):
        kv_blocks("A100-80GB", "Llama-3.1-70B", 1, "bf16", 16, 0.9)


def test_a_roofline_config_is_checked_and_runs():
    with pytest.raises(ConfigError, match="no fp8"):
        CostModel("roofline", hardware="A100-80GB", precision="fp8")
    with pytest.raises(ConfigError, match="model"):
        CostModel("roofline", model="GPT-5")
    trace = validate([{"name": f"r{i}", "arrival": 20 * i, "prompt": 300, "output": 40} for i in range(20)])
    cost = CostModel("roofline", hardware="H100", model="Llama-3.1-8B")
    schedule = simulate(trace, Config(2048, 64, cost=cost), Policy())
    assert schedule.unit == "ms"
    # Alone on the GPU, a request's decode steps each take the weights' read (6.4 ms at 75% of 3,350 GB/s) and a
    # little more: arrivals 20 ms apart overlap a few requests at a time.
    tpots = [r.tpot for r in compute(schedule).requests]
    assert all(6.4 < t < 7.5 for t in tpots)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], capture_output=True, text=True)


def test_the_command_line_runs_a_real_gpu_and_says_which(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("name,arrival,prompt,output\n" + "".join(f"r{i},{i * 30},500,50\n" for i in range(30)))
    out = cli("run", "--trace", str(trace), "--token-budget", "2048", "--hardware", "H200", "--model", "Qwen2.5-7B",
              "--tp", "2", "--dtype", "fp8", "--kv-blocks", "auto", "--block-size", "16", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    cost = document["cost_model"]
    assert (cost["kind"], cost["hardware"], cost["model"], cost["tp"], cost["precision"]) == (
        "roofline", "H200", "Qwen2.5-7B", 2, "fp8")
    assert cost["label"] == "Qwen2.5-7B on 2 x H200 (fp8)" and "datasheet" in cost["hardware_source"]
    assert document["kv_blocks"] == kv_blocks("H200", "Qwen2.5-7B", 2, "fp8", 16, 0.9)
    assert document["unit"] == "ms"
    # Under another cost model the JSON names no GPU.
    plain = json.loads(cli("run", "--trace", str(trace), "--token-budget", "2048", "--json").stdout)
    assert "hardware" not in plain["cost_model"]


@pytest.mark.parametrize("flags, message", [
    (["--hardware", "H100"], "needs both --hardware and --model"),
    (["--hardware", "H100", "--model", "Llama-3.1-8B", "--cost-model", "linear"], "a cost model of their own"),
    (["--hardware", "A100-80GB", "--model", "Llama-3.1-70B", "--kv-blocks", "auto"], "141.1 GB of weights"),
    (["--kv-blocks", "auto"], "--kv-blocks auto sizes the cache from a GPU's memory"),
    (["--hardware", "A100-80GB", "--model", "Llama-3.1-8B", "--dtype", "fp8"], "no fp8 tensor cores"),
    (["--hardware", "TPU", "--model", "Llama-3.1-8B"], "hardware: must be one of"),
])
def test_bad_roofline_flags_say_what_is_wrong(tmp_path, flags, message):
    trace = tmp_path / "t.csv"
    trace.write_text("name,arrival,prompt,output\nr1,0,5,5\n")
    out = cli("run", "--trace", str(trace), "--token-budget", "64", *flags)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_python_m_sim_hardware_lists_every_gpu_and_model_with_its_source():
    text = cli("hardware").stdout
    for name in [*GPUS, *MODELS]:
        assert name in text
    document = json.loads(cli("hardware", "--json").stdout)
    assert [g["name"] for g in document["gpus"]] == list(GPUS)
    assert all(g["source"] for g in document["gpus"]) and all(m["source"] for m in document["models"])
    assert {m["name"]: m["params"] for m in document["models"]}["Llama-2-70B"] == 68_976_648_192


# Vidur's H100 profile of Llama-2-70B's layers (github.com/microsoft/vidur, data/profiling/compute/h100/meta-llama/
# Llama-2-70b-hf/mlp.csv, the medians of attn_pre_proj + attn_post_proj + mlp_up_proj + mlp_down_proj, in ms):
# a GPU and tensor parallels the efficiencies were not taken from. (tensor parallel, tokens): ms of one layer.
VIDUR_H100_LAYER = {(2, 1): 0.294, (2, 512): 0.649, (2, 4096): 4.958, (4, 1): 0.159, (4, 4096): 2.370}


@pytest.mark.parametrize("tp, tokens", list(VIDUR_H100_LAYER))
def test_a_layers_matrix_multiplications_on_an_h100_are_within_20_percent_of_vidurs_profile(tp, tokens):
    """One layer's projections (no attention, no all-reduce): the roofline's matmul term, a layer's share."""
    r, m = roofline("H100", "Llama-2-70B", tp, "bf16"), MODELS["Llama-2-70B"]
    layer = (m.attention_params + m.mlp_params) / tp
    seconds = max(2 * layer * tokens / r.compute_rate, 2 * layer / r.memory_rate)
    assert seconds == pytest.approx(VIDUR_H100_LAYER[tp, tokens], rel=0.2)


def test_the_readmes_comparison_tables_are_the_rooflines():
    """Every row of the README's two tables (Vidur's fit against the roofline, and Vidur's H100 layer profile):
    the roofline's figure to the digits written, and the difference as printed."""
    from pathlib import Path
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**How close it comes.**"):readme.index("Where the roofline is known")]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| batch") and not line.startswith("| tensor")]
    assert len(rows) == 13

    def value(text: str) -> float:
        return float(text.replace(",", ""))

    checked = 0
    for name, published, shown, difference in rows:
        if name.startswith("prefill of"):
            tokens = int(name.split()[2].replace(",", ""))
            mine, theirs = prefill_time(VIDUR_70B, tokens), vidur(tokens, 0)
        elif "decode" in name:
            count, context = int(name.split()[0]), int(name.split()[-1].replace(",", ""))
            mine, theirs = decode_time(VIDUR_70B, count, context), vidur(0, count)
        else:
            tp, tokens = (int(v.replace(",", "")) for v in name.split(", "))
            r, m = roofline("H100", "Llama-2-70B", tp, "bf16"), MODELS["Llama-2-70B"]
            layer = (m.attention_params + m.mlp_params) / tp
            mine = max(2 * layer * tokens / r.compute_rate, 2 * layer / r.memory_rate)
            theirs = VIDUR_H100_LAYER[tp, tokens]
        assert value(shown) == pytest.approx(mine, rel=0.005), name
        assert value(published) == pytest.approx(theirs, rel=0.005), name
        assert difference.replace("−", "-") == f"{mine / theirs - 1:+.0%}", name
        checked += 1
    assert checked == 13
    mixed = VIDUR_70B.time(2048 + 64, 65, (2048 * 2049 / 2, 2048), (64 * 1024, 64 * 1025))
    assert f"is {(mixed - prefill_time(VIDUR_70B, 2048)) / 64:.3f} ms, against" in readme
