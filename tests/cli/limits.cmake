# Command-line contract, part 'limits' (run by CTest as cli_limits): work inside the allowed
# ranges stays bounded (issue 14, item 9). Work above the budget is refused up front, naming the
# estimate and --max-work; what used to take minutes now finishes in seconds.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# run_within(SECONDS EXPECTED_RC ARGS...): like run(), but fails when gpuecon takes longer
function(run_within limit expected_rc)
  execute_process(COMMAND ${GPUECON} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT ${limit})
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "gpuecon ${ARGN}: exit '${rc}' (limit ${limit} s), expected ${expected_rc}\nstderr: ${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
  set(ERR "${err}" PARENT_SCOPE)
endfunction()

# 10^8 trials of 16,384 GPUs for 30 days: ~710 events a trial at ~25 ns each is ~1,800 s (the
# adversarial pass measured ~75 CPU-minutes), far above the 60 s default
run_within(20 2 reliability --system hgx-h100 --active-gpus 16384 --trials 100000000)
expect_err("--trials: the simulation would take about [0-9.,]+ CPU-seconds \\(100000000 trials")
expect_err("above the work budget of 60 s; .*raise the budget with --max-work")
# the estimate scales with the trials: 10,000 trials (~0.2 s) pass at 60 s and fail at 0.05 s
run_within(60 0 reliability --system hgx-h100 --active-gpus 16384 --trials 10000 --json)
run(2 reliability --system hgx-h100 --active-gpus 16384 --trials 10000 --max-work 0.05)
expect_err("above the work budget of 0.05 s")
# 10M GPUs for ten years: one trial is ~20M events on 1.29M units (~4 s each); 50 trials are
# ~190 s
run_within(20 2 reliability --system hgx-h100 --active-gpus 10000000 --days 3650 --trials 50)
expect_err("--trials: the simulation would take about")
run(2 reliability --system hgx-h100 --active-gpus 1024 --max-work 0)
expect_err("--max-work: 0 is out of range; allowed 0.01 to 10M")
run(2 reliability --system hgx-h100 --active-gpus 1024 --max-work lots)
expect_err("--max-work: 'lots' is not a number of CPU-seconds; allowed 0.01 to 10M")

# a global batch of 2^26 sequences: the micro-batch sizes are the divisors of the local batch,
# found in O(sqrt n) (13 s before, one trial division per candidate)
run_within(20 0 train --model llama3-8b --system hgx-h100 --gpus 8 --seq 2048 --gbs 67108864 --json)
string(JSON v GET "${OUT}" tokens_per_s_per_gpu)
# DeepSeek-V3 searched on 4,194,304 H100s with the largest batch allowed
run_within(30 0 search --model deepseek-v3 --system hgx-h100 --gpus 4194304 --seq 4096 --gbs 67108864
           --top 1 --json)
string(JSON n LENGTH "${OUT}" best)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "search on 4,194,304 GPUs: ${n} results")
endif()
