#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for the pg state backend's tests.
#
#   eval "$(scripts/ci-postgres.sh | tail -1)"     # start (or reuse) and export TENANTFORM_PG_URL
#   scripts/ci-postgres.sh stop                    # stop it and delete its data directory
#
# Idempotent: a second run reuses the running server. Installs Debian's
# postgresql package only when no initdb/pg_ctl is found. Everything but the
# final `export TENANTFORM_PG_URL=…` line goes to stderr, so that line is the
# last (and only) line on stdout.
#
# Settings (environment): TENANTFORM_PG_DIR (default /tmp/tenantform-pg),
# TENANTFORM_PG_PORT (first port to try, default 55432).
set -euo pipefail

BASE="${TENANTFORM_PG_DIR:-/tmp/tenantform-pg}"
DATA="$BASE/data"
RUN="$BASE/run"
LOG="$BASE/server.log"
PORT_FILE="$BASE/port"
PASSWORD_FILE="$BASE/password"
FIRST_PORT="${TENANTFORM_PG_PORT:-55432}"
DB=tenantform_test
ROLE=tenantform

say() { echo "ci-postgres: $*" >&2; }

find_bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

BINDIR="$(find_bindir || true)"
if [[ -z "$BINDIR" ]]; then
  say "no PostgreSQL server binaries found; installing Debian's postgresql package"
  apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2
  BINDIR="$(find_bindir)" || {
    say "postgresql installed but initdb/pg_ctl not found under /usr/lib/postgresql/*/bin"
    exit 1
  }
fi

# The server refuses to run as root: run its tools as the postgres user then.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

server_running() {
  [[ -f "$DATA/PG_VERSION" ]] && as_owner "$BINDIR/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

port_busy() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

if [[ "${1:-}" == stop ]]; then
  if server_running; then
    as_owner "$BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >&2
  fi
  rm -rf "$BASE"
  say "stopped and removed $BASE"
  exit 0
fi

if server_running && [[ -f "$PORT_FILE" && -f "$PASSWORD_FILE" ]]; then
  say "reusing the server already running from $DATA"
  PORT="$(cat "$PORT_FILE")"
else
  if [[ -f "$DATA/PG_VERSION" ]]; then
    as_owner "$BINDIR/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$BASE"
  mkdir -p "$DATA" "$RUN"
  chmod 700 "$DATA"
  if [[ "$(id -u)" == 0 ]]; then
    chown -R postgres: "$BASE"
  fi

  say "initdb in $DATA ($BINDIR)"
  as_owner "$BINDIR/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >&2

  PORT="$FIRST_PORT"
  while port_busy "$PORT"; do
    PORT=$((PORT + 1))
    if ((PORT > FIRST_PORT + 50)); then
      say "no free port from $FIRST_PORT to $PORT"
      exit 1
    fi
  done

  say "starting on 127.0.0.1:$PORT (log: $LOG)"
  as_owner "$BINDIR/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $RUN -c fsync=off" start >&2 || {
    say "server did not start; its log follows"
    cat "$LOG" >&2 || true
    exit 1
  }
  echo "$PORT" >"$BASE/port.tmp" && mv "$BASE/port.tmp" "$PORT_FILE"
  (umask 077 && od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$PASSWORD_FILE")
fi

PASSWORD="$(cat "$PASSWORD_FILE")"

# Role and database: created when missing, password (re)set every run. The
# password goes through stdin, never through the command line.
as_owner "$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$RUN" -p "$PORT" -U postgres -d postgres >&2 <<SQL
SELECT 'CREATE ROLE $ROLE LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') \gexec
ALTER ROLE $ROLE WITH LOGIN PASSWORD '$PASSWORD';
SELECT 'CREATE DATABASE $DB OWNER $ROLE' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB') \gexec
SQL

say "ready: database $DB, user $ROLE, 127.0.0.1:$PORT"
echo "export TENANTFORM_PG_URL=postgres://$ROLE:$PASSWORD@127.0.0.1:$PORT/$DB"
