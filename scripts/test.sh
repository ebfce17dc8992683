#!/usr/bin/env bash
# The whole test suite: setup, typecheck, lint, build, contract drift, unit + integration + e2e tests.
# Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$OPENPAW_ROOT"
bash scripts/setup.sh
source scripts/env.sh
echo "== typecheck"; npm run --silent typecheck
echo "== lint"; npm run --silent lint
echo "== build"; npm run --silent build
# Each file's jest time, for the issues' CI budgets: `node dist/tools/ci-times.js .ci-reports/jest-*.json`.
mkdir -p .ci-reports
echo "== tests"; npm test -- --ci --selectProjects unit integration --json --outputFile=.ci-reports/jest-tests.json "$@"
# The whole-platform boots (deploy/README.md, "The boot test"): one at a time, nothing else running.
echo "== boot tests"; npm test -- --ci --selectProjects boot --runInBand --passWithNoTests --json --outputFile=.ci-reports/jest-boot.json "$@"
echo "== bench smoke"; bash scripts/bench-smoke.sh
