# Command-line contract, part 'messages' (run by CTest as cli_messages): exit codes and messages
# the adversarial pass of issue 14 (item 10) found wrong, each with what must be said instead.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# expect_err_not(PATTERN): stderr must not match
function(expect_err_not pattern)
  if(ERR MATCHES "${pattern}")
    message(FATAL_ERROR "stderr matches '${pattern}':\n${ERR}")
  endif()
endfunction()

# a sweep where nothing fits exits 3 and says so (it used to print nothing on stderr)
run(3 train --model llama3-70b --system hgx-h100 --gpus 8 --seq 2048 --gbs 16 --sweep-gpus 1,2,4,8)
expect_err("--sweep-gpus: 4 of the 4 sizes do not fit in memory")
# a failed sweep point: one prefix, the point, then the option that failed
run(2 train --model llama3-70b --system hgx-h100 --gpus 8 --seq 2048 --gbs 16 --tp 8 --sweep-gpus 1,8)
expect_err("^gpuecon: --sweep-gpus: 1 GPUs: --gpus: the product tp x cp x pp = 8 does not divide the 1 GPUs\n$")

# compare with every platform infeasible: exit 3, nothing marked cheapest, every reason whole
run(3 compare ${SRC}/tests/cases/scenarios/all-infeasible.yaml)
expect_err("llama3-405b: no platform is feasible")
expect_out("no platform is feasible: nothing to rank")
if(OUT MATCHES "\\* cheapest")
  message(FATAL_ERROR "compare prints '* cheapest' with no platform feasible:\n${OUT}")
endif()
expect_out("one A100: infeasible: no prediction: llama3-405b does not fit on hgx-a100 at TP 1: [0-9.]+ GB per GPU short \\([^\n]*\\); try more GPUs per replica \\(--gpus N --tp N\\) or --weights fp8\n")
run(3 compare ${SRC}/tests/cases/scenarios/all-infeasible.yaml --json)
string(JSON why GET "${OUT}" comparisons 0 platforms 1 why)
if(NOT why MATCHES "or --weights fp8$")
  message(FATAL_ERROR "the JSON reason is cut: '${why}'")
endif()

# numbers: decimal forms only, blanks around them ignored, tiny values are numbers too
run(2 cost --system hgx-h100 --tokens-per-s 1e-308)
expect_err("--tokens-per-s: 1e-308 is out of range; allowed 0.001 to 1e\\+09")
run(0 cost --system hgx-h100 --tokens-per-s "728 " --profile hyperscaler --json)
json_near(usd_per_mtok 0.542 0.02)
run(2 cost --system hgx-h100 --tokens-per-s 100 --pue 0x1)
expect_err("--pue: '0x1' is not a decimal number; allowed 1 to 3")
run(2 cost --system hgx-h100 --tokens-per-s 0x1p4)
expect_err("--tokens-per-s: '0x1p4' is not a decimal number; allowed 0.001 to 1e\\+09")
run(2 cost --system hgx-h100 --tokens-per-s inf)
expect_err("--tokens-per-s: 'inf' is not a finite number; allowed 0.001 to 1e\\+09")
# every "not a whole number" says the allowed range
run(2 reliability --system hgx-h100 --active-gpus abc)
expect_err("--active-gpus: 'abc' is not a whole number; allowed 1 to 1e\\+07")
# a whole number may be written with an exponent (the docs write counts so), but must stay whole
run(0 reliability --system hgx-h100 --active-gpus 2.5e3)
expect_out("2500 requested")
run(2 reliability --system hgx-h100 --active-gpus 1.5e0)
expect_err("--active-gpus: '1.5e0' is not a whole number; allowed 1 to 1e\\+07")
run(2 reliability --system hgx-h100 --active-gpus 1e-3)
expect_err("--active-gpus: '1e-3' is not a whole number")
run(2 reliability --system hgx-h100 --active-gpus 2e7)
expect_err("--active-gpus: 2e7 is out of range; allowed 1 to 1e\\+07")
# a whole number too large for any integer is out of range, not "not a whole number"
run(2 reliability --system hgx-h100 --active-gpus 99999999999999999999)
expect_err("--active-gpus: 99999999999999999999 is out of range; allowed 1 to 1e\\+07")
run(2 reliability --system hgx-h100 --active-gpus 1e400)
expect_err("--active-gpus: 1e400 is out of range")
run(2 reliability --system hgx-h100 --active-gpus 0x10)
expect_err("--active-gpus: '0x10' is not a whole number; allowed 1 to 1e\\+07")
run(2 train --model llama3-8b --system hgx-h100 --gpus 8 --seq 2048 --gbs 64 --sweep-gpus 8,x)
expect_err("--sweep-gpus: 'x' is not a whole number \\(expected a list like 64,128,256 of values 1 to")
# a 100,000-character value is cut in the message, not echoed whole
string(REPEAT "9" 100000 huge)
run(2 cost --system hgx-h100 --tokens-per-s ${huge})
string(LENGTH "${ERR}" n)
if(n GREATER 300)
  message(FATAL_ERROR "a 100,000-character value gives a ${n}-character message")
endif()
expect_err("--tokens-per-s: '9+\\.\\.\\.' is not a decimal number; allowed 0.001 to 1e\\+09")
run(2 reliability --system hgx-h100 --active-gpus 8 --tier ${huge})
string(LENGTH "${ERR}" n)
if(n GREATER 400)
  message(FATAL_ERROR "a 100,000-character choice gives a ${n}-character message")
endif()

# catalog "": no empty location
# (run() would drop the empty argument: CMake lists cannot hold one)
execute_process(COMMAND ${GPUECON} catalog "" RESULT_VARIABLE rc OUTPUT_VARIABLE OUT ERROR_VARIABLE ERR TIMEOUT 60)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "gpuecon catalog '': exit ${rc}, expected 2\n${ERR}")
endif()
expect_err_not("gpuecon: : ")
expect_err("not a catalog kind \\(allowed: gpus, systems, profiles, models, reliability, stacks, timelines, calibrations\\)")
# "layers:" with no value is located at the key
run(2 catalog models --model-file ${SRC}/tests/cases/no-value.yaml)
expect_err("no-value.yaml:3:1: layers: no value given")
# like: an unknown entry: the like is named, not a field the entry would have inherited
run(2 reliability --system hgx-h100 --active-gpus 8 --catalog ${SRC}/tests/cases/bad-like)
expect_err("reliability.yaml:4:11: like: no reliability entry 'hgx-h100/nope'")
expect_err_not("missing required field")
