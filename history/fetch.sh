#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's kernel uploads of a line (the base's, lab/bases.tsv, or
# HIST_ABINAME, HIST_KBUILD, HIST_APT, HIST_SUITES from history/lines.py:
# image, headers, kbuild of each ABI name) into OUT/up/N.
# Usage: history/fetch.sh OUT [ABINUM...]   (no numbers: every upload apt-cache lists)
#        history/fetch.sh --list            (the abinums the archive serves, oldest first)
# Packages are apt-get download'ed and dpkg -x'ed, never installed; an unpacked
# upload (its .done stamp) is not fetched again. Prints the abinums fetched.
set -u
. "$(dirname "$0")/../lab/common.sh"
out=${1:?usage: fetch.sh OUT [ABINUM...] | --list}; shift
# the line (make history sets HIST_* per line from history/lines.py; else
# the base's own): an upload's ABI name is its pattern with {N} its number;
# a respin (X.Y.N+debNN.R, an ABI bump without a new upstream release) is
# upload N.R
line=${HIST_ABINAME:-$BASE_ABINAME} kbuild=${HIST_KBUILD:-$BASE_KBUILD}
apt=${HIST_APT:-$BASE_APT} suites=${HIST_SUITES:-$BASE_SUITE}
pre=${line%%"{N}"*} post=${line#*"{N}"} fl=$BASE_FLAVOUR
abi() {
	case $1 in
	*.*) printf '%s%s%s.%s' "$pre" "${1%%.*}" "$post" "${1#*.}" ;;
	*) printf '%s%s%s' "$pre" "$1" "$post" ;;
	esac
}
# apt-cache / apt-get download on the host's lists, or on each suite's private ones
acache() {
	if [ "$apt" = host ]; then apt-cache "$@"; return; fi
	for s in $(echo "$suites" | tr , ' '); do sh "$TOP/lab/apt.sh" "$s" cache "$@"; done
}
adownload() {
	if [ "$apt" = host ]; then apt-get download -q "$1" >/dev/null; return; fi
	for s in $(echo "$suites" | tr , ' '); do
		sh "$TOP/lab/apt.sh" "$s" download "$1" 2>/dev/null && return 0
	done
	echo "E: no suite of $suites serves $1" >&2; return 1
}
served=$(acache pkgnames "linux-headers-$pre" | sort -u | while read -r p; do
	n=${p#"linux-headers-$pre"}
	[ "$n" != "$p" ] || continue
	n=${n%"-$fl"}
	case $n in
	*"$post".*) n=${n%%"$post".*}.${n##*"$post".} ;;
	*) n=${n%"$post"} ;;
	esac
	case $n in ''|*[!0-9.]*|.*|*.|*.*.*) ;; *) [ "$p" = "linux-headers-$(abi "$n")-$fl" ] && echo "$n" ;; esac
done | sort -t. -k1,1n -k2,2n)
[ -n "$served" ] || { echo "history: apt-cache lists no linux-headers-$(abi N)-$fl (run apt-get update?)" >&2; exit 1; }
if [ "$out" = --list ]; then echo "$served"; exit 0; fi
want=${*:-$served}
mkdir -p "$out/debs" "$out/up" || exit 1
# one kbuild package for the line (pinned to its newest version), or one per upload
case $kbuild in *"{abiname}"*) kbuild_ver= ;; *)
	kbuild_ver=$(acache madison "$kbuild" | awk 'NR==1 {print $3}') ;;
