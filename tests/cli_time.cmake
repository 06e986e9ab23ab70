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

# the band's sizes (issue 47: --target-days had no band): at the 80% band's low end (throughput x low/point on
# every size, days x point/low, the ETTR held) gpus_needed_band.at_low is the fewest GPUs meeting the deadline:
# checked through train --gpus at that count and one domain fewer; at_high <= gpus_needed <= at_low
set(TOKENS 15e12)
set(bb train --model llama3-70b --system hgx-h100 --precision fp8 --seq 8192 --gbs 1024 --profile hyperscaler
    --tokens 15T)
run(0 ${bb} --target-days 90 --json)
string(JSON n GET "${OUT}" gpus_needed)
string(JSON pt GET "${OUT}" tokens_per_s_per_gpu)
string(JSON lo GET "${OUT}" band tokens_per_s_per_gpu low)
string(JSON dlo GET "${OUT}" band days_to_train high)
string(JSON d GET "${OUT}" days_to_train)
string(JSON nl GET "${OUT}" gpus_needed_band at_low)
string(JSON nh GET "${OUT}" gpus_needed_band at_high)
check("band days at ${n} GPUs: ${dlo} = ${d} x ${pt}/${lo}" "(${dlo}) / (${d} * ${pt} / ${lo}) - 1 < 1e-9 && 1 - (${dlo}) / (${d} * ${pt} / ${lo}) < 1e-9")
check("at_high ${nh} <= ${n} <= at_low ${nl}" "${nh} <= ${n} && ${n} <= ${nl} && ${nl} % 8 == 0")
run(0 ${bb} --gpus ${nl} --json)
string(JSON dl GET "${OUT}" days_to_train)
check("${nl} GPUs at the band's low end: ${dl} x ${pt}/${lo} <= 90 days" "${dl} * ${pt} / ${lo} <= 90")
math(EXPR fewer "${nl} - 8")
execute_process(COMMAND ${GPUECON} ${bb} --gpus ${fewer} --json RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 120)
if(rc EQUAL 0) # one domain fewer misses at the low end, or no layout uses that many GPUs (exit 2 or 3)
  string(JSON df GET "${out}" days_to_train)
  check("${fewer} GPUs at the band's low end: ${df} x ${pt}/${lo} > 90 days" "${df} * ${pt} / ${lo} > 90")
elseif(NOT (rc EQUAL 2 OR rc EQUAL 3))
  message(FATAL_ERROR "train --gpus ${fewer}: exit ${rc}\n${err}")
endif()
run(0 ${bb} --target-days 90)
expect_out("80% band +[0-9,]+ tok/s/GPU \\([0-9,]+-[0-9,]+, 80%; [^)]*\\): [0-9.]+-[0-9.]+ days at [0-9]+ GPUs; the deadline needs ${nl} GPUs at the band's low end")

# the fewest GPUs grows as the deadline shortens
set(base train --model llama3-70b --system hgx-h100 --precision fp8 --seq 8192 --gbs 1024
    --profile hyperscaler --tokens 15T --json)
run(0 ${base} --target-days 90)
string(JSON n90 GET "${OUT}" gpus_needed)
run(0 ${base} --target-days 45)
string(JSON n45 GET "${OUT}" gpus_needed)
check("a shorter deadline needs more GPUs" "${n45} > ${n90}")
# --csv: the table of sizes tried, the fewest that meets the deadline marked, as the JSON says
run(0 train --model llama3-70b --system hgx-h100 --precision fp8 --seq 8192 --gbs 1024 --profile hyperscaler
    --tokens 15T --target-days 90 --csv)
expect_out("^GPUs,provisioned,tp,pp,cp,ep,dp,tok/s/GPU,ETTR,days,\\$M,MWh,deadline\n")
expect_out("\n${n90},[^\n]*,meets \\(fewest\\)\n")
# a size that cannot run keeps its whole reason in CSV (the terminal cuts it to its column)
expect_out(",\"cannot run: [^\"]*divides the global batch of 1024 sequences[^\"]*\"")
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

