# Command-line contract, part 'price' (run by CTest as cli_price): --usd-per-gpu-hour, the
# user's own price of a GPU-hour (a rental or negotiated rate), on every command that prices.
# Every expected value is the price arithmetic done by hand: $/Mtok = X / (tok/s x 3600) x 1e6.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# ratio_near(A B EXPECTED REL): A / B is within REL of EXPECTED (A and B are numbers).
function(ratio_near a b expected rel)
  execute_process(COMMAND awk "BEGIN { r=(${a})/(${b})/(${expected})-1; if (r<0) r=-r; exit (r <= ${rel}) ? 0 : 1 }"
                  RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${a} / ${b} is not ${expected} within ${rel}")
  endif()
endfunction()

# cost: $2.49/GPU-h at 728 tok/s/GPU is 2.49 / 2.6208 = $0.9501 per 1M tokens
run(0 cost --system hgx-h100 --tokens-per-s 728 --usd-per-gpu-hour 2.49 --json)
json_near(usd_per_mtok 0.9501 0.001)
json_near(tco_usd_per_gpu_hour 2.49 1e-9)
string(JSON stage GET "${OUT}" tco used_source stage)
if(NOT stage STREQUAL "user-input")
  message(FATAL_ERROR "cost: the price's stage is '${stage}', expected user-input")
endif()
string(JSON pub GET "${OUT}" tco published_usd_per_gpu_hour)
json_near(tco published_usd_per_gpu_hour 1.42 1e-9)
# 15e12 tokens at 202.3 tok/s/GPU: 20,596,472 GPU-hours x $2.49 = $51.29M
run(0 cost --system hgx-h100 --tokens-per-s 202.3 --tokens 15e12 --usd-per-gpu-hour 2.49 --json)
json_near(total_usd 51.285e6 0.001)
run(0 cost --system hgx-h100 --tokens-per-s 728 --usd-per-gpu-hour 2.49)
expect_out("your rate \\(--usd-per-gpu-hour\\)")
run(2 cost --system hgx-h100 --tokens-per-s 728 --usd-per-gpu-hour 0)
expect_err("--usd-per-gpu-hour: 0 is out of range; allowed 0.001 to 1,000")

# train: the price without --profile (the default profile fills the rest), $/Mtok from the
# predicted throughput, the run's dollars from the GPU-hours
run(0 train --model gpt3-175b --system hgx-h100 --gpus 128 --precision fp8 --seq 2048 --gbs 256 --tp 4 --pp 8
    --vpp 12 --mbs 1 --usd-per-gpu-hour 2.49 --tokens 300e9 --json)
string(JSON tok GET "${OUT}" tokens_per_s_per_gpu)
string(JSON mtok GET "${OUT}" cost usd_per_mtok)
ratio_near(${mtok} "2.49/(${tok}*3600)*1e6" 1 0.001)
string(JSON gh GET "${OUT}" cost gpu_hours)
string(JSON usd GET "${OUT}" cost total_usd)
ratio_near(${usd} ${gh} 2.49 0.001)
string(JSON stage GET "${OUT}" cost tco_source stage)
if(NOT stage STREQUAL "user-input")
  message(FATAL_ERROR "train: the price's stage is '${stage}'")
endif()
# search ranks by cost with the user's price alone
run(0 search --model gpt3-175b --system hgx-h100 --gpus 64 --seq 2048 --gbs 256 --top 2 --objective cost
    --usd-per-gpu-hour 2 --json)
string(JSON obj GET "${OUT}" objective)

# infer and finetune: $/Mtok = X / (output tok/s/GPU x 3600) x 1e6
run(0 infer --model gemma4-31b --system hgx-h100 --weights fp8 --kv fp8 --usd-per-gpu-hour 2 --json)
string(JSON tok GET "${OUT}" at output_tokens_per_s_per_gpu)
string(JSON mtok GET "${OUT}" usd_per_mtok)
ratio_near(${mtok} "2/(${tok}*3600)*1e6" 1 0.001)
json_near(usd_per_gpu_hour 2 1e-9)
run(0 finetune --model gemma4-31b --system hgx-h100 --method lora --usd-per-gpu-hour 2 --json)
string(JSON tok GET "${OUT}" tokens_per_s_per_gpu)
string(JSON mtok GET "${OUT}" usd_per_mtok)
ratio_near(${mtok} "2/(${tok}*3600)*1e6" 1 0.001)

# reliability: 3 / (1000 x 3600) x 1e6 = $0.8333 raw
run(0 reliability --system hgx-h100 --active-gpus 1024 --tokens-per-s 1000 --usd-per-gpu-hour 3 --json)
json_near(usd_per_mtok 0.83333 0.001)
json_near(tco_usd_per_gpu_hour 3 1e-9)
run(2 reliability --system hgx-h100 --active-gpus 1024 --usd-per-gpu-hour 3)
expect_err("--usd-per-gpu-hour: needs --tokens-per-s")

# compare: usd_per_gpu_hour per platform; 2.49 / (tok/s x 3600) x 1e6, its source the scenario
file(WRITE rent.yaml "workload: {kind: serve, model: llama3-70b}\nplatforms:\n"
     "  - {name: rented H100, system: hgx-h100, gpus: 8, tp: 8, precision: fp8, usd_per_gpu_hour: 2.49}\n")
run(0 compare rent.yaml --no-sensitivity --json)
string(JSON tok GET "${OUT}" comparisons 0 platforms 0 tokens_per_s_per_gpu)
string(JSON mtok GET "${OUT}" comparisons 0 platforms 0 usd_per_mtok)
ratio_near(${mtok} "2.49/(${tok}*3600)*1e6" 1 0.001)
string(JSON src GET "${OUT}" comparisons 0 platforms 0 tco_source source)
if(NOT src MATCHES "rent.yaml")
  message(FATAL_ERROR "compare: the price's source is '${src}'")
endif()
file(WRITE both.yaml "workload: {kind: serve, model: llama3-70b}\nplatforms:\n"
     "  - {system: hgx-h100, gpus: 8, usd_per_gpu_hour: 2.49, tco_usd_per_gpu_hour: 2}\n")
run(2 compare both.yaml)
expect_err("usd_per_gpu_hour and tco_usd_per_gpu_hour both given")
