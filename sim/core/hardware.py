"""Real GPUs and real models as data, and the roofline that times an iteration on them (issue 30).

A GPU is its datasheet's figures; a model is its public config's. The roofline's time for one iteration is that
of its matrix multiplications, the slower of their FLOPs at the GPU's dense peak and their weights read once from
HBM, then that of its prefills' and its decoders' attention, each the slower of its FLOPs and the KV cache it
reads and writes, all at an efficiency below the peak, plus the tensor-parallel all-reduces over the
interconnect. No data is downloaded: every figure is here, with its source.

What the roofline leaves out, and so where it is optimistic: kernel launches and the engine's own time between
iterations (CUDA graphs hide much of it in decode), attention kernels that read the KV cache slower than a stream
of weights, small batches whose matrix multiplications do not reach the efficiency of large ones, and activations'
memory traffic. The README's "A real GPU" section says how close it comes to published figures.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class GPU:
    """One accelerator's datasheet: dense tensor-core peaks (TFLOP/s; no structured sparsity), HBM (GB and
    GB/s, 1 GB = 1e9 bytes), the interconnect between GPUs of one server (GB/s, both directions together, as the
    datasheets give it) and the latency of one small all-reduce over it (us)."""
    name: str
    bf16_tflops: float
    fp8_tflops: float | None  # None: no fp8 tensor cores
    memory_gb: float
    bandwidth_gb_s: float
    link_gb_s: float
    link: str
    allreduce_us: float
    source: str


# The all-reduce latency is not a datasheet figure: NCCL's small-message all-reduce takes about 10 us over NVLink or
# Infinity Fabric and about 30 us over PCIe in nccl-tests (an assumption of this model, stated in the README).
GPUS = {g.name: g for g in (
    GPU("A100-80GB", 312, None, 80, 2039, 600, "NVLink 3", 10,
        "NVIDIA A100 Tensor Core GPU datasheet (SXM, 80 GB): nvidia.com/content/dam/en-zz/Solutions/Data-Center/"
        "a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"),
    GPU("H100", 989, 1979, 80, 3350, 900, "NVLink 4", 10,
        "NVIDIA H100 Tensor Core GPU datasheet (SXM; the sparsity figures halved): resources.nvidia.com/"
        "en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"),
    GPU("H200", 989, 1979, 141, 4800, 900, "NVLink 4", 10,
        "NVIDIA H200 Tensor Core GPU datasheet (SXM; the sparsity figures halved): nvidia.com/en-us/data-center/h200"),
    GPU("L4", 121, 242.5, 24, 300, 64, "PCIe Gen4 x16", 30,
        "NVIDIA L4 Tensor Core GPU datasheet (the sparsity figures halved): resources.nvidia.com/"
        "en-us-data-center-overview/l4-gpu-datasheet"),
    GPU("MI300X", 1307.4, 2614.9, 192, 5300, 896, "Infinity Fabric (7 links)", 10,
        "AMD Instinct MI300X data sheet (dense figures): amd.com/content/dam/amd/en/documents/instinct-tech-docs/"
        "data-sheets/amd-instinct-mi300x-data-sheet.pdf"),
)}


@dataclass(frozen=True, slots=True)
class Model:
    """A decoder-only transformer's public config (Hugging Face config.json names in brackets): layers
    [num_hidden_layers], hidden size [hidden_size], attention heads [num_attention_heads], KV heads
    [num_key_value_heads], the MLP's intermediate size [intermediate_size], vocabulary [vocab_size], and for a
    mixture of experts the experts [num_local_experts] and how many each token uses [num_experts_per_tok]. Every
    model here has a gated MLP (three matrices) and separate input and output embeddings."""
    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    experts: int = 0
    top_k: int = 0
    source: str = ""

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def attention_params(self) -> int:
        """One layer's attention weights: Q and O (hidden x hidden), K and V (hidden x kv_heads x head_dim)."""
        return 2 * self.hidden * self.hidden + 2 * self.hidden * self.kv_heads * self.head_dim

    @property
    def mlp_params(self) -> int:
        """One expert's (or a dense layer's) gated MLP: gate, up and down projections."""
        return 3 * self.hidden * self.intermediate

    @property
    def params(self) -> int:
        """Every weight: the layers (each with all its experts, the router and two RMSNorms), the final norm and
        both embeddings: the count the model's card gives (Llama-3.1-8B 8,030,261,248)."""
        experts = max(self.experts, 1)
        layer = self.attention_params + experts * self.mlp_params + self.experts * self.hidden + 2 * self.hidden
        return self.layers * layer + self.hidden + 2 * self.vocab * self.hidden

    @property
    def active_params(self) -> int:
        """The weights one token's matrix multiplications use, without the embedding lookup: its layers (top_k
        experts of a mixture) and the output projection to the vocabulary."""
        layer = self.attention_params + max(self.top_k, 1) * self.mlp_params + self.experts * self.hidden
        return self.layers * layer + self.vocab * self.hidden

    def kv_bytes_per_token(self, dtype_bytes: float) -> float:
        """KV cache a token takes over all layers (K and V), in bytes."""
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes


