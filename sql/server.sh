#!/bin/sh
# Starts PostgreSQL in its container (see Containerfile): on the first start, creates the cluster
# with POSTGRES_USER (password POSTGRES_PASSWORD) and the database POSTGRES_DB, and runs each *.sql
# file in /docker-entrypoint-initdb.d there; then runs the server in the foreground, as postgres.
set -eu
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set: the server accepts connections from outside the container}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" > /run/postgresql/password
  chown postgres /run/postgresql/password
  as_postgres initdb --username="$user" --pwfile=/run/postgresql/password --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm /run/postgresql/password
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  # A server on the socket only, while the database is made and loaded.
  as_postgres pg_ctl --wait --silent --options="-c listen_addresses=''" start
  [ "$database" = postgres ] || as_postgres createdb --username="$user" "$database"
  for file in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$file" ] || continue
    as_postgres psql --quiet --no-psqlrc --set=ON_ERROR_STOP=1 --username="$user" --dbname="$database" --file="$file"
  done
  as_postgres pg_ctl --wait --silent --mode=fast stop
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -c listen_addresses='*'
