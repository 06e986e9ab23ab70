/*
 * validate_serving.c — the serving model (docs/model.md §6) against published serving figures:
 * the TensorRT-LLM max-throughput table for Llama 3.1 8B FP8 on H100 and H200 (the "trtllm"
 * profile's two constants were fitted on it), and the VESSL AI blog's Gemma-4-31B serving figures,
 * some of which the "vessl-gemma4" profile was fitted on (fitted_on says which). Every row states the
 * deployment it predicts; the metric differs by row (tok/s, ms, sequences, a ratio or a gain),
 * so each row's error is predicted/published − 1 in its own unit.
 */
#include "analysis/analysis.h"
#include "model/infer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* TensorRT-LLM docs/source/performance/perf-overview.md @ 00f37686, "Llama 3.1 8B FP8", TP 1:
 * total output tokens/s, trtllm-bench at infinite request rate, fixed ISL = OSL, 3,000 requests,
 * KV fraction 0.90-0.95, ModelOpt FP8 checkpoint (FP8 weights and KV cache). */
#define TRTLLM "NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @ 00f37686 (Llama 3.1 8B FP8, TP1)"
#define VESSL "VESSL AI blog 'A100 vs H100 vs B200 for LoRA fine-tuning and inference: a cost benchmark' (vLLM, Gemma-4-31B, LoRA r16)"

typedef enum {
    M_SAT_TOKS,   /* saturated output tokens/s of the deployment */
    M_BENCH_TOKS, /* output tokens/s of trtllm-bench's offline run, simulated (bench_toks) */
    M_TOKS_AT,    /* output tokens/s at concurrency c */
    M_TPOT_AT,    /* TPOT (ms) at concurrency c */
    M_SEQS_SAT,   /* max concurrency C_sat */
    M_KV_GB,      /* KV memory per GPU, GB */
    M_RATIO_A100, /* output tokens/s at c over the A100's (bf16/bf16) at c */
    M_MTP_GAIN,   /* output tokens/s with draft k over draft k-1, minus 1, at c */
    M_DECODE_TOKS, /* output tokens/s per GPU of a disaggregated decode instance at c sequences a rank */
    M_TOKS_GPU_AT, /* output tokens/s per GPU at concurrency c */
    M_SPEED1       /* one request at a time: (prompt + output tokens) / (TTFT + (output - 1) x TPOT) */
} metric;

typedef struct scase {
    const char *id, *source, *model, *system;
    int gpus;
    gpuecon_precision w, kv;
    double prompt, output;
    bool vessl;   /* the blog's setup: profile vessl-gemma4, LoRA r16, legacy engine */
    int draft_k;  /* with acceptance rate 0.828 (k=1), 0.73 (k=2) or the α of k=2 (k=3) */
    metric m;
    double c;
    double published;
    bool fit;
    int tp;       /* tensor-parallel degree of a replica (MoE: experts EP = tp; the EP group with adp) */
    bool adp;     /* MoE attention data-parallel with the experts EP over the tp GPUs */
    int prefill;  /* M_DECODE_TOKS: GPUs of the published prefill instance (attention-DP) */
    const char *stack; /* serving engine stack of the catalog (NULL: trtllm, or the blog's profile) */
    bool ep1;     /* MoE experts sliced over the TP group (EP 1, the run's setting), not spread whole */
} scase;

/* The rest of the same table, held out of every fit: each model at its published layout, FP8 KV
 * cache with FP8 and FP4 (NVFP4) checkpoints alike. The layout is the table's TP; for the MoE
 * models (Qwen3-235B-A22B, Llama 4 Maverick) the header's TP8 with the experts EP8 inside the TP
 * group, as `trtllm-bench --tp --ep` names it, and no attention-DP. The page's MoE llm_options.yml
 * nests enable_attention_dp inside cuda_graph_config, a StrictBaseModel that forbids extra fields
 * (tensorrt_llm/llmapi/llm_args.py), so that file as printed is rejected and the record of
 * attention-DP is inconsistent; the header and the command are not. Every MoE row takes the same
 * layout (docs/model.md §6.8 gives what attention-DP would predict: 2–3x too fast). */
#define TRTALL "NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @ 00f37686 (trtllm-bench, PyTorch backend)"
#define TRT(id, model, sys, gpus, w, isl, osl, pub, adp)                                                             \
    {id, TRTALL, model, sys, gpus, w, GPUECON_FP8, isl, osl, false, 0, M_BENCH_TOKS, 0, pub, false, gpus, adp, 0, NULL, false}
/* The page's RTX PRO 6000 Blackwell Server Edition tables (8 GPUs on PCIe, no NVLink): TP t x PP p
 * on t·p GPUs, one replica, held out like the rest (pcases below), run as the benchmark runs. */
#define TRTPP(id, model, sys, tp, pp, w, isl, osl, pub)                                                              \
    {{id, TRTALL, model, sys, (tp) * (pp), w, GPUECON_FP8, isl, osl, false, 0, M_BENCH_TOKS, 0, pub, false, tp, false, 0, NULL, false}, pp}
#define F8 GPUECON_FP8
#define F4 GPUECON_FP4

/* Engine benchmarks at small and moderate concurrency, each run with the engine's stack
 * (docs/model.md §6.15). SemiAnalysis's InferenceMAX harness (SemiAnalysisAI/InferenceX, its
 * benchmark bot's issues): random prompts of fixed length, ignore_eos, max_concurrency c, one
 * server; TPOT is the mean, throughput output tokens/s per GPU. gpt-oss-120b in MXFP4 with vLLM's
 * default KV cache (BF16, our reading of the harness: no --kv-cache-dtype); DeepSeek-R1-0528 in FP8
 * (H200) or NVFP4 (B200, FP8 KV) with SGLang at TP 8, EP 1. fit: the rows the stacks' fitted
 * constants were read on (kernel_us: SGLang at 8; sched_us: vLLM TP8 at 4) and the runs that
 * decided where the routed experts' grouped-GEMM bandwidth applies (SGLang at 64: adopted; vLLM
 * TP2 and TP4 at 64: not adopted). */
#define IMX828 "SemiAnalysisAI/InferenceX issue #828 (benchmark bot, 2026-03-01: gpt-oss-120b MXFP4, H100, vLLM, 1k/1k)"
/* the same run's other lengths at TP 8 (its table: 1k/8k at 4-64 in flight, 8k/1k at 4 and 8), held out:
   added 7 December 2026 after every constant of the vllm-v1 stack was set, and read by nothing */
#define IMX828L "SemiAnalysisAI/InferenceX issue #828 (benchmark bot, 2026-03-01: gpt-oss-120b MXFP4, H100, vLLM, TP8, 1k/8k and 8k/1k)"
/* A GPU reference run outside NVIDIA's and SemiAnalysis's tables, held out: DeepSeek-R1-0528 in FP8 with
   SGLang on two 8-H100 servers over InfiniBand, one request at a time. The run does not state its
   layout: TP 16 over both servers is assumed (SGLang's documented two-node DeepSeek command), with the
   experts sliced (SGLang's default then), and it ran the SGLang release of July 2025, not the stack's
   2026 one. Two of its seven prompt lengths: the shortest and the longest. */
