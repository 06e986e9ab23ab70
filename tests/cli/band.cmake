# Command-line contract, part 'band' (run by CTest as cli_band): the 80% band of every predicted
# training figure (docs/model.md §7.6) in train's JSON, text and CSV and in each search row, and
# the issue-47 targets on the public held-out rows, leave-one-out (validate's "band" summary).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# band_ordered(PATH): the band object at PATH (";"-separated keys) has 0 < low < high and level 0.8.
function(band_ordered prefix)
  string(JSON lo GET "${OUT}" ${prefix} low)
  string(JSON hi GET "${OUT}" ${prefix} high)
  string(JSON lv GET "${OUT}" ${prefix} level)
  execute_process(COMMAND awk "BEGIN { exit (${lo} > 0 && ${lo} < ${hi} && ${lv} == 0.8) ? 0 : 1 }" RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${prefix}: low ${lo}, high ${hi}, level ${lv}: expected 0 < low < high, level 0.8")
  endif()
endfunction()

# train: tokens/s/GPU, step time and MFU each with a band; the step time's band is the reciprocal of
# the throughput's (step = tokens per step / (tokens/s/GPU x GPUs)): step_low x tok_high = step x tok
set(JOB train --model llama3-8b --system hgx-h100 --gpus 8 --seq 8192 --gbs 128)
run(0 ${JOB} --json)
band_ordered("band;tokens_per_s_per_gpu")
band_ordered("band;step_time_s")
band_ordered("band;mfu")
string(JSON tok GET "${OUT}" tokens_per_s_per_gpu)
string(JSON step GET "${OUT}" step_time_s)
string(JSON th GET "${OUT}" band tokens_per_s_per_gpu high)
string(JSON sl GET "${OUT}" band step_time_s low)
expect_ratio("step_low x tok_high / (step x tok)" "(${sl} * ${th})" "(${step} * ${tok})" 0.999999 1.000001)
string(JSON basis GET "${OUT}" band tokens_per_s_per_gpu basis)
if(NOT basis MATCHES "^hopper-bf16-dense.*n=[0-9]+ held out$")
  message(FATAL_ERROR "train's band basis '${basis}': expected the hopper-bf16-dense group and its count")
endif()
string(JSON lo8 GET "${OUT}" band tokens_per_s_per_gpu low)
string(JSON hi8 GET "${OUT}" band tokens_per_s_per_gpu high)
execute_process(COMMAND awk "BEGIN { printf \"%.6f\", ${hi8} / ${lo8} }" OUTPUT_VARIABLE W8)
run(0 ${JOB})
expect_out("80% band     \\([0-9,]+-[0-9,]+, 80%; hopper-bf16-dense[^)]*\\) tokens/s/GPU")
expect_out("step time    [0-9.]+ s \\([0-9.]+-[0-9.]+ s, 80%\\)")
run(0 ${JOB} --csv)
expect_out("tokens_per_s_per_gpu_low,tokens_per_s_per_gpu_high\n")

# 8,192 GPUs, beyond the largest calibrated run (3,360): the band widens (by the training rows' whole
# spread, in quadrature) and says why; the 8-GPU job above is inside the set
run(0 train --model llama3-8b --system hgx-h100 --gpus 8192 --seq 8192 --gbs 8192 --json)
band_ordered("band;tokens_per_s_per_gpu")
string(JSON ax GET "${OUT}" band tokens_per_s_per_gpu extrapolating 0)
if(NOT ax MATCHES "8192 GPUs > ")
  message(FATAL_ERROR "8,192 GPUs: expected the scale axis in extrapolating, got '${ax}'")
endif()
string(JSON lo GET "${OUT}" band tokens_per_s_per_gpu low)
string(JSON hi GET "${OUT}" band tokens_per_s_per_gpu high)
expect_ratio("8,192-GPU band width high/low" "${hi}" "${lo}" "${W8}" 10)

# search: every row carries its band
run(0 search --model llama3-70b --system hgx-h100 --gpus 64 --seq 8192 --gbs 128 --top 3 --json)
foreach(i 0 1 2)
  band_ordered("best;${i};band;tokens_per_s_per_gpu")
endforeach()

# validate: coverage of the 80% band on the held-out rows (each band computed without its row) at
# least 80% for training and for serving, with a median width high/low of at most 1.6 (issue 47)
run(0 validate --json)
foreach(set training serving all)
  string(JSON c GET "${OUT}" band ${set} coverage)
  string(JSON w GET "${OUT}" band ${set} median_width)
  execute_process(COMMAND awk "BEGIN { exit (${c} >= 0.80 && ${w} <= 1.6 && ${w} > 1) ? 0 : 1 }" RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "validate band ${set}: coverage ${c} (target >= 0.80), median width ${w} (target <= 1.6)")
  endif()
endforeach()
string(JSON cov GET "${OUT}" groups 0 band_coverage) # every group with held-out rows carries it
string(JSON met GET "${OUT}" band targets_met)
if(NOT met)
  message(FATAL_ERROR "validate band targets_met is ${met}")
endif()

# compare: a predicted platform's band in the CSV (after the percentiles) and the HTML report
run(0 compare ${SRC}/tests/cases/scenarios/predicted-l70.yaml --no-sensitivity --csv)
expect_out(",tokens_per_s_per_gpu_low,tokens_per_s_per_gpu_high,tpot_ms_low,tpot_ms_high,ttft_ms_low,ttft_ms_high,"
           "rl_step_time_s_low,rl_step_time_s_high,probability_cheapest,effective_usd_per_mtok_p10,"
           "effective_usd_per_mtok_p50,effective_usd_per_mtok_p90,probability_meets_target,probability_lower_load,"
           "probability_within_budget\n")
# a training platform: its throughput's band, no latency or RL band, no joint samples asked
expect_out(",[0-9.]+,[0-9.]+,,,,,,,,,,,,,\n")
run(0 compare ${SRC}/tests/cases/scenarios/predicted-l70.yaml --no-sensitivity --format html)
expect_out("predicted [0-9,]+ tok/s/GPU \\([0-9,]+-[0-9,]+, 80%; hopper-fp8-dense")

# train --sweep-gpus: each size's band (JSON rows[].band, CSV columns); the 8,192-GPU size lies beyond
# the largest calibrated run, so its band is wider than the 8-GPU one's
run(0 train --model llama3-8b --system hgx-h100 --seq 8192 --gbs 128 --sweep-gpus 8,8192 --json)
band_ordered("rows;0;band;tokens_per_s_per_gpu")
band_ordered("rows;1;band;tokens_per_s_per_gpu")
string(JSON l0 GET "${OUT}" rows 0 band tokens_per_s_per_gpu low)
string(JSON h0 GET "${OUT}" rows 0 band tokens_per_s_per_gpu high)
string(JSON l1 GET "${OUT}" rows 1 band tokens_per_s_per_gpu low)
string(JSON h1 GET "${OUT}" rows 1 band tokens_per_s_per_gpu high)
expect_ratio("sweep: 8,192-GPU width over 8-GPU width" "(${h1} / ${l1})" "(${h0} / ${l0})" 1.0001 10)
run(0 train --model llama3-8b --system hgx-h100 --seq 8192 --gbs 128 --sweep-gpus 8,64 --csv)
expect_out(",tokens_per_s_per_gpu_low,tokens_per_s_per_gpu_high\n")
# --vs: the other system's layout carries its own band
run(0 train --model llama3-8b --system hgx-h100 --gpus 8 --seq 8192 --gbs 128 --vs hgx-b200 --json)
band_ordered("vs;band;tokens_per_s_per_gpu")
string(JSON vb GET "${OUT}" vs band tokens_per_s_per_gpu basis)
if(NOT vb MATCHES "^blackwell")
  message(FATAL_ERROR "--vs hgx-b200: band basis '${vb}', expected a Blackwell group")
endif()
