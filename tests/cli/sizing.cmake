# Serving sizing (docs/model.md §6.12 "Sizing at a rate", docs/cli.md): `infer --search --rate R`
# sizes a system to the fewest deployable units (a server, a rack) meeting the targets at R;
# `compare` sizes each serving platform the same way and ranks them by $/Mtok.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# ---- infer --search --rate: the fewest servers, not a power of two ------------------------------
# Llama 3 70B in bf16 (weights and KV fixed) on HGX H100 at 100 requests/s, TTFT 1 s, TPOT 40 ms
# at P90. Without --gpus or --search-gpus the search sizes from one 8-GPU server up.
set(S70 infer --model llama3-70b --system hgx-h100 --weights bf16 --kv bf16 --ttft-ms 1000 --tpot-ms 40)
run(0 ${S70} --search --rate 100 --top 1 --json)
string(JSON unit GET "${OUT}" sizing unit)
string(JSON ugpus GET "${OUT}" sizing unit_gpus)
string(JSON units GET "${OUT}" sizing units)
string(JSON gpus GET "${OUT}" sizing gpus)
string(JSON fewer GET "${OUT}" sizing fewer_units_missed)
if(NOT unit STREQUAL "server" OR NOT ugpus EQUAL 8)
  message(FATAL_ERROR "infer --search --rate on hgx-h100: unit ${unit} of ${ugpus} GPUs, expected server of 8")
endif()
math(EXPR prod "${units} * ${ugpus}")
math(EXPR pow2 "${units} & (${units} - 1)")
if(NOT gpus EQUAL prod OR pow2 EQUAL 0 OR NOT fewer)
  # the answer at doubled counts (1, 2, 4 servers) would be 4 servers: sized by units it is not a power of two
  message(FATAL_ERROR "infer --search --rate: ${units} servers = ${gpus} GPUs, fewer missed ${fewer}; expected a "
                      "unit count that is not a power of two with one unit fewer searched and missed\n${OUT}")
endif()
string(JSON g0 GET "${OUT}" best 0 config gpus)
string(JSON tp GET "${OUT}" best 0 config tp)
string(JSON pp GET "${OUT}" best 0 config pp)
string(JSON seqs GET "${OUT}" best 0 config max_num_seqs)
string(JSON nbt GET "${OUT}" best 0 config max_num_batched_tokens)
if(NOT g0 EQUAL gpus)
  message(FATAL_ERROR "best configuration on ${g0} GPUs, the sizing says ${gpus}")
endif()
# The offered load per GPU: 100 requests/s x 203 output tokens (the default length) / the GPUs.
math(EXPR load_x1000 "100 * 203 * 1000 / ${gpus}")
execute_process(COMMAND awk "BEGIN { printf \"%.4f\", ${load_x1000} / 1000 }" OUTPUT_VARIABLE load)
json_near(best 0 output_tokens_per_s_per_gpu ${load} 0.05)

# One unit fewer misses: the winning configuration itself, simulated at the rate on count - unit GPUs,
# does not meet the targets, while on count GPUs it does; and the search at count - unit exits 3.
math(EXPR fewer_gpus "${gpus} - ${ugpus}")
set(SIM ${S70} --simulate --rate 100 --tp ${tp} --pp ${pp} --max-num-seqs ${seqs} --max-num-batched-tokens ${nbt} --json)
run(0 ${SIM} --gpus ${gpus})
string(JSON met GET "${OUT}" meets_slo)
if(NOT met)
  message(FATAL_ERROR "the sized configuration (TP ${tp} x PP ${pp} on ${gpus} GPUs) misses when simulated\n${OUT}")
endif()
run(0 ${SIM} --gpus ${fewer_gpus})
string(JSON met GET "${OUT}" meets_slo)
if(met)
  message(FATAL_ERROR "the same configuration on ${fewer_gpus} GPUs (one server fewer) meets the targets: the "
                      "sizing was not the fewest\n${OUT}")
endif()
run(3 ${S70} --search --rate 100 --search-gpus ${fewer_gpus})

