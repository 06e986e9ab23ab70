# Command-line contract, part 'serving' (run by CTest as cli_serving): infer --simulate
# (issue 13). The numbers themselves are checked in tests/unit/test_infer_sim.c.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# ---- --simulate: JSON contract keys (docs/cli.md) -------------------------------------------
run(0 infer --model llama3-8b --system hgx-h100 --simulate --rate 20 --requests 2000 --lengths lognormal
    --output-cv 1 --prompt-cv 1 --ttft-ms 200 --tpot-ms 20 --slo-percentile 99 --json)
foreach(k ttft_ms_p50 ttft_ms_p90 ttft_ms_p99 tpot_ms_p50 tpot_ms_p90 tpot_ms_p99 itl_ms_p50 itl_ms_p90
          itl_ms_p99 e2e_ms_p50 e2e_ms_p90 e2e_ms_p99 goodput_requests_per_s preemptions
          output_tokens_per_s requests_per_s kv_util queue_ms_mean meets_slo seed elapsed_s)
  string(JSON v ERROR_VARIABLE e GET "${OUT}" ${k})
  if(e)
    message(FATAL_ERROR "infer --simulate --json: no key '${k}'\n${OUT}")
  endif()
endforeach()
# open loop below saturation: everything that arrives is served (8 replicas share 20/s)
json_near(requests_per_s 20 0.05)
set(first "${OUT}")
# deterministic per seed, whatever the thread count
run(0 infer --model llama3-8b --system hgx-h100 --simulate --rate 20 --requests 2000 --lengths lognormal
    --output-cv 1 --prompt-cv 1 --ttft-ms 200 --tpot-ms 20 --slo-percentile 99 --replications 3 --threads 1 --json)
string(JSON a GET "${OUT}" ttft_ms_p99)
run(0 infer --model llama3-8b --system hgx-h100 --simulate --rate 20 --requests 2000 --lengths lognormal
    --output-cv 1 --prompt-cv 1 --ttft-ms 200 --tpot-ms 20 --slo-percentile 99 --replications 3 --threads 2 --json)
string(JSON b GET "${OUT}" ttft_ms_p99)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "--simulate differs between 1 and 2 threads: ${a} vs ${b}")
endif()
# table and CSV carry the percentiles
run(0 infer --model llama3-8b --system hgx-h100 --simulate --users 64 --requests 2000)
expect_out("TTFT.*TPOT.*ITL.*E2E.*queueing")
expect_out("goodput")
run(0 infer --model llama3-8b --system hgx-h100 --simulate --users 64 --requests 2000 --csv)
expect_out("latency \\(ms\\),mean,P50,P90,P99")
# bursty arrivals and a histogram of lengths
set(hist "${CMAKE_CURRENT_BINARY_DIR}/lengths.csv")
file(WRITE "${hist}" "prompt,output,weight\n# a comment\n100,50,3\n1000 450 1\n")
run(0 infer --model llama3-8b --system hgx-h100 --simulate --rate 10 --arrival gamma --burstiness 0.5
    --lengths "${hist}" --requests 2000 --json)
json_near(requests_per_s 10 0.08)

# ---- bad input: exit 2 naming the option or path:line:col -------------------------------------
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 0)
expect_err("--rate")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate -4)
expect_err("--rate.*above 0")
foreach(p 0 100 150 -1)
  run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --slo-percentile ${p})
  expect_err("--slo-percentile.*\\(0, 100\\)")
endforeach()
file(WRITE "${hist}" "100,50\n200,-3\n")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --lengths "${hist}")
expect_err("lengths.csv:2:5.*output length '-3'.*whole number")
file(WRITE "${hist}" "100,50\n12.5 40\n")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --lengths "${hist}")
expect_err("lengths.csv:2:1.*prompt length '12.5'")
file(WRITE "${hist}" "100,50,0\n")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --lengths "${hist}")
expect_err("lengths.csv:1:8.*weight")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --lengths /nonexistent/lengths.csv)
run(2 infer --model llama3-8b --system hgx-h100 --rate 5)
expect_err("--rate.*needs --simulate")
run(2 infer --model llama3-8b --system hgx-h100 --simulate)
expect_err("--rate R.*--users N")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --users 5)
expect_err("--users")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --users 4)
expect_err("--users.*8 replicas")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --arrival gamma --burstiness 0)
expect_err("--burstiness")
run(2 infer --model llama3-8b --system hgx-h100 --simulate --rate 5 --sweep)
expect_err("--simulate")