#define TT356 "tenstorrent/tt-inference-server issue #356 (GPU reference sweep, 2025-07-09: DeepSeek-R1-0528, 16 H100, SGLang over InfiniBand; TP 16 assumed)"
/* Qwen's own speed benchmark of the Qwen3 family (QwenLM/Qwen3 docs/source/getting_started/
   speed_benchmark.md @ c7f51a1a): SGLang 0.4.6.post1 on NVIDIA H20 96GB, one request at a time,
   2,048 tokens generated after the prompt, "speed" = (prompt + generated tokens) / time, the fewest
   GPUs (TP 8 for Qwen3-235B-A22B in BF16, TP 4 in FP8, experts sliced: SGLang's default then), BF16
   KV, SGLang's CUDA graphs, the benchmark's mem_fraction_static 0.85. Taken at three of its six
   prompt lengths: 1, 6,144 and 30,720 tokens (the decode-dominated end, the middle and the longest
   within the catalog's 40,960 positions; 63,488 and 129,024 need YaRN). At a one-token prompt the
   speed is 1/TPOT within 0.1% (the prompt is one decode-sized step): those rows are TPOT rows, TPOT =
   1000/speed ms. Held out of every fit; added 7 December 2026. */
#define QWEN3SB "QwenLM/Qwen3 docs/source/getting_started/speed_benchmark.md @ c7f51a1a (SGLang 0.4.6.post1, H20 96GB, one request, 2,048 tokens generated)"
#define Q3(id, model, gpus, w, p, m, pub) ENG1(id, QWEN3SB, model, "hgx-h20", gpus, gpus, w, BF, p, 2048, m, 1, pub, false, "sglang")
#define IMX870 "SemiAnalysisAI/InferenceX issue #870 (benchmark bot, 2026-03-05: DeepSeek-R1-0528 FP8, H200, SGLang v0.5.7, TP8 EP1, 1k/1k)"
#define IMXB200 "SemiAnalysisAI/InferenceX issue #870 (benchmark bot, 2026-03-06: DeepSeek-R1-0528-FP4-V2, B200, SGLang v0.5.6, TP8 EP8, 1k/1k)"
#define TRTDS "NVIDIA/TensorRT-LLM docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md @ 01c4ece9 (B200 max throughput)"
#define ENG(id, src, model, sys, gpus, tp, w, kv, isl, osl, m, c, pub, fit, stack, adp)                              \
    {id, src, model, sys, gpus, w, kv, isl, osl, false, 0, m, c, pub, fit, tp, adp, 0, stack, false}
/* the same with the experts sliced over the TP group (the run's EP 1) */
#define ENG1(id, src, model, sys, gpus, tp, w, kv, isl, osl, m, c, pub, fit, stack)                                 \
    {id, src, model, sys, gpus, w, kv, isl, osl, false, 0, m, c, pub, fit, tp, false, 0, stack, true}
#define BF GPUECON_BF16

/* Wide expert parallelism (docs/model.md §6.5, §6.13), held out: SGLang's decode instance of 48
 * attention-DP ranks on a GB200 NVL72 serving DeepSeek-R1-0528 (DeepSeek-V3's architecture) with 32
 * redundant experts placed by EPLB, saturated ("slow-down" until the running requests reach the
 * CUDA-graph batch, then timed): 9,087 output tok/s per decode GPU with FP8 GEMMs and BF16 KV (768
 * requests a rank, prefill on 8 GPUs), 13,386 with NVFP4 experts and FP8 KV (1,408 a rank, prefill
 * on 4). 2,000-token prompts; the outputs are not published (the context is capped at 2,176): 100
 * assumed. The FP4 run keeps its attention GEMMs in FP8 (SGLANG_NVFP4_CKPT_FP8_GEMM_IN_ATTN), which
 * the model's one weight precision cannot say: it reads them as FP4. Run with the default (generic)
 * serving profile: no SGLang preset informed it. */
#define LMSYS2 "LMSYS blog 2025-09-25 'Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part II)'; decode commands in sgl-project/sglang issue #10903"