# A range at a rate bounds the sizing (whole servers inside it); the text names the unit and count.
run(0 ${S70} --search --rate 100 --search-gpus 8-128 --top 1)
expect_out("sized: ${units} servers of 8 GPUs \\(${gpus} GPUs\\)")
# a range holding no whole server, and a bound below the answer
run(2 ${S70} --search --rate 100 --search-gpus 9-15)
expect_err("--search-gpus.*no whole server")
run(3 ${S70} --search --rate 100 --search-gpus 8-16)
expect_err("no count of servers of hgx-h100 up to 2 \\(16 GPUs\\)")
# An NVL72 is sized in racks of 72.
run(0 infer --model llama3-70b --system gb200-nvl72 --search --rate 10 --ttft-ms 2000 --tpot-ms 50 --top 1 --confirm 1
    --json)
string(JSON unit GET "${OUT}" sizing unit)
string(JSON gpus GET "${OUT}" sizing gpus)
if(NOT unit STREQUAL "rack" OR NOT gpus EQUAL 72)
  message(FATAL_ERROR "gb200-nvl72 sized as ${unit} / ${gpus} GPUs, expected one rack of 72")
endif()

# ---- compare: serving platforms sized at a rate and ranked by $/Mtok ------------------------------
# tests/cases/scenarios/serve-rate.yaml: Llama 3 70B bf16 at 150 requests/s, TTFT 1 s, TPOT 40 ms at
# P90; H100 at $2.00/GPU-h against B200 at $4.00/GPU-h (twice the price per GPU-hour).
run(0 compare ${SRC}/tests/cases/scenarios/serve-rate.yaml --json)
string(JSON cheapest GET "${OUT}" comparisons 0 cheapest)
# $/Mtok by hand: GPUs x $/GPU-h / (output tokens per hour / 1e6); tokens/h = 150 x 203 x 3600 =
# 109,620,000 (the default output length 203). Each platform is priced at the offered load.
set(costs "")
foreach(i 0 1)
  string(JSON name GET "${OUT}" comparisons 0 platforms ${i} name)
  string(JSON g GET "${OUT}" comparisons 0 platforms ${i} gpus)
  string(JSON units GET "${OUT}" comparisons 0 platforms ${i} sizing units)
  string(JSON ug GET "${OUT}" comparisons 0 platforms ${i} sizing unit_gpus)
  math(EXPR prod "${units} * ${ug}")
  if(NOT g EQUAL prod OR NOT ug EQUAL 8)
    message(FATAL_ERROR "${name}: ${g} GPUs is not ${units} servers of ${ug}\n${OUT}")
  endif()
  if(name STREQUAL "H100")
    set(price 2.00)
  else()
    set(price 4.00)
  endif()
  execute_process(COMMAND awk "BEGIN { printf \"%.6f\", ${g} * ${price} / (150 * 203 * 3600 / 1e6) }"
                  OUTPUT_VARIABLE want)
  json_near(comparisons 0 platforms ${i} usd_per_mtok ${want} 0.001)
  set(cost_${name} ${want})
  set(gpus_${name} ${g})
endforeach()
# The ranking is by $/Mtok, not by the price of a GPU-hour: B200 costs twice as much per GPU-hour
# and still wins when it needs fewer than half the GPUs (the model finds 2 servers against 5).
execute_process(COMMAND awk "BEGIN { exit (${cost_B200} < ${cost_H100}) ? 0 : 1 }" RESULT_VARIABLE b200_cheaper)
if(b200_cheaper EQUAL 0)
  set(expect_first B200)
else()
  set(expect_first H100)
endif()
if(NOT cheapest STREQUAL expect_first OR NOT cheapest STREQUAL "B200")
  message(FATAL_ERROR "cheapest ${cheapest}; by $/Mtok (B200 ${cost_B200} on ${gpus_B200} GPUs, H100 ${cost_H100} on "
                      "${gpus_H100}) it should be ${expect_first}, and B200 at fewer than half the GPUs\n${OUT}")
