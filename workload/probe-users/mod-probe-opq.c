// SPDX-License-Identifier: GPL-2.0
/* Probe user: passes a struct the export site only declares, expects x * 100 + y */
#include "probe-user.h"
#include <linux/modvlab_probe_opq.h>

static int __init probe_opq_check(void)
{
	struct modvlab_probe_opq o = { .x = 4, .y = 5 };
	int r = modvlab_probe_opq(&o);

	modvlab_check(r == 405, "modvlab_probe_opq({4, 5}) = %d, want 405", r);
	return 0;
}

MODVLAB_PROBE_USER(probe_opq_check,
		   "passes a struct the export site only declares, expects x * 100 + y");
