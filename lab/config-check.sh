#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fail loudly if any option requested by the fragments is not what .config has.
# The fragments are merged in order, so an option a later one sets again is
# checked against that later line only (an architecture turning off what
# lab.config turns on).
# A line "# modvlab: where the tree has it" before an option asks for it
# only on trees whose Kconfig declares it (an option newer than some bases:
# the tree is the O= folder's source link, as kbuild makes it).
# usage: config-check.sh .config fragment...
set -u
cfg=$1; shift
bad=0
src=$(dirname "$cfg")/source
# declared SYMBOL: does the tree's Kconfig have it? (no tree: assume so)
declared() {
	[ -d "$src" ] || return 0
	grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config $1\$" "$src/"
}
# later FRAGMENT...: is option $opt set by a fragment after the current one?
later() {
	_o=$1; shift
	[ $# -gt 0 ] && grep -q -e "^$_o=" -e "^# $_o is not set" "$@"
}
for frag in "$@"; do
	shift
	optional=
	while IFS= read -r line; do
		case $line in
		"# modvlab: where the tree has it") optional=1; continue ;;
		CONFIG_*=*|"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%%[= ]*}
			o=$optional optional=
			[ -z "$o" ] || declared "${opt#CONFIG_}" || continue
			! later "$opt" "$@" || continue ;;
		esac
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$cfg" || {
				have=$(grep -m1 -e "^${line%%=*}=" -e "^# ${line%%=*} is not set" "$cfg")
				echo "modvlab: config: wanted '$line', got '${have:-nothing}' ($(basename "$frag"))" >&2
				bad=1; }
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			if grep -q "^$opt=" "$cfg"; then
				echo "modvlab: config: wanted '$opt' off, got '$(grep -m1 "^$opt=" "$cfg")' ($(basename "$frag"))" >&2
				bad=1
			fi
			;;
		esac
	done < "$frag"
done
exit $bad
