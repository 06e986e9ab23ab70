# Wide expert parallelism as it is deployed (docs/model.md §6.5 EP1–EP4, §6.13): attention-DP over EP
# sizes that do not divide the routed experts, with redundant experts (DeepSeek's EPLB: 256 + 32 = 288
# = 48 x 6 = 72 x 4), aggregated, disaggregated and searched, and the bad values of the new options.
include(${SRC}/tests/cli/common.cmake)

# DeepSeek-V3 on 48 and 72 GPUs of one NVL72 rack: runs, and says its redundant experts
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --tp 72 --attention-dp on --weights fp8)
expect_out("72 attention-DP ranks, experts EP 72 \\(256 \\+ 32 redundant experts = 288 slots by default, 4 per GPU\\)")
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --weights fp8)
expect_out("experts EP 48 \\(256 \\+ 32 redundant experts = 288 slots by default, 6 per GPU\\)")
# equally popular experts: 5.5 / (256/48) = 1.03 with replicas, 6 / (256/48) = 1.125 without
expect_out("expert load 1.03x the mean \\(1.12x without redundant experts\\)")
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --weights fp8 --json)
json_near(redundant_experts 32 0)
json_near(expert_slots_per_gpu 6 0)
json_near(expert_imbalance 1.03125 1e-9)
json_near(expert_imbalance_without_redundant 1.125 1e-9)
# the user's count: 64 replicas, 320 = 48 x 6.67 slots, uneven (7 on the busiest GPU), not the default
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --weights fp8
    --redundant-experts 64 --json)
json_near(redundant_experts 64 0)
json_near(expert_slots_per_gpu 7 0)
string(JSON v GET "${OUT}" redundant_experts_default)
if(NOT v STREQUAL "OFF" AND NOT v STREQUAL "false")
  message(FATAL_ERROR "--redundant-experts 64: reported as the default (${v})")
endif()
# none: uneven slots (16 GPUs hold 6, 32 hold 5)
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --weights fp8
    --redundant-experts 0)
expect_out("256 experts over 48 GPUs: up to 6 per GPU")

# disaggregated: a decode instance of 48 attention-DP ranks (48 does not divide the 128 heads)
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --attention-dp on --weights fp8 --prefill 1x24
    --decode 1x48 --rate 100)
expect_out("1P x DEP24 \\+ 1D x DEP48")
expect_out("decode experts 256 \\+ 32 redundant, 6 per GPU")
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --attention-dp on --weights fp8 --prefill 1x24
    --decode 1x48 --rate 100 --json)
string(JSON v GET "${OUT}" disaggregated decode redundant_experts)
if(NOT v EQUAL 32)
  message(FATAL_ERROR "--decode 1x48: decode redundant_experts ${v}, expected 32")
endif()
# without attention-DP a decode instance is TP and must split the heads
run(2 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --weights fp8 --prefill 1x24 --decode 1x48 --rate 100)
expect_err("--prefill|--decode")
# the simulator does not run attention-DP instances: refused, not ignored
run(2 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --attention-dp on --weights fp8 --prefill 1x24
    --decode 1x48 --simulate --rate 10)
expect_err("--attention-dp")
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --attention-dp on --weights fp8 --disagg-search
    --ttft-ms 2000 --tpot-ms 50)
expect_out("DEP")

# the search tries attention-DP over EP sizes that do not divide 256 (here 72 = 9 trays)
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --search-gpus 72 --search --ttft-ms 2000
    --tpot-ms 20 --confirm 0)
expect_out("DP72\\+EP72|DP36\\+EP36|DP24\\+EP24|DP18\\+EP18|DP12\\+EP12|DP6\\+EP6|DP3\\+EP3")
# a configuration names its redundant experts: EP t over 256 experts takes the fewest that make t
# divide 256 + R, (t - 256 mod t) mod t (EP 72: 32, EP 12: 8, EP 18: 14). Which attention-DP widths
# reach the frontier depends on the model (with in-flight batching every rank waits for the slowest,
# docs/model.md §6.15 ADP1, so DP72 no longer does); every one that does must name its replicas.
run(0 infer --model deepseek-v3 --system gb200-nvl72 --gpus 72 --search-gpus 72 --search --ttft-ms 2000
    --tpot-ms 20 --confirm 0 --json)
string(JSON nf LENGTH "${OUT}" frontier)
set(found OFF)
math(EXPR lastf "${nf} - 1")
foreach(i RANGE ${lastf})
  string(JSON t GET "${OUT}" frontier ${i} config tp)
  string(JSON adp GET "${OUT}" frontier ${i} config attention_dp)
  string(JSON red GET "${OUT}" frontier ${i} config redundant_experts)
  math(EXPR rem "256 % ${t}")
  if(adp AND NOT rem EQUAL 0)
    set(found ON)
    math(EXPR want "(${t} - ${rem}) % ${t}")
    if(NOT red EQUAL want)
      message(FATAL_ERROR "search: DP${t}+EP${t} with ${red} redundant experts, expected ${want}")
    endif()
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "search: no attention-DP point whose EP does not divide 256 on the frontier")
endif()

# RL's generator: attention-DP over 48 GB200 with its redundant experts, named
run(0 rl --model deepseek-v3 --system gb200-nvl72 --gpus 144 --prompts 32 --samples 16 --prompt-len 128
      --response-len 600 --max-response-len 1408 --gen-tp 48 --gen-attention-dp)
expect_out("attention-DP EP 48 \\(256 \\+ 32 redundant experts\\) x 3 groups")

# bad values: exit 2 naming the option
run(2 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --redundant-experts -1)
expect_err("--redundant-experts: -1 is out of range")
run(2 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --redundant-experts 300)
expect_err("--redundant-experts: 300 is more than deepseek-v3's 256 routed experts")
run(2 infer --model deepseek-v3 --system gb200-nvl72 --gpus 4 --tp 4 --ep off --redundant-experts 4)
expect_err("--redundant-experts: 4 redundant experts need expert parallelism")
run(2 infer --model mixtral-8x7b --system hgx-h100 --gpus 16 --tp 16 --attention-dp on --redundant-experts 0)
expect_err("--redundant-experts: .*fewer than the 16 GPUs")
run(2 infer --model llama3-8b --system hgx-h100 --redundant-experts 8)
expect_err("--redundant-experts: llama3-8b is a dense model")
run(2 infer --model deepseek-v3 --system gb200-nvl72 --gpus 48 --tp 48 --attention-dp on --expert-load-cv -1)
expect_err("--expert-load-cv")

# validate: SGLang's wide-EP decode rows, held out, with their metric
run(0 validate --group serving)
expect_out("SGL-DS-GB200-DEP48-F8 [^\n]*DEP48 decode, generic[^\n]*decode tok/s/GPU, 768/rank[^\n]*9,087[^\n]*held out")
expect_out("SGL-DS-GB200-DEP48-F4 [^\n]*decode tok/s/GPU, 1408/rank[^\n]*13,386[^\n]*held out")
