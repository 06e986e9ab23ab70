# Command-line contract, part 'validate_loo' (run by CTest as cli_validate_loo): issue 47's calibration
# target, measured by `validate --leave-one-out` (docs/model.md §3.9).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# ---- bad input: exit 2 naming the option as typed, with what is allowed ----------------------
run(2 validate --calibrate-on 3)
expect_err("--calibrate-on: 3 is out of range; allowed 1 to 2")
run(2 validate --calibrate-on 0)
expect_err("--calibrate-on: 0 is out of range; allowed 1 to 2")
run(2 validate --leave-one-out --calibrate-on 2)
expect_err("--calibrate-on: 2 with --leave-one-out, which is --calibrate-on 1: give one of the two")

# ---- the RL step rows (NeMo-RL v0.7 docs/about/performance-summary.md; docs/model.md §3.9) ----------
# Grouped by trainer stack x system x precision: H100 BF16 (R-H1..R-H6), H100 FP8 (R-H7 alone) and GB200
# BF16 (R-G1..R-G6). K = 1: 6 calibrations of a six-row group, each predicting the other 5: 30 predictions.
run(0 validate --group rl --leave-one-out --json)
string(JSON ng LENGTH "${OUT}" leave_one_out groups)
if(NOT ng EQUAL 3)
  message(FATAL_ERROR "RL leave-one-out: ${ng} groups, expected 3")
endif()
foreach(pair "0;nemo-rl-0.7 / hgx-h100 / bf16 / moe;6;30" "1;nemo-rl-0.7 / hgx-h100 / fp8 / moe;1;0"
             "2;nemo-rl-0.7 / gb200-nvl72 / bf16 / moe;6;30")
  list(GET pair 0 i)
  list(GET pair 1 want)
  list(GET pair 2 rows)
  list(GET pair 3 preds)
  string(JSON name GET "${OUT}" leave_one_out groups ${i} name)
  string(JSON set GET "${OUT}" leave_one_out groups ${i} set)
  string(JSON r GET "${OUT}" leave_one_out groups ${i} rows)
  string(JSON p GET "${OUT}" leave_one_out groups ${i} predictions)
  if(NOT name STREQUAL want OR NOT set STREQUAL "rl" OR NOT r EQUAL rows OR NOT p EQUAL preds)
    message(FATAL_ERROR "RL group ${i}: ${name} (${set}), ${r} rows, ${p} predictions; expected ${want}, ${rows}, ${preds}")
  endif()
endforeach()
# The two evaluated groups cannot be calibrated honestly, and say so. The predicted R-H1 step (its note:
# generation 38 s, scoring 0.8, training 3.1 of 102.7 s; weight sync 35.0, sleep and wake 20.5, swaps 5.1)
# leaves at most 42% to the scales; the Qwen3-235B rows generate for 277 of 342 s (R-H4), over 60%.
foreach(i 0 2)
  json_le(leave_one_out groups ${i} movable_share_min 0.42)
  string(JSON hi GET "${OUT}" leave_one_out groups ${i} movable_share_max)
  expect_ratio("RL group ${i}: the largest share the scales move" ${hi} 1 0.6 1.0)
  string(JSON ok GET "${OUT}" leave_one_out groups ${i} calibratable)
  string(JSON cov TYPE "${OUT}" leave_one_out groups ${i} band_coverage)
  string(JSON cal TYPE "${OUT}" leave_one_out groups ${i} calibrated_median_abs_err)
  if(ok OR NOT cov STREQUAL "NUMBER" OR NOT cal STREQUAL "NUMBER")
    message(FATAL_ERROR "RL group ${i}: calibratable ${ok}, band_coverage ${cov}, calibrated_median_abs_err ${cal}")
  endif()
  json_le(leave_one_out groups ${i} band_coverage 1)
endforeach()
string(JSON cov TYPE "${OUT}" leave_one_out groups 1 band_coverage)
if(NOT cov STREQUAL "NULL")
  message(FATAL_ERROR "the one-row RL group has a band_coverage (${cov})")
