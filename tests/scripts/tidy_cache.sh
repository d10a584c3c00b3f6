#!/usr/bin/env bash
# scripts/tidy-cached, the clang-tidy result cache of `make lint` (docs/architecture.md, "Lint"):
# a clean file is not tidied again while its input is the same; a change in a header it includes
# brings the finding back; findings are never cached; a clone at another path hits the same
# entries. A mini checkout (the script and the project's .clang-tidy) in a temporary folder.
# Usage: tests/scripts/tidy_cache.sh TRAILS_BINARY SOURCE_DIR (the binary is not used)
set -euo pipefail
src=$2
command -v clang-tidy-16 > /dev/null || { echo "tidy_cache: clang-tidy-16 is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TRAILS_TIDY_CACHE=$tmp/cache TRAILS_TIDY_HITS=$tmp/hits

make_checkout() {  # a mini checkout at $1: t.cpp includes t.h; its compile commands
  mkdir -p "$1/scripts" "$1/src/trails" "$1/build"
  cp "$src/scripts/tidy-cached" "$1/scripts/"
  cp "$src/.clang-tidy" "$1/"
  printf '#pragma once\ninline int twice(int x) { return 2 * x; }\n' > "$1/src/trails/t.h"
  printf '#include "trails/t.h"\nint four() { return twice(2); }\n' > "$1/src/trails/t.cpp"
  cat > "$1/build/compile_commands.json" <<JSON
[{"directory": "$1/build", "file": "$1/src/trails/t.cpp",
  "command": "/usr/bin/c++ -std=c++20 -I$1/src -o t.o -c $1/src/trails/t.cpp"}]
JSON
}
tidy() {  # tidy t.cpp of the checkout at $1; prints the exit status, findings to $tmp/out
  (cd "$1" && python3 scripts/tidy-cached build src/trails/t.cpp .clang-tidy > "$tmp/out" 2>/dev/null
   echo $?) || true
}
hits() { cat "$tmp/hits" 2>/dev/null | wc -l; }
fail() { echo "tidy_cache: $*"; cat "$tmp/out"; exit 1; }

make_checkout "$tmp/a"
[ "$(tidy "$tmp/a")" = 0 ] || fail "the clean file failed"
[ "$(hits)" = 0 ] || fail "a hit on an empty cache"
[ "$(tidy "$tmp/a")" = 0 ] && [ "$(hits)" = 1 ] || fail "the unchanged clean file was tidied again"

# A finding in the included header (modernize-use-nullptr): the cached clean result must not hide it.
printf '#pragma once\ninline int* none() { return 0; }\ninline int twice(int x) { return 2 * x; }\n' \
  > "$tmp/a/src/trails/t.h"
[ "$(tidy "$tmp/a")" != 0 ] || fail "a finding in t.h was hidden by the cache"
grep -q modernize-use-nullptr "$tmp/out" || fail "the finding was not printed"
[ "$(tidy "$tmp/a")" != 0 ] && grep -q modernize-use-nullptr "$tmp/out" \
  || fail "a result with a finding was cached"
[ "$(hits)" = 1 ] || fail "a file with a finding counted as a hit"

# A changed compile command (a macro) is another input.
printf '#pragma once\ninline int twice(int x) { return 2 * x; }\n' > "$tmp/a/src/trails/t.h"
[ "$(tidy "$tmp/a")" = 0 ] && [ "$(hits)" = 2 ] || fail "the restored clean input missed the cache"
sed -i 's/-std=c++20/-std=c++20 -DTRAILS_X=1/' "$tmp/a/build/compile_commands.json"
[ "$(tidy "$tmp/a")" = 0 ] && [ "$(hits)" = 2 ] || fail "another compile command hit the cache"

# A fresh clone elsewhere with the same content hits the same entries.
make_checkout "$tmp/another/clone"
[ "$(tidy "$tmp/another/clone")" = 0 ] && [ "$(hits)" = 3 ] || fail "a clone at another path missed"

# TRAILS_TIDY_CACHE=off: always tidied.
TRAILS_TIDY_CACHE=off
[ "$(tidy "$tmp/a")" = 0 ] && [ "$(hits)" = 3 ] || fail "the cache was used while off"
echo "tidy_cache: ok"
