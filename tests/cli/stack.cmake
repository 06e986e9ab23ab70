# Command-line contract, part 'stack' (run by CTest as cli_stack): issue 11's framework stacks,
# recipe memory, activation offload, dispatchers and validate groups.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

set(L8 --model llama3-8b --system hgx-h100 --gpus 8 --seq 8192 --gbs 128)
# every output names the stack; the default is megatron-bridge-2026
run(0 train ${L8} --json)
string(JSON s GET "${OUT}" stack)
if(NOT s STREQUAL "megatron-bridge-2026")
  message(FATAL_ERROR "default stack is '${s}'")
endif()
string(JSON v GET "${OUT}" breakdown offload_s)
string(JSON v GET "${OUT}" memory offloaded_gib)
string(JSON v GET "${OUT}" parallelism offload_layers)
run(0 train ${L8} --stack megatron-2022)
expect_out("stack: megatron-2022")
run(0 search ${L8} --stack nemo-2024 --top 2 --json)
string(JSON s GET "${OUT}" stack)
if(NOT s STREQUAL "nemo-2024")
  message(FATAL_ERROR "search stack is '${s}'")
endif()
# a stack without TP overlap never overlaps; a single option overrides the stack
run(0 train ${L8} --tp 8 --stack megatron-2023 --json)
string(JSON v GET "${OUT}" parallelism tp_overlap)
if(NOT v STREQUAL "OFF" AND NOT v STREQUAL "false")
  message(FATAL_ERROR "megatron-2023 overlapped TP: ${v}")
endif()
run(0 train ${L8} --tp 8 --stack megatron-2023 --tp-overlap on --json)
string(JSON v GET "${OUT}" parallelism tp_overlap)
if(NOT v STREQUAL "ON" AND NOT v STREQUAL "true")
  message(FATAL_ERROR "--tp-overlap on did not override the stack: ${v}")
endif()

# megatron-ds-2023 (vTrain's Megatron-DeepSpeed): without SP, the backward all-reduce of QKV's and
# FC1's input gradients runs beside their weight-gradient GEMMs. Blocking, a layer exposes four
# all-reduces; with it, between two (both hidden) and three (one hidden): exposed TP time falls
# to between 1/2 and 3/4; --tp-async-grad off restores the four.
set(A8 --model llama3-8b --system hgx-a100 --gpus 8 --seq 2048 --gbs 8 --tp 8 --pp 1 --cp 1 --mbs 1 --recompute none --zero 1)
run(0 train ${A8} --stack megatron-ds-2023 --json)
string(JSON tp_on GET "${OUT}" breakdown tp_comm_s)
string(JSON s GET "${OUT}" stack)
if(NOT s STREQUAL "megatron-ds-2023")
  message(FATAL_ERROR "stack is '${s}'")
endif()
run(0 train ${A8} --stack megatron-ds-2023 --tp-async-grad off --json)
string(JSON tp_off GET "${OUT}" breakdown tp_comm_s)
expect_ratio("async TP all-reduce, exposed on/off" ${tp_on} ${tp_off} 0.5 0.75)
run(0 train ${A8} --stack megatron-2021 --json)
string(JSON tp_2021 GET "${OUT}" breakdown tp_comm_s)
expect_ratio("megatron-2021 blocks like --tp-async-grad off" ${tp_2021} ${tp_off} 0.999999 1.000001)

# bad input: unknown stack with the nearest name, MXFP8 on Hopper, offload beyond a stage
run(2 train ${L8} --stack megatron-brige)
expect_err("--stack: unknown stack 'megatron-brige'; did you mean 'megatron-bridge-2026'")
run(2 train ${L8} --precision fp8 --fp8-recipe mxfp8)
expect_err("--fp8-recipe: mxfp8 needs Blackwell")
run(2 train --model llama3-70b --system hgx-h100 --gpus 64 --seq 8192 --gbs 128 --pp 4 --offload-layers 30)
expect_err("--offload-layers: 30 layers is more than a pipeline stage holds")
run(2 train ${L8} --dispatcher nccl)
expect_err("--dispatcher")

# Llama 3 70B FP8 on 64 GB200 with FSDP, MBS 2 and 40 of 80 layers offloaded to Grace
# (Megatron-Bridge perf_recipes/llama/gb200/llama3.py) fits and names the offload
run(0 train --model llama3-70b --system gb200-nvl72 --gpus 64 --seq 8192 --gbs 128 --precision fp8 --tp 1
    --pp 1 --cp 1 --mbs 2 --zero 3 --recompute none --offload-layers 40)
expect_out("activations of 40 layers per stage offloaded to host memory")

# the catalog lists the stacks with their sources
run(0 catalog stacks)
expect_out("megatron-bridge-2026")
# a choice among fixed names (grad_reduce, dispatcher) lists its own source, as numbers do
expect_out("grad_sync_dtype=bf16: grad_reduce")
expect_out("alltoall token dispatcher with token drop: dispatcher")
# fine-tuning stacks show their kind, host launch time, compilation and FP8 path
expect_out("hf-peft-eager [^\n]* finetune +74[.0-9]* +false +naive")
expect_out("te-fp8-compile [^\n]* finetune +74[.0-9]* +true +te")

