#!/bin/sh
# rowqueue's own entrypoint for MySQL and MariaDB images built from Debian packages. It honours what Testcontainers'
# MySQLContainer and MariaDBContainer set: MYSQL_DATABASE / MARIADB_DATABASE, MYSQL_USER / MARIADB_USER,
# MYSQL_PASSWORD / MARIADB_PASSWORD, MYSQL_ROOT_PASSWORD / MARIADB_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD /
# MARIADB_ALLOW_EMPTY_ROOT_PASSWORD; and a command that is the server or only its options (withCommand("--x=y")).
# On a fresh data directory it initialises it, then starts the server with an init file that creates the database
# and the users; Testcontainers waits until it can log in over JDBC.
set -eu
server="$(command -v mariadbd || command -v mysqld)"
case "${1:-}" in -*|'') set -- "$server" "$@" ;; esac
case "$1" in mysqld|mariadbd|*/mysqld|*/mariadbd) ;; *) exec "$@" ;; esac

datadir=/var/lib/mysql
if [ ! -d "$datadir/mysql" ]; then
  db="${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}"
  user="${MARIADB_USER:-${MYSQL_USER:-}}"
  password="${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}"
  root_password="${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}"
  allow_empty="${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-${MYSQL_ALLOW_EMPTY_PASSWORD:-}}"
  if [ -z "$root_password" ] && [ -z "$allow_empty" ]; then
    echo "entrypoint: set MYSQL_ROOT_PASSWORD (or MYSQL_ALLOW_EMPTY_PASSWORD=yes)" >&2
    exit 1
  fi
  literal() { printf "'%s'" "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e "s/'/''/g")"; }
  ident() { printf '`%s`' "$(printf '%s' "$1" | sed 's/`/``/g')"; }

  if command -v mariadb-install-db >/dev/null; then
    mariadb-install-db --user=mysql --datadir="$datadir" --auth-root-authentication-method=normal \
      --skip-test-db >/dev/null
  else
    "$@" --user=mysql --datadir="$datadir" --initialize-insecure
  fi

  init=/var/lib/mysql-init.sql
  {
    # one statement a line: the form every server's --init-file reads
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY $(literal "$root_password");"
    echo "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY $(literal "$root_password");"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    [ -z "$db" ] || echo "CREATE DATABASE IF NOT EXISTS $(ident "$db");"
    if [ -n "$user" ] && [ "$user" != root ]; then
      echo "CREATE USER $(literal "$user")@'%' IDENTIFIED BY $(literal "$password");"
      [ -z "$db" ] || echo "GRANT ALL ON $(ident "$db").* TO $(literal "$user")@'%';"
    fi
  } > "$init"
  chown mysql:mysql "$init"
  set -- "$@" --init-file="$init"
fi
exec "$@" --user=mysql --datadir="$datadir"