static const scase scases[] = {
    {"TRTLLM-H100-128", TRTLLM, "llama3-8b", "hgx-h100", 1, GPUECON_FP8, GPUECON_FP8, 128, 128, false, 0, M_BENCH_TOKS, 0, 28312, true, 1, false, 0, NULL, false},
    {"TRTLLM-H100-1000", TRTLLM, "llama3-8b", "hgx-h100", 1, GPUECON_FP8, GPUECON_FP8, 1000, 1000, false, 0, M_BENCH_TOKS, 0, 15220, true, 1, false, 0, NULL, false},
    {"TRTLLM-H100-2048", TRTLLM, "llama3-8b", "hgx-h100", 1, GPUECON_FP8, GPUECON_FP8, 2048, 2048, false, 0, M_BENCH_TOKS, 0, 9305, true, 1, false, 0, NULL, false},
    {"TRTLLM-H200-128", TRTLLM, "llama3-8b", "hgx-h200", 1, GPUECON_FP8, GPUECON_FP8, 128, 128, false, 0, M_BENCH_TOKS, 0, 27911, true, 1, false, 0, NULL, false},
    {"TRTLLM-H200-1000", TRTLLM, "llama3-8b", "hgx-h200", 1, GPUECON_FP8, GPUECON_FP8, 1000, 1000, false, 0, M_BENCH_TOKS, 0, 17744, true, 1, false, 0, NULL, false},
    {"TRTLLM-H200-2048", TRTLLM, "llama3-8b", "hgx-h200", 1, GPUECON_FP8, GPUECON_FP8, 2048, 2048, false, 0, M_BENCH_TOKS, 0, 12194, true, 1, false, 0, NULL, false},
    /* A100 80 GB keeps about 10 GB for KV after the weights (bf16) */
    {"VESSL-A100-KV", VESSL, "gemma4-31b", "hgx-a100", 1, GPUECON_BF16, GPUECON_BF16, 230, 203, true, 0, M_KV_GB, 0, 10, false, 1, false, 0, NULL, false},
    /* default settings (the B200 and H100 in fp8 weights, bf16 KV), output tok/s over A100 */
    {"VESSL-B200/A100", VESSL, "gemma4-31b", "hgx-b200", 1, GPUECON_FP8, GPUECON_BF16, 230, 203, true, 0, M_RATIO_A100, 256, 10.2, false, 1, false, 0, NULL, false},
    {"VESSL-H100/A100", VESSL, "gemma4-31b", "hgx-h100", 1, GPUECON_FP8, GPUECON_BF16, 230, 203, true, 0, M_RATIO_A100, 256, 6.5, false, 1, false, 0, NULL, false},
    /* MTP on B200 (8 replicas, one sequence each): +53% / +16% / +7% for k = 1 / 2 / 3 */
    {"VESSL-MTP-k1", VESSL, "gemma4-31b", "hgx-b200", 8, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 1, M_MTP_GAIN, 8, 0.53, true, 1, false, 0, NULL, false},
    {"VESSL-MTP-k2", VESSL, "gemma4-31b", "hgx-b200", 8, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 2, M_MTP_GAIN, 8, 0.16, true, 1, false, 0, NULL, false},
    {"VESSL-MTP-k3", VESSL, "gemma4-31b", "hgx-b200", 8, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 3, M_MTP_GAIN, 8, 0.07, true, 1, false, 0, NULL, false},
    /* B200 LoRA + draft 2 + FP8 KV: 40,734 tok/s at 512 sequences, 52,759 beyond 8,000 */
    {"VESSL-B200-512", VESSL, "gemma4-31b", "hgx-b200", 8, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 2, M_TOKS_AT, 512, 40734, true, 1, false, 0, NULL, false},
    {"VESSL-B200-8192", VESSL, "gemma4-31b", "hgx-b200", 8, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 2, M_TOKS_AT, 8192, 52759, true, 1, false, 0, NULL, false},
    /* H100 saturates near 256 concurrent sequences (one replica) */
    {"VESSL-H100-sat", VESSL, "gemma4-31b", "hgx-h100", 1, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 0, M_SEQS_SAT, 0, 256, false, 1, false, 0, NULL, false},
    /* TPOT about 192 ms at 512 sequences, 331 ms at 1,024 (one H100 replica) */
    {"VESSL-TPOT-512", VESSL, "gemma4-31b", "hgx-h100", 1, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 0, M_TPOT_AT, 512, 192, false, 1, false, 0, NULL, false},
    {"VESSL-TPOT-1024", VESSL, "gemma4-31b", "hgx-h100", 1, GPUECON_FP8, GPUECON_FP8, 230, 203, true, 0, M_TPOT_AT, 1024, 331, false, 1, false, 0, NULL, false},
    /* held out: the rest of TensorRT-LLM's table at 128/128, 1000/1000 and 2048/2048 */
    TRT("TRT-L8-H100-128/4096", "llama3-8b", "hgx-h100", 1, F8, 128, 4096, 14325, false),
    TRT("TRT-L8-H100-5000/500", "llama3-8b", "hgx-h100", 1, F8, 5000, 500, 3459, false),
    TRT("TRT-L8-H200-128/4096", "llama3-8b", "hgx-h200", 1, F8, 128, 4096, 18027, false),
    TRT("TRT-L8-H200-5000/500", "llama3-8b", "hgx-h200", 1, F8, 5000, 500, 3902, false),
    TRT("TRT-L70-H100-128", "llama3-70b", "hgx-h100", 2, F8, 128, 128, 6378, false),
    TRT("TRT-L70-H100-1000", "llama3-70b", "hgx-h100", 2, F8, 1000, 1000, 4205, false),
    TRT("TRT-L70-H100-2048", "llama3-70b", "hgx-h100", 2, F8, 2048, 2048, 3082, false),
    TRT("TRT-L70-H200-128", "llama3-70b", "hgx-h200", 1, F8, 128, 128, 3803, false),
    TRT("TRT-L70-H200-1000", "llama3-70b", "hgx-h200", 1, F8, 1000, 1000, 2909, false),
    TRT("TRT-L70-H200-2048", "llama3-70b", "hgx-h200", 1, F8, 2048, 2048, 2003, false),
    TRT("TRT-L70-B200-128", "llama3-70b", "hgx-b200", 1, F4, 128, 128, 11147, false),
    TRT("TRT-L70-B200-1000", "llama3-70b", "hgx-b200", 1, F4, 1000, 1000, 7007, false),
    TRT("TRT-L70-B200-2048", "llama3-70b", "hgx-b200", 1, F4, 2048, 2048, 4783, false),
    TRT("TRT-L70-GB200-128", "llama3-70b", "gb200-nvl72", 1, F4, 128, 128, 12189, false),
    TRT("TRT-L70-GB200-1000", "llama3-70b", "gb200-nvl72", 1, F4, 1000, 1000, 7326, false),
    TRT("TRT-L70-GB200-2048", "llama3-70b", "gb200-nvl72", 1, F4, 2048, 2048, 5646, false),
    TRT("TRT-L405-H100-128", "llama3-405b", "hgx-h100", 8, F8, 128, 128, 3627, false),
    TRT("TRT-L405-H100-1000", "llama3-405b", "hgx-h100", 8, F8, 1000, 1000, 2919, false),
    TRT("TRT-L405-H100-2048", "llama3-405b", "hgx-h100", 8, F8, 2048, 2048, 2296, false),
    TRT("TRT-L405-H200-128", "llama3-405b", "hgx-h200", 8, F8, 128, 128, 3814, false),
    TRT("TRT-L405-H200-1000", "llama3-405b", "hgx-h200", 8, F8, 1000, 1000, 3330, false),
    TRT("TRT-L405-H200-2048", "llama3-405b", "hgx-h200", 8, F8, 2048, 2048, 2948, false),
    TRT("TRT-L405-B200-128", "llama3-405b", "hgx-b200", 4, F4, 128, 128, 6281, false),
    TRT("TRT-L405-B200-1000", "llama3-405b", "hgx-b200", 4, F4, 1000, 1000, 5209, false),
    TRT("TRT-L405-B200-2048", "llama3-405b", "hgx-b200", 4, F4, 2048, 2048, 4212, false),
    TRT("TRT-L405-GB200-128", "llama3-405b", "gb200-nvl72", 4, F4, 128, 128, 6740, false),
    TRT("TRT-L405-GB200-1000", "llama3-405b", "gb200-nvl72", 4, F4, 1000, 1000, 5389, false),
    TRT("TRT-L405-GB200-2048", "llama3-405b", "gb200-nvl72", 4, F4, 2048, 2048, 4407, false),
    TRT("TRT-Q235-H100-1000", "qwen3-235b-a22b", "hgx-h100", 8, F8, 1000, 1000, 14898, false),
    TRT("TRT-Q235-H100-2048", "qwen3-235b-a22b", "hgx-h100", 8, F8, 2048, 2048, 9924, false),
    TRT("TRT-Q235-H200-128", "qwen3-235b-a22b", "hgx-h200", 8, F8, 128, 128, 30429, false),
    TRT("TRT-Q235-H200-1000", "qwen3-235b-a22b", "hgx-h200", 8, F8, 1000, 1000, 23789, false),
    TRT("TRT-Q235-H200-2048", "qwen3-235b-a22b", "hgx-h200", 8, F8, 2048, 2048, 16672, false),
    TRT("TRT-Q235-B200-128", "qwen3-235b-a22b", "hgx-b200", 8, F4, 128, 128, 63362, false),
    TRT("TRT-Q235-B200-1000", "qwen3-235b-a22b", "hgx-b200", 8, F4, 1000, 1000, 42391, false),
    TRT("TRT-Q235-B200-2048", "qwen3-235b-a22b", "hgx-b200", 8, F4, 2048, 2048, 26854, false),
    TRT("TRT-L4M-H100-1000", "llama4-maverick", "hgx-h100", 8, F8, 1000, 1000, 9677, false),
    TRT("TRT-L4M-H100-2048", "llama4-maverick", "hgx-h100", 8, F8, 2048, 2048, 6916, false),
    TRT("TRT-L4M-H200-128", "llama4-maverick", "hgx-h200", 8, F8, 128, 128, 63994, false),
    TRT("TRT-L4M-H200-1000", "llama4-maverick", "hgx-h200", 8, F8, 1000, 1000, 31782, false),
    TRT("TRT-L4M-H200-2048", "llama4-maverick", "hgx-h200", 8, F8, 2048, 2048, 20957, false),
    TRT("TRT-L4M-B200-128", "llama4-maverick", "hgx-b200", 8, F4, 128, 128, 124323, false),
    TRT("TRT-L4M-B200-1000", "llama4-maverick", "hgx-b200", 8, F4, 1000, 1000, 79617, false),
    TRT("TRT-L4M-B200-2048", "llama4-maverick", "hgx-b200", 8, F4, 2048, 2048, 52195, false),
    {"SGL-DS-GB200-DEP48-F8", LMSYS2, "deepseek-v3", "gb200-nvl72", 48, F8, GPUECON_BF16, 2000, 100, false, 0,
     M_DECODE_TOKS, 768, 9087, false, 48, true, 8, NULL, false},
    {"SGL-DS-GB200-DEP48-F4", LMSYS2, "deepseek-v3", "gb200-nvl72", 48, F4, F8, 2000, 100, false, 0,
     M_DECODE_TOKS, 1408, 13386, false, 48, true, 4, NULL, false},
    /* vLLM V1 */
    ENG1("OSS-VLLM-H100-TP8-C4", IMX828, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 1024, M_TPOT_AT, 4, 3.72, true, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP8-C8", IMX828, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 1024, M_TPOT_AT, 8, 4.05, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP8-C16", IMX828, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 1024, M_TPOT_AT, 16, 4.83, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP8-C32", IMX828, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 1024, M_TPOT_AT, 32, 5.82, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP8-C64", IMX828, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 1024, M_TPOT_AT, 64, 7.36, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-1K8K-C4", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 8192, M_TPOT_AT, 4, 3.68, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-1K8K-C8", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 8192, M_TPOT_AT, 8, 4.00, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-1K8K-C16", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 8192, M_TPOT_AT, 16, 4.53, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-1K8K-C32", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 8192, M_TPOT_AT, 32, 5.65, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-1K8K-C64", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 1024, 8192, M_TPOT_AT, 64, 16.01, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-8K1K-C4", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 8192, 1024, M_TPOT_AT, 4, 3.95, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-8K1K-C8", IMX828L, "gpt-oss-120b", "hgx-h100", 8, 8, F4, BF, 8192, 1024, M_TPOT_AT, 8, 4.59, false, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP2-C64", IMX828, "gpt-oss-120b", "hgx-h100", 2, 2, F4, BF, 1024, 1024, M_TOKS_GPU_AT, 64, 2061.5, true, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP2-C64T", IMX828, "gpt-oss-120b", "hgx-h100", 2, 2, F4, BF, 1024, 1024, M_TPOT_AT, 64, 15.21, true, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP4-C64", IMX828, "gpt-oss-120b", "hgx-h100", 4, 4, F4, BF, 1024, 1024, M_TOKS_GPU_AT, 64, 1571.8, true, "vllm-v1"),
    ENG1("OSS-VLLM-H100-TP4-C64T", IMX828, "gpt-oss-120b", "hgx-h100", 4, 4, F4, BF, 1024, 1024, M_TPOT_AT, 64, 9.89, true, "vllm-v1"),
    /* SGLang */
    Q3("QWEN3-8B-H20-BF16-TPOT", "qwen3-8b", 1, BF, 1, M_TPOT_AT, 1000 / 81.73),
    Q3("QWEN3-8B-H20-FP8-TPOT", "qwen3-8b", 1, F8, 1, M_TPOT_AT, 1000 / 150.25),
    Q3("QWEN3-8B-H20-BF16-6K", "qwen3-8b", 1, BF, 6144, M_SPEED1, 296.25),
    Q3("QWEN3-8B-H20-FP8-6K", "qwen3-8b", 1, F8, 6144, M_SPEED1, 516.64),
    Q3("QWEN3-8B-H20-BF16-30K", "qwen3-8b", 1, BF, 30720, M_SPEED1, 832.67),
    Q3("QWEN3-8B-H20-FP8-30K", "qwen3-8b", 1, F8, 30720, M_SPEED1, 1242.24),
    Q3("Q3-30B-H20-BF16-TPOT", "qwen3-30b-a3b", 1, BF, 1, M_TPOT_AT, 1000 / 137.18),
    Q3("Q3-30B-H20-FP8-TPOT", "qwen3-30b-a3b", 1, F8, 1, M_TPOT_AT, 1000 / 155.55),
    Q3("Q3-30B-H20-BF16-6K", "qwen3-30b-a3b", 1, BF, 6144, M_SPEED1, 490.10),
    Q3("Q3-30B-H20-FP8-6K", "qwen3-30b-a3b", 1, F8, 6144, M_SPEED1, 551.34),
    Q3("Q3-30B-H20-BF16-30K", "qwen3-30b-a3b", 1, BF, 30720, M_SPEED1, 1283.94),
    Q3("Q3-30B-H20-FP8-30K", "qwen3-30b-a3b", 1, F8, 30720, M_SPEED1, 1405.91),
    Q3("Q3-235B-H20-BF16-TPOT", "qwen3-235b-a22b", 8, BF, 1, M_TPOT_AT, 1000 / 74.50),
    Q3("Q3-235B-H20-FP8-TPOT", "qwen3-235b-a22b", 4, F8, 1, M_TPOT_AT, 1000 / 71.65),
    Q3("Q3-235B-H20-BF16-6K", "qwen3-235b-a22b", 8, BF, 6144, M_SPEED1, 289.03),
    Q3("Q3-235B-H20-FP8-6K", "qwen3-235b-a22b", 4, F8, 6144, M_SPEED1, 275.16),
    Q3("Q3-235B-H20-BF16-30K", "qwen3-235b-a22b", 8, BF, 30720, M_SPEED1, 979.41),
    Q3("Q3-235B-H20-FP8-30K", "qwen3-235b-a22b", 4, F8, 30720, M_SPEED1, 887.90),
    ENG1("DSR1-SGL-2xH100-C1", TT356, "deepseek-v3", "hgx-h100", 16, 16, F8, BF, 128, 128, M_TPOT_AT, 1, 23.1, false, "sglang"),
    ENG1("DSR1-SGL-2xH100-C1-8K", TT356, "deepseek-v3", "hgx-h100", 16, 16, F8, BF, 8192, 128, M_TPOT_AT, 1, 24.0, false, "sglang"),
    ENG1("DSR1-SGL-H200-C8", IMX870, "deepseek-v3", "hgx-h200", 8, 8, F8, BF, 1024, 1024, M_TPOT_AT, 8, 12.8, true, "sglang"),
    ENG1("DSR1-SGL-H200-C16", IMX870, "deepseek-v3", "hgx-h200", 8, 8, F8, BF, 1024, 1024, M_TPOT_AT, 16, 17.2, false, "sglang"),
    ENG1("DSR1-SGL-H200-C32", IMX870, "deepseek-v3", "hgx-h200", 8, 8, F8, BF, 1024, 1024, M_TPOT_AT, 32, 25.6, false, "sglang"),
    ENG1("DSR1-SGL-H200-C64", IMX870, "deepseek-v3", "hgx-h200", 8, 8, F8, BF, 1024, 1024, M_TPOT_AT, 64, 34.6, true, "sglang"),
    ENG1("DSR1-SGL-H200-C64X", IMX870, "deepseek-v3", "hgx-h200", 8, 8, F8, BF, 1024, 1024, M_TOKS_GPU_AT, 64, 223.6, true, "sglang"),
    ENG("DSR1-SGL-B200-FP4-C4", IMXB200, "deepseek-v3", "hgx-b200", 8, 8, F4, F8, 1024, 1024, M_TPOT_AT, 4, 8.4, true, "sglang", false),
    ENG("DSR1-SGL-B200-FP4-C4X", IMXB200, "deepseek-v3", "hgx-b200", 8, 8, F4, F8, 1024, 1024, M_TOKS_GPU_AT, 4, 59.7, true, "sglang", false),
    ENG("DSR1-SGL-B200-FP4-C8X", IMXB200, "deepseek-v3", "hgx-b200", 8, 8, F4, F8, 1024, 1024, M_TOKS_GPU_AT, 8, 104.8, true, "sglang", false),
    ENG("DSR1-SGL-B200-FP4-C16X", IMXB200, "deepseek-v3", "hgx-b200", 8, 8, F4, F8, 1024, 1024, M_TOKS_GPU_AT, 16, 169.3, true, "sglang", false),
    ENG("DSR1-SGL-B200-FP4-C32X", IMXB200, "deepseek-v3", "hgx-b200", 8, 8, F4, F8, 1024, 1024, M_TOKS_GPU_AT, 32, 282.4, true, "sglang", false),
    /* TensorRT-LLM, DeepSeek-R1 with attention-DP at the offline maximum: NVFP4 with FP8 KV (the R1-0528
       checkpoint) and with 16-bit KV on B200, FP8 on H200; each run's own limits below (eng_limits).
       Fitted: all three were read to choose the attention-DP wait for the slowest rank (ADP1) and to
       weigh MLA attention, the grouped GEMM and the dispatch as the causes (docs/model.md §6.15) */
    ENG("DSR1-TRT-B200-FP4-MAX", TRTDS, "deepseek-v3", "hgx-b200", 8, 8, F4, F8, 1024, 2048, M_TOKS_GPU_AT, 7168, 5393.3, true, "trtllm", true),
    ENG("DSR1-TRT-B200-BF16KV", TRTDS, "deepseek-v3", "hgx-b200", 8, 8, F4, BF, 1024, 2048, M_TOKS_GPU_AT, 3072, 4548.0, true, "trtllm", true),
    ENG("DSR1-TRT-H200-FP8-MAX", TRTDS, "deepseek-v3", "hgx-h200", 8, 8, F8, BF, 1024, 2048, M_TOKS_GPU_AT, 1024, 1436.2, true, "trtllm", true),
};

