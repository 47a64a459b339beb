// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_gone(7), expects 8 */
#include "probe-user.h"

static int __init probe_gone_check(void)
{
	int r = modvlab_probe_gone(7);

	modvlab_check(r == 8, "modvlab_probe_gone(7) = %d, want 8", r);
	return 0;
}

MODVLAB_PROBE_USER(probe_gone_check,
		   "calls modvlab_probe_gone(7), expects 8");