endif()
run(0 validate --group rl --leave-one-out)
expect_out("nemo-rl-0.7 / hgx-h100 / bf16 / moe: not calibrated honestly: on some of its rows the scales move only")
expect_out("in band")

# ---- K = 2, training rows only (--group dgxc computes the training set): the pair cap --------
# vTrain's 109 runs form one group (megatron-ds-2023 on vTrain's A100 cluster, BF16, dense):
# C(109, 2) = 109 x 108 / 2 = 5,886 pairs, capped at 64, each predicting the other 107 rows.
run(0 validate --group dgxc --calibrate-on 2 --json)
string(JSON k GET "${OUT}" leave_one_out calibration_rows)
if(NOT k EQUAL 2)
  message(FATAL_ERROR "calibration_rows ${k}, expected 2")
endif()
string(JSON ng LENGTH "${OUT}" leave_one_out groups)
set(found FALSE)
math(EXPR last "${ng} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${OUT}" leave_one_out groups ${i} name)
  if(name STREQUAL "megatron-ds-2023 / a100-vtrain-cluster / bf16 / dense")
    set(found TRUE)
    foreach(pair "rows;109" "choices_all;5886" "choices;64" "predictions;6848")
      list(GET pair 0 key)
      list(GET pair 1 want)
      string(JSON v GET "${OUT}" leave_one_out groups ${i} ${key})
      if(NOT v EQUAL want)
        message(FATAL_ERROR "vTrain group, K = 2: ${key} ${v}, expected ${want}")
      endif()
    endforeach()
  endif()
endforeach()
if(NOT found)
  message(FATAL_ERROR "no vTrain group in leave_one_out.groups")
endif()

# ---- K = 1 on every public group (training, serving, fine-tuning) ----------------------------
run(0 validate --leave-one-out --json)
string(JSON k GET "${OUT}" leave_one_out calibration_rows)
if(NOT k EQUAL 1)
  message(FATAL_ERROR "calibration_rows ${k}, expected 1")
endif()
json_near(leave_one_out target_calibrated_median_abs_err 0.05 1e-9)
# Every group with at least two rows has a calibrated figure, every single-row group null.
string(JSON ng LENGTH "${OUT}" leave_one_out groups)
math(EXPR last "${ng} - 1")
set(evaluated 0)
foreach(i RANGE ${last})
  string(JSON rows GET "${OUT}" leave_one_out groups ${i} rows)
  string(JSON type TYPE "${OUT}" leave_one_out groups ${i} calibrated_median_abs_err)
  if(rows GREATER_EQUAL 2 AND NOT type STREQUAL "NUMBER")
    message(FATAL_ERROR "leave_one_out group ${i} (${rows} rows) has no calibrated_median_abs_err")
  elseif(rows LESS 2 AND NOT type STREQUAL "NULL")
    message(FATAL_ERROR "leave_one_out group ${i} (1 row) has a calibrated_median_abs_err")
  endif()
  if(rows GREATER_EQUAL 2)
    math(EXPR evaluated "${evaluated} + 1")
  endif()
endforeach()
string(JSON v GET "${OUT}" leave_one_out groups_evaluated)
if(NOT v EQUAL evaluated OR evaluated LESS 30)
  message(FATAL_ERROR "groups_evaluated ${v}, counted ${evaluated} (expected at least 30 public groups)")
endif()
# The RL step groups are among them, with the band coverage every evaluated group carries.
set(rl_seen 0)
foreach(i RANGE ${last})
  string(JSON set GET "${OUT}" leave_one_out groups ${i} set)
  string(JSON rows GET "${OUT}" leave_one_out groups ${i} rows)
  if(set STREQUAL "rl")
    math(EXPR rl_seen "${rl_seen} + 1")
  endif()
  if(rows GREATER_EQUAL 2)
    string(JSON cov TYPE "${OUT}" leave_one_out groups ${i} band_coverage)
    if(NOT cov STREQUAL "NUMBER")
      message(FATAL_ERROR "leave_one_out group ${i} (${rows} rows) has no band_coverage")
    endif()
  endif()