/* The engine limits a published run set itself (its command line and extra_llm_api_options): per
 * attention-DP rank max_batch_size and max_num_tokens, the KV-cache memory fraction, and the largest
 * CUDA-graph batch (the blog's cuda_graph_config batch_sizes). */
static const struct {
    const char *id;
    int max_seqs, max_tokens, graph_bs;
    double mem_frac;
} eng_limits[] = {
    {"DSR1-TRT-B200-FP4-MAX", 896, 2048, 896, 0.93},
    {"DSR1-TRT-B200-BF16KV", 384, 1536, 384, 0.85},
    {"DSR1-TRT-H200-FP8-MAX", 128, 1151, 128, 0.80},
};

/* trtllm-bench's own max_batch_size and max_num_tokens, which the page's runs leave to it (its
 * commands give neither): NVIDIA/TensorRT-LLM tensorrt_llm/bench/build/tuning.py @ 04cba882,
 * calc_engine_setting and finetune_setting, reached from get_settings
 * (bench/benchmark/utils/general.py) when the two are not given. The engine size is the
 * checkpoint's safetensors element count (ModelConfig.get_param_count) times 1 B (FP8) or 0.5 B
 * (NVFP4); an NVFP4 checkpoint stores two weights per uint8 element plus an FP8 scale per 16
 * weights (ModelOpt's packing, our reading), so its body counts 1/2 + 1/16 elements per weight.
 * The KV per token is 2·layers·max(TP, KV heads)·head_dim bytes (FP8), the GPU memory nvml's
 * total; the requests that fit at ISL + OSL are capped at 4,096, then rounded up to a multiple of
 * 32 (at least 64), 128 or 256, and the tokens min(bs·(1 + ISL/OSL), 32,768) rounded up likewise
 * (at least 2,048); without chunked prefill (trtllm-bench's default) at least ISL + bs. */
