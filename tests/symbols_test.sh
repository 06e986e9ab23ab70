#!/usr/bin/env bash
# The libraries export exactly the public contract: the defined global symbols of libgpuecon.so
# (nm -D) and of the installable libgpuecon.a (nm -g) are the functions declared GPUECON_API in
# the installed header, no more (an internal name leaking out) and no fewer (a declared function
# that is not there).
# Usage: symbols_test.sh GPUECON.H LIBGPUECON.so LIBGPUECON.a
set -euo pipefail
header=$1
shift
declared=$(grep -E '^GPUECON_API ' "$header" | grep -o 'gpuecon_[a-z0-9_]*(' | sed 's/($//' | sort -u)
nd=$(grep -c . <<<"$declared")
[ "$nd" -ge 20 ] || { echo "$header: only $nd GPUECON_API functions found (is the header parsed right?)"; exit 1; }
bad=0
for lib in "$@"; do
  case "$lib" in *.so*) opt=-D ;; *) opt=-g ;; esac
  exported=$(nm $opt --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u |
             grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' || true)
  extra=$(comm -13 <(echo "$declared") <(echo "$exported"))
  missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
  if [ -n "$extra" ]; then
    echo "$lib exports symbols the header does not declare:"; echo "$extra" | head -40; bad=1
  fi
  if [ -n "$missing" ]; then
    echo "$lib lacks functions the header declares:"; echo "$missing"; bad=1
  fi
  echo "$lib: $(grep -c . <<<"$exported") symbols exported, $nd declared in $(basename "$header")"
done
exit $bad