# ---- (1) throughput timelines: a run that spans a release gets the gain from that date on ----
# 1,024 H100 from 2025-05-01: 600 tok/s/GPU for May's 31 days, then 1,200. With ETTR e the
# cluster trains 1024 x 600 x e x 86400 tokens a day in May; the rest of the 3e12 tokens at
# twice that rate.
file(WRITE "${WORK}/span.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 3e12, seq: 8192, gbs: 1024, start_date: 2025-05-01}
platforms:
  - name: H100
    system: hgx-h100
    gpus: 1024
    tier: best
    throughput_timeline:
      - {date: 2025-05, tokens_per_s_per_gpu: 600, stage: measured, source: test}
      - {date: 2025-06, tokens_per_s_per_gpu: 1200, stage: measured, source: test}
")
run(0 compare "${WORK}/span.yaml" --json)
string(JSON e GET "${OUT}" comparisons 0 platforms 0 ettr)
string(JSON d GET "${OUT}" comparisons 0 platforms 0 days_to_train)
string(JSON usd GET "${OUT}" comparisons 0 platforms 0 total_usd)
string(JSON ch GET "${OUT}" comparisons 0 platforms 0 charged_gpus)
string(JSON np LENGTH "${OUT}" comparisons 0 platforms 0 timeline_points_used)
set(may "(1024 * 600 * ${e} * 86400 * 31)")
near("${d}" "31 + (3e12 - ${may}) / (1024 * 1200 * ${e} * 86400)" 1e-6)
check("days over a release" "${NEAR} && ${np} == 2")
# dollars: TCO $1.42/GPU-h (hyperscaler H100) x charged GPUs x hours, over the two steps
near("${usd}" "1.42 * ${ch} * 24 * ${d}" 1e-6)
check("dollars over a release" "${NEAR}")
# a start after the last point uses it alone
string(REPLACE "start_date: 2025-05-01" "start_date: 2026-01-15" late "${span_yaml}")
file(READ "${WORK}/span.yaml" span)
string(REPLACE "2025-05-01" "2026-01-15" late "${span}")
file(WRITE "${WORK}/late.yaml" "${late}")
run(0 compare "${WORK}/late.yaml" --json)
string(JSON t GET "${OUT}" comparisons 0 platforms 0 tokens_per_s_per_gpu)
string(JSON np LENGTH "${OUT}" comparisons 0 platforms 0 timeline_points_used)
check("after the last point" "${t} == 1200 && ${np} == 1")

# ---- (2) the built-in DeepSeek-V3 series: May no advantage, July 1.52x, December a projection --
run(0 compare --json)
string(JSON nc LENGTH "${OUT}" comparisons)
math(EXPR last "${nc} - 1")
set(k -1)
foreach(i RANGE ${last})
  string(JSON nm GET "${OUT}" comparisons ${i} name)
  if(nm STREQUAL "deepseek-v3-timeline")
    set(k ${i})
  endif()
endforeach()
check("built-in timeline comparison" "${k} >= 0")
string(JSON bd GET "${OUT}" comparisons ${k} breakeven_date)
string(JSON leader GET "${OUT}" comparisons ${k} timeline_series 0 leader)
string(JSON may GET "${OUT}" comparisons ${k} timeline_series 0 perf_per_tco)
string(JSON jul GET "${OUT}" comparisons ${k} timeline_series 1 perf_per_tco)
string(JSON dec GET "${OUT}" comparisons ${k} timeline_series 2 perf_per_tco)
string(JSON decp GET "${OUT}" comparisons ${k} timeline_series 2 projection)
string(JSON julp GET "${OUT}" comparisons ${k} timeline_series 1 projection)
# published: May GB200 $0.684 vs H100 $0.626 per 1M tokens; July 1.52x; both at $2.36 / $1.42 per GPU-h
near("${may}" "0.626 / 0.684" 0.01)
check("May: no advantage (${may})" "${NEAR} && ${may} < 1")
near("${jul}" "1.52" 0.01)
check("July: 1.52x perf/TCO (${jul})" "${NEAR}")
near("${dec}" "(1.42 / 842) / (2.36 / 3957)" 1e-6)
check("December from the projected 3,957 tok/s (${dec})" "${NEAR} && \"${decp}\" == \"ON\" && \"${julp}\" == \"OFF\"")
check("break-even date between May and July (${bd})" "\"${bd}\" >= \"2025-05-01\" && \"${bd}\" < \"2025-07-01\"")
if(NOT leader STREQUAL "GB200 NVL72")
  message(FATAL_ERROR "leader ${leader}")
endif()
string(JSON gb GET "${OUT}" comparisons ${k} platforms 1 timeline_points_used 0 date)
string(JSON gbt GET "${OUT}" comparisons ${k} platforms 1 tokens_per_s_per_gpu)
check("without a start date: today's (July) point, not the projection" "\"${gb}\" == \"2025-07\" && ${gbt} == 2138")
# One rule between points (docs/model.md §7.8): the break-even date is a start date, and a run of
# the same workload starting on it is cheaper on the leader while one starting the day before is
# not. With May's points in force (GB200 958, H100 630 tok/s/GPU at $2.36 / $1.42 per GPU-h) H100
# is cheaper per token (1.42/630 = 2.25e-3 < 2.36/958 = 2.46e-3 $/GPU-s per tok/s), with July's
# (2,138 vs 842) GB200 is (1.10e-3 < 1.69e-3): the date lies in June, where a 14.8T-token run
# starting late enough reaches July's software. A date interpolated between the points (the old
# rule: 2025-05-28) disagreed with the run starting the next day.
check("break-even in June (${bd})" "\"${bd}\" >= \"2025-06-01\" && \"${bd}\" < \"2025-07-01\"")
string(SUBSTRING "${bd}" 8 2 bd_day)
math(EXPR prev_day "${bd_day} - 1")
if(prev_day LESS 10)
  set(prev_day "0${prev_day}")
endif()
string(SUBSTRING "${bd}" 0 8 bd_month)
foreach(start "${bd}" "${bd_month}${prev_day}")
  file(WRITE "${WORK}/start-${start}.yaml" "
workload: {kind: train, model: deepseek-v3, precision: bf16, tokens: 14.8e12, seq: 4096, gbs: 15360, start_date: ${start}}
platforms:
  - {name: H100, system: hgx-h100, gpus: 16384, throughput_timeline: deepseek-v3-bf16-hgx-h100}
  - {name: GB200 NVL72, system: gb200-nvl72, gpus: 16384, throughput_timeline: deepseek-v3-bf16-gb200-nvl72}
")
  run(0 compare "${WORK}/start-${start}.yaml" --json)
  string(JSON cheap GET "${OUT}" comparisons 0 cheapest)
  string(JSON bd2 GET "${OUT}" comparisons 0 breakeven_date)
  if(start STREQUAL bd)
    set(want "GB200 NVL72")
  else()
    set(want "H100")
  endif()
  if(NOT cheap STREQUAL want OR NOT bd2 STREQUAL bd)
    message(FATAL_ERROR "a run starting ${start}: cheapest ${cheap} (expected ${want}); break-even ${bd2} vs ${bd}")
  endif()
endforeach()

# The break-even date by hand. A steps from 1,000 to 3,000 tok/s/GPU on 2025-03-01; B holds 2,000;
# same system, size, tier and price, so the costs compare as B's 2,000 against A's run throughput
# x = T / (T1/1000 + (T - T1)/3000), T1 the tokens trained before March. x <= 2000 exactly when
# T1 >= T/4, i.e. when the run starts D* = T / (4 x 1024 x 1000 x ETTR x 86400) days or more
# before March 1st. So the last start on which B is not dearer is March 1st - ceil(D*) days, and
# the break-even date one day later: February (30 - ceil(D*)) in 2025 (28 days). T = 3.5e12: D*
# ~ 10 days. (The old rule, A interpolated between its points, put the date near January 30th.)
file(WRITE "${WORK}/hand-breakeven.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 3.5e12, seq: 8192, gbs: 1024}
platforms:
  - name: A
    system: hgx-h100
    gpus: 1024
    tier: best
    usd_per_gpu_hour: 2.0
    throughput_timeline:
      - {date: 2025-01, tokens_per_s_per_gpu: 1000, stage: measured, source: test}
      - {date: 2025-03, tokens_per_s_per_gpu: 3000, stage: measured, source: test}
  - {name: B, system: hgx-h100, gpus: 1024, tier: best, usd_per_gpu_hour: 2.0, measured_tokens_per_s: 2000}
")
run(0 compare "${WORK}/hand-breakeven.yaml" --json)
string(JSON ea GET "${OUT}" comparisons 0 platforms 0 ettr)
string(JSON eb GET "${OUT}" comparisons 0 platforms 1 ettr)
string(JSON bd GET "${OUT}" comparisons 0 breakeven_date)
execute_process(COMMAND awk "BEGIN { d = 3.5e12 / (4 * 1024 * 1000 * ${ea} * 86400); c = int(d); if (c < d) c++;
                                    printf \"2025-02-%02d\", 30 - c }"
                OUTPUT_VARIABLE want OUTPUT_STRIP_TRAILING_WHITESPACE)
check("same goodput on both (${ea}, ${eb})" "${ea} == ${eb}")
if(NOT bd STREQUAL want)
  message(FATAL_ERROR "break-even date ${bd}, expected ${want} by hand")
endif()

# A platform is not rated before its first point: B200's timeline starts in September 2025, so
# the series has no earlier date (H100's January and June points are left out) and the text says
# why. Both at $/GPU-h of the hyperscaler profile; September: B200 3,000 vs H100 1,100 tok/s/GPU.
file(WRITE "${WORK}/late-start.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 1e12, seq: 8192, gbs: 1024}
platforms:
  - name: H100
    system: hgx-h100
    gpus: 1024
    tier: best
    throughput_timeline:
      - {date: 2025-01, tokens_per_s_per_gpu: 1000, stage: measured, source: test}
      - {date: 2025-06, tokens_per_s_per_gpu: 1100, stage: measured, source: test}
  - name: B200
    system: hgx-b200
    gpus: 1024
    tier: best
    throughput_timeline:
      - {date: 2025-09, tokens_per_s_per_gpu: 3000, stage: measured, source: test}
      - {date: 2026-01, tokens_per_s_per_gpu: 3300, stage: measured, source: test}
")
run(0 compare "${WORK}/late-start.yaml" --json)
string(JSON s0 GET "${OUT}" comparisons 0 timeline_series 0 date)
string(JSON ns LENGTH "${OUT}" comparisons 0 timeline_series)
string(JSON tl GET "${OUT}" comparisons 0 timeline)
check("no series date before B200's first point (${s0}, ${ns} rows)" "\"${s0}\" == \"2025-09\" && ${ns} == 2")
if(NOT tl MATCHES "B200 is not rated before its first point \\(2025-09\\)" OR NOT tl MATCHES "from 2025-09-01")
  message(FATAL_ERROR "timeline text: ${tl}")
endif()
run(0 reproduce --json)
expect_out("DeepSeek Jul-25 timeline")
expect_out("Dec-25 timeline \\(projection\\)")

# ---- deadline and budget in a scenario -----------------------------------------------------------
file(WRITE "${WORK}/budget.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 15e12, seq: 8192, gbs: 1024,
           target_days: 100, budget_usd: 4e6}
platforms:
  - {name: slow, system: hgx-h100, gpus: 1024, profile: hyperscaler, tier: best, measured_tokens_per_s: 1000}
  - {name: fast, system: hgx-h100, gpus: 2048, profile: hyperscaler, tier: best, measured_tokens_per_s: 1500}
")
# slow: 15e12 / (1024 x 1000 x ~0.98 x 86400) ~ 173 days > 100; fast: ~58 days. Cost per
# token 1.42 / (tok/s x 3600) x 1e6 x charged/active / ETTR: fast ~ $4.1M (> 4e6) at 1500
run(0 compare "${WORK}/budget.yaml" --json)
string(JSON m0 GET "${OUT}" comparisons 0 platforms 0 meets_target)
string(JSON m1 GET "${OUT}" comparisons 0 platforms 1 meets_target)
string(JSON u1 GET "${OUT}" comparisons 0 platforms 1 total_usd)
string(JSON b1 GET "${OUT}" comparisons 0 platforms 1 within_budget)
check("deadline flags" "\"${m0}\" == \"OFF\" && \"${m1}\" == \"ON\"")
check("budget flag" "(\"${b1}\" == \"ON\") == (${u1} <= 4e6)")
expect_out("slow misses the 100-day deadline")

# ---- bad input: path:line:col, exit 2 ----------------------------------------------------------
foreach(bad "2025-13" "yesterday" "2025-02-30")
  string(REPLACE "2025-05-01" "${bad}" txt "${span}")
  file(WRITE "${WORK}/bad-date.yaml" "${txt}")
  run(2 compare "${WORK}/bad-date.yaml")
  expect_err("bad-date.yaml:2:[0-9]+: start_date: '${bad}' is not an ISO date")
endforeach()
string(REPLACE "date: 2025-06" "date: 2025-04" txt "${span}")
file(WRITE "${WORK}/bad-order.yaml" "${txt}")
run(2 compare "${WORK}/bad-order.yaml")
expect_err("bad-order.yaml:10:[0-9]+: throughput_timeline: 2025-04 comes before the previous point's 2025-05")
string(REPLACE "date: 2025-06" "date: 2025-05" txt "${span}")
file(WRITE "${WORK}/bad-dup.yaml" "${txt}")
run(2 compare "${WORK}/bad-dup.yaml")
expect_err("bad-dup.yaml:10:[0-9]+: throughput_timeline: 2025-05 repeats")
string(REPLACE "2025-05-01" "2024-12-01" txt "${span}")
file(WRITE "${WORK}/bad-start.yaml" "${txt}")
run(2 compare "${WORK}/bad-start.yaml")
expect_err("bad-start.yaml:[0-9]+:[0-9]+: start_date 2024-12-01 is before this timeline's first point")
foreach(field "target_days: 0" "target_days: -5" "budget_usd: 0" "budget_usd: -1")
  string(REPLACE "start_date: 2025-05-01" "${field}" txt "${span}")
  file(WRITE "${WORK}/bad-field.yaml" "${txt}")
  run(2 compare "${WORK}/bad-field.yaml")
  expect_err("bad-field.yaml:2:[0-9]+:")
endforeach()

# ---- (6) the closing judgment by operator tier: flip_tier ---------------------------------------
# Same TCO ($2.00/GPU-h) and spares earning other work, so a platform's cost per token is
# 2.00 / (tok/s x 3600) x 1e6 / ETTR: NVL72 (3,060 tok/s) beats HGX (3,000) exactly where
# 3060 x ETTR_NVL72 > 3000 x ETTR_HGX. Its larger blast radius costs it more goodput at worse tiers.
run(0 compare ${SRC}/tests/cases/scenarios/tier-flip.yaml --json)
foreach(i RANGE 5)
  string(JSON e${i} GET "${OUT}" comparisons 0 platforms ${i} ettr)
  string(JSON c${i} GET "${OUT}" comparisons 0 platforms ${i} effective_usd_per_mtok)
endforeach()
near("${c1}" "2.0 / (3060 * 3600) * 1e6 / ${e1}" 1e-6)
check("NVL72 cost with free spares" "${NEAR}")
string(JSON flip GET "${OUT}" comparisons 0 flip_tier)
string(JSON t0 GET "${OUT}" comparisons 0 tiers 0 rack_scale)
string(JSON nt LENGTH "${OUT}" comparisons 0 tiers)
# the expected flip tier, derived from the goodputs
execute_process(COMMAND awk "BEGIN { b = (3060*${e1} > 3000*${e0}); t = (3060*${e3} > 3000*${e2}); p = (3060*${e5} > 3000*${e4});
                                    f = (t != b) ? \"typical\" : (p != b) ? \"poor\" : \"null\"; print f }"
                OUTPUT_VARIABLE want OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT flip STREQUAL want OR NOT nt EQUAL 3)
  message(FATAL_ERROR "flip_tier ${flip}, expected ${want} (tiers: ${nt})")
endif()
check("NVL72 leads at the best tier, the flip is real" "\"${t0}\" == \"ON\" && \"${want}\" != \"null\"")
# The verdict is given per tier, each platform against the other system at its own tier: at tier
# t the cheaper of HGX and NVL72 wins, "x% below" the other with x = 100 (1 - min/max) of their
# costs (checked above against 2.00 / (tok/s x 3600) x 1e6 / ETTR; one decimal below 10%, as the
# verdict writes it), never against itself at another tier.
string(JSON verdict GET "${OUT}" comparisons 0 verdict)
foreach(t 0 1 2)
  math(EXPR h "2 * ${t}")
  math(EXPR v "2 * ${t} + 1")
  string(JSON tn GET "${OUT}" comparisons 0 tiers ${t} tier)
  string(JSON tc GET "${OUT}" comparisons 0 tiers ${t} cheapest)
  string(JSON tr GET "${OUT}" comparisons 0 tiers ${t} runner_up)
  execute_process(COMMAND awk "BEGIN { h = ${c${h}}; v = ${c${v}}; w = (v < h) ? \"NVL72\" : \"HGX\";
                                      o = (v < h) ? \"HGX\" : \"NVL72\"; lo = (v < h) ? v : h; hi = (v < h) ? h : v;
                                      x = 100 * (1 - lo / hi); printf (x < 10 ? \"%s %s %.1f\" : \"%s %s %.0f\"), w, o, x }"
                  OUTPUT_VARIABLE exp_tier OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(exp_tier)
  list(GET exp_tier 0 win)
  list(GET exp_tier 1 other)
  list(GET exp_tier 2 pct)
  if(NOT tc STREQUAL "${win} ${tn}" OR NOT tr STREQUAL "${other} ${tn}")
    message(FATAL_ERROR "tier ${tn}: cheapest ${tc}, runner-up ${tr}; expected ${win} ${tn} and ${other} ${tn}")
  endif()
  if(NOT verdict MATCHES "operators: ${win} ${tn} is cheapest at [$][0-9.]+ per 1M tokens, ${pct}% below ${other} ${tn}")
    message(FATAL_ERROR "verdict at tier ${tn}: expected '${win} ${tn} ... ${pct}% below ${other} ${tn}':\n${verdict}")
  endif()
endforeach()

# the built-in judgment: both workloads report the three tiers and a flip_tier (null or a tier)
run(0 compare --json)
foreach(name judgment-dense-70b judgment-moe-deepseek-v3)
  string(JSON nc LENGTH "${OUT}" comparisons)
  math(EXPR last "${nc} - 1")
  set(k -1)
  foreach(i RANGE ${last})
    string(JSON nm GET "${OUT}" comparisons ${i} name)
    if(nm STREQUAL name)
      set(k ${i})
    endif()
  endforeach()
  string(JSON nt LENGTH "${OUT}" comparisons ${k} tiers)
  string(JSON ft TYPE "${OUT}" comparisons ${k} flip_tier)
  string(JSON stage GET "${OUT}" comparisons ${k} platforms 0 throughput_source stage)
  check("${name}: three tiers, flip_tier, stages" "${k} >= 0 && ${nt} == 3 && (\"${ft}\" == \"NULL\" || \"${ft}\" == \"STRING\") && \"${stage}\" == \"derived\"")
  # never one hardware against itself: the verdict's rival and every break-even row's rival is
  # another system at the same tier (the platform names end in "(tier)")
  string(JSON verdict GET "${OUT}" comparisons ${k} verdict)
  foreach(tier best typical poor)
    string(TOUPPER "${tier}" up)
    string(SUBSTRING "${up}" 0 1 up)
    string(SUBSTRING "${tier}" 1 -1 rest)
    if(NOT verdict MATCHES "${up}${rest} operators: ")
      message(FATAL_ERROR "${name}: no verdict for ${tier} operators:\n${verdict}")
    endif()
  endforeach()
  if(verdict MATCHES "(HGX B[23]00|GB[23]00 NVL72) \\((best|typical|poor)\\)[^.;]* below \\1 \\(")
    message(FATAL_ERROR "${name}: one hardware against itself:\n${verdict}")
  endif()
  string(JSON nb LENGTH "${OUT}" comparisons ${k} breakeven)
  math(EXPR lb "${nb} - 1")
  foreach(b RANGE ${lb})
    string(JSON bp GET "${OUT}" comparisons ${k} breakeven ${b} platform)
    string(JSON br GET "${OUT}" comparisons ${k} breakeven ${b} rival)
    string(REGEX REPLACE " \\(.*" "" bps "${bp}")
    string(REGEX REPLACE " \\(.*" "" brs "${br}")
    string(REGEX REPLACE ".*\\((.*)\\)" "\\1" bpt "${bp}")
    string(REGEX REPLACE ".*\\((.*)\\)" "\\1" brt "${br}")
    if(bps STREQUAL brs OR NOT bpt STREQUAL brt)
      message(FATAL_ERROR "${name}: break-even of ${bp} against ${br}: expected another system at the same tier")
    endif()
  endforeach()
endforeach()

# ---- (5) the cluster's life: owning vs renting ------------------------------------------------------
# 1,024 H100 (HGX) for 15T-token runs, neocloud TCO $1.948/GPU-h (SemiAnalysis, 20 Aug 2025),
# rent $2.50 per GPU-hour used, 4 years (the neocloud profile's life), cost of capital 13%.
set(life_args train --model llama3-70b --system hgx-h100 --gpus 1024 --precision fp8 --seq 8192 --gbs 1024
    --profile neocloud --tokens 15T --rent-usd-per-gpu-hour 2.5 --json)
run(0 ${life_args} --utilisation 0.9)
string(JSON toks GET "${OUT}" tokens_per_s_per_gpu)
string(JSON ch GET "${OUT}" life charged_gpus)
string(JSON own GET "${OUT}" life own_usd_per_mtok)
string(JSON rent GET "${OUT}" life rent_usd_per_mtok)
string(JSON beu GET "${OUT}" life breakeven_utilisation)
string(JSON rpv GET "${OUT}" life rent_pv_usd)
string(JSON opv GET "${OUT}" life own_pv_usd)
string(JSON month GET "${OUT}" life own_beats_rent_month)
string(JSON ly GET "${OUT}" life life_years)
run(0 train --model llama3-70b --system hgx-h100 --gpus 1024 --precision fp8 --seq 8192 --gbs 1024
    --profile neocloud --tokens 15T --json)
string(JSON e GET "${OUT}" ettr)
# owning pays the TCO for every hour, renting only for the 90% that train
near("${own}" "1.948 * ${ch} / (1024 * ${toks} * ${e} * 3600 * 0.9) * 1e6" 1e-6)
check("owned $/Mtok over the life" "${NEAR} && ${ly} == 4")
near("${rent}" "2.5 * ${ch} / (1024 * ${toks} * ${e} * 3600) * 1e6" 1e-6)
check("rented $/Mtok" "${NEAR}")
near("${beu}" "1.948 / 2.5" 1e-9)
check("break-even utilisation = TCO / rent" "${NEAR}")
# present value of the rent: R x GPUs x 730 h x 0.9 a month, discounted at 13%/12 for 48 months
near("${rpv}" "2.5 * ${ch} * 730 * 0.9 * (1 - (1 + 0.13/12)^-48) / (0.13/12)" 1e-6)
check("present value of renting" "${NEAR}")
check("owning wins in month ${month} only if its present value is lower" "(\"${month}\" != \"null\") == (${rpv} >= ${opv})")
# the throughput's 80% band (issue 47: own-vs-rent rows had none): both $/Mtok scale as 1/throughput, so
# own high = own x point / band low, rent low = rent x point / band high; the verdict's words say it holds
run(0 ${life_args} --utilisation 0.9)
string(JSON blo GET "${OUT}" band tokens_per_s_per_gpu low)
string(JSON bhi GET "${OUT}" band tokens_per_s_per_gpu high)
string(JSON ownhi GET "${OUT}" band own_usd_per_mtok high)
string(JSON rentlo GET "${OUT}" band rent_usd_per_mtok low)
near("${ownhi}" "${own} * ${toks} / ${blo}" 1e-9)
set(n1 "${NEAR}")
near("${rentlo}" "${rent} * ${toks} / ${bhi}" 1e-9)
check("owned and rented $/Mtok bands from the throughput's (${blo}-${bhi})" "${n1} && ${NEAR} && ${blo} < ${toks} && ${toks} < ${bhi}")
list(REMOVE_ITEM life_args --json)
run(0 ${life_args} --utilisation 0.9)
expect_out("80% band: [0-9,]+ tok/s/GPU \\([^)]*\\), so own \\$[0-9.]+-\\$[0-9.]+ and rent \\$[0-9.]+-\\$[0-9.]+ per 1M tokens over the life; the verdict and its break-evens do not move")
list(APPEND life_args --json)
# a year of 2 runs sets the utilisation: 2 x days / 365
run(0 ${life_args} --workloads-per-year 2)
string(JSON u GET "${OUT}" life utilisation)
run(0 train --model llama3-70b --system hgx-h100 --gpus 1024 --precision fp8 --seq 8192 --gbs 1024
    --profile neocloud --tokens 15T --json)
string(JSON d GET "${OUT}" days_to_train)
near("${u}" "2 * ${d} / 365" 1e-9)
check("workloads per year" "${NEAR}")
run(3 ${life_args} --workloads-per-year 5)
expect_err("do not fit in a year")
run(2 train --model llama3-70b --system hgx-h100 --gpus 1024 --seq 8192 --gbs 1024 --profile neocloud
    --tokens 15T --utilisation 0.5)
expect_err("--utilisation: compares owning with renting")
run(2 ${life_args} --utilisation 1.5)
expect_err("--utilisation")
# a scenario: the timeline's improvement applies from year 2 (1,000 -> 1,500 tok/s/GPU)
run(0 compare ${SRC}/tests/cases/scenarios/own-vs-rent.yaml --json)
string(JSON y1 GET "${OUT}" comparisons 0 platforms 0 life years 0 own_usd_per_mtok)
string(JSON y2 GET "${OUT}" comparisons 0 platforms 0 life years 1 own_usd_per_mtok)
string(JSON t2 GET "${OUT}" comparisons 0 platforms 0 life years 1 tokens_per_s_per_gpu)
string(JSON r1 GET "${OUT}" comparisons 0 platforms 0 life years 0 rent_usd_per_mtok)
near("${y1} / ${y2}" "1.5" 1e-9)
check("year 2 at the 2026 software" "${NEAR} && ${t2} == 1500")
near("${y1} / ${r1}" "1.42 / (2.5 * 0.9)" 1e-9)
check("own / rent = TCO / (rent x utilisation)" "${NEAR}")
file(READ ${SRC}/tests/cases/scenarios/own-vs-rent.yaml life_yaml)
string(REPLACE "    rent_usd_per_gpu_hour: 2.5\n" "" txt "${life_yaml}")
file(WRITE "${WORK}/bad-life.yaml" "${txt}")
run(2 compare "${WORK}/bad-life.yaml")
expect_err("bad-life.yaml:[0-9]+:[0-9]+: life_years, utilisation and workloads_per_year compare owning with renting")

# ---- (3) the trade table of each platform: compare --trade ---------------------------------------
# "fast" runs 2,048 H100 (HGX, 8-GPU nodes): the grid of whole nodes from a quarter to four times
# its size is 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192; at a measured 1,500 tok/s/GPU
# each row trains 15e12 tokens in 15e12 / (GPUs x 1500 x ETTR x 86400) days.
run(0 compare "${WORK}/budget.yaml" --trade --json)
string(JSON n LENGTH "${OUT}" comparisons 0 platforms 1 trade)
set(want_sizes 512 768 1024 1536 2048 3072 4096 6144 8192)
check("nine sizes" "${n} == 9")
set(i 0)
foreach(g ${want_sizes})
  string(JSON rg GET "${OUT}" comparisons 0 platforms 1 trade ${i} gpus)
  string(JSON rd GET "${OUT}" comparisons 0 platforms 1 trade ${i} days_to_train)
  string(JSON re GET "${OUT}" comparisons 0 platforms 1 trade ${i} ettr)
  near("${rd}" "15e12 / (${g} * 1500 * ${re} * 86400)" 1e-6)
  check("trade row ${i}: ${rg} GPUs" "${rg} == ${g} && ${NEAR}")
  math(EXPR i "${i} + 1")
endforeach()
run(0 compare "${WORK}/budget.yaml" --trade)
expect_out("fast: GPUs, days and dollars")
run(2 compare "${WORK}/budget.yaml" --plot "${WORK}/t.svg")
expect_err("--plot: charts the trade: give --trade too")

# ---- (1) catalog timelines: train --start-date, scenarios naming one, bad files ------------------
# GPT-3 175B BF16 on 128 H100 (SemiAnalysis, 20 Aug 2025): 313 tok/s/GPU on January 2024 software,
# 493 from December 2024. A run from 2024-12-01 is wholly at 493, so its days are
# 300e9 / (128 x 493 x ETTR x 86400).
set(g3 train --model gpt3-175b --system hgx-h100 --gpus 128 --precision bf16 --seq 2048 --gbs 256 --tp 8 --pp 8
    --mbs 1 --tokens 300B)
run(0 ${g3} --start-date 2024-12-01 --json)
string(JSON d GET "${OUT}" days_to_train)
string(JSON e GET "${OUT}" ettr)
string(JSON pd GET "${OUT}" timeline_points_used 0 date)
string(JSON pt GET "${OUT}" timeline_points_used 0 tokens_per_s_per_gpu)
string(JSON np LENGTH "${OUT}" timeline_points_used)
near("${d}" "300e9 / (128 * 493 * ${e} * 86400)" 1e-9)
check("train --start-date 2024-12-01 at the December point (${d} days)" "${NEAR} && \"${pd}\" == \"2024-12\" && ${pt} == 493 && ${np} == 1")
run(0 ${g3} --start-date 2024-12-01)
expect_out("points used: 2024-12 493 \\(publisher-reported\\)")
run(2 ${g3} --start-date 2024-13)
expect_err("--start-date: '2024-13' is not an ISO date")
run(2 ${g3} --start-date yesterday)
expect_err("--start-date: 'yesterday' is not an ISO date")
string(REPLACE "hgx-h100" "hgx-h200" g3h "${g3}")
run(2 ${g3h} --start-date 2024-06)
expect_err("--start-date: the catalog has no throughput timeline of gpt3-175b on hgx-h200 in bf16")
string(REPLACE "--tokens;300B" "" g3n "${g3}")
run(2 ${g3n} --start-date 2024-06)
expect_err("--start-date: needs --tokens")
# a dated run's throughput changes within the run, by a different amount at each size: not a sweep
run(2 ${g3} --start-date 2024-06 --sweep-gpus 64,128)
expect_err("--start-date: is for one run \\(--gpus or --target-days\\), not --sweep-gpus")
# a serving platform's throughput follows from concurrency, lengths and latency: no timeline
file(WRITE "${WORK}/serve-timeline.yaml" "name: serve-timeline
comparisons:
  - name: s
    workload: {kind: serve, model: llama3-8b, precision: bf16, serve_tokens: 1e12}
    platforms:
      - name: H100
        system: hgx-h100
        gpus: 8
        throughput_timeline: [{date: 2025-05, tokens_per_s_per_gpu: 3000, stage: assumption, source: test}]
")
run(2 compare "${WORK}/serve-timeline.yaml")
expect_err("serve-timeline.yaml:9:32: throughput_timeline is for training workloads")
run(0 catalog timelines --json)
expect_out("\"deepseek-v3-bf16-gb200-nvl72\"")
run(0 catalog timelines deepseek-v3-bf16-gb200-nvl72)
expect_out("points\\[2025-12\\] +3,957 +tokens/s/GPU +projection")
# a --catalog folder with a bad timelines.yaml: path:line:col, exit 2
file(MAKE_DIRECTORY "${WORK}/tlcat")
file(WRITE "${WORK}/tlcat/timelines.yaml" "timelines:
  - name: mine
    system: hgx-h100
    model: llama3-70b
    precision: fp8
    points:
      - {date: 2025-03, tokens_per_s_per_gpu: 1000}
      - {date: 2025-02, tokens_per_s_per_gpu: 1100}
")
run(2 --catalog "${WORK}/tlcat" catalog timelines)
expect_err("tlcat/timelines.yaml:8:[0-9]+: points: 2025-02 comes before the previous point's 2025-03")
file(WRITE "${WORK}/tlcat/timelines.yaml" "timelines:
  - {name: mine, system: hgx-h100, model: llama3-70b, precision: fp8,
     points: [{date: 2025-13, tokens_per_s_per_gpu: 1000}]}
")
run(2 --catalog "${WORK}/tlcat" catalog timelines)
expect_err("tlcat/timelines.yaml:3:[0-9]+: date: '2025-13' is not an ISO date")
# a scenario naming a catalog timeline of another system: at the name, exit 2
file(WRITE "${WORK}/tl-other.yaml" "workload: {kind: train, model: deepseek-v3, tokens: 14.8e12, seq: 4096, gbs: 15360}
platforms:
  - {name: H100, system: hgx-h100, gpus: 16384, throughput_timeline: deepseek-v3-bf16-gb200-nvl72}
")
run(2 compare "${WORK}/tl-other.yaml")
expect_err("tl-other.yaml:3:[0-9]+: throughput_timeline: 'deepseek-v3-bf16-gb200-nvl72' is deepseek-v3 on gb200-nvl72")

# ---- (3) budget_usd sizes a platform given without gpus: the fastest run within the budget ----------
# Fed back as a user would check it: at the size found the run costs at most the budget, one domain
# more (8 GPUs on HGX, 64 active per NVL72 rack) costs more than it, and the verdict names the faster.
file(WRITE "${WORK}/budget-size.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 15e12, seq: 8192, gbs: 1024, budget_usd: 4.2e6}
platforms:
  - {name: h100, system: hgx-h100, profile: hyperscaler, tier: best, measured_tokens_per_s: 1500}
  - {name: gb200, system: gb200-nvl72, profile: hyperscaler, tier: best, measured_tokens_per_s: 2800}
")
run(0 compare "${WORK}/budget-size.yaml" --json)
string(JSON fw GET "${OUT}" comparisons 0 fastest_within_budget)
foreach(i 0 1)
  string(JSON g${i} GET "${OUT}" comparisons 0 platforms ${i} gpus)
  string(JSON u${i} GET "${OUT}" comparisons 0 platforms ${i} total_usd)
  string(JSON d${i} GET "${OUT}" comparisons 0 platforms ${i} days_to_train)
endforeach()
check("both sized within the budget (${g0} GPUs $${u0}, ${g1} GPUs $${u1})" "${u0} <= 4.2e6 && ${u1} <= 4.2e6")
math(EXPR g0n "${g0} + 8")
math(EXPR g1n "${g1} + 64")
foreach(p "h100;hgx-h100;${g0};${g0n};1500" "gb200;gb200-nvl72;${g1};${g1n};2800")
  list(GET p 0 nm)
  list(GET p 1 sys)
  list(GET p 2 at)
  list(GET p 3 above)
  list(GET p 4 tok)
  file(WRITE "${WORK}/budget-back.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 15e12, seq: 8192, gbs: 1024}
platforms:
  - {name: at, system: ${sys}, gpus: ${at}, profile: hyperscaler, tier: best, measured_tokens_per_s: ${tok}}
  - {name: above, system: ${sys}, gpus: ${above}, profile: hyperscaler, tier: best, measured_tokens_per_s: ${tok}}
")
  run(0 compare "${WORK}/budget-back.yaml" --json)
  string(JSON ua GET "${OUT}" comparisons 0 platforms 0 total_usd)
  string(JSON ub GET "${OUT}" comparisons 0 platforms 1 total_usd)
  check("${nm}: ${at} GPUs within the budget ($${ua}), ${above} over it ($${ub})" "${ua} <= 4.2e6 && ${ub} > 4.2e6")
endforeach()
execute_process(COMMAND awk "BEGIN { print (${d1} < ${d0}) ? \"gb200\" : \"h100\" }" OUTPUT_VARIABLE want
                OUTPUT_STRIP_TRAILING_WHITESPACE)
check("fastest within the budget is the one with fewer days (${fw})" "\"${fw}\" == \"${want}\"")
run(0 compare "${WORK}/budget-size.yaml")
expect_out("Fastest within the \\$4.20M budget: ")
# a budget no size meets: the platform is out with its reason, the comparison exits 3
file(WRITE "${WORK}/budget-none.yaml" "
workload: {kind: train, model: llama3-70b, precision: fp8, tokens: 15e12, seq: 8192, gbs: 1024, budget_usd: 1000}
platforms:
  - {name: h100, system: hgx-h100, profile: hyperscaler, tier: best, measured_tokens_per_s: 1500}
")
run(3 compare "${WORK}/budget-none.yaml")
expect_out("no size fits the \\$1,000 budget: the cheapest tried")