void infer_trtllm_bench_limits(const gpuecon_model *m, const gpuecon_system *s, int tp, gpuecon_precision w,
                               gpuecon_precision kv, double isl, double osl, double kv_fraction, int *max_bs,
                               int *max_tokens)
{
    infer_trtllm_bench_limits_pp(m, s, tp, 1, w, kv, isl, osl, kv_fraction, max_bs, max_tokens);
}

/* The same for TP x PP GPUs: calc_engine_setting counts the memory of all tp·pp GPUs and
 * finetune_setting divides the requests by pp (a micro-batch's max_batch_size and max_num_tokens). */
void infer_trtllm_bench_limits_pp(const gpuecon_model *m, const gpuecon_system *s, int tp, int pp,
                                  gpuecon_precision w, gpuecon_precision kv, double isl, double osl,
                                  double kv_fraction, int *max_bs, int *max_tokens)
{
    gpuecon_params p;
    gpuecon_model_params(m, &p);
    double outside = p.embedding + p.lm_head; /* kept in BF16 by the quantised checkpoints */
    double elems = (p.total - outside) * (w == GPUECON_FP4 ? 0.5 + 1.0 / 16 : 1) + outside + p.vision + p.mtp;
    double b_w = w == GPUECON_FP4 ? 0.5 : w == GPUECON_FP8 ? 1 : 2, b_kv = kv == GPUECON_FP8 ? 1 : 2;
    double kv_heads = fmax(tp, m->kv_heads > 0 ? m->kv_heads : m->heads);
    double per_token = 2.0 * m->layers * kv_heads * m->head_dim * b_kv / INFER_GIB;
    double avail = s->gpu->hbm_gib * tp * pp - elems * b_w / INFER_GIB;
    double requests = fmax(0, avail * kv_fraction / (per_token * (isl + osl)));
    double bs = fmin(requests, 4096) / pp, tok = fmin(bs * (1 + isl / osl), 32768);
    bs = bs < 256 ? fmax(64, 32 * ceil(bs / 32)) : bs < 1024 ? 128 * ceil(bs / 128) : 256 * ceil(bs / 256);
    tok = tok < 4096 ? fmax(2048, 256 * ceil(tok / 256)) : tok < 8192 ? 512 * ceil(tok / 512) : 1024 * ceil(tok / 1024);
    *max_bs = (int)bs;
    *max_tokens = (int)fmax(tok, isl + bs);
}

/* Pipelined rows: a case and its pipeline stages per replica (docs/model.md §6.14). */
typedef struct pcase {
    scase s;
    int pp;
} pcase;

static const pcase pcases[] = {
    /* held out: RTX PRO 6000 Server Edition, Llama 3.3 70B FP4 at TP1 x PP1/2/4/8, Llama 3.1 405B at TP1 x PP8 */
    TRTPP("TRT-L70-RTX-PP1-128", "llama3-70b", "rtx-pro-server", 1, 1, F4, 128, 128, 3264),
    TRTPP("TRT-L70-RTX-PP2-128", "llama3-70b", "rtx-pro-server", 1, 2, F4, 128, 128, 6172),
    TRTPP("TRT-L70-RTX-PP4-128", "llama3-70b", "rtx-pro-server", 1, 4, F4, 128, 128, 9641),
    TRTPP("TRT-L70-RTX-PP8-128", "llama3-70b", "rtx-pro-server", 1, 8, F4, 128, 128, 11881),
    TRTPP("TRT-L70-RTX-PP1-1000", "llama3-70b", "rtx-pro-server", 1, 1, F4, 1000, 1000, 1787),
    TRTPP("TRT-L70-RTX-PP2-1000", "llama3-70b", "rtx-pro-server", 1, 2, F4, 1000, 1000, 3707),
    TRTPP("TRT-L70-RTX-PP4-1000", "llama3-70b", "rtx-pro-server", 1, 4, F4, 1000, 1000, 5961),
    TRTPP("TRT-L70-RTX-PP8-1000", "llama3-70b", "rtx-pro-server", 1, 8, F4, 1000, 1000, 8166),
    TRTPP("TRT-L70-RTX-PP1-2048", "llama3-70b", "rtx-pro-server", 1, 1, F4, 2048, 2048, 1074),
    TRTPP("TRT-L70-RTX-PP2-2048", "llama3-70b", "rtx-pro-server", 1, 2, F4, 2048, 2048, 2336),
    TRTPP("TRT-L70-RTX-PP4-2048", "llama3-70b", "rtx-pro-server", 1, 4, F4, 2048, 2048, 3870),
    TRTPP("TRT-L70-RTX-PP8-2048", "llama3-70b", "rtx-pro-server", 1, 8, F4, 2048, 2048, 6078),
    TRTPP("TRT-L70-RTX-PP1-5000/500", "llama3-70b", "rtx-pro-server", 1, 1, F4, 5000, 500, 401),
    TRTPP("TRT-L70-RTX-PP2-5000/500", "llama3-70b", "rtx-pro-server", 1, 2, F4, 5000, 500, 812),
    TRTPP("TRT-L70-RTX-PP4-5000/500", "llama3-70b", "rtx-pro-server", 1, 4, F4, 5000, 500, 1511),
    TRTPP("TRT-L70-RTX-PP8-5000/500", "llama3-70b", "rtx-pro-server", 1, 8, F4, 5000, 500, 2491),
    TRTPP("TRT-L405-RTX-PP8-128", "llama3-405b", "rtx-pro-server", 1, 8, F4, 128, 128, 4452),
    TRTPP("TRT-L405-RTX-PP8-1000", "llama3-405b", "rtx-pro-server", 1, 8, F4, 1000, 1000, 2369),
    TRTPP("TRT-L405-RTX-PP8-2048", "llama3-405b", "rtx-pro-server", 1, 8, F4, 2048, 2048, 1442),
};

