#!/usr/bin/env bash
# Runs OpenPaw locally: installs what is missing, starts nats-server (JetStream) and PostgreSQL on
# 127.0.0.1 under .run/, provisions streams and the database, migrates every schema and creates one
# PostgreSQL role per service (as the cluster's migrations Job does), starts every service logged in
# as its own role (verifying its schema only), waits for readiness and runs a short demo against the gateway.
# Services keep running in the background; stop everything with ./scripts/down.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$OPENPAW_ROOT"
bash scripts/setup.sh
source scripts/env.sh

RUN="$OPENPAW_ROOT/.run"
mkdir -p "$RUN/logs" "$RUN/pids" "$RUN/blobs"
NATS_PORT="${OPENPAW_NATS_PORT:-4222}"
PG_PORT="${OPENPAW_PG_PORT:-55432}"
export OPENPAW_NATS_URL="nats://127.0.0.1:$NATS_PORT"
export OPENPAW_DATABASE_URL="postgres://openpaw@127.0.0.1:$PG_PORT/openpaw"
export OPENPAW_BLOB_DIR="$RUN/blobs"
export OPENPAW_JWT_SECRET="${OPENPAW_JWT_SECRET:-$(cat "$RUN/jwt-secret" 2>/dev/null || head -c 48 /dev/urandom | base64 | tr -d '/+=\n' | tee "$RUN/jwt-secret")}"
# Seals the users' provider keys (gateway) and opens them for their research legs (research service).
export OPENPAW_KEY_ENCRYPTION_KEY="${OPENPAW_KEY_ENCRYPTION_KEY:-$(cat "$RUN/key-encryption-key" 2>/dev/null || head -c 32 /dev/urandom | base64 | tr -d '\n' | tee "$RUN/key-encryption-key")}"
export LOG_LEVEL="${LOG_LEVEL:-info}"
# The demo searches the sample library only, so it runs offline and never waits on the internet.
# The research service's default is OpenAlex, arXiv and Crossref: run with
# OPENPAW_SCHOLARLY_SOURCES=openalex,arxiv,crossref (and OPENPAW_SCHOLARLY_MAILTO=you@example.org for
# the polite pools) to search them.
export OPENPAW_SCHOLARLY_SOURCES="${OPENPAW_SCHOLARLY_SOURCES:-none}"

alive() { [ -f "$RUN/pids/$1" ] && kill -0 "$(cat "$RUN/pids/$1")" 2>/dev/null; }

echo "== build"
npm run --silent build

echo "== nats-server (JetStream) on 127.0.0.1:$NATS_PORT"
if ! alive nats; then
  nohup nats-server -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$RUN/nats" >"$RUN/logs/nats.log" 2>&1 &
  echo $! >"$RUN/pids/nats"
fi

echo "== PostgreSQL on 127.0.0.1:$PG_PORT"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then as_pg=(runuser -u postgres --); fi
if [ ! -f "$RUN/pg/PG_VERSION" ]; then
  mkdir -p "$RUN/pg" && [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$RUN/pg"
  chmod 700 "$RUN/pg"
  "${as_pg[@]}" "$PG_BIN/initdb" -D "$RUN/pg" -U openpaw -A trust -E UTF8 --locale=C >"$RUN/logs/initdb.log"
fi
if ! "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$RUN/pg" status >/dev/null 2>&1; then
  touch "$RUN/logs/postgres.log" && [ "$(id -u)" -ne 0 ] || chown postgres "$RUN/logs/postgres.log"
  "${as_pg[@]}" "$PG_BIN/pg_ctl" -D "$RUN/pg" -l "$RUN/logs/postgres.log" -w \
    -o "-p $PG_PORT -k $RUN/pg -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
fi

for _ in $(seq 1 100); do
  (echo >"/dev/tcp/127.0.0.1/$NATS_PORT") 2>/dev/null && break; sleep 0.1
done

echo "== provision streams and database, migrate every schema (advisory lock), one role per service"
node dist/tools/provision.js
# As the cluster's migrations Job: the owner migrates and creates `openpaw_<schema>` for each schema
# (rows of that schema only); each service then logs in as its own role (trust auth on 127.0.0.1,
# so no password) and only verifies its schema. The schemas are the ones the migrator found.
MIGRATED="$(OPENPAW_DATABASE_ROLES=per-service node dist/tools/migrate.js)"
echo "$MIGRATED" | sed 's/^/   /'
read -r -a SCHEMAS <<<"$(echo "$MIGRATED" | sed -n 's/^migrate: schemas //p' | tr -d ',')"
# The database URL a service logs in with: its own role when it owns a schema, else none.
service_database_url() {
  local schema
  for schema in "${SCHEMAS[@]}"; do
    if [ "$schema" = "$1" ]; then echo "postgres://openpaw_$1@127.0.0.1:$PG_PORT/openpaw"; return; fi
  done
}

declare -A PORTS=([gateway]=3000 [coordinator]=3001 [ingestion]=3101 [retrieval]=3102 [solve]=3103 [assets]=3104 [artifacts]=3105 [research]=3106 [visual-search]=3107)
echo "== services"
# The Node options the image runs services with (the Dockerfile's ENV NODE_OPTIONS): local runs match it.
IMAGE_NODE_OPTIONS="$(sed -n 's/^ENV .*NODE_OPTIONS=\([^ ]*\).*/\1/p' Dockerfile)"
for svc in coordinator ingestion retrieval solve assets artifacts research visual-search gateway; do
  if alive "$svc"; then echo "   $svc already running (pid $(cat "$RUN/pids/$svc"))"; continue; fi
  PORT="${PORTS[$svc]}" OPENPAW_DATABASE_URL="$(service_database_url "$svc")" OPENPAW_MIGRATIONS=verify \
    NODE_OPTIONS="$IMAGE_NODE_OPTIONS ${NODE_OPTIONS:-}" nohup node "dist/apps/$svc/src/main.js" >"$RUN/logs/$svc.log" 2>&1 &
  echo $! >"$RUN/pids/$svc"
  echo "   $svc pid $! port ${PORTS[$svc]} log .run/logs/$svc.log"
done

echo "== waiting for readiness"
for svc in "${!PORTS[@]}"; do
  for i in $(seq 1 150); do
    if curl -fsS "http://127.0.0.1:${PORTS[$svc]}/readyz" >/dev/null 2>&1; then break; fi
    if ! alive "$svc"; then echo "$svc died; last log lines:"; tail -n 30 "$RUN/logs/$svc.log"; exit 1; fi
    [ "$i" -eq 150 ] && { echo "$svc not ready after 30 s"; tail -n 30 "$RUN/logs/$svc.log"; exit 1; }
    sleep 0.2
  done
done
echo "   all services ready"

echo "== demo"
bash scripts/demo.sh
echo
echo "OpenPaw is running: gateway http://127.0.0.1:3000 (OpenAPI at /docs). Stop with ./scripts/down.sh"
echo "Web console: http://127.0.0.1:3000/console/  sign in with this dev token (user console-user, 12 h):"
node dist/apps/gateway/src/dev-token.js console-user 12h
echo "Operations page (#/ops, admin role): sign in with this one instead (user console-operator, 12 h):"
OPENPAW_DEV_TOKEN_ROLES=admin node dist/apps/gateway/src/dev-token.js console-operator 12h