def _hf(repo: str) -> str:
    return f"huggingface.co/{repo}/blob/main/config.json"


MODELS = {m.name: m for m in (
    Model("Llama-3.1-8B", 32, 4096, 32, 8, 14336, 128256, source=_hf("meta-llama/Llama-3.1-8B")),
    Model("Llama-3.1-70B", 80, 8192, 64, 8, 28672, 128256, source=_hf("meta-llama/Llama-3.1-70B")),
    Model("Llama-2-70B", 80, 8192, 64, 8, 28672, 32000, source=_hf("meta-llama/Llama-2-70b-hf")),
    Model("Llama-2-7B", 32, 4096, 32, 32, 11008, 32000, source=_hf("meta-llama/Llama-2-7b-hf")),
    Model("Qwen2.5-7B", 28, 3584, 28, 4, 18944, 152064, source=_hf("Qwen/Qwen2.5-7B")),
    Model("Mixtral-8x7B", 32, 4096, 32, 8, 14336, 32000, experts=8, top_k=2,
          source=_hf("mistralai/Mixtral-8x7B-v0.1")),
)}

DTYPES = {"bf16": 2, "fp8": 1}  # bytes a weight and a KV cache entry take
# The share of the peaks a forward pass reaches, from Vidur's own A100 profile of Llama-2-70B's layers
# (github.com/microsoft/vidur, data/profiling/compute/a100/meta-llama/Llama-2-70b-hf/mlp.csv, medians at tensor
# parallel 1 and 2): a layer's four projections run at 68-77% of the dense bf16 peak at 512-4,096 tokens, and
# stream their weights at 71-79% of the HBM bandwidth at 1-64 tokens (57% near the ridge, at 128). The roofline
# takes 0.7 and 0.75 for every GPU: an assumption where no profile was measured.
COMPUTE_EFFICIENCY = 0.7
MEMORY_EFFICIENCY = 0.75


@dataclass(frozen=True, slots=True)
class Roofline:
    """The constants one (GPU, model, tensor parallel, dtype) needs to time an iteration, per GPU."""
    flops_per_token: float  # the active weights' matrix multiplications, per GPU
    head_flops: float  # of which the output projection's, which only a sequence's sampled row pays
    attention_flops: float  # QK^T and PV for one query token and one key, per GPU
    weight_bytes: float  # dense weights (attention, embeddings, router) read once an iteration, per GPU
    expert_bytes: float  # one expert of one layer, per GPU (0: dense: the MLP is in weight_bytes)
    kv_bytes: float  # one token's KV over all layers, per GPU
    compute_rate: float  # FLOP/ms at the efficiency
    memory_rate: float  # bytes/ms at the efficiency
    allreduce_ms: float  # two all-reduces a layer: their latency (0 without tensor parallelism)
    allreduce_ms_per_token: float  # and their volume, a token of the batch
    experts: int
    top_k: int
    layers: int

    def time(self, tokens: int, sampled: int, prefill: tuple[float, float] = (0, 0),
             decode: tuple[float, float] = (0, 0)) -> float:
        """One iteration in ms: `tokens` token rows through the layers (prefill, decode and padding rows), `sampled`
        of them through the output projection (each sequence's last), and the attention of its prefill chunks and
        of its decoders, each given as (query-key pairs, tokens of KV read or written). The matrix
        multiplications, the prefills' attention and the decoders' attention are kernels that run one after the
        other (as Vidur times them, and vLLM's engines before FlashAttention's one varlen call), each as slow as
        the slower of its FLOPs and its bytes: a decode's KV read is not hidden under a prefill's compute."""
        flops = self.flops_per_token * tokens - self.head_flops * (tokens - sampled)
        weights = self.weight_bytes
        if self.experts:  # the experts some token of the batch uses (routing uniform: the expected count a layer)
            weights += self.expert_bytes * self.layers * self.experts * (1 - (1 - self.top_k / self.experts) ** tokens)
        total = max(flops / self.compute_rate, weights / self.memory_rate)
        for keys, kv in (prefill, decode):
            if keys or kv:
                total += max(self.attention_flops * keys / self.compute_rate, self.kv_bytes * kv / self.memory_rate)
        return total + self.allreduce_ms + self.allreduce_ms_per_token * tokens


