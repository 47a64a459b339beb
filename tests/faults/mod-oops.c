// SPDX-License-Identifier: GPL-2.0
/* A deliberately broken module: its init oopses (runner-fault tests only). */
#include <linux/module.h>

static int __init oops_init(void)
{
	pr_info("mod_oops: dereferencing NULL on purpose\n");
	return *(volatile int *)NULL;
}
module_init(oops_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab test: oopses in init");