endif()
string(JSON verdict GET "${OUT}" verdict)
if(NOT verdict MATCHES "At 150 requests/s B200 needs ${gpus_B200} GPUs \\(2 servers\\), H100 ${gpus_H100}")
  message(FATAL_ERROR "the verdict does not name the GPUs each needs:\n${verdict}")
endif()
# expect_latency_clause(VERDICT PLATFORM LABEL WORDS): the verdict's clause on PLATFORM's LABEL (TPOT,
# TTFT) at its load, its point and 80% band, then WORDS (a regex) and the clause's end.
function(expect_latency_clause verdict pname label words)
  if(NOT verdict MATCHES "At its load ${pname}'s ${label} is predicted [0-9.]+ ms \\([0-9.]+-[0-9.]+ ms, 80% band; [^)]*\\), ${words}\\.")
    message(FATAL_ERROR "${pname} ${label}: no clause '${words}' in the verdict:\n${verdict}")
  endif()
endfunction()

# The cheapest's latencies against the targets, each with its 80% band (docs/model.md §7.5): the
# verdict's clause follows the band's high end against the target (above it: the deployment could
# miss; below: within it across the band), read from the JSON the verdict rests on.
foreach(lat "tpot_ms;TPOT;40" "ttft_ms;TTFT;1000")
  list(GET lat 0 key)
  list(GET lat 1 label)
  list(GET lat 2 target)
  string(JSON lo GET "${OUT}" comparisons 0 platforms 1 band ${key} low)
  string(JSON hi GET "${OUT}" comparisons 0 platforms 1 band ${key} high)
  if(NOT lo LESS hi)
    message(FATAL_ERROR "B200 ${label} band ${lo}-${hi}")
  endif()
  if(hi GREATER target)
    set(words "(its high end|entirely) above the ${target} ms target: the prediction's own uncertainty could make it miss")
  else()
    set(words "within the ${target} ms target across the band")
  endif()
  expect_latency_clause("${verdict}" B200 ${label} "${words}")
endforeach()
# The other two cases, on a fixed load where the platforms miss a tight TPOT target: the point
# past the target with the band's low end within it, and the whole band past it; the words follow
# the JSON's band and point against each target.
foreach(target 15 5)
  file(WRITE miss.yaml "comparisons:\n  - name: serve-miss\n    workload: {kind: serve, model: llama3-70b, precision: bf16, "
                       "kv: bf16, concurrency: 256, tpot_ms_target: ${target}}\n    platforms:\n"
                       "      - {name: H100, system: hgx-h100, gpus: 8}\n      - {name: B200, system: hgx-b200, gpus: 8}\n")
  run(0 compare miss.yaml --json --no-sensitivity)
  string(JSON v GET "${OUT}" verdict)
  string(JSON pname GET "${OUT}" comparisons 0 cheapest)
  set(ci 0)
  string(JSON n0 GET "${OUT}" comparisons 0 platforms 0 name)
  if(NOT n0 STREQUAL pname)
    set(ci 1)
  endif()
  string(JSON point GET "${OUT}" comparisons 0 platforms ${ci} tpot_ms)
  string(JSON lo GET "${OUT}" comparisons 0 platforms ${ci} band tpot_ms low)
  if(NOT point GREATER target)
    message(FATAL_ERROR "serve-miss: ${pname}'s TPOT ${point} ms meets ${target} ms; the case needs a miss")
  endif()
  if(lo GREATER target)
    set(words "above the ${target} ms target across the whole band")
  else()
    set(words "above the ${target} ms target, its low end within it: it meets the target only if the prediction is pessimistic")
  endif()
  expect_latency_clause("${v}" ${pname} TPOT "${words}")
  set(case_${target} "${words}")
endforeach()
if(case_15 STREQUAL case_5)
  message(FATAL_ERROR "serve-miss: both targets gave the same case ('${case_5}'); the test covers one of the two")
