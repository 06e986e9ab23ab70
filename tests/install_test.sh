#!/usr/bin/env bash
# Installs the built library into a scratch prefix (as `make install PREFIX=...` does) and builds
# tests/install/hello.c against the installed copy three ways: pkg-config with the shared
# library, pkg-config --static with the archive, and the CMake package. Each program must run
# and print the cost request's JSON; hello.c defines err_set and tbl_new, names the library
# uses inside, so a clash of internal symbols fails the link.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CC SANITIZE(ON|OFF)
set -euo pipefail
build=$1 src=$2 cc=$3 san=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
flags=()
[ "$san" = ON ] && flags=(-fsanitize=address,undefined)
pc=$(dirname "$(find "$prefix" -name gpuecon.pc)")
export PKG_CONFIG_PATH=$pc
libdir=$(pkg-config --variable=libdir gpuecon)
test -f "$prefix/include/gpuecon.h"
test -L "$libdir/libgpuecon.so" && test -f "$libdir/libgpuecon.a"
soname=$(readelf -d "$libdir/libgpuecon.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libgpuecon.so.1 ] || { echo "soname '$soname', expected libgpuecon.so.1"; exit 1; }

check() { # name program
  out=$("$2")
  case "$out" in
    "15 0 {"*'"usd_per_mtok": 0.5418'*) echo "$1: ok" ;;
    *) echo "$1: unexpected output: $out"; exit 1 ;;
  esac
}
# shared, through pkg-config
# shellcheck disable=SC2046
"$cc" "${flags[@]}" -o "$tmp/hello_so" "$src/tests/install/hello.c" $(pkg-config --cflags --libs gpuecon) \
  -Wl,-rpath,"$libdir"
check "pkg-config (shared)" "$tmp/hello_so"
# (ldd's output is read whole first: `ldd | grep -q` under pipefail fails at random when grep
# exits early and ldd dies of SIGPIPE)
deps=$(ldd "$tmp/hello_so")
grep -qF "libgpuecon.so.1 => $libdir" <<<"$deps" || { echo "hello_so does not use the installed .so: $deps"; exit 1; }
# static, through pkg-config --static
static_libs=$(pkg-config --static --libs gpuecon | sed 's/-lgpuecon/-l:libgpuecon.a/')
# shellcheck disable=SC2086
"$cc" "${flags[@]}" -o "$tmp/hello_a" "$src/tests/install/hello.c" $(pkg-config --cflags gpuecon) $static_libs
check "pkg-config --static" "$tmp/hello_a"
deps=$(ldd "$tmp/hello_a")
if grep -q libgpuecon <<<"$deps"; then echo "hello_a links the shared library"; exit 1; fi
# the CMake package
CC=$cc CFLAGS="${flags[*]}" cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
check "find_package(gpuecon)" "$tmp/consumer/hello"
