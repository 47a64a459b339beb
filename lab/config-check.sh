#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fail loudly if any option requested by the fragments is not what .config has.
# usage: config-check.sh .config fragment...
set -u
cfg=$1; shift
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
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
