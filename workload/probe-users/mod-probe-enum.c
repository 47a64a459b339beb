// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_enum(MODVLAB_MODE_B), expects 22 */
#include "probe-user.h"

static int __init probe_enum_check(void)
{
	int r = modvlab_probe_enum(MODVLAB_MODE_B);

	modvlab_check(r == 22, "modvlab_probe_enum(B) = %d, want 22", r);
	return 0;
}

MODVLAB_PROBE_USER(probe_enum_check,
		   "calls modvlab_probe_enum(MODVLAB_MODE_B), expects 22");
