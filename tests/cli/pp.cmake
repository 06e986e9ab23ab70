# Command-line contract, part 'pp' (run by CTest as cli_pp): infer --pp (pipeline stages) and
# --tp-across-nodes. The numbers themselves are checked in tests/unit/test_infer_pp.c.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# ---- JSON keys and the layout string --------------------------------------------------------
run(0 infer --model llama3-70b --system hgx-h200 --gpus 8 --tp 2 --pp 4 --weights fp8 --kv fp8 --json)
foreach(k pp replicas stage_layers)
  string(JSON v ERROR_VARIABLE e GET "${OUT}" ${k})
  if(e)
    message(FATAL_ERROR "infer --pp --json: no key '${k}'\n${OUT}")
  endif()
endforeach()
string(JSON pp GET "${OUT}" pp)
string(JSON rep GET "${OUT}" replicas)
string(JSON smin GET "${OUT}" stage_layers min)
if(NOT pp EQUAL 4 OR NOT rep EQUAL 1 OR NOT smin EQUAL 20)
  message(FATAL_ERROR "infer --tp 2 --pp 4 on 8 GPUs: pp ${pp}, replicas ${rep}, stage layers ${smin} (want 4, 1, 20)")
endif()
foreach(k p2p_ms pp_wait_ms micro_batches)
  string(JSON v ERROR_VARIABLE e GET "${OUT}" at step ${k})
  if(e)
    message(FATAL_ERROR "infer --pp --json: no key 'at.step.${k}'\n${OUT}")
  endif()
endforeach()
run(0 infer --model llama3-70b --system hgx-h200 --gpus 8 --tp 2 --pp 4 --weights fp8 --kv fp8)
expect_out("1 replica x TP 2 x PP 4")
expect_out("pipeline: 4 stages of 20 layers")
expect_out("pipeline sends")
if(OUT MATCHES "what-if")
  message(FATAL_ERROR "infer --pp without a draft says it is a what-if:\n${OUT}")
endif()
# a draft over pipeline stages is priced, and named as what no engine serves
run(0 infer --model llama3-70b --system hgx-h200 --gpus 8 --tp 2 --pp 4 --weights fp8 --kv fp8 --draft 2 --accept 0.7)
expect_out("note: priced as a what-if: neither engine serves a drafted model over pipeline stages")
# the simulator's header names the same deployment (it printed "1 replica x TP 2", no PP)
run(0 infer --model llama3-70b --system hgx-h200 --gpus 8 --tp 2 --pp 4 --weights fp8 --kv fp8 --simulate --users 16
    --requests 200)
expect_out("8 GPUs = 1 replica x TP 2 x PP 4; closed loop of 16 users")
# an uneven split is stated (32 layers over 3 stages: 10, 11, 11)
run(0 infer --model llama3-8b --system hgx-h100 --gpus 3 --tp 1 --pp 3)
expect_out("3 stages of 10-11 \\(uneven\\) layers")
# the default TP with --pp: the smallest TP with TP x PP dividing the GPUs
run(0 infer --model llama3-8b --system hgx-h100 --gpus 8 --pp 2 --json)
string(JSON rep GET "${OUT}" replicas)
if(NOT rep EQUAL 4)
  message(FATAL_ERROR "infer --gpus 8 --pp 2: ${rep} replicas, want 4 (TP 1)")
endif()
# TP across servers, with the flag
run(0 infer --model llama3-70b --system hgx-h100 --gpus 16 --tp 16 --tp-across-nodes --json)
string(JSON tp GET "${OUT}" tp)
if(NOT tp EQUAL 16)
  message(FATAL_ERROR "infer --tp 16 --tp-across-nodes: tp ${tp}")
endif()

# ---- bad input: exit 2 naming the option and what is allowed ----------------------------------
run(2 infer --model llama3-8b --system hgx-h100 --gpus 6 --tp 1 --pp 4)
expect_err("--pp.*4 does not divide --gpus 6")
run(2 infer --model llama3-8b --system hgx-h100 --gpus 8 --tp 4 --pp 4)
expect_err("--pp.*TP 4 x PP 4 = 16 GPUs per replica does not divide --gpus 8")
# --gpus left out is one server: a larger replica names the default it ran into, not a number the
# user never wrote (8 GPUs of hgx-h100 against TP 8 x PP 2 = 16)
run(2 infer --model llama3-8b --system hgx-h100 --tp 8 --pp 2)
expect_err("^gpuecon: --gpus: not given, so one server of hgx-h100: 8 GPUs, fewer than TP 8 x PP 2 = 16 GPUs per replica; give --gpus, a multiple of 16\n$")
run(2 infer --model llama3-8b --system hgx-h100 --gpus 32 --pp 17)
expect_err("--pp.*17")
run(2 infer --model llama3-8b --system hgx-h100 --gpus 8 --pp 0)
expect_err("--pp")
run(2 infer --model llama3-8b --system hgx-h100 --gpus 8 --pp two)
expect_err("--pp")
run(2 infer --model mixtral-8x7b --system hgx-h100 --gpus 8 --tp 2 --pp 2 --attention-dp on)
expect_err("--pp.*attention-dp")
run(2 infer --model llama3-70b --system hgx-h100 --gpus 16 --tp 16)
expect_err("--tp.*NVLink domain of 8 GPUs; give --tp-across-nodes")

# ---- --search: PP among the searched dimensions, a GPU range --------------------------------
run(0 infer --model llama3-70b --system hgx-a100 --search --search-gpus 2-4 --ttft-ms 5000 --tpot-ms 200
    --confirm 0 --weights bf16 --json)
string(JSON pp0 GET "${OUT}" best 0 config pp)
if(NOT pp0 MATCHES "^(1|2|4)$")
  message(FATAL_ERROR "--search on 2-4 GPUs: best pp ${pp0} (want 1, 2 or 4)")
endif()
string(JSON n LENGTH "${OUT}" frontier)
set(gpus_seen "")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON g GET "${OUT}" frontier ${i} config gpus)
  list(APPEND gpus_seen ${g})
endforeach()
list(REMOVE_DUPLICATES gpus_seen)
foreach(g ${gpus_seen})
  if(NOT g EQUAL 2 AND NOT g EQUAL 4)
    message(FATAL_ERROR "--search-gpus 2-4 searched ${g} GPUs (want 2 and 4 only)")
  endif()
endforeach()
run(2 infer --model llama3-8b --system hgx-h100 --search --search-gpus 64-8)
expect_err("--search-gpus.*range 64-8 ends below its start")
run(2 infer --model llama3-8b --system hgx-h100 --search --search-gpus 8-x)
expect_err("--search-gpus.*'8-x' is not a range")
run(2 infer --model llama3-8b --system hgx-h100 --search --search-gpus 0-8)
expect_err("--search-gpus")
run(2 infer --model llama3-8b --system hgx-h100 --gpus 8 --pp 2 --prefill 1x2 --decode 2x2)
expect_err("--pp")

# ---- compare: a serving platform's pp: is the layout it is predicted at ----------------------
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/pp-scenario.yaml" "workload:
  kind: serve
  model: llama3-70b
  prompt_len: 1000
  output_len: 1000
  precision: fp4
  kv: fp8
platforms:
  - name: rtx-pp8
    system: rtx-pro-server
    gpus: 8
    tp: 1
    pp: 8
")
run(0 compare "${CMAKE_CURRENT_BINARY_DIR}/pp-scenario.yaml")
expect_out("rtx-pp8: 1 x TP1 x PP8, fp4 weights")
