// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_c(2, 3), expects 2 * 3 + 3 (decoded as its header says) */
#include "probe-user.h"

static int __init probe_c_check(void)
{
	long long r = (long long)modvlab_probe_c(2, 3) >> MODVLAB_PROBE_C_SHIFT;

	modvlab_check(r == 9, "modvlab_probe_c(2, 3) = %lld, want 9", r);
	return 0;
}

MODVLAB_PROBE_USER(probe_c_check,
		   "calls modvlab_probe_c(2, 3), expects 2 * 3 + 3");
