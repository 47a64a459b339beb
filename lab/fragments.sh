#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the config fragments of a build, one path a line, in merge order:
# lab.config, the architecture's, the base's, then FRAGMENT..., with the
# base's option renames applied (lab/common.sh lab_fragments).
# usage: fragments.sh [FRAGMENT...]
set -eu
. "$(dirname "$0")/common.sh"
lab_fragments "$@"