endif()
# With --uncertainty the latencies are drawn from their bands too (docs/model.md §7.5): at the fixed
# load of serve-miss (target 5 ms, the whole band above it: P(TPOT <= 5) < P(TPOT <= low) = 0.1) the
# cheapest meets the target in under 10% of the samples, never by turning its load down, and the
# verdict says how often.
run(0 compare miss.yaml --json --no-sensitivity --uncertainty 2000)
string(JSON v GET "${OUT}" verdict)
string(JSON pm GET "${OUT}" comparisons 0 platforms ${ci} probability_meets_target)
string(JSON pl GET "${OUT}" comparisons 0 platforms ${ci} probability_lower_load)
if(NOT pm LESS 0.1 OR NOT pl EQUAL 0 OR NOT v MATCHES "it meets the latency targets in [0-9]+% of them\\.")
  message(FATAL_ERROR "serve-miss --uncertainty: meets ${pm}, lower load ${pl}\n${v}")
endif()
# the CSV carries the same: the latency bands and the joint samples' shares, as the JSON has them
run(0 compare miss.yaml --csv --no-sensitivity --uncertainty 2000)
string(REGEX MATCH "\n[^,\n]+,${pname},[^\n]*" crow "${OUT}")
# the row's tail: throughput, TPOT and TTFT bands, no RL band, the share cheapest, the cost's P10-P90,
# the share meeting the target, at a lower load, and no budget
set(x "[0-9.e+-]+")
string(REGEX MATCH ",${x},${x},(${x}),${x},${x},${x},,,${x},${x},${x},${x},(${x}),(${x}),$" m "${crow}")
if(NOT m OR NOT CMAKE_MATCH_1 GREATER 0 OR NOT CMAKE_MATCH_2 EQUAL pm OR NOT CMAKE_MATCH_3 EQUAL 0)
  message(FATAL_ERROR "serve-miss --csv --uncertainty: the row's tail is not the bands and shares (meets ${pm}):\n${crow}")
endif()
# sized at a rate, a platform's GPUs are chosen to meet the targets: its latencies are not drawn, and it
# gets no share of samples meeting them (the point's 'meets' would pose as one), only the cost's
run(0 compare ${SRC}/tests/cases/scenarios/serve-rate.yaml --json --no-sensitivity --uncertainty 200)
foreach(k 0 1)
  string(JSON pc GET "${OUT}" comparisons 0 platforms ${k} probability_cheapest)
  string(JSON pm ERROR_VARIABLE none GET "${OUT}" comparisons 0 platforms ${k} probability_meets_target)
  if(NOT none OR pc STREQUAL "")
    message(FATAL_ERROR "serve-rate --uncertainty: platform ${k} has a share meeting the targets (${pm}) or none cheapest")
  endif()
endforeach()
run(0 compare ${SRC}/tests/cases/scenarios/serve-rate.yaml --json)
# break-evens come with the ranking, as for training
string(JSON nbe LENGTH "${OUT}" comparisons 0 breakeven)
if(nbe LESS 1)
  message(FATAL_ERROR "no break-even for the serving comparison at a rate")
endif()
run(0 compare ${SRC}/tests/cases/scenarios/serve-rate.yaml --csv)
expect_out("serve-at-rate,B200,hgx-b200,true,${gpus_B200},")
run(0 compare ${SRC}/tests/cases/scenarios/serve-rate.yaml)
expect_out("sized: 2 servers of 8 GPUs, the fewest meeting TPOT <= 40 ms and TTFT <= 1000 ms at P90")
# each predicted serving platform's latencies at its load, with their 80% bands, under its throughput
expect_out("\n    throughput predicted [0-9]+ tok/s/GPU \\([0-9,]+-[0-9,]+, 80%; [^\n]*\n    TPOT predicted [0-9.]+ ms \\([0-9.,]+-[0-9.,]+, 80%; TPOT [^\n]*\n    TTFT predicted [0-9.]+ ms \\([0-9.,]+-[0-9.,]+, 80%; TTFT ")

# A platform that cannot meet the targets at any count up to the bound says so (exit 3: none feasible).
run(3 compare --scenario "workload: {kind: serve, model: llama3-70b, rate: 10, tpot_ms_target: 2}\nplatforms: [{system: hgx-h100}]\n")
expect_out("no count of servers of hgx-h100 up to 512 \\(4096 GPUs\\) meets the targets at 10 requests/s")

