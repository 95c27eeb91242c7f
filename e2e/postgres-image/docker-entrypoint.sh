#!/bin/sh
# Entrypoint of the locally built PostgreSQL 15 test image (see build.sh).
#
# It mimics the parts of the official "postgres" image that the e2e tests use:
#   POSTGRES_USER      superuser name (default: postgres)
#   POSTGRES_PASSWORD  superuser password (required unless
#                      POSTGRES_HOST_AUTH_METHOD=trust)
#   POSTGRES_DB        database created on first start (default: $POSTGRES_USER)
#   POSTGRES_HOST_AUTH_METHOD  auth method for remote hosts (default: scram-sha-256)
#   PGDATA             data directory (default: /var/lib/postgresql/data)
#
# On the first start (empty data directory) it runs initdb as the unprivileged
# "postgres" user, sets the password, creates the database and then execs the
# server listening on *:5432. On later starts (docker stop/start of the same
# container) the existing data directory is reused as is.
set -eu

PGBIN=/usr/lib/postgresql/15/bin
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
export PGDATA

# Any first argument other than an option or "postgres" runs that command.
if [ "$#" -gt 0 ] && [ "$1" != postgres ] && [ "${1#-}" = "$1" ]; then
	exec "$@"
fi
[ "${1:-}" = postgres ] && shift

if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chown postgres:postgres "$PGDATA" /var/run/postgresql
	chmod 700 "$PGDATA"
	chmod 2775 /var/run/postgresql
	# Re-run this script as the postgres user.
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	POSTGRES_USER="${POSTGRES_USER:-postgres}"
	POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
	auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
		echo >&2 "error: POSTGRES_PASSWORD is not set (set POSTGRES_HOST_AUTH_METHOD=trust to allow that)"
		exit 1
	fi

	echo "entrypoint: initializing database cluster in $PGDATA"
	pwfile="$(mktemp)"
	printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
	# --no-sync: initdb does not wait for the new files to reach the disk (~1.5 s of ~3.5 s);
	# they are in the container's file system either way, and survive docker stop/start.
	"$PGBIN/initdb" -D "$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" \
		--encoding=UTF8 --locale=C.UTF-8 --no-sync \
		--auth-local=trust --auth-host="$auth" >/dev/null
	rm -f "$pwfile"
	printf '\n# Added by docker-entrypoint.sh: allow remote hosts.\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"

	if [ "$POSTGRES_DB" != postgres ]; then
		echo "entrypoint: creating database $POSTGRES_DB"
		dbq="$(printf '%s' "$POSTGRES_DB" | sed 's/"/""/g')"
		# Single-user mode: no temporary server, so "ready to accept connections"
		# is logged only once, by the real server below.
		printf 'CREATE DATABASE "%s";\n' "$dbq" |
			"$PGBIN/postgres" --single -j -D "$PGDATA" postgres >/dev/null
	fi
	echo "entrypoint: initialization complete"
fi

exec "$PGBIN/postgres" -D "$PGDATA" -c listen_addresses='*' -c port=5432 "$@"
