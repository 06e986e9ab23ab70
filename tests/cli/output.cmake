# Command-line contract, part 'output' (run by CTest as cli_output): where the output goes, and
# what happens when it cannot go there (issue 49, items 8 and 13). Each check failed before:
# stdout on a full disk exited 0, -o /dev/full exited 1 with "internal error", -o on a FIFO
# without a reader blocked for ever after the computation, and `gpuecon serve FIFO` blocked at
# start (a folder read as an empty scenario).
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)

# stdout that cannot be written: exit 1, naming stdout and the reason (Linux's /dev/full)
if(EXISTS /dev/full)
  execute_process(COMMAND ${GPUECON} catalog gpus --json OUTPUT_FILE /dev/full ERROR_VARIABLE err
                  RESULT_VARIABLE rc TIMEOUT 60)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "gpuecon: stdout: No space left on device")
    message(FATAL_ERROR "stdout on /dev/full: exit ${rc}, stderr: ${err}")
  endif()
  run(1 catalog gpus --json -o /dev/full)
  expect_err("gpuecon: -o: /dev/full: No space left on device")
endif()
run(0 catalog gpus -o /dev/null)

# a FIFO or a folder as -o: exit 2 before any work
file(REMOVE out.fifo)
execute_process(COMMAND mkfifo out.fifo RESULT_VARIABLE mk)
if(mk EQUAL 0)
  run(2 catalog gpus -o out.fifo)
  expect_err("-o: out.fifo is a FIFO; expected a regular file")
  run(2 serve out.fifo --listen 127.0.0.1:0)
  expect_err("out.fifo: is a FIFO; expected a scenario file")
endif()
file(MAKE_DIRECTORY adir)
run(2 catalog gpus -o adir)
expect_err("-o: adir is a folder")
run(2 serve adir --listen 127.0.0.1:0)
expect_err("adir: is a folder; expected a scenario file")

# a regular file is written and announced
run(0 catalog gpus --json -o out.json)
expect_err("wrote [0-9]+ bytes \\(catalog\\) to out.json")
file(READ out.json text)
string(JSON n LENGTH "${text}" entries)
if(n LESS 5)
  message(FATAL_ERROR "out.json holds ${n} GPUs")
endif()