endforeach()
if(NOT rl_seen EQUAL 3)
  message(FATAL_ERROR "${rl_seen} RL groups in validate --leave-one-out, expected 3")
endif()
# The calibrated band (docs/model.md §7.6: centred on the calibrated point, the row's built-in half-width
# x sqrt(2) for one run, or the fit's spread): the issue's 80% coverage, each held-out row counted once
# (85% measured on 7 December 2026; the floor-only rule before it gave 37%), at a median width within
# the bands' 1.6 target.
json_ge(leave_one_out band_coverage_rows 0.80)
json_le(leave_one_out band_coverage_rows 1)
json_le(leave_one_out band_median_width_rows 1.6)
json_ge(leave_one_out band_median_width_rows 1.0)
# The groups[] of validate's own classes carry it too (null: no held-out prediction in the class).
foreach(path "groups;0" "serving;groups;0" "finetune;groups;0")
  string(JSON type TYPE "${OUT}" ${path} calibrated_median_abs_err)
endforeach()

# The issue's target, 5% median |error| per group with one calibration row, where it holds: these 14
# groups (docs/model.md §3.9 lists every group, and for the others how far they miss and why: a
# scatter of the rows about their group's bias — context length, expert-parallel span, recompute —
# that one scale per family cannot follow; held-out rows with such a spread are what would settle it).
set(meets
    "nemo-2024 / gb200-nvl72 / bf16 / dense"
    "megatron-bridge-2026 / gb300-nvl72 / fp4 / dense"
    "megatron-bridge-2026 / hgx-h100 / bf16 / moe"
    "megatron-bridge-2026 / hgx-b200 / fp8 / dense"
    "megatron-bridge-2026 / gb200-nvl72 / bf16 / moe"
    "torchtitan-2024-eager / grand-teton-h100 / bf16 / dense"
    "torchtitan-2024-compile / grand-teton-h100 / bf16 / dense"
    "torchtitan-2024-eager / hgx-a100 / bf16 / dense"
    "trtllm / hgx-h200 / fp8 / dense"
    "vessl-gemma4 / hgx-b200 / fp8 / dense"
    "vllm-v1 / hgx-h100 / fp4 / moe"
    "sglang / hgx-h200 / fp8 / moe"
    "sglang / hgx-b200 / fp4 / moe"
    "hf-peft-eager / hgx-a100 / bf16 / dense")
set(seen 0)
foreach(i RANGE ${last})
  string(JSON name GET "${OUT}" leave_one_out groups ${i} name)
  list(FIND meets "${name}" idx)
  if(idx GREATER -1)
    json_le(leave_one_out groups ${i} calibrated_median_abs_err 0.05)
    math(EXPR seen "${seen} + 1")
  endif()
endforeach()
list(LENGTH meets want)
if(NOT seen EQUAL want)
  message(FATAL_ERROR "found ${seen} of the ${want} groups that meet the target")
endif()
# On the groups none of whose rows the built-in constants were fitted on (the honest baseline), the
# calibration corrects a bias the constants never saw: the median group's error falls.
string(JSON cal GET "${OUT}" leave_one_out held_out_groups median_calibrated_median_abs_err)
string(JSON raw GET "${OUT}" leave_one_out held_out_groups median_uncalibrated_median_abs_err)
expect_ratio("held-out groups: calibrated over built-in median" ${cal} ${raw} 0 1)

# The table says the same.
run(0 validate --group dgxc --leave-one-out)
expect_out("Calibration on 1 published row of a group")
expect_out("megatron-ds-2023 / a100-vtrain-cluster / bf16 / dense +109")
# The fine-tuning set alone at K = 2: its groups have two rows and one (A100: VFT-A100-FSDP and
# VFT-A100-DDP; H100: VFT-H100-FSDP), so nothing is left to predict, and the text says so (no 'nan').
run(0 validate --group finetune --calibrate-on 2)
expect_out("no group has more than 2 rows: nothing is left to predict")
if(OUT MATCHES "nan")
  message(FATAL_ERROR "validate --group finetune --calibrate-on 2 prints nan:\n${OUT}")
endif()
