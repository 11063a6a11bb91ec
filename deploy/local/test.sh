#!/usr/bin/env bash
# `npm test`: prepares the machine (and Chromium for the browser tests), typechecks and lints the whole repository, then runs every test tier (extra args go to vitest).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=deploy/local/setup.sh
source deploy/local/setup.sh
mds_ensure_chromium
# Two venvs of their own, installed side by side on a fresh machine (each is a check of well under a second later).
mds_ensure_moto &
moto=$!
mds_ensure_test_tools &
tools=$!
wait "$moto"
wait "$tools"

# The typecheck and the lint and format check (no writes; `npm run format` fixes what it finds) side by side.
echo "[test] tsc --noEmit and biome ci" >&2
npx tsc --noEmit -p tsconfig.json &
tsc=$!
bash deploy/local/biome.sh ci --colors=off . &
biome=$!
checks=0
wait "$tsc" || checks=$?
wait "$biome" || checks=$?
if [ "$checks" != 0 ]; then exit "$checks"; fi

# The run's report stays in .data/ (ignored by git): `npm run test:durations` records its file durations, the order
# the next runs take (test/sequence/LongestFirst.ts).
mkdir -p .data
report=".data/test-report.json"
rm -f "$report"
echo "[test] vitest run $*" >&2
code=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || code=$?

# One plain closing line that any CI reads: "N passed, N failed, N skipped".
if [ -s "$report" ]; then
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"))
    const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
    // A file that fails before its tests run (a hook, an import) counts as a failure too, not as skipped tests.
    const failedFiles = (r.testResults ?? []).filter((f) => f.status === "failed" && (f.assertionResults ?? []).every((a) => a.status !== "failed")).length
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests + failedFiles} failed, ${skipped} skipped`)
  ' "$report"
fi
exit "$code"
