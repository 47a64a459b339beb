// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_gone(7), expects 8 */
#include <linux/module.h>
#include <linux/modvlab_probe.h>
#include "modvlab.h"

static int __init probe_user_init(void)
{
	int r = modvlab_probe_gone(7);

	modvlab_check(r == 8, "modvlab_probe_gone(7) = %d, want 8", r);
	modvlab_pass();
	return 0;
}
module_init(probe_user_init);

static void __exit probe_user_exit(void)
{
}
module_exit(probe_user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab probe user: calls modvlab_probe_gone(7), expects 8");
