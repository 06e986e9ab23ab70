# Read after the top-level Makefile (make -f Makefile -f tests/quiet/quiet.mk): builds
# tests/quiet with the same make flags the Makefile gives its own cmake --build.
.PHONY: quiet-build
quiet-build:
	@cmake -S tests/quiet -B $(QUIET_DIR) >/dev/null
	@cmake --build $(QUIET_DIR) -j 2
