# Command-line contract, part 'calibrate_finetune' (run by CTest as cli_calibrate_finetune): `gpuecon
# calibrate` on fine-tuning runs (command: finetune), round trip on published rows (fit, write the
# overlay, load it with `finetune --catalog`, predict another run of the group), the outputs that say
# a calibration was applied, and bad input at file:line:col (docs/cli.md "gpuecon calibrate",
# docs/model.md §3.8).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# VESSL AI blog "A100 vs H100 vs B200 for LoRA fine-tuning and inference: a cost benchmark":
# Gemma-4-31B, LoRA r16 alpha 32 on all seven projections, packed 2,048-token sequences, micro-batch
# 2, 8 x A100 80GB, Hugging Face Trainer + PEFT: FSDP 4,746 tokens/s, DDP with gradient checkpointing
# 3,565 tokens/s (validate rows VFT-A100-FSDP, fitted, and VFT-A100-DDP, held out).
set(FT "  - command: finetune\n    model: gemma4-31b\n    system: hgx-a100\n    method: lora\n    lora-rank: 16\n    mbs: 2\n    seq: 2048\n    stack: hf-peft-eager\n    efficiency-profile: vessl-gemma4\n")
file(WRITE ft.yaml "runs:\n${FT}    strategy: fsdp\n    measured: {tokens_per_s: 4746}\n")

# one run, one scale fitted exactly: the run is predicted as measured; the group is the stack x system
# x precision, a fine-tuning calibration
run(0 calibrate ft.yaml -o cal --json)
json_near(runs 0 measured 4746 1e-9)
json_near(runs 0 predicted_after 4746 0.001)
string(JSON name GET "${OUT}" groups 0 name)
string(JSON wl GET "${OUT}" groups 0 workload)
string(JSON fig GET "${OUT}" runs 0 figure)
string(JSON cmd GET "${OUT}" runs 0 command)
if(NOT name STREQUAL "hf-peft-eager/hgx-a100/bf16" OR NOT wl STREQUAL "finetune" OR NOT fig STREQUAL "tokens_per_s"
   OR NOT cmd STREQUAL "finetune")
  message(FATAL_ERROR "one fine-tuning run: group ${name}, workload ${wl}, figure ${fig}, command ${cmd}")
endif()
file(READ cal/calibrations.yaml yaml)
if(NOT yaml MATCHES "workload: finetune" OR
   NOT yaml MATCHES "_scale: {value: [0-9.]+, stage: measured, source: \"ft.yaml:2 \\(run 1, tokens_per_s 4746\\)\"}")
  message(FATAL_ERROR "overlay without its workload or measured source:\n${yaml}")
endif()

# The round trip: the DDP + checkpointing run of the same stack, system and precision. Built in, the
# model's FSDP / DDP ratio is its own (validate's held-out VFT-FSDP/DDP row, published 4,746 / 3,565 =
# 1.331); the calibration moves both runs by nearly the same factor (the same GEMMs per token, the
# checkpointed run a third more of them), so the calibrated DDP prediction is 4,746 over the model's
# ratio: within 4% of the published 3,565 when that ratio is within 4% of 1.331, and nearer than the
# built-in prediction, which carries the FSDP run's own miss as well.
set(DDP finetune --model gemma4-31b --system hgx-a100 --method lora --lora-rank 16 --mbs 2 --seq 2048
    --stack hf-peft-eager --efficiency-profile vessl-gemma4 --strategy ddp --recompute)
run(0 ${DDP} --json)
string(JSON before GET "${OUT}" tokens_per_s)
string(JSON blo GET "${OUT}" band tokens_per_s low)
string(JSON bhi GET "${OUT}" band tokens_per_s high)
string(JSON none ERROR_VARIABLE no_cal GET "${OUT}" user_calibration)
if(NOT no_cal)
  message(FATAL_ERROR "user_calibration without an overlay: ${none}")
endif()
run(0 ${DDP} --catalog cal --json)
string(JSON after GET "${OUT}" tokens_per_s)
string(JSON uname GET "${OUT}" user_calibration name)
string(JSON usrc GET "${OUT}" user_calibration source)
if(NOT uname STREQUAL "hf-peft-eager/hgx-a100/bf16" OR NOT usrc STREQUAL "ft.yaml")
  message(FATAL_ERROR "user_calibration ${uname} from ${usrc}")
endif()
expect_ratio("calibrated DDP + ckpt prediction / published 3,565" ${after} 3565 0.96 1.04)
expect_nearer(${after} ${before} 3565)
# the band is the calibration's (docs/model.md §7.6): one run has no leave-one-out spread, so the
# built-in band's half-width h = ln(high/low)/2 widened by sqrt(2), centred on the calibrated point,
# with its basis; the per-GPU figure carries the same relative band
string(JSON lo GET "${OUT}" band tokens_per_s low)
string(JSON cal GET "${OUT}" band tokens_per_s calibrated)
string(JSON basis GET "${OUT}" band tokens_per_s basis)
expect_calibrated_low("calibrated band low / point" ${lo} ${after} ${blo} ${bhi})
if(NOT cal OR NOT basis MATCHES "^calibrated: 1 run of ft.yaml; ")
  message(FATAL_ERROR "the band of a calibrated prediction: calibrated ${cal}, basis '${basis}'")
