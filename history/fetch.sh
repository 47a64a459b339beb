#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's bookworm 6.1 kernel uploads (image, headers, kbuild) into build/history/up/N.
# Usage: history/fetch.sh OUT [ABINUM...]   (no numbers: every upload apt-cache lists)
#        history/fetch.sh --list            (the abinums the archive serves, oldest first)
# Packages are apt-get download'ed and dpkg -x'ed, never installed; an unpacked
# upload (its .done stamp) is not fetched again. Prints the abinums fetched.
set -u
out=${1:?usage: fetch.sh OUT [ABINUM...] | --list}; shift
served=$(apt-cache search 'linux-headers-6.1.0-[0-9]*-amd64$' |
	sed -n 's/^linux-headers-6\.1\.0-\([0-9]*\)-amd64 .*/\1/p' | sort -n)
[ -n "$served" ] || { echo "history: apt-cache lists no linux-headers-6.1.0-N-amd64 (run apt-get update?)" >&2; exit 1; }
if [ "$out" = --list ]; then echo "$served"; exit 0; fi
want=${*:-$served}
mkdir -p "$out/debs" "$out/up" || exit 1
kbuild_ver=$(apt-cache madison linux-kbuild-6.1 | awk 'NR==1 {print $3}')
rc=0
for n in $want; do
	case " $(echo $served) " in *" $n "*) ;; *)
		echo "history: upload 6.1.0-$n is not served by the archive (served: $(echo $served))" >&2
		rc=1; continue;; esac
	root=$out/up/$n
	if [ -f "$root/.done" ]; then echo "$n"; continue; fi
	rm -rf "$root"; mkdir -p "$root"
	ok=1
	for p in "linux-image-6.1.0-$n-amd64-unsigned" "linux-headers-6.1.0-$n-amd64" \
		"linux-headers-6.1.0-$n-common" "linux-kbuild-6.1=$kbuild_ver"; do
		name=${p%%=*}
		deb=$(ls "$out/debs/${name}_"*.deb 2>/dev/null | head -n 1)
		if [ -z "$deb" ] || [ "$name" = linux-kbuild-6.1 -a ! -f "$out/debs/${name}_$(echo "$kbuild_ver" | sed 's/:/%3a/')_amd64.deb" ]; then
			(cd "$out/debs" && apt-get download -q "$p" >/dev/null 2>"../debs.err") ||
				{ echo "history: apt-get download $p failed: $(tail -n 1 "$out/debs.err")" >&2; ok=0; break; }
			deb=$(ls -t "$out/debs/${name}_"*.deb | head -n 1)
		fi
		dpkg -x "$deb" "$root" || { echo "history: dpkg -x $deb failed" >&2; ok=0; break; }
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>"$root/packages"
	done
	hdr=$root/usr/src/linux-headers-6.1.0-$n-amd64
	if [ "$ok" = 1 ]; then
		for f in "$root/boot/vmlinuz-6.1.0-$n-amd64" "$hdr/Module.symvers" \
			"$root/lib/modules/6.1.0-$n-amd64/kernel/fs/fat/vfat.ko" "$hdr/Makefile"; do
			[ -f "$f" ] || { echo "history: upload 6.1.0-$n: unexpected layout, no $f" >&2; ok=0; break; }
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
