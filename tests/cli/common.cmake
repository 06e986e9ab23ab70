# Shared helpers of the command-line contract tests (tests/cli/*.cmake). Each part runs as its
# own CTest: cmake -DGPUECON=... -DSRC=... -P tests/cli/<part>.cmake
# Each check runs gpuecon and asserts the exit code, and a JSON key or a message. The timeout
# catches a hang, not slowness: `validate` simulates its serving benchmarks (~5 s of CPU, 4-5x that
# under ASan), and CI machines run the parts in parallel, so one command gets 180 s.
function(run expected_rc)
  execute_process(COMMAND ${GPUECON} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 180)
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

# json_near(KEY_PATH... EXPECTED REL): the number at KEY_PATH in OUT is within REL (relative)
# of EXPECTED. CMake has no floating point, so awk (Debian's required mawk) does the compare.
function(json_near)
  set(args ${ARGN})
  list(POP_BACK args rel)
  list(POP_BACK args expected)
  string(JSON v GET "${OUT}" ${args})
  string(REGEX MATCH "^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$" okv "${v}")
  if(NOT okv)
    message(FATAL_ERROR "${args} = '${v}' is not a number")
  endif()
  execute_process(COMMAND awk "BEGIN { v=${v}; e=${expected}; r=(v/e-1); if (r<0) r=-r; exit (r <= ${rel}) ? 0 : 1 }"
                  RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${args} = ${v}, expected ${expected} within ${rel}")
  endif()
endfunction()

# _json_bound(OP WORDS KEY_PATH... LIMIT): the number at KEY_PATH compares to LIMIT by awk's OP.
function(_json_bound op words)
  set(args ${ARGN})
  list(POP_BACK args limit)
  string(JSON v GET "${OUT}" ${args})
  execute_process(COMMAND awk "BEGIN { exit (${v} ${op} ${limit}) ? 0 : 1 }" RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${args} = ${v}, expected ${words} ${limit}")
  endif()
endfunction()

# json_le(KEY_PATH... LIMIT): the number at KEY_PATH is at most LIMIT.
function(json_le)
  _json_bound("<=" "at most" ${ARGN})
endfunction()

# json_ge(KEY_PATH... LIMIT): the number at KEY_PATH is at least LIMIT.
function(json_ge)
  _json_bound(">=" "at least" ${ARGN})
endfunction()

# expect_nearer(AFTER BEFORE PUBLISHED): a calibrated prediction AFTER lies nearer the published figure
# than the built-in BEFORE did.
function(expect_nearer after before published)
  execute_process(COMMAND awk "BEGIN { a = ${after} - ${published}; b = ${before} - ${published}; if (a < 0) a = -a;
                                       if (b < 0) b = -b; exit (a < b) ? 0 : 1 }" RESULT_VARIABLE farther)
  if(farther)
    message(FATAL_ERROR "calibrated ${after} is not nearer the published ${published} than the built-in ${before}")
  endif()
endfunction()

# expect_calibrated_low(WHAT LOW POINT BUILTIN_LOW BUILTIN_HIGH): a one-run calibrated band's low end
# (docs/model.md §7.6) is POINT x exp(-max(h sqrt 2, 0.04)), h = ln(BUILTIN_HIGH / BUILTIN_LOW) / 2 the
# built-in band's half-width of the same case, within 0.1%.
function(expect_calibrated_low what lo point blo bhi)
  execute_process(COMMAND awk "BEGIN { h = log(${bhi} / ${blo}) / 2 * sqrt(2); if (h < 0.04) h = 0.04;
                                       printf \"%.6f %.6f\", exp(-h) * 0.999, exp(-h) * 1.001 }"
                  OUTPUT_VARIABLE want)
  separate_arguments(want)
  expect_ratio("${what}" ${lo} ${point} ${want})
endfunction()

# Fails unless lo < num / den < hi (plain numbers, as string(JSON) returns them); `what` names the check.
function(expect_ratio what num den lo hi)
  execute_process(COMMAND awk "BEGIN { r = ${num} / ${den}; exit (r > ${lo} && r < ${hi}) ? 0 : 1 }"
                  RESULT_VARIABLE bad)
  if(bad)
    message(FATAL_ERROR "${what}: ${num} / ${den} is outside (${lo}, ${hi})")
  endif()
endfunction()
