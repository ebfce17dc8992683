#!/usr/bin/env bash
# A short demo against a running gateway: a dev token, a problem submitted and followed to its
# solution through the CLI, and the run listed through the API.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$OPENPAW_ROOT"
API="${OPENPAW_API_URL:-http://127.0.0.1:3000}"
TOKEN="$(node dist/apps/gateway/src/dev-token.js demo-user)"
export OPENPAW_TOKEN="$TOKEN" OPENPAW_API_URL="$API"
if [ -f dist/apps/cli/src/main.js ]; then
  node dist/apps/cli/src/main.js solve "2x + 3 = 7"
  echo "-- the same problem again (a retrieval hit):"
  node dist/apps/cli/src/main.js solve "2x+3=7"
fi
echo "-- GET /runs"
curl -fsS -H "Authorization: Bearer $TOKEN" "$API/runs?limit=5"
echo
