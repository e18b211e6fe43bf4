#!/usr/bin/env bash
# Start a private, throw-away PostgreSQL server for the tests and print its URL on stdout.
#
# Usage: eval "$(.ci/postgres.sh start DIR)"   -> exports HERMES_TEST_POSTGRES_URL
#        .ci/postgres.sh stop DIR
# Installs Debian's postgresql package when no server binaries are on the machine. The cluster lives in DIR,
# listens on 127.0.0.1 only (port $PGPORT, default 54329) with trust auth, and owns nothing outside DIR.
set -euo pipefail
cmd=${1:?start or stop}
dir=$(realpath -m "${2:?data folder}")
port=${PGPORT:-54329}

bindir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [ -z "$found" ]; then
        echo "installing Debian's postgresql package" >&2
        export DEBIAN_FRONTEND=noninteractive
        (apt-get update -qq && apt-get install -y -qq postgresql >/dev/null) >&2
        found=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    fi
    echo "$found"
}

# PostgreSQL refuses to run as root: run it as the 'postgres' user (created by the package) when we are root.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
start)
    bin=$(bindir)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --home-dir "$dir" postgres
        chown -R postgres "$dir"
    fi
    if [ ! -f "$dir/pgdata/PG_VERSION" ]; then
        as_owner "$bin/initdb" -D "$dir/pgdata" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
    fi
    as_owner "$bin/pg_ctl" -D "$dir/pgdata" status >/dev/null 2>&1 ||
    as_owner "$bin/pg_ctl" -D "$dir/pgdata" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=on" start >&2
    as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -qtAc \
        "SELECT 1 FROM pg_database WHERE datname = 'hermes_test'" | grep -q 1 ||
        as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres hermes_test
    echo "export HERMES_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:$port/hermes_test"
    ;;
stop)
    bin=$(bindir)
    as_owner "$bin/pg_ctl" -D "$dir/pgdata" -m fast -w stop >&2 || true
    ;;
*)
    echo "unknown command $cmd" >&2
    exit 2
    ;;
esac