# ---- bad input: exit 2 with path:line:col ---------------------------------------------------------
set(W "workload: {kind: serve, model: llama3-70b, tpot_ms_target: 40")
set(P "\nplatforms: [{system: hgx-h100}]\n")
run(2 compare --scenario "${W}, rate: 0}${P}")
expect_err("scenario:1:70: rate: 0 requests/s; allowed above 0 up to 1e9")
run(2 compare --scenario "${W}, rate: -5}${P}")
expect_err("scenario:1:70: rate: -5 requests/s; allowed above 0")
run(2 compare --scenario "${W}, rate: 10, slo_percentile: 100}${P}")
expect_err("scenario:1:90: slo_percentile: 100 is outside \\(0, 100\\)")
run(2 compare --scenario "${W}, rate: 10, slo_percentile: 0}${P}")
expect_err("scenario:1:90: slo_percentile: 0 is outside \\(0, 100\\)")
run(2 compare --scenario "${W}, slo_percentile: 99}${P}")
expect_err("scenario:1:80: slo_percentile needs a rate")
run(2 compare --scenario "${W}, rate: 10, concurrency: 64}${P}")
expect_err("scenario:1:87: give a rate or a concurrency, not both")
run(2 compare --scenario "${W}, rate: 10}\nplatforms: [{system: hgx-h100, tp: 4}]\n")
expect_err("scenario:2:36: tp is not for a platform sized at the workload's rate")
run(2 compare --scenario "workload: {kind: train, model: llama3-8b, tokens: 1e9, seq: 4096, gbs: 64, rate: 10}\nplatforms: [{system: hgx-h100, gpus: 8}]\n")
expect_err("scenario:1:82: rate is for a serving workload")

# ---- a histogram of request lengths: sized at its weighted means -----------------------------------
# serve-lengths.csv: 3 x (1000 -> 200) and 1 x (5000 -> 600): means (3·1000 + 5000)/4 = 2000 prompt
# and (3·200 + 600)/4 = 300 output tokens. The same comparison written with those means answers alike.
run(0 compare ${SRC}/tests/cases/scenarios/serve-lengths.yaml --json)
set(HIST "${OUT}")
run(0 compare --json --scenario "comparisons:\n  - name: serve-lengths\n    workload: {kind: serve, model: llama3-70b, precision: fp8, kv: fp8, prompt_len: 2000, output_len: 300, rate: 20, ttft_ms_target: 2000, tpot_ms_target: 50}\n    platforms:\n      - {name: H100, system: hgx-h100, usd_per_gpu_hour: 2.00}\n      - {name: H200, system: hgx-h200, usd_per_gpu_hour: 2.50}\n")
foreach(i 0 1)
  foreach(k gpus usd_per_mtok ttft_ms tpot_ms)
    string(JSON a GET "${HIST}" comparisons 0 platforms ${i} ${k})
    string(JSON b GET "${OUT}" comparisons 0 platforms ${i} ${k})
    if(NOT a STREQUAL b)
      message(FATAL_ERROR "lengths: histogram vs its means: platform ${i} ${k} ${a} vs ${b}")
    endif()
  endforeach()
endforeach()
# $/Mtok of the first platform by hand: GPUs x 2.00 / (20 x 300 x 3600 / 1e6)
string(JSON g GET "${HIST}" comparisons 0 platforms 0 gpus)
execute_process(COMMAND awk "BEGIN { printf \"%.6f\", ${g} * 2.00 / (20 * 300 * 3600 / 1e6) }" OUTPUT_VARIABLE want)
json_near(comparisons 0 platforms 0 usd_per_mtok ${want} 0.001)
# a bad histogram line is named path:line:col; lengths with prompt_len, or in a text scenario, exit 2
set(BADDIR "${CMAKE_CURRENT_BINARY_DIR}/sizing-bad")
file(MAKE_DIRECTORY "${BADDIR}")
file(WRITE "${BADDIR}/h.csv" "1000 200 1\n2000 zero 1\n")
file(WRITE "${BADDIR}/s.yaml" "comparisons:\n  - name: x\n    workload: {kind: serve, model: llama3-70b, lengths: h.csv, rate: 5}\n    platforms: [{system: hgx-h100}]\n")
run(2 compare "${BADDIR}/s.yaml")
expect_err("h.csv:2:6: output length 'zero'")
file(WRITE "${BADDIR}/s2.yaml" "comparisons:\n  - name: x\n    workload: {kind: serve, model: llama3-70b, lengths: h.csv, prompt_len: 100, rate: 5}\n    platforms: [{system: hgx-h100}]\n")
run(2 compare "${BADDIR}/s2.yaml")
expect_err("s2.yaml:3:[0-9]+: give lengths \\(a histogram\\) or prompt_len and output_len, not both")
run(2 compare --scenario "workload: {kind: serve, model: llama3-70b, lengths: h.csv, rate: 5}\nplatforms: [{system: hgx-h100}]\n")
expect_err("scenario:1:[0-9]+: lengths: a scenario given as text")