esac
decompress() {
	find "$1" -name '*.ko.xz' -exec xz -d {} + &&
	{ [ -z "$(find "$1" -name '*.ko.zst' | head -n 1)" ] ||
	  find "$1" -name '*.ko.zst' -exec zstd -q -d --rm {} +; } &&
	{ [ -z "$(find "$1" -name '*.ko.gz' | head -n 1)" ] || find "$1" -name '*.ko.gz' -exec gzip -d {} +; }
}
rc=0
for n in $want; do
	case " $(echo $served) " in *" $n "*) ;; *)
		echo "history: upload $(abi "$n") is not served by the archive (served: $(echo $served))" >&2
		rc=1; continue;; esac
	root=$out/up/$n a=$(abi "$n") extra=
	if [ -f "$root/.done" ]; then echo "$n"; continue; fi
	rm -rf "$root"; mkdir -p "$root"
	ok=1
	kb=$(printf '%s' "$kbuild" | sed "s/{abiname}/$a/")
	# the unsigned image where the line has one (older lines), else the image
	img=linux-image-$a-$fl-unsigned
	acache pkgnames "$img" | grep -qx "$img" || img=linux-image-$a-$fl
	for p in "$img" "linux-headers-$a-$fl" \
		"linux-headers-$a-common" "$kb${kbuild_ver:+=$kbuild_ver}"; do
		name=${p%%=*}
		deb=$(ls "$out/debs/${name}_"*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ] || { [ -n "$kbuild_ver" ] && [ "$name" = "$kb" ] &&
			[ ! -f "$out/debs/${name}_$(echo "$kbuild_ver" | sed 's/:/%3a/')_$fl.deb" ]; }; then
			(cd "$out/debs" && adownload "$p" 2>"../debs.err") ||
				{ echo "history: apt-get download $p failed: $(tail -n 1 "$out/debs.err")" >&2; ok=0; break; }
			deb=$(ls -t "$out/debs/${name}_"*.deb | head -n 1)
		fi
		dpkg -x "$deb" "$root" || { echo "history: dpkg -x $deb failed" >&2; ok=0; break; }
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>"$root/packages"
		# a split image (newer lines: linux-binary-, linux-modules-, linux-base-
		# ABINAME-FLAVOUR) depends on its parts by the same ABI name: fetch them too
		[ "$name" = "$img" ] && extra=$(dpkg-deb -f "$deb" Depends Pre-Depends |
			sed 's/^[A-Za-z-]*: *//' | tr ',|' '\n\n' | sed 's/^ *//; s/[ (].*//' |
			grep -x "linux-[a-z]*-$a-$fl" | grep -vx "linux-headers-$a-$fl" | sort -u)
	done
	for name in ${extra:-}; do
		[ "$ok" = 1 ] || break
		deb=$(ls "$out/debs/${name}_"*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ]; then
			(cd "$out/debs" && adownload "$name" 2>"../debs.err") ||
				{ echo "history: apt-get download $name failed: $(tail -n 1 "$out/debs.err")" >&2; ok=0; break; }
			deb=$(ls -t "$out/debs/${name}_"*.deb | head -n 1)
		fi
		dpkg -x "$deb" "$root" || { echo "history: dpkg -x $deb failed" >&2; ok=0; break; }
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>"$root/packages"
	done
	extra=
	hdr=$root/usr/src/linux-headers-$a-$fl
	# a merged-/usr upload (newer lines) ships usr/lib/modules: one layout for the lab
	if [ "$ok" = 1 ] && [ -d "$root/usr/lib/modules" ] && [ ! -e "$root/lib" ]; then
		ln -s usr/lib "$root/lib"
	fi
	# newer lines ship the image and its config in the modules folder: one layout
	for f in vmlinuz config System.map; do
		if [ "$ok" = 1 ] && [ -f "$root/lib/modules/$a-$fl/$f" ] && [ ! -e "$root/boot/$f-$a-$fl" ]; then
			mkdir -p "$root/boot" && ln -s "../lib/modules/$a-$fl/$f" "$root/boot/$f-$a-$fl"
		fi
	done
	# newer lines ship modules compressed (.ko.xz, .ko.zst): the lab reads and
	# loads plain .ko files
	if [ "$ok" = 1 ] && ! decompress "$root/lib/modules"; then
		echo "history: upload $a: its modules do not decompress (xz, zstd)" >&2; ok=0
	fi
	if [ "$ok" = 1 ]; then
		for f in "$root/boot/vmlinuz-$a-$fl" "$hdr/Module.symvers" \
			"$root/lib/modules/$a-$fl/kernel/fs/fat/vfat.ko" "$hdr/Makefile"; do
			[ -f "$f" ] || { echo "history: upload $a: unexpected layout, no $f" >&2; ok=0; break; }
		done
	fi
	if [ "$ok" = 1 ]; then
		# the -amd64 Makefile includes the -common one by absolute path: point it here
		sed -i "s|^include /usr/src/|include $(cd "$root" && pwd)/usr/src/|" "$hdr/Makefile"
		touch "$root/.done"; echo "$n"
	else
		rm -rf "$root"; rc=1
	fi
done
exit $rc
