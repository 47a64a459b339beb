// SPDX-License-Identifier: GPL-2.0
/* Probe user: passes a struct modvlab_probe_vis, expects a * 10 + b */
#include <linux/module.h>
#include <linux/modvlab_probe.h>
#include "modvlab.h"

static int __init probe_user_init(void)
{
	struct modvlab_probe_vis v = { .a = 1, .b = 2 };
	int r = modvlab_probe_vis(&v);

	modvlab_check(r == 12, "modvlab_probe_vis({1, 2}) = %d, want 12", r);
	modvlab_pass();
	return 0;
}
module_init(probe_user_init);

static void __exit probe_user_exit(void)
{
}
module_exit(probe_user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab probe user: passes a struct modvlab_probe_vis, expects a * 10 + b");
