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
echo "-- visual degrees (spec 03) over the LOCAL world of invented people: a 3-hop pair, evidence live on SSE"
DEMO_PAIRS="$(grep -m1 localWorldDemo "$OPENPAW_ROOT/.run/logs/visual-search.log")"
visual_degrees() {
  local body run_id
  body="$(node -e 'const d = JSON.parse(process.argv[1]).localWorldDemo; console.log(JSON.stringify(d[process.argv[2]]))' "$DEMO_PAIRS" "$1")"
  echo "   POST /visual-degrees $body"
  run_id="$(curl -fsS -X POST -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$body" "$API/visual-degrees" |
    node -e 'let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => console.log(JSON.parse(s).runId))')"
  curl -fsSN -H "Authorization: Bearer $TOKEN" "$API/visual-degrees/$run_id/events"
}
visual_degrees threeHop
echo "-- visual degrees: a pair with no connection (no_path)"
visual_degrees noPath
echo "-- a research (spec 05): a local leg and a leg whose key the provider rejects → the human gate → proceed → synthesis"
node scripts/demo-research.mjs
