// SPDX-License-Identifier: GPL-2.0
/* Probe user: passes a struct the export site only declares, expects x * 100 + y */
#include <linux/module.h>
#include <linux/modvlab_probe.h>
#include <linux/modvlab_probe_opq.h>
#include "modvlab.h"

static int __init probe_user_init(void)
{
	struct modvlab_probe_opq o = { .x = 4, .y = 5 };
	int r = modvlab_probe_opq(&o);

	modvlab_check(r == 405, "modvlab_probe_opq({4, 5}) = %d, want 405", r);
	modvlab_pass();
	return 0;
}
module_init(probe_user_init);

static void __exit probe_user_exit(void)
{
}
module_exit(probe_user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab probe user: passes a struct the export site only declares, expects x * 100 + y");