endif()
run(0 ${DDP} --catalog cal)
expect_out("calibrated: hf-peft-eager/hgx-a100/bf16 \\(gpuecon calibrate on ft.yaml, 1 run\\): gemm x1\\.[0-9]+")
expect_out("calibrated: 1 run of ft.yaml; ")
# another system, and another stack, are not calibrated by it; nor is training
run(0 finetune --model gemma4-31b --system hgx-h100 --method lora --efficiency-profile vessl-gemma4 --catalog cal --json)
string(JSON none ERROR_VARIABLE no_cal GET "${OUT}" user_calibration)
if(NOT no_cal)
  message(FATAL_ERROR "an H100 fine-tuning run took the A100 calibration: ${none}")
endif()
run(0 finetune --model gemma4-31b --system hgx-a100 --method lora --stack hf-peft-compile --catalog cal --json)
string(JSON none ERROR_VARIABLE no_cal GET "${OUT}" user_calibration)
if(NOT no_cal)
  message(FATAL_ERROR "hf-peft-compile took the hf-peft-eager calibration: ${none}")
endif()

# Two runs, the second measured as a step time (finetune's JSON step_s): 8 GPUs x 2 x 2,048 tokens =
# 32,768 tokens per step at 3,565 tokens/s is 9.192 s. Fitted together, each run is left within the
# model's FSDP / DDP ratio error of its measurement (under 4%, as above), and each has a
# leave-one-out prediction.
file(WRITE two.yaml "runs:\n${FT}    strategy: fsdp\n    measured: {tokens_per_s: 4746}\n${FT}    strategy: ddp\n    recompute: true\n    measured: {step: \"9.192 s\"}\n")
run(0 calibrate two.yaml --json)
json_near(runs 1 measured 9.192 1e-9)
string(JSON f1 GET "${OUT}" runs 1 figure)
string(JSON u1 GET "${OUT}" runs 1 unit)
if(NOT f1 STREQUAL "step_s" OR NOT u1 STREQUAL "s")
  message(FATAL_ERROR "a step time: figure ${f1}, unit ${u1}")
endif()
json_near(runs 0 predicted_after 4746 0.04)
json_near(runs 1 predicted_after 9.192 0.04)
string(JSON t TYPE "${OUT}" runs 1 err_loo)
if(NOT t STREQUAL "NUMBER")
  message(FATAL_ERROR "two runs: the step-time run has no leave-one-out error (${t})")
endif()
string(JSON n GET "${OUT}" groups 0 measurements)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "two runs of one group: ${n} in the group")
endif()

# ---- bad input: exit 2 at the run's file:line:col ---------------------------------------------
file(WRITE trainstack.yaml "runs:\n  - command: finetune\n    model: gemma4-31b\n    system: hgx-a100\n    method: lora\n    stack: megatron-2023\n    measured: {tokens_per_s: 4746}\n")
run(2 calibrate trainstack.yaml)
expect_err("trainstack.yaml:6:5: run 1 \\(finetune\\): stack: megatron-2023 is a training stack; fine-tuning stacks: ")
file(WRITE nostack.yaml "runs:\n  - command: finetune\n    model: gemma4-31b\n    system: hgx-a100\n    method: lora\n    stack: hf-peft-eagr\n    measured: {tokens_per_s: 4746}\n")
run(2 calibrate nostack.yaml)
expect_err("nostack.yaml:6:5: run 1 \\(finetune\\): stack: unknown stack 'hf-peft-eagr'; did you mean 'hf-peft-eager'\\?")
file(WRITE nosys.yaml "runs:\n  - command: finetune\n    model: gemma4-31b\n    system: hgx-a10\n    method: lora\n    measured: {tokens_per_s: 4746}\n")
run(2 calibrate nosys.yaml)
expect_err("nosys.yaml:4:5: run 1 \\(finetune\\): system: unknown system 'hgx-a10'; did you mean 'hgx-a100'\\?")
# a model error names the option as the RUNS key (the model's own option names, not --stack)
file(WRITE fp8.yaml "runs:\n  - command: finetune\n    model: gemma4-31b\n    system: hgx-a100\n    method: lora\n    stack: te-fp8-compile\n    measured: {tokens_per_s: 4746}\n")
run(2 calibrate fp8.yaml)
expect_err("fp8.yaml:6:5: run 1 \\(finetune\\): stack: stack te-fp8-compile runs FP8 linears and a100-80g has no FP8 tensor cores")
file(WRITE unit.yaml "runs:\n${FT}    measured: {step: 9.2}\n")
run(2 calibrate unit.yaml)
expect_err("unit.yaml:11:22: measured: step: 9.2 has no unit; .*allowed units: s, ms, us")
file(WRITE cmp.yaml "runs:\n${FT}    compare: true\n    measured: {tokens_per_s: 4746}\n")
run(2 calibrate cmp.yaml)
expect_err("cmp.yaml:11:5: run 1 \\(finetune\\): compare: a run is one finetune prediction")
# the same layout measured 2x apart: no scale within the bounds reconciles them
file(WRITE contra.yaml "runs:\n${FT}    measured: {tokens_per_s: 4746}\n${FT}    measured: {tokens_per_s: 9492}\n")
run(2 calibrate contra.yaml)
expect_err("contra.yaml:2:5: run 1 and run 2 \\(contra.yaml:12\\) contradict each other: after the fit run 1 is still predicted 2.00x higher")
