#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A private apt configuration for one Debian suite the host's sources do not
# list (lab/bases.tsv's apt column "private"): its own sources list, lists and
# cache under build/apt/SUITE/, the host's own archive address and keyring
# (read from its apt sources), given to apt-get with -o options. Nothing is
# installed and the host's apt configuration is never changed.
# usage: apt.sh SUITE update            fetch the suite's package lists
#        apt.sh SUITE download PKG...   download the .debs into the cwd
#        apt.sh SUITE policy PKG        the version the suite serves (empty: none)
#        apt.sh SUITE cache ARGS...     apt-cache ARGS on the suite's lists (pkgnames, madison)
# env: APT_HOST=/etc/apt  where the host's apt sources are read (tests)
set -eu
. "$(dirname "$0")/common.sh"

suite=${1:?usage: apt.sh SUITE update|download PKG...|policy PKG} cmd=${2:?usage: apt.sh SUITE update|download PKG...|policy PKG}
shift 2
root=$(dirname "$B")/apt/$suite
mkdir -p "$root/lists/partial" "$root/cache/archives/partial" "$root/etc"

# the host's archive: the URI and keyring of its first deb source that is
# not the -security one (the main archive)
host=${APT_HOST:-/etc/apt}
host_source() {
	for f in "$host"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ {u=$2} /^Suites:/ {s=$0} /^Signed-By:/ {k=$2}
		     /^$/ {if (u != "" && s !~ /-security/) {print u, k; exit} u=""; s=""; k=""}
		     END {if (u != "" && s !~ /-security/) print u, k}' "$f"
	done | head -n 1
	grep -h '^deb ' "$host"/sources.list "$host"/sources.list.d/*.list 2>/dev/null |
		grep -v -e '-security' -e '-updates' | awk '{print $2}' | head -n 1
}
# a -security suite is served by the host's security archive
security_source() {
	for f in "$host"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^URIs:/ {u=$2} /^Suites:/ {s=$0} /^Signed-By:/ {k=$2}
		     /^$/ {if (u != "" && s ~ /-security/) {print u, k; exit} u=""; s=""; k=""}
		     END {if (u != "" && s ~ /-security/) print u, k}' "$f"
	done | head -n 1
	grep -h '^deb ' "$host"/sources.list "$host"/sources.list.d/*.list 2>/dev/null |
		grep -e '-security' | awk '{print $2}' | head -n 1
}
case $suite in
*-security) src=$(security_source | head -n 1) ;;
*) src=$(host_source | head -n 1) ;;
esac
uri=${src%% *} key=${src#* }
[ -n "$uri" ] || die "no Debian archive in the host's apt sources to reach $suite through"
[ "$key" != "$uri" ] && [ -n "$key" ] || key=/usr/share/keyrings/debian-archive-keyring.gpg
printf 'deb [signed-by=%s] %s %s main\n' "$key" "$uri" "$suite" > "$root/etc/sources.list"

# priv TOOL ARGS: apt-get or apt-cache on the suite's own list, lists and cache
priv() {
	_tool=$1; shift
	"$_tool" -o Dir::Etc::sourcelist="$root/etc/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$root/lists" -o Dir::Cache="$root/cache" \
		-o Dir::Cache::pkgcache="$root/cache/pkgcache.bin" \
		-o Dir::Cache::srcpkgcache="$root/cache/srcpkgcache.bin" "$@"
}
update() {
	log=$root/update.log
	# apt-get update exits 0 on some fetch failures: its log says
	if ! priv apt-get -q -o APT::Get::List-Cleanup=0 update >"$log" 2>&1 ||
	   grep -q -e '^E:' -e '^W: Failed' -e '^Err' "$log"; then
		die "apt-get update of $suite failed: $(grep -m1 -e '^E:' -e '^W: Failed' -e '^Err' "$log") (log: $log)"
	fi
}
# the lists, fetched once
have_lists() { [ -n "$(ls "$root/lists" | grep -v -e partial -e lock)" ] || update; }
case $cmd in
update) update ;;
download)
	[ $# -gt 0 ] || die "usage: apt.sh SUITE download PKG..."
	have_lists
	priv apt-get -q download "$@" >"$root/download.log" 2>&1 ||
		die "apt-get download from $suite failed: $(grep -m1 '^E:' "$root/download.log") (log: $root/download.log)"
	;;
policy)
	[ $# -eq 1 ] || die "usage: apt.sh SUITE policy PKG"
	have_lists
	priv apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {if ($2 != "(none)") print $2}'
	;;
cache)
	have_lists
	priv apt-cache "$@"
	;;
*) die "usage: apt.sh SUITE update|download PKG...|policy PKG|cache ARGS..." ;;
esac