class HardwareError(ValueError):
    """A GPU, model or dtype that is not in the tables, or a model that cannot fit; the text says which."""


def gpu(name: str) -> GPU:
    if name not in GPUS:
        raise HardwareError(f"unknown GPU {name!r}: one of {', '.join(GPUS)}")
    return GPUS[name]


def model(name: str) -> Model:
    if name not in MODELS:
        raise HardwareError(f"unknown model {name!r}: one of {', '.join(MODELS)}")
    return MODELS[name]


def peak_tflops(g: GPU, dtype: str) -> float:
    if dtype == "fp8":
        if g.fp8_tflops is None:
            raise HardwareError(f"the {g.name} has no fp8 tensor cores: use bf16")
        return g.fp8_tflops
    return g.bf16_tflops


@cache
def roofline(gpu_name: str, model_name: str, tp: int, dtype: str) -> Roofline:
    """The per-GPU constants of `model_name` split over `tp` GPUs (tensor parallel: every matrix split, the KV
    heads split, or each kept whole on every GPU when there are fewer heads than GPUs) of `gpu_name`, in `dtype`
    (weights and the KV cache in its bytes; all-reduces carry bf16 activations)."""
    g, m = gpu(gpu_name), model(model_name)
    size = DTYPES[dtype]
    dense_mlp = 0 if m.experts else m.mlp_params
    dense_weights = m.layers * (m.attention_params + dense_mlp + m.experts * m.hidden) + 2 * m.vocab * m.hidden
    kv_heads_per_gpu = math.ceil(m.kv_heads / tp)
    ring = 2 * (tp - 1) / tp  # a ring all-reduce sends each byte this many times over the link, one direction
    one_way = g.link_gb_s / 2 * 1e6  # bytes/ms one direction
    per_token = 2 * m.layers * ring * m.hidden * 2 / one_way if tp > 1 else 0.0
    return Roofline(
        flops_per_token=2 * m.active_params / tp,
        head_flops=2 * m.vocab * m.hidden / tp,
        attention_flops=4 * m.layers * m.heads * m.head_dim / tp,
        weight_bytes=dense_weights * size / tp,
        expert_bytes=m.mlp_params * size / tp if m.experts else 0.0,
        kv_bytes=2 * m.layers * kv_heads_per_gpu * m.head_dim * size,
        compute_rate=peak_tflops(g, dtype) * 1e9 * COMPUTE_EFFICIENCY,
        memory_rate=g.bandwidth_gb_s * 1e6 * MEMORY_EFFICIENCY,
        allreduce_ms=2 * m.layers * g.allreduce_us / 1000 if tp > 1 else 0.0,
        allreduce_ms_per_token=per_token,
        experts=m.experts, top_k=m.top_k, layers=m.layers)


def weights_per_gpu(model_name: str, tp: int, dtype: str) -> float:
    """Bytes of weights each of `tp` GPUs holds (every matrix and both embeddings split over them)."""
    return model(model_name).params * DTYPES[dtype] / tp


def kv_blocks(gpu_name: str, model_name: str, tp: int, dtype: str, block_size: int, utilization: float) -> int:
    """The KV cache's blocks (of `block_size` tokens) that fit in what the weights leave of `utilization` of each
    GPU's memory, as vLLM's --gpu-memory-utilization sizes it (without its profiled activation memory)."""
    g, m = gpu(gpu_name), model(model_name)
    weights = weights_per_gpu(model_name, tp, dtype)
    usable = g.memory_gb * 1e9 * utilization - weights
    if usable <= 0:
        raise HardwareError(f"{m.name} in {dtype} needs {weights / 1e9:.1f} GB of weights on each of {tp} GPU(s), "
                            f"more than {utilization:g} of the {g.name}'s {g.memory_gb:g} GB: raise --tp "
                            f"or --gpu-memory-utilization")
    return int(usable // (roofline(gpu_name, model_name, tp, dtype).kv_bytes * block_size))
