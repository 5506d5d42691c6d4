#!/bin/sh
# Installs what building and testing rocjit needs on Debian 12 (root or sudo).
# Idempotent: a no-op when everything is there.
set -eu
# libhiredis-dev: the remote tier's client (src/remote/conn.c); redis-server (with
# redis-tools' redis-cli, which makes a cluster): its tests start their own servers
# (tests/redis_server.c).  libsodium-dev: signed code objects (src/sign/sign.c).
pkgs="cmake make gcc g++ pkg-config libamdhip64-dev libsqlite3-dev libxxhash-dev python3
      libhiredis-dev redis-server redis-tools libsodium-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
