"""The command line: the seed example, JSON runs, and bad input that exits 2 with one clear line."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def write(tmp_path, text, name="trace.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_example_seed_prints_the_seed_figures():
    out = cli("example", "seed")
    assert out.returncode == 0, out.stderr
    assert "policy static: makespan 11 ticks, throughput 1 tokens/tick, padding waste 5" in out.stdout
    assert "policy continuous: makespan 8 ticks, throughput 1.375 tokens/tick, padding waste 0" in out.stdout
    runs = json.loads(cli("example", "seed", "--json").stdout)
    ttft_c = {policy: next(r["ttft"] for r in run["requests"] if r["name"] == "C") for policy, run in runs.items()}
    assert ttft_c == {"static": 5, "continuous": 2}


def test_main_in_process_gives_the_collector_back(capsys):
    """main() runs with the cycle collector off, and a caller in process finds it as it was: on, or still off."""
    import gc

    from sim.cli import main

    assert gc.isenabled()
    try:
        assert main(["example", "seed"]) == 0
        assert gc.isenabled()
        assert main(["run", "--trace", "no-such-file.csv"]) == 2  # (an error's way out too)
        assert gc.isenabled()
        gc.disable()
        assert main(["example", "seed"]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert "policy continuous: makespan 8 ticks" in capsys.readouterr().out


def test_run_json_has_every_field(tmp_path):
    path = write(tmp_path, "name,arrival,prompt,output\nA,0,4,5\nB,0,2,2\nC,3,3,4\n")
    out = cli("run", "--trace", path, "--policy", "continuous", "--token-budget", "8", "--slo-ttft", "2",
              "--json")
    run = json.loads(out.stdout)
    assert {"policy", "makespan", "padding_waste", "throughput", "utilization", "goodput", "requests",
            "steps"} <= set(run)
    assert run["goodput"]["requests"] == 3
    a = run["requests"][0]
    assert {"name", "arrival", "prompt", "output", "queue_time", "ttft", "tpot", "e2e", "completion",
            "emitted"} <= set(a)
    assert a["emitted"] == [2, 3, 4, 5, 6]
    assert run["steps"][0] == {"start": 0, "end": 1, "running": ["A", "B"], "prefill_tokens": 6,
                               "decode_tokens": 0, "padding_tokens": 0}
    for step in run["steps"]:
        assert step["prefill_tokens"] + step["decode_tokens"] + step["padding_tokens"] <= 8


def test_run_json_keeps_full_precision(tmp_path):
    """--json rounds nothing: every figure is the metric itself (only the text tables round)."""
    from sim.core.config import Config, CostModel
    from sim.core.engine import simulate
    from sim.report.metrics import compute
    from sim.trace.trace import read_csv

    path = write(tmp_path, "name,arrival,prompt,output\nA,0,4,5\nB,0,2,2\nC,3,3,4\n")
    out = cli("run", "--trace", path, "--policy", "continuous", "--token-budget", "8", "--cost-model", "linear",
              "--json")
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    m = compute(simulate(read_csv(Path(path).read_text()), Config(8, cost=CostModel("linear")), "continuous"))
    assert run["throughput"] == m.throughput and run["makespan"] == m.makespan
    assert run["utilization"] == m.utilization and run["request_throughput"] == m.request_throughput
    assert [r["tpot"] for r in run["requests"]] == [r.tpot for r in m.requests]
    assert run["percentiles"]["ttft"] == {f"p{q}": v for q, v in m.percentiles["ttft"].items()}
    assert round(run["throughput"], 6) != run["throughput"]  # a figure that six decimals would have cut


def test_a_text_column_stands_in_for_the_prompt(tmp_path):
    """A trace may give each prompt as text: its length is its UTF-8 byte count (the real model's tokens)."""
    path = write(tmp_path, 'name,arrival,output,text\nA,0,3,"def f(x):"\nB,1,2,héllo\n')
    out = cli("run", "--trace", path, "--token-budget", "16", "--json")
    assert out.returncode == 0, out.stderr
    assert [(r["name"], r["prompt"]) for r in json.loads(out.stdout)["requests"]] == [("A", 9), ("B", 6)]
    bad = cli("run", "--trace", write(tmp_path, "name,arrival,output,text\nA,0,3,\n", "bad.csv"),
              "--token-budget", "16")
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("error: row 1, request 'A', column 'prompt': is empty, and so is the text "
                                  "that could stand in for it")


def test_run_reads_an_azure_file_with_options(tmp_path):
    azure = ("TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46.6805900,374,44\r\n"
             "2023-11-16 18:15:50.9951690,396,109\r\n2023-11-16 18:15:51.2224670,0,55")
    out = cli("run", "--trace", write(tmp_path, azure), "--format", "azure", "--token-budget", "8",
              "--token-scale", "0.01", "--ms-per-tick", "100", "--json")
    assert out.returncode == 0, out.stderr
    run = json.loads(out.stdout)
    assert [(r["arrival"], r["prompt"], r["output"]) for r in run["requests"]] == [(0, 4, 0 + 1), (43, 4, 1)]
    assert "dropped" in out.stderr.lower()


@pytest.mark.parametrize(("text", "args", "needle"), [
    ("name,arrival,prompt,output\nA,0,-4,5\n", [], "row 1, request 'A', column 'prompt': must be at least 1"),
    ("name,arrival,prompt,output\nA,0,0,5\n", [], "column 'prompt': must be at least 1, got 0"),
    ("name,arrival,prompt,output\nA,,4,5\n", [], "column 'arrival': is empty"),
    ("name,arrival,prompt,output\nA,0,4,2.5\n", [], "column 'output': must be a whole number"),
    ("name,arrival,prompt,output\nA,0,4,5\nA,1,2,2\n", [], "row 2, request 'A', column 'name': repeats"),
    ("name,arrival,output\nA,0,5\n", [], "column 'prompt': the column is missing"),
    ("name,arrival,prompt,output\nA,0,40,5\n", [], "larger than the token budget 8"),
    ("name,arrival,prompt,output\nA,0,4,5\n", ["--max-seqs", "0"], "max_seqs"),
    ("name,arrival,prompt,output\nA,0,4,5\n", ["--policy", "magic"], "invalid choice"),
    ("\x00\x01binary", [], "binary"),
    ("", [], "empty"),
])
def test_bad_input_exits_2_with_one_line(tmp_path, text, args, needle):
    out = cli("run", "--trace", write(tmp_path, text), "--token-budget", "8", *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr


def test_unreadable_file_exits_2(tmp_path):
    out = cli("run", "--trace", str(tmp_path / "missing.csv"), "--token-budget", "8")
    assert out.returncode == 2 and "cannot read trace" in out.stderr and "Traceback" not in out.stderr


def test_generate_then_run_round_trip(tmp_path):
    path = tmp_path / "gen.json"
    assert cli("generate", "--n", "50", "--rate", "0.5", "--burstiness", "0.5", "--out", str(path)).returncode == 0
    out = cli("run", "--trace", str(path), "--token-budget", "8", "--policy", "static")
    assert out.returncode == 0 and "policy static" in out.stdout


def test_cli_imports_no_heavy_libraries(tmp_path):
    code = ("import sys, sim.cli as m; m.main(['example', 'seed']); "
            "print(sorted({'torch', 'streamlit', 'plotly', 'numpy', 'pandas'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_text_summary_shows_a_dash_where_a_cancelled_request_has_no_tpot(tmp_path):
    # a request stopped after its first token has no TPOT, E2E or completion: the table says "-", not a traceback
    out = cli("run", "--trace", write(tmp_path, "name,arrival,prompt,output,cancel_at\na,0,4,9,3\nb,0,2,3,\n"),
              "--token-budget", "8")
    assert out.returncode == 0, out.stderr
    row = next(line.split() for line in out.stdout.splitlines() if line.split()[:1] == ["a"])
    assert row[6:] == ["-", "-", "-", "cancelled"]
