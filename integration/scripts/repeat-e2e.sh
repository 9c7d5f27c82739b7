#!/usr/bin/env bash
# Runs the integration module's end-to-end suite N times, each run a fresh surefire run (so fresh
# child-process clusters), and reports every failure: nothing is rerun or forgiven. Not part of
# CI; for finding rare races (docs/reliability.md records a run).
#
#   integration/scripts/repeat-e2e.sh N [extra mvn arguments, e.g. -Dtest=NodeKillTest -Dintegration.slow=true]
#
# The upstream modules are built once first (mvn -pl integration -am test-compile); each run is
# then `mvn -pl integration -am test` restricted to the integration module's tests (the upstream
# modules are only checked as up to date, their tests do not run). Each run keeps, under
# integration/target/repeat-e2e/<start time>/run-NN/ (or $REPEAT_E2E_DIR/run-NN/): mvn.log, the
# surefire reports and the clusters' logs (target/cluster-logs). At the end it prints the passes,
# the failures and each failing test with how many runs it failed in. Exits 1 if any run failed.
set -euo pipefail

usage() {
  echo "usage: $0 N [extra mvn arguments]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
runs=$1
shift
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || usage

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
out=${REPEAT_E2E_DIR:-integration/target/repeat-e2e/$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# Only the integration module's test classes; upstream modules match none of them.
tests='io/parityfs/integration/**/*Test'
for a in "$@"; do
  case "$a" in -Dtest=*) tests=${a#-Dtest=} ;; esac
done
extra=()
for a in "$@"; do
  case "$a" in -Dtest=*) ;; *) extra+=("$a") ;; esac
done

echo "== building the upstream modules and the tests once (log: $out/build.log)"
if ! mvn -B -pl integration -am test-compile ${extra[@]+"${extra[@]}"} >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "FAIL: the build failed; see $out/build.log"
  exit 1
fi

passes=0
failures=0
: >"$out/failing-tests.txt"
for ((i = 1; i <= runs; i++)); do
  run=$(printf '%s/run-%02d' "$out" "$i")
  mkdir -p "$run"
  rm -rf integration/target/surefire-reports integration/target/cluster-logs
  start=$(date +%s)
  set +e
  mvn -B -pl integration -am test -Dtest="$tests" -Dsurefire.failIfNoSpecifiedTests=false \
    -Dparityfs.failIfNoTests=false \
    ${extra[@]+"${extra[@]}"} >"$run/mvn.log" 2>&1
  rc=$?
  set -e
  secs=$(($(date +%s) - start))
  if [ -d integration/target/surefire-reports ]; then
    cp -r integration/target/surefire-reports "$run/"
  fi
  if [ -d integration/target/cluster-logs ]; then
    mv integration/target/cluster-logs "$run/"
  fi
  # Failing tests: every <testcase> with a <failure> or an <error> in this run's reports.
  failed=$( (cat "$run"/surefire-reports/TEST-*.xml 2>/dev/null || true) | awk '
    /<testcase / {
      cls = ""; name = "";
      if (match($0, /classname="[^"]*"/)) cls = substr($0, RSTART + 11, RLENGTH - 12);
      if (match($0, / name="[^"]*"/)) name = substr($0, RSTART + 7, RLENGTH - 8);
    }
    /<failure|<error/ { print cls "#" name }' | sort -u) || failed="(cannot read the reports)"
  ran=$( (cat "$run"/surefire-reports/TEST-*.xml 2>/dev/null || true) \
    | grep -o '<testsuite [^>]*' | grep -o ' tests="[0-9]*"' | grep -o '[0-9]*' \
    | awk '{ s += $1 } END { print s + 0 }') || ran=0
  if [ "$rc" -eq 0 ] && [ -z "$failed" ] && [ "$ran" -gt 0 ]; then
    passes=$((passes + 1))
    printf 'run %02d: PASS (%d tests, %d s)\n' "$i" "$ran" "$secs"
  else
    failures=$((failures + 1))
    printf 'run %02d: FAIL (%d tests, %d s, mvn exit %d; %s)\n' "$i" "$ran" "$secs" "$rc" "$run/mvn.log"
    [ -n "$failed" ] || failed="(a failed run with no failing test in its reports)"
    echo "$failed" | sed 's/^/  /'
    echo "$failed" >>"$out/failing-tests.txt"
  fi
done

echo "== $runs runs: $passes passed, $failures failed (logs and reports: $out)"
if [ "$failures" -gt 0 ]; then
  echo "failing tests (runs failed in):"
  sort "$out/failing-tests.txt" | uniq -c | sort -rn | sed 's/^/  /'
  exit 1
fi
