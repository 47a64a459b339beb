// SPDX-License-Identifier: GPL-2.0
/*
 * Imports an export of the in-tree dm-mod: modpost writes "depends=dm-mod",
 * and the module loads only after dm_mod (the same module to the kernel).
 */
#include <linux/module.h>
#include <linux/device-mapper.h>

static int __init oot_dm_init(void)
{
	pr_info("oot_dm: found %ps\n", dm_get_device);
	return 0;
}
module_init(oot_dm_init);

static void __exit oot_dm_exit(void)
{
}
module_exit(oot_dm_exit);

MODULE_DESCRIPTION("modvlab: an out-of-tree module needing the in-tree dm-mod");
MODULE_LICENSE("GPL");
