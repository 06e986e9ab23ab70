#!/usr/bin/env bash
# The libraries export only the public API: every defined global symbol of libgpuecon.so
# (nm -D) and of the installable libgpuecon.a (nm -g) starts with gpuecon_.
# Usage: symbols_test.sh LIBGPUECON.so LIBGPUECON.a
set -euo pipefail
bad=0
for lib in "$@"; do
  case "$lib" in *.so*) opt=-D ;; *) opt=-g ;; esac
  n=$(nm $opt --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u | grep -c '^gpuecon_' || true)
  others=$(nm $opt --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u |
           grep -v -E '^(gpuecon_|_init$|_fini$|_edata$|_end$|__bss_start$)' || true)
  if [ -n "$others" ]; then
    echo "$lib exports symbols outside gpuecon_*:"; echo "$others" | head -40; bad=1
  fi
  [ "$n" -ge 50 ] || { echo "$lib: only $n gpuecon_ symbols"; bad=1; }
  echo "$lib: $n gpuecon_* symbols, nothing else"
done
exit $bad
