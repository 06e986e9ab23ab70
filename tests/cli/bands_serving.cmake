# Command-line contract, part 'bands_serving' (run by CTest as cli_bands_serving): the 80% band of
# every predicted figure of infer (one deployment, --sweep, --search, --simulate, disaggregated),
# finetune and rl (issue 47), in JSON, text, CSV and rl's HTML page. The checks hold for any band
# the engine gives: present next to each figure, level 0.8, 0 < low < high, a basis, the list of
# axes it extrapolates on, and about the figure it belongs to (its geometric middle within 3x of
# the figure: a band scaled for the wrong number of GPUs, 8 here, fails). Where one band is shown
# for two forms of a figure (tokens/s of all GPUs and per GPU), they differ by exactly the GPUs.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# expect_band(FIGURE KEY_PATH...): OUT's object at KEY_PATH has FIGURE and band.FIGURE, a proper band about it.
function(expect_band figure)
  set(path ${ARGN})
  string(JSON v GET "${OUT}" ${path} ${figure})
  foreach(k low high level basis)
    string(JSON ${k} GET "${OUT}" ${path} band ${figure} ${k})
  endforeach()
  string(JSON xt TYPE "${OUT}" ${path} band ${figure} extrapolating)
  if(NOT xt STREQUAL "ARRAY")
    message(FATAL_ERROR "${path} band ${figure}: extrapolating is ${xt}, not a list")
  endif()
  if(basis STREQUAL "")
    message(FATAL_ERROR "${path} band ${figure}: empty basis")
  endif()
  execute_process(COMMAND awk "BEGIN { v=${v}; lo=${low}; hi=${high}; m=sqrt(lo*hi);
                                       ok = ${level} == 0.8 && lo > 0 && lo < hi && m < 3*v && m > v/3; exit ok ? 0 : 1 }"
                  RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${path} ${figure} = ${v}: band ${low}..${high} level ${level} is not a band about it")
  endif()
endfunction()

# expect_band_scaled(A B RATIO KEY_PATH...): band.A's ends are RATIO x band.B's (within 1e-6).
function(expect_band_scaled a b ratio)
  set(path ${ARGN})
  foreach(k low high)
    string(JSON x GET "${OUT}" ${path} band ${a} ${k})
    string(JSON y GET "${OUT}" ${path} band ${b} ${k})
    expect_ratio("${path} band ${a}.${k} / ${b}.${k}" ${x} ${y} "${ratio} * (1 - 1e-6)" "${ratio} * (1 + 1e-6)")
  endforeach()
endfunction()

# a low - high range as the terminal prints it ("8,100–11,200")
set(RANGE "[0-9][0-9,.]*–[0-9][0-9,.]*")

# ---- infer, one deployment: the headline figures and the same inside "at" ----
set(D0 --model llama3-8b --system hgx-h100 --gpus 8 --tp 1 --weights fp8)
set(D ${D0} --concurrency 256)
run(0 infer ${D} --json)
foreach(f output_tokens_per_s tpot_ms ttft_ms)
  expect_band(${f})
  expect_band(${f} at)
endforeach()
expect_band(output_tokens_per_s_per_gpu at)
expect_band_scaled(output_tokens_per_s output_tokens_per_s_per_gpu 8 at)
string(JSON a GET "${OUT}" band tpot_ms low)
string(JSON b GET "${OUT}" at band tpot_ms low)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "the headline TPOT band (${a}) is not the one inside at (${b})")
endif()
run(0 infer ${D})
foreach(row "output throughput" "TPOT" "TTFT")
  # each figure's row, then its band's row under it
  expect_out("${row} [^\n]*\n  80% band +${RANGE} +[^ \n]+ +[^ \n]")
endforeach()
run(0 infer ${D} --csv)
expect_out("\n  80% band,[0-9.e+]+-[0-9.e+]+,tok/s/GPU,[^,\n]+")

# ---- --sweep: each point ----
run(0 infer ${D0} --sweep --grid 1,64,512 --json)
foreach(i 0 1 2)
  foreach(f output_tokens_per_s_per_gpu output_tokens_per_s tpot_ms ttft_ms)
    expect_band(${f} points ${i})
  endforeach()
endforeach()
run(0 infer ${D0} --sweep --grid 1,64,512)
expect_out("80% band")
expect_out("80% bands, TPOT: [^\n]")
run(0 infer ${D0} --sweep --grid 1,64 --csv)
# a band column is two CSV fields, low and high, as train, search and compare write theirs (one style)
expect_out("tok/s/GPU,tok/s/GPU 80% low,tok/s/GPU 80% high,TPOT ms,TPOT ms 80% low,TPOT ms 80% high,TTFT ms,TTFT ms 80% low,TTFT ms 80% high")
expect_out("\n64,[^\n]*,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+\n")

# ---- --search: the ranked configurations, the frontier ----
run(0 infer --model llama3-8b --system hgx-h100 --gpus 8 --search --ttft-ms 1000 --tpot-ms 40 --confirm 1 --top 2 --json)
foreach(f output_tokens_per_s_per_gpu ttft_ms tpot_ms)
  expect_band(${f} best 0)
  expect_band(${f} frontier 0)
