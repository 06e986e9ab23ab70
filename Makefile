# gpuecon — thin wrapper over CMake.
#   make          build build/gpuecon (Release)
#   make run      install missing Debian packages, build, run the main job
#   make test     build with -Werror + ASan + UBSan and run every test (CTest)
#   make clang    build warning-free with clang as well
#   make bench    build and run the benchmarks (results go in docs/benchmarks.md)
#   make fuzz     build the libFuzzer harnesses with clang and run each for FUZZ_RUNS inputs
#   make install PREFIX=/usr/local   install the header, libgpuecon.so/.a, gpuecon.pc, the CMake
#                 package and the program under PREFIX (DESTDIR is honoured)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_RUNS ?= 1000000
# cmake --build runs make three levels deep; its "Entering directory" lines are noise.
MAKEFLAGS += --no-print-directory
PREFIX ?= /usr/local

.PHONY: all run test clang bench fuzz deps clean install

all:
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUECON_TESTS=OFF >/dev/null
	@cmake --build build -j $(JOBS)

install:
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUECON_TESTS=OFF -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build build -j $(JOBS)
	@cmake --install build --prefix $(PREFIX)

deps:
	@scripts/deps.sh

run: deps all
	@./build/gpuecon

test:
	@scripts/deps.sh --test
	@cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Debug -DGPUECON_SANITIZE=ON >/dev/null
	@cmake --build build-test -j $(JOBS)
	@cd build-test && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS)

clang:
	@scripts/deps.sh --test
	@CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build build-clang -j $(JOBS)

bench:
	@cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DGPUECON_TESTS=OFF >/dev/null
	@cmake --build build-bench -j $(JOBS) --target gpuecon $(notdir $(basename $(wildcard bench/*.c)))
	@bench/run.sh build-bench

fuzz:
	@scripts/deps.sh --test
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DGPUECON_SANITIZE=ON -DGPUECON_FUZZ=ON -DGPUECON_TESTS=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target fuzz_catalog fuzz_scenario fuzz_request fuzz_cli fuzz_lengths fuzz_hf \
	  fuzz_runlog fuzz_runs fuzz_http
	@mkdir -p build-fuzz/corpus-catalog build-fuzz/corpus-scenario build-fuzz/corpus-request build-fuzz/corpus-cli build-fuzz/corpus-lengths build-fuzz/corpus-hf \
	  build-fuzz/corpus-runlog build-fuzz/corpus-runs build-fuzz/corpus-http
	build-fuzz/tests/fuzz/fuzz_catalog -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-catalog tests/fuzz/corpus tests/cases
	build-fuzz/tests/fuzz/fuzz_scenario -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-scenario tests/fuzz/corpus-scenario
	build-fuzz/tests/fuzz/fuzz_request -runs=$(FUZZ_RUNS) -max_len=8192 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-request tests/fuzz/corpus-request
	build-fuzz/tests/fuzz/fuzz_cli -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=30 -print_final_stats=1 \
	  build-fuzz/corpus-cli tests/fuzz/corpus-cli
	build-fuzz/tests/fuzz/fuzz_lengths -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-lengths tests/fuzz/corpus-lengths
	build-fuzz/tests/fuzz/fuzz_hf -runs=$(FUZZ_RUNS) -max_len=8192 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-hf tests/fuzz/corpus-hf tests/cases/hf
	build-fuzz/tests/fuzz/fuzz_runlog -runs=$(FUZZ_RUNS) -max_len=8192 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-runlog tests/fuzz/corpus-runlog
	build-fuzz/tests/fuzz/fuzz_runs -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=10 -print_final_stats=1 \
	  build-fuzz/corpus-runs tests/fuzz/corpus-runs
	build-fuzz/tests/fuzz/fuzz_http -runs=$(FUZZ_RUNS) -max_len=20000 -timeout=30 -print_final_stats=1 \
	  build-fuzz/corpus-http tests/fuzz/corpus-http

clean:
	rm -rf build build-test build-clang build-bench build-fuzz
