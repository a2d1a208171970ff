#!/usr/bin/env bash
# Installs the Debian packages fomcast needs (only those missing), then configures and
# builds build/fomcast and the tests. Idempotent: a second run only rebuilds what changed.
# Build chatter goes to build/setup.log; stdout stays free for the command that follows.
#   BUILD_TYPE=Debug scripts/setup.sh      # default Release
#   FOMCAST_WERROR=ON scripts/setup.sh     # warnings are errors (CI)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake make g++ git pkg-config
          libeigen3-dev libcli11-dev nlohmann-json3-dev libboost-graph-dev
          libsqlite3-dev doctest-dev zlib1g-dev libsimdjson-dev libopenblas-dev
          clang-14 libclang-rt-14-dev    # the fuzz tests (tests/fuzz): clang and libFuzzer
          clang-format clang-tidy)       # scripts/lint.sh: the repository's .clang-format and .clang-tidy

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
    echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq >&2
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

mkdir -p build
log=build/setup.log
jobs=$(nproc 2>/dev/null || echo 2)
echo "setup: building build/fomcast (${BUILD_TYPE:-Release}, log in $log)" >&2
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" \
         -DFOMCAST_WERROR="${FOMCAST_WERROR:-OFF}" &&
       cmake --build build -j"$jobs"; } >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "setup: build failed (full log: $log)" >&2
  exit 1
fi