# placement: disaggregated at a rate (issue 48, "aggregated or disaggregated"): the fewest GPUs whose prefill and
# decode pools serve the rate on means (gpuecon_infer_disagg_size), charged in whole servers. Llama 3 70B bf16 at
# 150 requests/s, TTFT 1 s, TPOT 40 ms on H100: infer --disagg-search finds no layout within 32 GPUs (4 servers)
# and one within 40, so the platform is 5 servers; $/Mtok = 40 x 2.00 / (150 x output_len x 3600 / 1e6)
file(READ ${SRC}/tests/cases/scenarios/serve-rate.yaml sr)
string(REPLACE "      - name: B200" "      - name: H100 disaggregated\n        system: hgx-h100\n        placement: disaggregated\n        usd_per_gpu_hour: 2.00\n      - name: B200" sr "${sr}")
file(WRITE sd.yaml "${sr}")
run(0 compare sd.yaml --json --no-sensitivity)
string(JSON dname GET "${OUT}" comparisons 0 platforms 1 name)
string(JSON dg GET "${OUT}" comparisons 0 platforms 1 gpus)
string(JSON du GET "${OUT}" comparisons 0 platforms 1 sizing units)
string(JSON dn GET "${OUT}" comparisons 0 platforms 1 prediction)
set(olen 203) # the serve workload's default lengths: prompt 230, output 203 tokens (docs/scenarios.md)
if(NOT dname STREQUAL "H100 disaggregated" OR NOT dg EQUAL 40 OR NOT du EQUAL 5 OR
   NOT dn MATCHES "sized disaggregated: [0-9]+ prefill x TP[0-9]+ \\+ [0-9]+ decode x TP[0-9]+ = (3[3-9]|40) GPUs, charged as 5 servers")
  message(FATAL_ERROR "the disaggregated H100 platform at 150 requests/s: ${dname} ${dg} GPUs, ${du} units: ${dn}")
endif()
execute_process(COMMAND awk "BEGIN { printf \"%.6f\", 40 * 2.00 / (150 * ${olen} * 3600 / 1e6) }" OUTPUT_VARIABLE want)
json_near(comparisons 0 platforms 1 usd_per_mtok ${want} 0.001)
run(3 infer --model llama3-70b --system hgx-h100 --disagg-search --rate 150 --gpus 32 --ttft-ms 1000 --tpot-ms 40
    --weights bf16 --kv bf16 --prompt-len 230 --output-len ${olen})
run(0 infer --model llama3-70b --system hgx-h100 --disagg-search --rate 150 --gpus 40 --ttft-ms 1000 --tpot-ms 40
    --weights bf16 --kv bf16 --prompt-len 230 --output-len ${olen} --json)
json_le(disaggregated gpus_used 40)
# placement on a serve workload without a rate is refused (nothing is sized)
file(WRITE sd2.yaml "comparisons:\n  - name: x\n    workload: {kind: serve, model: llama3-8b}\n    platforms:\n      - {system: hgx-h100, gpus: 8, placement: disaggregated}\n")
run(2 compare sd2.yaml)
expect_err("sd2.yaml:5:[0-9]+: placement and gen_gpus are for rl workloads \\(and placement for a serve workload with a rate")
