#!/usr/bin/env bash
# A short demo against a running gateway: a dev token, a problem submitted and followed to its
# solution through the CLI, and the run listed through the API.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$OPENPAW_ROOT"
API="${OPENPAW_API_URL:-http://127.0.0.1:3000}"
TOKEN="$(node dist/apps/gateway/src/dev-token.js demo-user)"
export OPENPAW_TOKEN="$TOKEN" OPENPAW_API_URL="$API"
echo "-- openpaw solve \"2x + 3 = 7\" (a new problem: ingested, searched, solved, registered, indexed)"
./scripts/openpaw solve "2x + 3 = 7"
echo "-- the same problem from another user, typed differently (a retrieval hit, no new solve)"
OPENPAW_TOKEN="$(node dist/apps/gateway/src/dev-token.js demo-user-2)" ./scripts/openpaw solve "2x+3=7"
echo "-- a problem as an image"
node -e "import('sharp').then(async ({ default: sharp }) => { await sharp(Buffer.from('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"260\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/><text x=\"60\" y=\"150\" font-family=\"DejaVu Sans\" font-size=\"64\">5x - 10 = 15</text></svg>')).png().toFile('.run/demo-problem.png'); })"
./scripts/openpaw solve ./.run/demo-problem.png
echo "-- GET /runs"
curl -fsS -H "Authorization: Bearer $TOKEN" "$API/runs?limit=5"
echo
echo "-- a research (spec 05): a local leg and a leg whose key the provider rejects → the human gate → proceed → synthesis"
node scripts/demo-research.mjs
