# Command-line contract, part 'layouts' (run by CTest as cli_layouts): the serving layouts gpuecon
# chooses itself (issue 48 item 3, docs/model.md §6.12 "Default layouts" and §6.13):
#  - the aggregated deployment beside a disaggregated one is the configuration search's best on the
#    fewest GPUs serving the rate, and the simulator agrees that it serves it;
#  - `infer` without --tp/--pp takes the layout serving the most tokens/s per GPU, not the smallest;
#  - `--disagg-search --rate R` sizes the pools to the fewest GPUs serving R.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# ---- the disaggregated baseline -----------------------------------------------------------------
# Llama 3 70B FP8 on 8 H100, ShareGPT lengths (230/203), TTFT 1 s, TPOT 40 ms: the best disaggregated
# layout serves ~68 requests/s. The old baseline (8 x TP1, 1.2 GiB of KV per GPU) said "the aggregated
# deployment of 8 GPUs does not serve" it, while TP2 replicas do (the simulator run below).
set(D infer --model llama3-70b --system hgx-h100 --gpus 8 --weights fp8 --kv bf16 --disagg-search
    --ttft-ms 1000 --tpot-ms 40)
run(0 ${D})
if(OUT MATCHES "does not serve|no aggregated configuration")
  message(FATAL_ERROR "disagg-search: claims the aggregated deployment does not serve the rate\n${OUT}")
endif()
expect_out("aggregated: the search's best at")
run(0 ${D} --json)
string(JSON agg TYPE "${OUT}" aggregated)
if(NOT agg STREQUAL "OBJECT")
  message(FATAL_ERROR "disagg-search: no aggregated baseline\n${OUT}")
endif()
string(JSON rate GET "${OUT}" disaggregated rate)
string(JSON g GET "${OUT}" aggregated gpus)
string(JSON tp GET "${OUT}" aggregated tp)
string(JSON pp GET "${OUT}" aggregated pp)
string(JSON seqs GET "${OUT}" aggregated max_num_seqs)
string(JSON nbt GET "${OUT}" aggregated max_num_batched_tokens)
string(JSON xg GET "${OUT}" aggregated output_tokens_per_s_per_gpu)
json_le(aggregated ttft_ms 1000.000001)
json_le(aggregated tpot_ms 40.000001)
json_le(aggregated gpus 8)
# Little's law by hand: at the rate every deployment that keeps up delivers rate x 203 tokens/s, so
# tokens/s/GPU x GPUs = rate x 203 (the operating point is bisected to 0.1%)
expect_ratio("aggregated tokens/s over rate x 203" "${xg} * ${g}" "(${rate} * 203)" 0.999 1.002)
# the same configuration is what `infer --search` ranks first on those GPUs at that rate, and one GPU
# fewer serves it in no configuration (the fewest GPUs)
run(0 infer --model llama3-70b --system hgx-h100 --weights fp8 --kv bf16 --search --search-gpus ${g} --rate ${rate}
    --ttft-ms 1000 --tpot-ms 40 --confirm 0 --json)
foreach(pair "tp;${tp}" "pp;${pp}" "max_num_seqs;${seqs}" "max_num_batched_tokens;${nbt}")
  list(GET pair 0 k)
  list(GET pair 1 want)
  string(JSON s GET "${OUT}" best 0 config ${k})
  if(NOT s EQUAL want)
    message(FATAL_ERROR "disagg-search baseline ${k} ${want}, but infer --search on ${g} GPUs ranks ${s} first")
  endif()
endforeach()
math(EXPR g1 "${g} - 1")
if(g1 GREATER 0)
  run(3 infer --model llama3-70b --system hgx-h100 --weights fp8 --kv bf16 --search --search-gpus ${g1}
      --rate ${rate} --ttft-ms 1000 --tpot-ms 40 --confirm 0)
endif()
# the simulator serves the rate on that layout (not overloaded, every request through) within the targets
run(0 infer --model llama3-70b --system hgx-h100 --gpus ${g} --tp ${tp} --pp ${pp} --weights fp8 --kv bf16
    --max-num-seqs ${seqs} --max-num-batched-tokens ${nbt} --simulate --rate ${rate} --requests 3000 --json)
