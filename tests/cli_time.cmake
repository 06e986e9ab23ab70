# Command-line checks of issue 15 (decisions over time: one run with all its costs, deadlines,
# budgets, throughput timelines). Run by CTest: cmake -DGPUECON=... -DSRC=... -P tests/cli_time.cmake
# Every expected number is derived here from the inputs (formulas of docs/model.md §2, §5, §7),
# never copied from the program's output.
function(run expected_rc)
  execute_process(COMMAND ${GPUECON} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "gpuecon ${ARGN}: exit ${rc}, expected ${expected_rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
  set(ERR "${err}" PARENT_SCOPE)
endfunction()

function(expect_err pattern)
  if(NOT ERR MATCHES "${pattern}")
    message(FATAL_ERROR "stderr does not match '${pattern}':\n${ERR}")
  endif()
endfunction()

function(expect_out pattern)
  if(NOT OUT MATCHES "${pattern}")
    message(FATAL_ERROR "stdout does not match '${pattern}':\n${OUT}")
  endif()
endfunction()

# check(WHAT AWK_CONDITION): fails with WHAT unless the awk condition holds.
function(check what cond)
  execute_process(COMMAND awk "BEGIN { exit (${cond}) ? 0 : 1 }" RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${what}: (${cond}) does not hold")
  endif()
endfunction()

# near(A B REL): |A/B - 1| <= REL, as an awk expression
macro(near a b rel)
  set(NEAR "((${a})/(${b}) - 1 <= ${rel} && 1 - (${a})/(${b}) <= ${rel})")
endmacro()

# ---- (4) one run, all costs: train --tokens --profile with goodput and spares ----------------
# GB200 NVL72, 128 active GPUs = 2 racks of 64 (8 hot spares each) plus the tier's spare-rack
# pool; hyperscaler TCO $2.36/GPU-h (SemiAnalysis, 20 Aug 2025), PUE 1.1.
set(run_args train --model llama3-70b --system gb200-nvl72 --gpus 128 --precision fp8 --seq 8192 --gbs 128
    --tp 2 --pp 4 --cp 1 --mbs 1 --profile hyperscaler --tokens 15T --json)
run(0 ${run_args} --tier best)
foreach(key days_to_train ettr total_usd energy_mwh provisioned_gpus spare_gpus effective_usd_per_mtok)
  string(JSON v GET "${OUT}" ${key})
endforeach()
string(JSON toks GET "${OUT}" tokens_per_s_per_gpu)
string(JSON ettr_best GET "${OUT}" ettr)
string(JSON days GET "${OUT}" days_to_train)
string(JSON usd GET "${OUT}" total_usd)
string(JSON mwh GET "${OUT}" energy_mwh)
string(JSON charged GET "${OUT}" charged_gpus)
string(JSON prov GET "${OUT}" provisioned_gpus)
string(JSON spares GET "${OUT}" spare_gpus)
string(JSON jpt GET "${OUT}" cost joules_per_token)
# 2 racks of 72 hold 128 active GPUs: 16 in-rack spares, plus at least one spare rack
check("NVL72 spares" "${prov} >= 216 && ${spares} == ${prov} - 128 && ${prov} % 72 == 0")
near("${days}" "15e12 / (128 * ${toks} * ${ettr_best}) / 86400" 1e-6)
check("days include failures" "${NEAR}")
# $ = tokens/1e6 x TCO/(tok/s x 3600) x 1e6 x charged/active / ETTR
near("${usd}" "15e12 / 1e6 * 2.36 / (${toks} * 3600) * 1e6 * ${charged} / 128 / ${ettr_best}" 1e-4)
check("total_usd with spares and failures" "${NEAR}")
near("${mwh}" "15e12 * ${jpt} / ${ettr_best} / 3.6e9" 1e-6)
check("energy with re-done work" "${NEAR}")
check("ETTR in (0.9, 1)" "${ettr_best} > 0.9 && ${ettr_best} < 1")
# the same run through compare gives the same days and dollars (they share one costing)
file(WRITE "${WORK}/run-vs-compare.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 15e12, seq: 8192, gbs: 128}
platforms:
  - {system: gb200-nvl72, gpus: 128, profile: hyperscaler, tier: best, measured_tokens_per_s: ${toks}}
")
run(0 compare "${WORK}/run-vs-compare.yaml" --json)
string(JSON cdays GET "${OUT}" comparisons 0 platforms 0 days_to_train)
string(JSON cusd GET "${OUT}" comparisons 0 platforms 0 total_usd)
string(JSON cettr GET "${OUT}" comparisons 0 platforms 0 ettr)
near("${cdays}" "${days}" 1e-9)
check("train and compare agree on days" "${NEAR}")
near("${cusd}" "${usd}" 1e-9)
check("train and compare agree on dollars" "${NEAR}")
# a poorer operator and a lower MTBI each lose goodput
run(0 ${run_args} --tier poor)
string(JSON ettr_poor GET "${OUT}" ettr)
check("poor tier loses goodput" "${ettr_poor} < ${ettr_best}")
run(0 ${run_args} --tier best --mtbi-gpu-days 100)
string(JSON ettr_low GET "${OUT}" ettr)
string(JSON mtbi GET "${OUT}" mtbi_gpu_days)
check("--mtbi-gpu-days is used" "${mtbi} == 100 && ${ettr_low} < ${ettr_best}")
# bad input
run(2 ${run_args} --tier worst)
expect_err("--tier")
run(2 ${run_args} --mtbi-gpu-days 0)
expect_err("--mtbi-gpu-days")
# a tier without --profile costs the run under the default profile (hyperscaler)
run(0 train --model llama3-70b --system hgx-h100 --gpus 64 --seq 8192 --gbs 128 --tier best)
expect_out("cost \\(hyperscaler\\)")

# ---- (3) deadlines: train --target-days D ------------------------------------------------------
# round trip: the answer, fed back through train --gpus, finishes within D days; one domain
# fewer does not (it misses, or no layout can use that many GPUs: exit 2 or 3). Several models
# and systems; the unit is 8 GPUs per HGX node and 72 - 8 hot spares = 64 per NVL72 rack.
function(round_trip unit days)
  set(base ${ARGN})
  run(0 ${base} --target-days ${days} --json)
  string(JSON met GET "${OUT}" met)
  string(JSON n GET "${OUT}" gpus_needed)
  string(JSON u GET "${OUT}" unit)
  string(JSON d GET "${OUT}" days_to_train)
  string(JSON toks GET "${OUT}" tokens_per_s_per_gpu)
  string(JSON ettr GET "${OUT}" ettr)
  foreach(key ettr total_usd energy_mwh provisioned_gpus trade)
    string(JSON v GET "${OUT}" ${key})
  endforeach()
  check("${base}: met, unit ${unit}" "\"${met}\" == \"ON\" && ${u} == ${unit} && ${n} % ${unit} == 0 && ${d} <= ${days}")
  run(0 ${base} --gpus ${n} --json)
  string(JSON d1 GET "${OUT}" days_to_train)
  string(JSON t1 GET "${OUT}" tokens_per_s_per_gpu)
  string(JSON e1 GET "${OUT}" ettr)
  check("train --gpus ${n} meets ${days} days" "${d1} <= ${days} && ${d1} == ${d}")
  near("${d1}" "TOK / (${n} * ${t1} * ${e1}) / 86400" 1e-6)
  check("days = tokens / (GPUs x tok/s/GPU x ETTR)" "${NEAR}")
  math(EXPR fewer "${n} - ${unit}")
  if(fewer GREATER 0)
    execute_process(COMMAND ${GPUECON} ${base} --gpus ${fewer} --json RESULT_VARIABLE rc OUTPUT_VARIABLE out
                    ERROR_VARIABLE err TIMEOUT 120)
    if(rc EQUAL 0)
      string(JSON d0 GET "${out}" days_to_train)
      check("train --gpus ${fewer} misses ${days} days" "${d0} > ${days}")
    elseif(NOT (rc EQUAL 2 OR rc EQUAL 3))
      message(FATAL_ERROR "train --gpus ${fewer}: exit ${rc}\n${err}")
    endif()
  endif()
endfunction()

# days = tokens / (GPUs x tok/s/GPU x ETTR) / 86400: checked inside with the run's own tokens
macro(near a b rel)
  string(REPLACE "TOK" "${TOKENS}" bb "${b}")
  set(NEAR "((${a})/(${bb}) - 1 <= ${rel} && 1 - (${a})/(${bb}) <= ${rel})")
endmacro()

set(TOKENS 15e12)
round_trip(8 90 train --model llama3-70b --system hgx-h100 --precision fp8 --seq 8192 --gbs 1024
           --profile hyperscaler --tokens 15T)
round_trip(8 30 train --model llama3-8b --system hgx-b200 --precision fp8 --seq 8192 --gbs 512
           --profile neocloud --tokens 15T --tier poor)
set(TOKENS 14.8e12)
round_trip(64 60 train --model deepseek-v3 --system gb200-nvl72 --seq 4096 --gbs 15360
           --profile hyperscaler --tokens 14.8T)
set(TOKENS 3e11)
round_trip(8 20 train --model gpt3-175b --system hgx-h200 --precision fp8 --seq 2048 --gbs 1536
           --profile hyperscaler --tokens 300e9 --tier best)

# the fewest GPUs grows as the deadline shortens
set(base train --model llama3-70b --system hgx-h100 --precision fp8 --seq 8192 --gbs 1024
    --profile hyperscaler --tokens 15T --json)
run(0 ${base} --target-days 90)
string(JSON n90 GET "${OUT}" gpus_needed)
run(0 ${base} --target-days 45)
string(JSON n45 GET "${OUT}" gpus_needed)
check("a shorter deadline needs more GPUs" "${n45} > ${n90}")
# no size up to the limit: exit 3 with the nearest miss
run(3 ${base} --target-days 5 --max-gpus 512)
string(JSON met GET "${OUT}" met)
string(JSON ng GET "${OUT}" nearest_gpus)
string(JSON nd GET "${OUT}" nearest_days)
check("nearest miss" "\"${met}\" == \"OFF\" && ${ng} <= 512 && ${nd} > 5")
expect_err("--target-days: no size up to 512 GPUs finishes in 5 days; the nearest miss is")
# bad input
run(2 ${base} --target-days 0)
expect_err("--target-days")
run(2 ${base} --target-days -3)
expect_err("--target-days")
run(2 train --model llama3-70b --system hgx-h100 --seq 8192 --gbs 1024 --target-days 30)
expect_err("--target-days: needs --profile P and --tokens T")
run(2 ${base} --gpus 64 --max-gpus 64)
expect_err("--max-gpus: bounds the --target-days search")
