// SPDX-License-Identifier: GPL-2.0
/* Needs nothing but the kernel: loads wherever its vermagic and CRCs do. */
#include <linux/module.h>

static int __init oot_plain_init(void)
{
	pr_info("oot_plain: loaded\n");
	return 0;
}
module_init(oot_plain_init);

static void __exit oot_plain_exit(void)
{
}
module_exit(oot_plain_exit);

MODULE_DESCRIPTION("modvlab: an out-of-tree module without dependencies");
MODULE_LICENSE("GPL");
