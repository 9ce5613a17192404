#!/usr/bin/env bash
# Runs every fuzz target (func Fuzz… in a _test.go) for FUZZTIME each, in
# turn; a failing input is written to the target's testdata/fuzz corpus.
#
# Go 1.26's fuzzing coordinator can end a run that found nothing with a
# bare "context deadline exceeded" as -fuzztime runs out mid-input (Go
# issue 75804, fixed in Go 1.27). Such a run (no failing input written)
# is run once more; any other failure fails at once.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
fuzztime=${FUZZTIME:-30s}
grep -rl --include='*_test.go' '^func Fuzz' cmd internal infra | sort | while read -r file; do
  dir=./$(dirname "$file")
  sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file" | while read -r fn; do
    for try in 1 2; do
      echo "fuzz $fn in $dir for $fuzztime"
      out=$(go test "$dir" -run '^$' -fuzz "^$fn\$" -fuzztime "$fuzztime" 2>&1 </dev/null)
      rc=$?
      printf '%s\n' "$out"
      [ "$rc" -eq 0 ] && break
      if [ "$try" -eq 1 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
        echo "(the fuzzing engine's own time-out as -fuzztime ran out, no input found: once more)"
        continue
      fi
      exit 1
    done
  done || exit 1
done
