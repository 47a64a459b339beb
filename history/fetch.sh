#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's kernel uploads of the base (lab/bases.tsv: image, headers,
# kbuild of each ABI name) into build/BASE/history/up/N.
# Usage: history/fetch.sh OUT [ABINUM...]   (no numbers: every upload apt-cache lists)
#        history/fetch.sh --list            (the abinums the archive serves, oldest first)
# Packages are apt-get download'ed and dpkg -x'ed, never installed; an unpacked
# upload (its .done stamp) is not fetched again. Prints the abinums fetched.
set -u
. "$(dirname "$0")/../lab/common.sh"
out=${1:?usage: fetch.sh OUT [ABINUM...] | --list}; shift
# an upload's ABI name is the base's abiname with {N} its number
pre=${BASE_ABINAME%%"{N}"*} post=${BASE_ABINAME#*"{N}"} fl=$BASE_FLAVOUR
abi() { printf '%s%s%s' "$pre" "$1" "$post"; }
served=$(apt-cache pkgnames "linux-headers-$pre" | while read -r p; do
	n=${p#"linux-headers-$pre"}
	[ "$n" != "$p" ] || continue
	n=${n%"$post-$fl"}
	case $n in ''|*[!0-9]*) ;; *) [ "$p" = "linux-headers-$(abi "$n")-$fl" ] && echo "$n" ;; esac
done | sort -n)
[ -n "$served" ] || { echo "history: apt-cache lists no linux-headers-$(abi N)-$fl (run apt-get update?)" >&2; exit 1; }
if [ "$out" = --list ]; then echo "$served"; exit 0; fi
want=${*:-$served}
mkdir -p "$out/debs" "$out/up" || exit 1
# one kbuild package for the line (pinned to its newest version), or one per upload
case $BASE_KBUILD in *"{abiname}"*) kbuild_ver= ;; *)
	kbuild_ver=$(apt-cache madison "$BASE_KBUILD" | awk 'NR==1 {print $3}') ;;
esac
rc=0
for n in $want; do
	case " $(echo $served) " in *" $n "*) ;; *)
		echo "history: upload $(abi "$n") is not served by the archive (served: $(echo $served))" >&2
		rc=1; continue;; esac
	root=$out/up/$n a=$(abi "$n")
	if [ -f "$root/.done" ]; then echo "$n"; continue; fi
	rm -rf "$root"; mkdir -p "$root"
	ok=1
	kb=$(printf '%s' "$BASE_KBUILD" | sed "s/{abiname}/$a/")
	for p in "linux-image-$a-$fl-unsigned" "linux-headers-$a-$fl" \
		"linux-headers-$a-common" "$kb${kbuild_ver:+=$kbuild_ver}"; do
		name=${p%%=*}
		deb=$(ls "$out/debs/${name}_"*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ] || { [ -n "$kbuild_ver" ] && [ "$name" = "$kb" ] &&
			[ ! -f "$out/debs/${name}_$(echo "$kbuild_ver" | sed 's/:/%3a/')_$fl.deb" ]; }; then
			(cd "$out/debs" && apt-get download -q "$p" >/dev/null 2>"../debs.err") ||
				{ echo "history: apt-get download $p failed: $(tail -n 1 "$out/debs.err")" >&2; ok=0; break; }
			deb=$(ls -t "$out/debs/${name}_"*.deb | head -n 1)
		fi
		dpkg -x "$deb" "$root" || { echo "history: dpkg -x $deb failed" >&2; ok=0; break; }
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>"$root/packages"
	done
	hdr=$root/usr/src/linux-headers-$a-$fl
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