#define NSCASES (sizeof scases / sizeof scases[0])
#define NPCASES (sizeof pcases / sizeof pcases[0])
/* every caller's buffer holds the whole table: a row past it would be dropped */
_Static_assert(NSCASES + NPCASES <= GPUECON_VALIDATE_SERVING_MAX, "raise GPUECON_VALIDATE_SERVING_MAX");

/* Case i of scases then pcases. */
static const scase *case_at(size_t i)
{
    return i < NSCASES ? &scases[i] : &pcases[i - NSCASES].s;
}

/* The pipeline stages of a case: those of its pcases row, else 1. */
static int case_pp(const scase *v)
{
    for (size_t i = 0; i < NPCASES; i++)
        if (v == &pcases[i].s)
            return pcases[i].pp;
    return 1;
}

static int build(const gpuecon_catalog *cat, const scase *v, const char *system, gpuecon_precision w,
                 gpuecon_precision kv, int k, const gpuecon_calibration *cal, gpuecon_infer_request *r,
                 gpuecon_error *err)
{
    gpuecon_infer_request_init(r);
    r->model = gpuecon_catalog_model(cat, v->model);
    r->system = gpuecon_catalog_system(cat, system);
    if (!r->model || !r->system)
        return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s or %s", v->model, system);
    r->gpus = v->gpus;
    r->tp = v->tp;
    r->pp = case_pp(v);
    r->attention_dp = v->adp;
    if (v->ep1)
        r->expert_parallel = false;
    /* a run whose TP group is larger than the NVLink domain ran it across servers */
    r->tp_across_nodes = v->tp > r->system->scaleup_gpus;
    r->weights = w;
    r->kv = kv;
    r->prompt_len = v->prompt;
    r->output_len = v->output;
    if (v->vessl) {
        r->profile = *gpuecon_serving_profile_find("vessl-gemma4");
        r->lora_rank = 16;
    } else if (v->stack) {
        /* a serving benchmark of an engine at a fixed concurrency (InferenceMAX's harness: random
         * prompts of fixed length, ignore_eos): the engine's stack and its defaults */
        if (!gpuecon_serving_profile_from_stack(gpuecon_catalog_stack(cat, v->stack), &r->profile))
            return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks serving stack %s", v->stack);
        for (size_t i = 0; i < sizeof eng_limits / sizeof eng_limits[0]; i++)
            if (!strcmp(eng_limits[i].id, v->id)) {
                r->max_num_seqs = eng_limits[i].max_seqs;
                r->max_num_batched_tokens = eng_limits[i].max_tokens;
                r->gpu_mem_util = eng_limits[i].mem_frac;
                r->profile.graph_max_bs = eng_limits[i].graph_bs;
            }
    } else {
        /* trtllm-bench's max-throughput engine: TensorRT-LLM's efficiencies, a KV fraction of 0.95
         * and trtllm-bench's own batch and token limits */
        if (!gpuecon_serving_profile_from_stack(gpuecon_catalog_stack(cat, "trtllm"), &r->profile))
            return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks serving stack trtllm");
        r->gpu_mem_util = 0.95;
        /* pipelined: per micro-batch, so the replica runs pp times as many (docs/model.md §6.14) */
        infer_trtllm_bench_limits_pp(r->model, r->system, v->tp, r->pp, w, kv, v->prompt, v->output, 0.95,
                                     &r->max_num_seqs, &r->max_num_batched_tokens);
        r->max_num_seqs *= r->pp;
        r->max_num_batched_tokens *= r->pp;
    }
    gpuecon_calibration_apply_profile(cal, &r->profile); /* NULL: none */
    r->draft_k = k;
    if (k == 1 || k == 2) {
        r->acceptance = k == 1 ? 0.828 : 0.73;
        r->acceptance_is_rate = true;
    } else if (k == 3) {
        r->acceptance = gpuecon_spec_alpha_from_rate(0.73, 2);
    }
    return GPUECON_OK;
}

/* Output tokens/s at concurrency c (c = 0: saturation) of a deployment. */
static int toks(const gpuecon_catalog *cat, const scase *v, const char *system, gpuecon_precision w,
                gpuecon_precision kv, int k, double c, const gpuecon_calibration *cal, double *x,
                gpuecon_infer_result *o, gpuecon_error *err)
{
    gpuecon_infer_request r;
    int rc = build(cat, v, system, w, kv, k, cal, &r, err);
    if (rc)
        return rc;
    r.concurrency = c;
    if ((rc = gpuecon_infer(&r, o, err)))
        return rc;
    *x = c > 0 ? o->output_tokens_per_s : o->saturated_tokens_per_s;
    return GPUECON_OK;
}

/* TensorRT-LLM's offline benchmark as the page runs it: every request of fixed length queued
 * at once (trtllm-bench throughput at an infinite rate), total output tokens over the whole
 * run, with the page's request counts per ISL/OSL ("Preparing a Dataset"). The scheduler's
 * waves (a full batch admitted together finishes together) are part of what it measures. */
static long bench_requests(double isl, double osl)
{
    if (isl == 128 && osl == 128)
        return 30000;
    if ((isl == 128 && osl == 4096) || (isl == 1000 && osl == 2000) || (isl == 2048 && osl == 2048) ||
        (isl == 5000 && osl == 500))
        return 1500;
    if (isl == 20000 && osl == 2000)
        return 1000;
    return 3000; /* 128/2048, 2048/128, 1000/1000, 500/2000 */
}

/* trace: the row's run recorded (validate_serving_trace), re-timed under cal instead of simulated
 * where the calibrated deployment schedules alike; record: where to record the run (NULL: nowhere). */