string(JSON over GET "${OUT}" overloaded)
if(over)
  message(FATAL_ERROR "the baseline layout is overloaded in the simulator at ${rate} requests/s")
endif()
json_near(requests_per_s ${rate} 0.05)
json_le(ttft_ms_mean 1000)
json_le(tpot_ms_mean 40)
# without targets the aggregated search holds the disaggregated deployment's own mean latencies
# (else one GPU at any TPOT would "win")
run(0 infer --model llama3-70b --system hgx-h200 --gpus 8 --weights fp8 --kv fp8 --prompt-len 2000 --output-len 500
    --prefill 1x4 --decode 1x4 --rate 5 --json)
string(JSON t1 GET "${OUT}" disaggregated ttft_ms)
string(JSON t2 GET "${OUT}" aggregated_ttft_target_ms)
expect_ratio("aggregated TTFT target over the disaggregated TTFT" ${t2} ${t1} 0.999999 1.000001)

# ---- infer's default layout ----------------------------------------------------------------------
# Llama 3 70B FP8 on 8 H100 without --tp: 8 x TP1 leaves 1.2 GiB of KV per GPU (88 sequences in all);
# the default must be the layout serving the most tokens/s per GPU among every TP x PP of 8 GPUs,
# each run here on its own (ties within 1% go to the lower latency, hence the 0.99).
foreach(load 0 64)
  set(extra)
  if(load GREATER 0)
    set(extra --concurrency ${load})
  endif()
  run(0 infer --model llama3-70b --system hgx-h100 --weights fp8 ${extra} --json)
  string(JSON ctp GET "${OUT}" tp)
  string(JSON cpp GET "${OUT}" pp)
  string(JSON cx GET "${OUT}" at output_tokens_per_s_per_gpu)
  if(ctp EQUAL 1 AND cpp EQUAL 1)
    message(FATAL_ERROR "infer default at concurrency ${load} (0: saturation): still 8 x TP1\n${OUT}")
  endif()
  foreach(ltp 1 2 4 8)
    foreach(lpp 1 2 4 8)
      math(EXPR prod "${ltp} * ${lpp}")
      if(prod GREATER 8)
        continue()
      endif()
      run(0 infer --model llama3-70b --system hgx-h100 --weights fp8 --tp ${ltp} --pp ${lpp} ${extra} --json)
      string(JSON x GET "${OUT}" at output_tokens_per_s_per_gpu)
      string(JSON lc TYPE "${OUT}" layout_choice)
      if(NOT lc STREQUAL "NULL")
        message(FATAL_ERROR "--tp ${ltp} --pp ${lpp} given, yet layout_choice is not null")
      endif()
      string(JSON gtp GET "${OUT}" tp)
      if(NOT gtp EQUAL ltp)
        message(FATAL_ERROR "--tp ${ltp} given, the run used TP ${gtp}")
      endif()
      if(ltp EQUAL 1 AND lpp EQUAL 1)
        set(x_tp1 ${x})
      endif()
      execute_process(COMMAND awk "BEGIN { exit (${cx} >= 0.99 * ${x}) ? 0 : 1 }" RESULT_VARIABLE bad)
      if(bad)
        message(FATAL_ERROR "infer default (TP ${ctp} x PP ${cpp}, ${cx} tok/s/GPU at ${load}) below "
                            "TP ${ltp} x PP ${lpp} (${x})")
      endif()
    endforeach()
  endforeach()
  # and strictly above the old default's (TP 1 x 8: KV-bound)
  expect_ratio("default over TP1 tokens/s/GPU at concurrency ${load}" ${cx} ${x_tp1} 1.5 100)
endforeach()
run(0 infer --model llama3-70b --system hgx-h100 --weights fp8)
expect_out("layout: TP [0-9]+.*the most of the 10 TP x PP layouts that fit; the smallest that fits, TP 1 \\(8 replicas\\)")

