#!/usr/bin/env bash
# Stops what ./scripts/up.sh started (by the PIDs it recorded); data stays in .run/.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
RUN="$OPENPAW_ROOT/.run"
for f in "$RUN"/pids/*; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  [ "$name" = nats ] && continue
  kill "$(cat "$f")" 2>/dev/null && echo "stopped $name"
  rm -f "$f"
done
if [ -f "$RUN/pg/PG_VERSION" ]; then
  as_pg=(); [ "$(id -u)" -eq 0 ] && as_pg=(runuser -u postgres --)
  "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$RUN/pg" -m fast stop >/dev/null 2>&1 && echo "stopped postgres"
fi
if [ -f "$RUN/pids/nats" ]; then kill "$(cat "$RUN/pids/nats")" 2>/dev/null && echo "stopped nats-server"; rm -f "$RUN/pids/nats"; fi