# compare: the stack of every training platform, from --stack when the scenario names none
run(0 compare --stack nemo-2024 --no-sensitivity --json)
string(JSON s GET "${OUT}" platforms 0 stack)
if(NOT s STREQUAL "nemo-2024")
  message(FATAL_ERROR "compare --stack: platform 0 stack '${s}'")
endif()
run(2 compare --stack nope --no-sensitivity)
expect_err("--stack: unknown stack 'nope'")

# validate by groups: generation x precision x dense/moe, with n, median, P90, max, signed median.
# A validate --json of anything but a training set simulates all the serving rows, so each runs once in
# the whole contract: the checks of validate --json and --group dgxc --json are in search_validate.cmake
run(0 validate --group hopper-fp8-dense --json)
string(JSON c GET "${OUT}" rows 0 class)
if(NOT c STREQUAL "hopper-fp8-dense")
  message(FATAL_ERROR "validate --group hopper-fp8-dense lists ${c}")
endif()
run(0 validate)
expect_out("V016 \\+95%: V017 is the same run at MBS 32")
# validate's runs take their framework facts from the stacks (the DGX Cloud rows and nemo-2024
# without TP overlap: search_validate.cmake)
run(0 validate --group vtrain --json)
string(JSON c GET "${OUT}" rows 0 config)
if(NOT c MATCHES " megatron-ds-2023$")
  message(FATAL_ERROR "validate vTrain config '${c}' does not name megatron-ds-2023")
endif()
run(2 validate --group hopper-fp9-dense)
expect_err("--group: 'hopper-fp9-dense' is neither a set nor a group; did you mean 'hopper-fp8-dense'")

# compare carries the 80% band of a predicted throughput (docs/model.md §7.6): from the held-out rows
# of the nearest group (Hopper FP8 dense for the H100 platform), and says whether it reaches the
# break-even
run(0 compare ${SRC}/tests/cases/scenarios/predicted-l70.yaml --json --no-sensitivity)
string(JSON g GET "${OUT}" platforms 0 band tokens_per_s_per_gpu basis)
if(NOT g MATCHES "^hopper-fp8-dense")
  message(FATAL_ERROR "compare: H100 band from group '${g}'")
endif()
string(JSON lo GET "${OUT}" platforms 0 band tokens_per_s_per_gpu low)
string(JSON hi GET "${OUT}" platforms 0 band tokens_per_s_per_gpu high)
expect_ratio("compare H100 band high/low" "${hi}" "${lo}" 1.0001 3)
run(0 compare ${SRC}/tests/cases/scenarios/predicted-l70.yaml)
expect_out("throughput predicted [0-9]+ tok/s/GPU \\([0-9,]+-[0-9,]+, 80%; hopper-fp8-dense")
expect_out("the prediction's own uncertainty (could|cannot) flip the verdict")
# the verdict quotes the band the JSON carries (MoE FP8: a wide group, its low end still positive)
run(0 compare ${SRC}/tests/cases/scenarios/predicted-moe-fp8.yaml --json)
string(JSON lo GET "${OUT}" platforms 0 band tokens_per_s_per_gpu low)
string(JSON hi GET "${OUT}" platforms 0 band tokens_per_s_per_gpu high)
string(JSON verdict GET "${OUT}" verdict)
string(REGEX MATCH "hgx-h100's throughput is predicted ([0-9]+)-([0-9]+) tok/s/GPU \\(80% band" m "${verdict}")
if(NOT m)
  message(FATAL_ERROR "compare MoE FP8: no H100 band in the verdict '${verdict}'")
endif()
execute_process(COMMAND awk "BEGIN { exit (${CMAKE_MATCH_1} > 0 && (${CMAKE_MATCH_1} - ${lo}) ^ 2 < 1 && (${CMAKE_MATCH_2} - ${hi}) ^ 2 < 1) ? 0 : 1 }"
                RESULT_VARIABLE bad)
if(bad)
  message(FATAL_ERROR "compare MoE FP8: verdict band ${CMAKE_MATCH_1}-${CMAKE_MATCH_2}, JSON ${lo}-${hi}")
endif()
# a measured throughput carries no band
run(0 compare --json --no-sensitivity)
string(JSON t ERROR_VARIABLE missing GET "${OUT}" platforms 0 band)
if(NOT missing)
  message(FATAL_ERROR "compare: measured throughput has a band '${t}'")
endif()

# --offload-search: the fewest offloaded layers that make the layout fit (at most the 40 the
# recipe offloads); with --offload-layers as well: exit 2
run(0 train --model llama3-70b --system gb200-nvl72 --gpus 64 --seq 8192 --gbs 128 --precision fp8 --tp 1
    --pp 1 --cp 1 --mbs 2 --zero 3 --recompute none --offload-search --json)
string(JSON n GET "${OUT}" parallelism offload_layers)
string(JSON fits GET "${OUT}" fits)
if(n LESS 1 OR n GREATER 40 OR NOT fits)
  message(FATAL_ERROR "--offload-search: ${n} layers, fits ${fits}")
endif()
run(2 train ${L8} --offload-search --offload-layers 2)
expect_err("--offload-search: give --offload-layers N or --offload-search, not both")
