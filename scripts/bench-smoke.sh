#!/usr/bin/env bash
# Bench smoke: every bench under bench/ runs once from the build with tiny parameters and must exit 0.
# Not a timing gate (the figures of a tiny run mean nothing); it keeps the benches from rotting, as the
# hit-path bench did when admission control came. Needs `npm run build` first. Exits non-zero naming
# every bench that failed (each one's output is printed when it fails).
#   scripts/bench-smoke.sh [name-filter]
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$OPENPAW_ROOT"

# One line per bench: its compiled entry point under dist/bench, then its tiny arguments.
# bench/artifacts is a jest e2e spec (the test suite runs it). bench/maths/cas-compare runs too: without
# the optional algebrite it measures nerdamer alone.
BENCHES=(
  "ingestion-retrieval/ann-index.js 2000 20"
  "ingestion-retrieval/hybrid-search.js 500 5"
  "ingestion-retrieval/image-copies.js 2 1"
  "ingestion-retrieval/near-duplicate.js 1 1"
  "ingestion-retrieval/ocr-accuracy.js 1 1"
  "ingestion-retrieval/paraphrase.js 4 50"
  "ingestion-retrieval/phash-index.js 2000"
  "ingestion-retrieval/reading-bench.js --originals 9 --copies-of 1 --fail-on-wrong"
  "maths/maths-bench.js --repeat 1"
  "maths/cas-compare.js"
  "maths/pinned-bench.js --held-out --fail-on-wrong"
  "maths/twins-bench.js --pairs 2 --fail-on-wrong"
  "paper-dedup/dedup-bench.js 1,2 2"
  "paper-steering/steering-bench.js --seeds 1 --gnn 6 --others 2"
  "saga/saga-bench.js --runs1 10 --runs64 64 --commits 20"
  "research/leg-floor.js --runs 2 --legs 2 --rounds 1"
  "research/research-bench.js --sequential 2 --concurrent 2 --rounds 1 --idle-seconds 1"
  "retrieve-or-generate/hit-path.js --misses 3 --seconds 1 --warmup 1 --rate 5"
  "load/load.js --problems 4 --rate 2 --users 2 --settle-s 30 --video-drain-s 60"
  "visual/visual-degrees-runs.js --runs 2 --concurrency 2"
  "visual-degrees/chain-search.js --seeds 7 --pairs 1"
  "memory/memory-bench.js --problems 2 --settle 1"
  "fuzz/openapi-fuzz.js --per-operation 1 --per-start 2 --seeds 1"
)
# A bench is a file under bench/ whose header says how to run it from dist/bench; one not listed
# above fails the smoke: a new bench must say how it runs small.
for source in $(grep -l "node .*dist/bench/" bench/*/*.ts); do
  entry="${source#bench/}"
  entry="${entry%.ts}.js"
  if ! printf '%s\n' "${BENCHES[@]}" | grep -q "^$entry\( \|$\)"; then
    echo "bench smoke: $source is a bench with no tiny run listed in scripts/bench-smoke.sh"
    exit 1
  fi
done

failed=()
for line in "${BENCHES[@]}"; do
  read -r -a parts <<<"$line"
  entry="${parts[0]}"
  [[ -n "${1:-}" && "$entry" != *"$1"* ]] && continue
  started=$SECONDS
  log="$(mktemp)"
  if timeout 600 node "dist/bench/$entry" "${parts[@]:1}" >"$log" 2>&1; then
    echo "bench smoke: ok   $entry ($((SECONDS - started)) s)"
  else
    echo "bench smoke: FAIL $entry ($((SECONDS - started)) s, exit $?):"
    sed 's/^/    /' "$log" | tail -40
    failed+=("$entry")
  fi
  rm -f "$log"
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "bench smoke: ${#failed[@]} failed: ${failed[*]}"
  exit 1
fi