endforeach()
string(JSON g GET "${OUT}" best 0 config gpus)
expect_band_scaled(output_tokens_per_s output_tokens_per_s_per_gpu ${g} best 0)
run(0 infer --model llama3-8b --system hgx-h100 --gpus 8 --search --ttft-ms 1000 --tpot-ms 40 --confirm 1 --top 2)
expect_out("tok/s/GPU +80% band")
expect_out("80% bands, tok/s/GPU: [^\n]")

# ---- --simulate: the throughput and the mean latencies ----
set(S --model llama3-8b --system hgx-h100 --gpus 8 --tp 1 --weights fp8 --simulate --rate 20 --requests 400)
run(0 infer ${S} --json)
foreach(f output_tokens_per_s_per_gpu output_tokens_per_s ttft_ms_mean tpot_ms_mean)
  expect_band(${f})
endforeach()
expect_band_scaled(output_tokens_per_s output_tokens_per_s_per_gpu 8)
run(0 infer ${S})
expect_out("mean TPOT [0-9.]+ ms \\(${RANGE}, 80%; [^)]+\\)")
run(0 infer ${S} --csv)
expect_out("mean 80% low,mean 80% high\nTTFT,[^\n]*,[0-9.]+,[0-9.]+\n")

# ---- disaggregated: both deployments, analytic and simulated ----
set(G --model llama3-8b --system hgx-h100 --gpus 8 --weights fp8 --prefill 2x1 --decode 6x1 --rate 20)
run(0 infer ${G} --json)
foreach(f output_tokens_per_s_per_gpu ttft_ms tpot_ms)
  expect_band(${f} disaggregated)
  expect_band(${f} aggregated)
endforeach()
run(0 infer ${G})
expect_out("tok/s/GPU +80% band")
run(0 infer ${G} --simulate --requests 300 --json)
expect_band(tpot_ms_mean)
expect_band(output_tokens_per_s_per_gpu)

# ---- finetune: tokens/s (and per GPU), one run and --compare ----
set(F --model gemma4-31b --system hgx-h100 --method lora --strategy fsdp)
run(0 finetune ${F} --json)
expect_band(tokens_per_s)
expect_band(tokens_per_s_per_gpu)
expect_band_scaled(tokens_per_s tokens_per_s_per_gpu 8)
run(0 finetune ${F})
expect_out("throughput [^\n]*\n  80% band +${RANGE} +tok/s")
run(0 finetune ${F} --compare)
expect_out("tok/s +80% band")

# ---- rl: the step time, in JSON, the table, CSV and the HTML page ----
set(R --model llama3-8b --system hgx-h100 --gpus 8 --prompts 64 --samples 8 --prompt-len 512 --response-len 1024)
run(0 rl ${R} --json)
expect_band(step_time_s)
run(0 rl ${R})
expect_out("RL step [^\n]*\n  80% band +${RANGE} +s +[^ \n]")
run(0 rl ${R} --csv)
expect_out("\n  80% band,[0-9.e+]+-[0-9.e+]+,s,")
run(0 rl ${R} --format html)
expect_out("80% band")

# A throughput at a load is the requests in flight over the TPOT: the two bands rest on the same rows
# (the serving throughput and TPOT rows of the same load regime, here a small batch), each row's error
# turned for the other metric, so one is the other's inverse: low(tok/s)/tok/s = TPOT/high(TPOT) and
# high(tok/s)/tok/s = TPOT/low(TPOT), to rounding.
foreach(conc 1 256)
  run(0 infer --model qwen3-8b --system hgx-h20 --gpus 1 --tp 1 --weights bf16 --kv bf16 --prompt-len 1
      --output-len 2048 --concurrency ${conc} --stack sglang --json)
  string(JSON t GET "${OUT}" output_tokens_per_s)
  string(JSON p GET "${OUT}" tpot_ms)
  string(JSON tl GET "${OUT}" band output_tokens_per_s low)
  string(JSON th GET "${OUT}" band output_tokens_per_s high)
  string(JSON pl GET "${OUT}" band tpot_ms low)
  string(JSON ph GET "${OUT}" band tpot_ms high)
  string(JSON tb GET "${OUT}" band output_tokens_per_s basis)
  string(JSON pb GET "${OUT}" band tpot_ms basis)
  expect_ratio("${conc} in flight: tok/s band low over TPOT's inverse high" "(${tl} / ${t})" "(${p} / ${ph})" 0.99999 1.00001)
  expect_ratio("${conc} in flight: tok/s band high over TPOT's inverse low" "(${th} / ${t})" "(${p} / ${pl})" 0.99999 1.00001)
  if(conc EQUAL 1 AND NOT (tb MATCHES "^serving .*small.batch, n=" AND pb MATCHES "^TPOT .*small.batch, n="))
    message(FATAL_ERROR "one request: the bands' groups '${tb}' and '${pb}', not the small-batch rows")
  endif()
  if(conc EQUAL 256 AND (tb MATCHES "small.batch" OR pb MATCHES "small.batch"))
    message(FATAL_ERROR "256 in flight: the bands' groups '${tb}' and '${pb}' are the small-batch rows")
  endif()
endforeach()
