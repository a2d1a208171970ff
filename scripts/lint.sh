#!/usr/bin/env bash
# The repository's habits, checked: every C++ file formatted as .clang-format says, and the
# .clang-tidy checks (bugprone, performance, a readability subset) clean on every source file
# of the build (build/compile_commands.json, made by scripts/setup.sh). CI runs it after the
# tests. Exits non-zero on the first kind of finding, listing them.
#   scripts/lint.sh            # both
#   scripts/lint.sh format     # clang-format only (seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
mapfile -t files < <(git ls-files '*.cpp' '*.hpp')

if [[ $what == all || $what == format ]]; then
  if ! clang-format --dry-run -Werror "${files[@]}" 2>/tmp/fomcast-format.$$; then
    grep -E '^[^ ].*: error' /tmp/fomcast-format.$$ | sed 's/: error.*//' | sort -u | head -50 >&2
    echo "lint: files above are not formatted (clang-format -i FILE)" >&2
    rm -f /tmp/fomcast-format.$$; exit 1
  fi
  rm -f /tmp/fomcast-format.$$
  echo "lint: ${#files[@]} files formatted"
fi

if [[ $what == all || $what == tidy ]]; then
  [[ -f build/compile_commands.json ]] || { echo "lint: build/compile_commands.json missing: run scripts/setup.sh" >&2; exit 1; }
  # The sources the main build compiles (not the fuzz build's, not generated files).
  mapfile -t sources < <(git ls-files '*.cpp' | grep -v '^tests/fuzz/' |
                         while read -r f; do grep -q "\"file\": \".*/$f\"" build/compile_commands.json && echo "$f"; done)
  jobs=$(nproc 2>/dev/null || echo 2)
  log=build/lint-tidy.log
  # -Werror builds (CI) pass -Wno-* options of GCC that clang does not know: not a finding.
  if ! printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -n 4 clang-tidy -p build --quiet \
         --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
    grep -E 'warning:|error:' "$log" | sort -u | head -60 >&2
    echo "lint: clang-tidy findings above (full log: $log)" >&2; exit 1
  fi
  echo "lint: clang-tidy clean on ${#sources[@]} files"
fi