static int bench_toks(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const scase *v, const gpuecon_calibration *cal,
                      const infer_sim_trace *trace, infer_sim_trace *record, double *y, gpuecon_error *err)
{
    gpuecon_sim_request q;
    gpuecon_sim_request_init(&q);
    int rc = build(cat, v, v->system, v->w, v->kv, v->draft_k, cal, &q.serve, err);
    if (rc)
        return rc;
    gpuecon_infer_result o;
    if ((rc = gpuecon_infer(&q.serve, &o, err)))
        return rc;
    q.arrival = GPUECON_ARRIVAL_BURST;
    q.warmup = 0;
    q.requests = bench_requests(v->prompt, v->output) / o.replicas; /* one replica's share */
    bool same = false;
    if (trace && (rc = infer_sim_retime(trace, &q, y, &same, err)))
        return rc;
    if (same)
        return GPUECON_OK;
    gpuecon_sim_result s;
    if ((rc = record ? infer_simulate_traced(ctx, &q, &s, record, err) : gpuecon_infer_simulate(ctx, &q, &s, err)))
        return rc;
    *y = s.output_tokens_per_s;
    return GPUECON_OK;
}

/* M_DECODE_TOKS: the decode instance of a disaggregated deployment (v->tp attention-DP ranks with
 * their default redundant experts, its prefill instance v->prefill ranks), stepping v->c sequences a
 * rank with nothing prefilled (docs/model.md §6.13 D2): output tokens/s of one rank, which is one GPU. */
static int decode_toks(const gpuecon_catalog *cat, const scase *v, const gpuecon_calibration *cal, double *y,
                       gpuecon_error *err)
{
    gpuecon_disagg_request q;
    memset(&q, 0, sizeof q);
    gpuecon_infer_request_init(&q.base);
    q.base.model = gpuecon_catalog_model(cat, v->model);
    q.base.system = gpuecon_catalog_system(cat, v->system);
    if (!q.base.model || !q.base.system)
        return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s or %s", v->model, v->system);
    q.base.gpus = v->gpus + v->prefill;
    q.base.attention_dp = v->adp;
    q.base.weights = v->w;
    q.base.kv = v->kv;
    q.base.prompt_len = v->prompt;
    q.base.output_len = v->output;
    q.base.max_num_seqs = (int)v->c;
    gpuecon_calibration_apply_profile(cal, &q.base.profile); /* NULL: none */
    q.prefill_instances = 1;
    q.prefill_tp = v->prefill;
    q.decode_instances = 1;
    q.decode_tp = v->tp;
    infer_side p, d;
    gpuecon_disagg_result o;
    int rc = infer_disagg_prepare(&q, &p, &d, &o, err);
    if (rc)
        return rc;
    if (infer_running_cap(&d.o) < v->c)
        return err_set(err, GPUECON_E_INFEASIBLE, v->id, 0, 0, "a decode rank holds %.0f sequences, fewer than the %s run",
                       infer_running_cap(&d.o), NUM_VAL(v->c));
    gpuecon_infer_step st;
    infer_step(&d.e, v->c, 0, &st);
    *y = v->c * d.e.E / st.step_s;
    return GPUECON_OK;
}

static int predict(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const scase *v, const gpuecon_calibration *cal,
                   const infer_sim_trace *trace, double *y, gpuecon_error *err)
{
    gpuecon_infer_result o, o2;
    double x, x2;
    if (v->m == M_BENCH_TOKS)
        return bench_toks(ctx, cat, v, cal, trace, NULL, y, err);
    if (v->m == M_DECODE_TOKS)
        return decode_toks(cat, v, cal, y, err);
    int rc = toks(cat, v, v->system, v->w, v->kv, v->draft_k, v->m == M_SAT_TOKS || v->m == M_SEQS_SAT ||
                                                                  v->m == M_KV_GB ? 0 : v->c, cal, &x, &o, err);
    if (rc)
        return rc;
    switch (v->m) {
    case M_SAT_TOKS:
    case M_BENCH_TOKS: /* handled above */
    case M_DECODE_TOKS:
    case M_TOKS_AT:
        *y = x;
        break;
    case M_TOKS_GPU_AT:
        *y = x / v->gpus;
        break;
    case M_TPOT_AT:
        *y = o.tpot_ms;
        break;
    case M_SPEED1: /* the server is empty when each request arrives: its prompt alone, then its decode */
        *y = (v->prompt + v->output) / ((o.ttft0_ms + (v->output - 1) * o.tpot_ms) / 1000);
        break;
    case M_SEQS_SAT:
        *y = o.max_concurrency;
        break;
    case M_KV_GB:
        *y = o.kv_avail_gib * 1073741824.0 / 1e9;
        break;
    case M_RATIO_A100:
        if ((rc = toks(cat, v, "hgx-a100", GPUECON_BF16, GPUECON_BF16, 0, v->c, cal, &x2, &o2, err)))
            return rc;
        *y = x / x2;
        break;
    case M_MTP_GAIN:
        if ((rc = toks(cat, v, v->system, v->w, v->kv, v->draft_k - 1, v->c, cal, &x2, &o2, err)))
            return rc;
        *y = x / x2 - 1;
        break;
    }
    return GPUECON_OK;
}

/* A serving row's class: "serving-<generation>-<precision>[-moe]". */
static void case_class(const gpuecon_system *sys, const gpuecon_model *m, const scase *v, char *cls, size_t cap)
{
    snprintf(cls, cap, "%s%s%s-%s%s", v->stack ? v->stack : "serving", "-",
             sys->gpu && sys->gpu->arch ? sys->gpu->arch : "?", gpuecon_precision_name(v->w),
             m && m->experts > 0 ? "-moe" : "");
}

int gpuecon_validate_serving(gpuecon_ctx *ctx, const gpuecon_catalog *cat, gpuecon_validate_row *rows, size_t cap,
                             size_t *n, gpuecon_error *err)
{
    return validate_serving_rows(ctx, cat, NULL, true, rows, cap, n, err);
}

int validate_serving_rows(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *group, bool predict_rows,
                          gpuecon_validate_row *rows, size_t cap, size_t *n, gpuecon_error *err)
{
    if (!ctx || !cat || !rows || !n)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, catalog, rows and count are required");
    *n = 0;
    enum { NCASES = NSCASES + NPCASES };
    double ys[NCASES];
    int rcs[NCASES];
    gpuecon_error errs[NCASES];
    bool sel[NCASES];
    /* the rows of `group`, by their class (from the catalog alone); a row whose model or system
     * the catalog lacks is kept, for predict to say so */
    for (size_t i = 0; i < NCASES; i++) {
        const scase *v = case_at(i);
        const gpuecon_system *sys = gpuecon_catalog_system(cat, v->system);
        const gpuecon_model *m = gpuecon_catalog_model(cat, v->model);
        char cls[sizeof rows->cls];
        sel[i] = true;
        if (!sys || !m) {
            if (!predict_rows)
                return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s or %s", v->model,
                               v->system);
            continue;
        }
        case_class(sys, m, v, cls, sizeof cls);
        sel[i] = !group || !strcmp(group, "serving") || !strcmp(group, cls);
    }
    int nt = 1;
#ifdef _OPENMP
    nt = ctx->cfg.threads > 0 ? ctx->cfg.threads : omp_get_max_threads();