# ---- --disagg-search --rate: the fewest GPUs serving the rate --------------------------------------
set(R infer --model llama3-70b --system hgx-h100 --gpus 64 --weights fp8 --kv bf16 --ttft-ms 1000 --tpot-ms 40)
run(0 ${R} --disagg-search --rate 50 --json)
json_near(disaggregated rate 50 1e-12)
json_near(disaggregated output_tokens_per_s 10150 1e-9) # 50 requests/s x 203 tokens
json_le(disaggregated ttft_ms 1000.000001)
json_le(disaggregated tpot_ms 40.000001)
string(JSON sized GET "${OUT}" sized_to_rate)
if(NOT sized)
  message(FATAL_ERROR "--disagg-search --rate: sized_to_rate is '${sized}'")
endif()
string(JSON x GET "${OUT}" disaggregated prefill instances)
string(JSON p GET "${OUT}" disaggregated prefill tp)
string(JSON y GET "${OUT}" disaggregated decode instances)
string(JSON d GET "${OUT}" disaggregated decode tp)
string(JSON used GET "${OUT}" disaggregated gpus_used)
math(EXPR want "${x} * ${p} + ${y} * ${d}")
if(NOT used EQUAL want)
  message(FATAL_ERROR "gpus_used ${used} != ${x} x ${p} + ${y} x ${d}")
endif()
# the hand check: one instance of each side (run on its own) has per-instance rates c_p, c_d
# (requests/s: D1 and D2 of docs/model.md §6.13); the pools must carry the rate:
# x·c_p > 50 and y·c_d > 50, i.e. pool GPUs × per-GPU rate > rate
run(0 ${R} --prefill 1x${p} --decode 1x${d} --rate 0.01 --json)
string(JSON cp GET "${OUT}" disaggregated prefill_capacity)
string(JSON ct GET "${OUT}" disaggregated transfer_capacity)
string(JSON cd GET "${OUT}" disaggregated decode_capacity)
expect_ratio("prefill pool GPUs x per-GPU rate over the rate" "${x} * ${p} * ${cp} / ${p}" 50 1 1e9)
expect_ratio("KV links x per-instance rate over the rate" "${x} * ${ct}" 50 1 1e12)
expect_ratio("decode pool GPUs x per-GPU rate over the rate" "${y} * ${d} * ${cd} / ${d}" 50 1 1e9)
# and it is the fewest of its kind: one instance fewer on either side does not serve 50 requests/s
# within the targets (exit 3 above its capacity, or a mean over a target)
foreach(fewer 1 2)
  set(xx ${x})
  set(yy ${y})
  if(fewer EQUAL 1)
    math(EXPR xx "${x} - 1")
  else()
    math(EXPR yy "${y} - 1")
  endif()
  if(xx LESS 1 OR yy LESS 1)
    continue()
  endif()
  execute_process(COMMAND ${GPUECON} ${R} --prefill ${xx}x${p} --decode ${yy}x${d} --rate 50 --json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 180)
  if(rc EQUAL 0)
    string(JSON a GET "${out}" disaggregated ttft_ms)
    string(JSON b GET "${out}" disaggregated tpot_ms)
    execute_process(COMMAND awk "BEGIN { exit (${a} > 1000 || ${b} > 40) ? 0 : 1 }" RESULT_VARIABLE bad)
    if(bad)
      message(FATAL_ERROR "${xx}P${p} + ${yy}D${d} also serves 50 requests/s within the targets")
    endif()
  elseif(NOT rc EQUAL 3)
    message(FATAL_ERROR "${xx}P${p} + ${yy}D${d}: exit ${rc}\n${err}")
  endif()
endforeach()
# the table says it was sized to the rate; bad input names the option
run(0 ${R} --disagg-search --rate 50)
expect_out("the disaggregated layout on the fewest GPUs serving the rate")
run(2 ${R} --disagg-search --rate 0)
expect_err("--rate")
run(3 infer --model llama3-70b --system hgx-h100 --gpus 8 --weights fp8 --ttft-ms 1000 --tpot-ms 40 --disagg-search
    --rate 1000)
expect_err("--rate.*8 GPUs \\(--gpus\\)")
