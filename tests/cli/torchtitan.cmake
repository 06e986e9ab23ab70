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

# the torchtitan validate set: torchtitan's published runs, each through its stack; the rows the
# stacks' mechanisms were chosen against (Table 1: eager, compiled, Float8 on 8 Grand Teton
# H100s; Table 4's 70B pair without and with async TP; Table 2's CP 4 and CP 8) are within the
# issue's 5% median, and they are summarised apart from the dense Megatron rows (whose own
# targets they do not enter)
run(0 validate --group torchtitan --json)
string(JSON met GET "${OUT}" torchtitan fit_target_met)
if(NOT met)
  message(FATAL_ERROR "torchtitan fitted rows: median target missed")
endif()
json_le(torchtitan fit_median_abs_err 0.05)
string(JSON nfit GET "${OUT}" torchtitan fit_n)
string(JSON nheld GET "${OUT}" torchtitan held_out_n)
if(NOT nfit EQUAL 7 OR NOT nheld EQUAL 13)
  message(FATAL_ERROR "torchtitan rows: ${nfit} fitted, ${nheld} held out")
endif()
# an A100 run torchtitan published in mid-2024 (Llama 3 8B, 64 GPUs, FSDP, selective op AC,
# 2,973 tokens/s/GPU), held out: within 5%
string(JSON nrows LENGTH "${OUT}" rows)
math(EXPR last "${nrows} - 1")
set(found 0)
foreach(i RANGE ${last})
  string(JSON id GET "${OUT}" rows ${i} id)
  if(id STREQUAL "TT-8B-A100-64-OP")
    set(found 1)
    string(JSON pub GET "${OUT}" rows ${i} published)
    string(JSON pred GET "${OUT}" rows ${i} predicted)
    expect_ratio("TT-8B-A100-64-OP predicted over published 2,973" ${pred} 2973 0.95 1.05)
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "validate --group torchtitan lacks TT-8B-A100-64-OP")
endif()

# context parallelism by Llama 3's exposed all-gather of K and V costs what the ring hides; a bad
# value is refused
set(CP4 --model llama3-8b --system hgx-h100 --gpus 8 --seq 131072 --gbs 2 --tp 1 --pp 1 --cp 4 --mbs 1 --zero 3
        --recompute full)
run(0 train ${CP4} --json)
string(JSON ring GET "${OUT}" breakdown cp_comm_s)
run(0 train ${CP4} --cp-comm allgather --json)
string(JSON ag GET "${OUT}" breakdown cp_comm_s)
execute_process(COMMAND awk "BEGIN { exit (${ag} > ${ring}) ? 0 : 1 }" RESULT_VARIABLE bad)
if(bad)
  message(FATAL_ERROR "all-gather CP exposes ${ag} s, the ring ${ring} s")
endif()
run(2 train ${CP4} --cp-comm ulysses)
expect_err("--cp-comm: 'ulysses' is not allowed \\(allowed: ring, allgather\\)")
