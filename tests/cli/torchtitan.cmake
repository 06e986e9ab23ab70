# Command-line contract, part 'torchtitan' (run by CTest as cli_torchtitan): the PyTorch-native
# training stacks (issue 46): their mechanisms as options, their defaults, their refusals, and
# the validate set of torchtitan's published runs with its fitted-row target.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(T8 --model llama3-8b --system hgx-h100 --gpus 8 --seq 8192 --gbs 16 --tp 1 --pp 1 --cp 1 --mbs 2 --zero 3
       --recompute selective)
# the Float8 stack trains in FP8 unless --precision says otherwise; every output names the stack
run(0 train ${T8} --stack torchtitan-2024-float8 --json)
string(JSON p GET "${OUT}" precision)
string(JSON s GET "${OUT}" stack)
if(NOT p STREQUAL "fp8" OR NOT s STREQUAL "torchtitan-2024-float8")
  message(FATAL_ERROR "torchtitan-2024-float8: precision '${p}', stack '${s}'")
endif()
run(0 train ${T8} --stack torchtitan-2024-float8 --precision bf16 --json)
string(JSON p GET "${OUT}" precision)
if(NOT p STREQUAL "bf16")
  message(FATAL_ERROR "--precision bf16 did not override the stack: ${p}")
endif()
run(0 train ${T8} --stack torchtitan-2024-eager)
expect_out("stack: torchtitan-2024-eager")

# eager vs compiled: torchtitan's Table 1 (8 x H100, Llama 3.1 8B, FSDP, local batch 2) measured
# 5,762 and 6,667 tokens/s/GPU, a ratio of 0.864; the same job on the 700 W HGX H100 keeps the
# ratio within 8% (the eager kernels' extra HBM passes are the whole difference)
run(0 train ${T8} --stack torchtitan-2024-eager --json)
string(JSON eager GET "${OUT}" tokens_per_s_per_gpu)
run(0 train ${T8} --stack torchtitan-2024-compile --json)
string(JSON compiled GET "${OUT}" tokens_per_s_per_gpu)
expect_ratio("eager over compiled" ${eager} ${compiled} 0.80 0.93)
# --fusion and --attention override the stack: eager elementwise on the compiled stack is the
# eager stack (everything else equal)
run(0 train ${T8} --stack torchtitan-2024-compile --fusion eager --json)
string(JSON v GET "${OUT}" tokens_per_s_per_gpu)
expect_ratio("compile stack with --fusion eager" ${v} ${eager} 0.999999 1.000001)
# FlashAttention-2 instead of the tuned (cuDNN) kernel costs attention time
run(0 train ${T8} --stack torchtitan-2024-compile --attention flash --json)
string(JSON v GET "${OUT}" tokens_per_s_per_gpu)
expect_ratio("tuned attention over FlashAttention-2" ${v} ${compiled} 1.02 1.5)

# bad input: an unknown fusion level, a fine-tuning stack for train, a torchtitan stack misspelt
run(2 train ${T8} --fusion inductor)
expect_err("--fusion: 'inductor' is not allowed \\(allowed: fused, compiled, eager\\)")
run(2 train ${T8} --stack hf-peft-eager)
expect_err("--stack: hf-peft-eager is a fine-tuning stack")
run(2 train ${T8} --stack torchtitan-2024-eagre)
expect_err("did you mean 'torchtitan-2024-eager'")
