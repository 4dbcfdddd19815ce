#!/bin/sh
# rowqueue's own entrypoint for a PostgreSQL image built from Debian packages. It honours what Testcontainers'
# PostgreSQLContainer sets: POSTGRES_USER (default postgres), POSTGRES_PASSWORD (required), POSTGRES_DB (default: the
# user), and a command that starts with "postgres" or with options. On a fresh data directory it runs initdb, starts a
# temporary server without TCP to create the database, stops it, then starts the real server: so the log says
# "database system is ready to accept connections" twice, the line (and count) Testcontainers waits for.
set -eu
case "${1:-}" in -*) set -- postgres "$@" ;; esac
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$db" != postgres ]; then
    # the name as an identifier: double quotes, embedded ones doubled
    quoted="\"$(printf '%s' "$db" | sed 's/"/""/g')\""
    psql -v ON_ERROR_STOP=1 -q --username="$user" --dbname=postgres -c "CREATE DATABASE $quoted"
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec "$@"
