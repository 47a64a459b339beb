// SPDX-License-Identifier: GPL-2.0
/* Probe user: passes a struct modvlab_probe_vis, expects a * 10 + b */
#include "probe-user.h"

static int __init probe_vis_check(void)
{
	int r = modvlab_probe_vis(&(struct modvlab_probe_vis){ .a = 1, .b = 2 });

	modvlab_check(r == 12, "modvlab_probe_vis({1, 2}) = %d, want 12", r);
	return 0;
}

MODVLAB_PROBE_USER(probe_vis_check,
		   "passes a struct modvlab_probe_vis, expects a * 10 + b");