#endif
    /* the simulated benchmark rows take a few tenths of a second each: rows run in parallel,
     * and are written in table order */
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
#endif
    for (int i = 0; i < (int)NCASES; i++) {
        memset(&errs[i], 0, sizeof errs[i]);
        ys[i] = 0;
        rcs[i] = sel[i] && predict_rows ? predict(ctx, cat, case_at((size_t)i), NULL, NULL, &ys[i], &errs[i]) : GPUECON_OK;
    }
    (void)nt;
    for (size_t i = 0; i < NCASES; i++) {
        const scase *v = case_at(i);
        double y = ys[i];
        if (!sel[i])
            continue;
        if (rcs[i]) {
            if (err)
                *err = errs[i];
            return rcs[i];
        }
        if (*n >= cap)
            return err_set(err, GPUECON_E_INPUT, "cap", 0, 0, "room for %zu serving rows, fewer than the table's", cap);
        const gpuecon_system *sys = gpuecon_catalog_system(cat, v->system);
        gpuecon_validate_row *row = validate_row_next(rows, n, v->id, "serving", v->source);
        snprintf(row->what, sizeof row->what, "%s, %d x %s, %s/%s KV, %g/%g", v->model, v->gpus, sys->gpu_name,
                 gpuecon_precision_name(v->w), gpuecon_precision_name(v->kv), v->prompt, v->output);
        static const char *const what[] = {"saturated output tok/s", "trtllm-bench output tok/s", "output tok/s at", "TPOT ms at",
                                           "max concurrency", "KV GB per GPU", "tok/s over A100 at",
                                           "MTP gain at", "decode tok/s/GPU", "output tok/s/GPU at",
                                           "in+out tok/s at"};
        if (v->m == M_DECODE_TOKS)
            snprintf(row->metric, sizeof row->metric, "%s, %g/rank", what[v->m], v->c);
        else if (v->c > 0)
            snprintf(row->metric, sizeof row->metric, "%s %g", what[v->m], v->c);
        else
            snprintf(row->metric, sizeof row->metric, "%s", what[v->m]);
        char layout[48];
        const gpuecon_model *mm = gpuecon_catalog_model(cat, v->model);
        if (v->adp && v->m == M_DECODE_TOKS) /* a decode instance of a disaggregated deployment */
            snprintf(layout, sizeof layout, "DEP%d decode", v->tp);
        else if (v->adp)
            snprintf(layout, sizeof layout, "DP%d+EP%d", v->tp, v->tp);
        else if (mm && mm->experts > 0 && v->tp > 1 && v->ep1) /* the experts sliced over the TP group */
            snprintf(layout, sizeof layout, "TP%d EP1 x %d", v->tp, v->gpus / v->tp);
        else if (mm && mm->experts > 0 && v->tp > 1)
            snprintf(layout, sizeof layout, "TP%d+EP%d x %d", v->tp, v->tp, v->gpus / v->tp);
        else if (case_pp(v) > 1)
            snprintf(layout, sizeof layout, "TP%d x PP%d x %d", v->tp, case_pp(v), v->gpus / (v->tp * case_pp(v)));
        else
            snprintf(layout, sizeof layout, "TP%d x %d", v->tp, v->gpus / v->tp);
        snprintf(row->config, sizeof row->config, "%.30s%s%s", layout,
                 v->vessl                  ? ", LoRA r16"
                 : v->m == M_DECODE_TOKS   ? ", generic"
                 : v->stack                ? (!strcmp(v->stack, "sglang")    ? ", sglang"
                                              : !strcmp(v->stack, "vllm-v1") ? ", vllm-v1"
                                                                             : ", trtllm")
                                           : ", trtllm, KV 0.95",
                 v->draft_k ? (v->draft_k == 1 ? ", draft 1" : v->draft_k == 2 ? ", draft 2" : ", draft 3") : "");
        row->published = v->published;
        row->predicted = y;
        row->rel_err = y / v->published - 1;
        row->fitted_on = v->fit;
        row->fits = true;
        case_class(sys, gpuecon_catalog_model(cat, v->model), v, row->cls, sizeof row->cls);
    }
    return GPUECON_OK;
}

int validate_serving_replay(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id,
                            const gpuecon_calibration *cal, bool predict_row, const struct infer_sim_trace *trace,
                            validate_replay *out, gpuecon_error *err)
{
    if (!ctx || !cat || !id || !out)
        return err_set(err, GPUECON_E_INPUT, "", 0, 0, "a context, catalog, row and result are required");
    for (size_t i = 0; i < NSCASES + NPCASES; i++) {
        const scase *v = case_at(i);
        if (!validate_id_is(v->id, id))
            continue;
        memset(out, 0, sizeof *out);
        const gpuecon_system *sys = gpuecon_catalog_system(cat, v->system);
        const gpuecon_model *m = gpuecon_catalog_model(cat, v->model);
        if (!sys || !m)
            return err_set(err, GPUECON_E_NOTFOUND, v->id, 0, 0, "the catalog lacks %s or %s", v->model, v->system);
        int rc = predict_row ? predict(ctx, cat, v, cal, trace, &out->figure, err) : GPUECON_OK;
        if (rc)
            return rc;
        out->system = sys->name;
        /* the profile the row's deployment runs (build, decode_toks) */
        out->stack = v->vessl ? "vessl-gemma4" : v->m == M_DECODE_TOKS ? "generic" : v->stack ? v->stack : "trtllm";
        out->prec = v->w;
        out->moe = m->experts > 0;
        out->measurable = v->m != M_SEQS_SAT && v->m != M_KV_GB && v->m != M_RATIO_A100 && v->m != M_MTP_GAIN;
        gpuecon_infer_request r; /* the profile the row runs with (decode_toks: the default one) */
        if (v->m == M_DECODE_TOKS)
            gpuecon_infer_request_init(&r);
        else if ((rc = build(cat, v, v->system, v->w, v->kv, v->draft_k, NULL, &r, err)))
            return rc;
        validate_frac_max_profile(&r.profile, out->frac_max);
        return GPUECON_OK;
    }
    return err_set(err, GPUECON_E_NOTFOUND, id, 0, 0, "no serving row %s", id);
}

int validate_serving_trace(gpuecon_ctx *ctx, const gpuecon_catalog *cat, const char *id, struct infer_sim_trace **out,
                           double *figure, gpuecon_error *err)
{
    *out = NULL;
    *figure = 0;
    for (size_t i = 0; i < NSCASES + NPCASES; i++) {
        const scase *v = case_at(i);
        if (!validate_id_is(v->id, id))
            continue;
        if (v->m != M_BENCH_TOKS)
            return GPUECON_OK;
        infer_sim_trace *t = ctx_alloc(ctx, sizeof *t);
        if (!t)
            return err_set(err, GPUECON_E_NOMEM, "", 0, 0, "out of memory");
        double y, z;
        int rc = bench_toks(ctx, cat, v, NULL, NULL, t, &y, err);
        *figure = rc ? 0 : y;
        /* the trace is kept where re-timing it under the built-in constants gives the simulated figure */
        bool same = false;
        if (!rc && t->ok) {
            gpuecon_sim_request q;
            gpuecon_sim_request_init(&q);
            rc = build(cat, v, v->system, v->w, v->kv, v->draft_k, NULL, &q.serve, err);
            gpuecon_infer_result o;
            if (!rc)
                rc = gpuecon_infer(&q.serve, &o, err);
            if (!rc) {
                q.arrival = GPUECON_ARRIVAL_BURST;
                q.warmup = 0;
                q.requests = bench_requests(v->prompt, v->output) / o.replicas;
                rc = infer_sim_retime(t, &q, &z, &same, err);
            }
            same = same && z == y;
        }
        if (rc || !same) {
            validate_serving_trace_free(ctx, t);
            return rc;
        }
        *out = t;
        return GPUECON_OK;
    }
    return err_set(err, GPUECON_E_NOTFOUND, id, 0, 0, "no serving row %s", id);
}

void validate_serving_trace_free(gpuecon_ctx *ctx, struct infer_sim_trace *t)
{
    if (!t)
        return;
    infer_sim_trace_free(t);
    ctx_free(ctx, t, sizeof *t);
}
