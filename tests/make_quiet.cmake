# `make` must not print the nested make's "Entering directory" lines (issue 14, item 11).
# Builds the tiny project tests/quiet through the top-level Makefile's flags and checks
# what make printed: cmake -DSRC=... -DWORK=... -P tests/make_quiet.cmake
find_program(MAKE_EXE NAMES gmake make REQUIRED)
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MAKELEVEL --unset=MFLAGS
                        ${MAKE_EXE} -f Makefile -f tests/quiet/quiet.mk quiet-build QUIET_DIR=${WORK}
                WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make quiet-build: exit ${rc}\n${out}\n${err}")
endif()
if(NOT out MATCHES "Built target quiet")
  message(FATAL_ERROR "make quiet-build did not build tests/quiet:\n${out}")
endif()
if(out MATCHES "Entering directory|Leaving directory" OR err MATCHES "Entering directory")
  message(FATAL_ERROR "make prints the nested make's directory changes:\n${out}")
endif()
