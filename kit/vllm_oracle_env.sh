#!/usr/bin/env bash
# Builds the separate virtual environment that runs vLLM's own V1 scheduler as an oracle (kit/vllm_oracle.py,
# tests/test_vllm_oracle.py), and prints the interpreter to set as VLLM_ORACLE_PYTHON.
#
# Usage: kit/vllm_oracle_env.sh [venv path, default .vllm-oracle] [folder holding the vllm 0.33.0 wheel]
# The README's test command runs it before the tests: the first time it builds the environment (a 336 MB wheel and
# about 25 packages, 1-2 minutes), later it only checks that it works. tests/test_vllm_oracle.py finds
# .vllm-oracle/ itself; VLLM_ORACLE_PYTHON names another interpreter.
#
# Why a separate environment: vLLM pins a CUDA torch, transformers, fastapi and some eighty more packages; the
# project needs none of them, and the oracle needs only what importing vllm.v1.core.sched.scheduler pulls in.
# So the vLLM wheel goes in with --no-deps, torch is the CPU build on this disk (torch==2.13.0; vLLM asks for
# 2.14.0, a CUDA build, but the scheduler never touches a tensor kernel), and the rest is the list below: each
# package was found by importing the scheduler in an empty environment and adding what was missing, one at a
# time. Each is pinned to a release inside the range vLLM 0.33.0's metadata asks for; pip installs their own
# dependencies as usual. vLLM's compiled vllm._C does not load against this torch: the scheduler does not need
# it (vLLM logs a warning and goes on).
set -euo pipefail

VENV="${1:-.vllm-oracle}"
WHEELS="${2:-/tmp/vllmwheel}"
PYTHON="${PYTHON:-python3}"
DRIVER="$(dirname "$0")/vllm_oracle.py"

# Whether the environment runs the oracle: the driver (which imports vLLM's scheduler) runs a one-request trace;
# `works quiet` says nothing, `works` shows what failed.
works() {
    local errors=/dev/stderr
    [ "${1:-}" = quiet ] && errors=/dev/null
    [ -x "$VENV/bin/python" ] || return 1
    echo '{"requests": [{"name": "a", "arrival": 0, "prompt": 5, "output": 2}], "token_budget": 4, "max_seqs": 2,
           "kv_blocks": 8, "block_size": 4, "prefix_cache": true}' \
        | VLLM_LOGGING_LEVEL=ERROR "$VENV/bin/python" "$DRIVER" >/dev/null 2>"$errors"
}

# Built before (the README's test command runs this each time): nothing to do.
if works quiet; then
    echo "export VLLM_ORACLE_PYTHON=$(cd "$VENV" && pwd)/bin/python"
    exit 0
fi
echo "building the vLLM oracle's environment in $VENV (vLLM goes in without its dependencies: pip's warnings" \
     "that some are missing are expected)" >&2

# The wheel: a copy in $WHEELS, or downloaded from PyPI (vLLM's files only, no dependencies).
WHEEL=$(ls "$WHEELS"/vllm-0.33.0-*.whl 2>/dev/null | head -n 1 || true)
if [ -z "$WHEEL" ]; then
    mkdir -p "$WHEELS"
    "$PYTHON" -m pip download --quiet --no-deps --dest "$WHEELS" vllm==0.33.0
    WHEEL=$(ls "$WHEELS"/vllm-0.33.0-*.whl | head -n 1)
fi

"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
"${PIP[@]}" --no-deps "$WHEEL"
"${PIP[@]}" torch==2.13.0  # the CPU file on this disk; an unpinned torch pulls gigabytes of CUDA packages

# What `import vllm.v1.core.sched.scheduler` (and the driver's VllmConfig, Request, ModelRunnerOutput) needs:
NEEDED=(
    packaging==26.4              # vllm.utils.torch_version compares torch's version
    pydantic==2.14.4             # every vllm.config class is a pydantic dataclass
    regex==2026.11.19            # vllm.utils (argument and name parsing)
    numpy==2.4.6                 # vllm.sampling_params, the scheduler's bitmasks
    cbor2==6.3.0                 # vllm.utils.hashing: the prefix cache's block hashes (sha256 of CBOR)
    psutil==7.2.2                # vllm.utils.system_utils
    pyzmq==27.3.0                # vllm.distributed (kv_events), imported by the scheduler
    urllib3==2.8.0               # vllm.connections
    transformers==5.20.2         # vllm.config (model and tokenizer config types); vLLM asks <5.21
    aiohttp==3.14.5              # vllm.connections
    requests==2.34.2             # vllm.connections
    openai-harmony==0.0.8        # vllm.entrypoints' harmony utils, reached from vllm.config (module openai_harmony)
    openai==3.57.0               # vllm.entrypoints.openai protocol types, reached from vllm.config
    pillow==13.0.0               # vllm.multimodal, imported by the scheduler
    pybase64==1.5.1              # vllm.multimodal's media decoding
    cachetools==8.0.2            # vllm.multimodal caches
    msgspec==0.23.0              # vllm.v1.engine (EngineCoreOutputs are msgspec structs)
    cloudpickle==3.1.3           # vllm.v1.serial_utils
    uvloop==0.23.0               # vllm.utils async helpers
    py-cpuinfo==9.0.0            # vllm.platforms.cpu (the oracle runs on the CPU platform)
    prometheus_client==0.26.0    # vllm.v1.metrics
    xgrammar==0.2.8              # vllm.v1.structured_output (the scheduler holds a StructuredOutputManager)
    fastapi==0.136.3             # vllm.entrypoints, reached from vllm.v1.structured_output; vLLM asks <0.137
    partial-json-parser==0.2.1.1.post7  # vllm.entrypoints' tool parsers, same path
    llguidance==1.7.6            # vllm.v1.structured_output backends; vLLM asks <1.8
)
"${PIP[@]}" "${NEEDED[@]}"

# The check that the list is enough.
if ! works; then
    echo "the environment in $VENV does not run vLLM's scheduler: see kit/vllm_oracle_env.sh's list" >&2
    exit 1
fi

echo "export VLLM_ORACLE_PYTHON=$(cd "$VENV" && pwd)/bin/python"
