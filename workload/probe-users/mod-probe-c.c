// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_c(2, 3), expects 2 * 3 + 3 (decoded as its header says) */
#include <linux/module.h>
#include <linux/modvlab_probe.h>
#include "modvlab.h"

static int __init probe_user_init(void)
{
	long long r = (long long)modvlab_probe_c(2, 3) >> MODVLAB_PROBE_C_SHIFT;

	modvlab_check(r == 9, "modvlab_probe_c(2, 3) = %lld, want 9", r);
	modvlab_pass();
	return 0;
}
module_init(probe_user_init);

static void __exit probe_user_exit(void)
{
}
module_exit(probe_user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab probe user: calls modvlab_probe_c(2, 3), expects 2 * 3 + 3");
