// SPDX-License-Identifier: GPL-2.0
/* Probe user: calls modvlab_probe_enum(MODVLAB_MODE_B), expects 22 */
#include <linux/module.h>
#include <linux/modvlab_probe.h>
#include "modvlab.h"

static int __init probe_user_init(void)
{
	int r = modvlab_probe_enum(MODVLAB_MODE_B);

	modvlab_check(r == 22, "modvlab_probe_enum(B) = %d, want 22", r);
	modvlab_pass();
	return 0;
}
module_init(probe_user_init);

static void __exit probe_user_exit(void)
{
}
module_exit(probe_user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab probe user: calls modvlab_probe_enum(MODVLAB_MODE_B), expects 22");
