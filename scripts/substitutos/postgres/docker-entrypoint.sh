#!/bin/sh
# The official image's first start, as far as compose.yaml needs it: a cluster owned by
# POSTGRES_USER with POSTGRES_PASSWORD (scram on the network), POSTGRES_DB created, then
# each /docker-entrypoint-initdb.d/*.sql run in it, on a server that listens on no port
# until all of that is done. Later starts find the cluster and only serve it. Any other
# command (a shell, psql) runs as given.
set -eu
if [ "${1:-}" != postgres ]; then exec "$@"; fi
: "${POSTGRES_PASSWORD:?defina POSTGRES_PASSWORD}"
usuario="${POSTGRES_USER:-postgres}"
banco="${POSTGRES_DB:-$usuario}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  senha="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" >"$senha"
  initdb --username="$usuario" --pwfile="$senha" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$senha"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$banco" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username="$usuario" --dbname=postgres -c "CREATE DATABASE \"$banco\"" >/dev/null
  fi
  for arquivo in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$arquivo" ] && psql -v ON_ERROR_STOP=1 --username="$usuario" --dbname="$banco" -f "$arquivo" >/dev/null
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$@" -c listen_addresses='*'
