// SPDX-License-Identifier: GPL-2.0
/* Imports mod-provider's C export and its assembly export, checks both. */
#include <linux/module.h>
#include "modvlab.h"
#include "mod-provider.h"

static int __init consumer_init(void)
{
	modvlab_check(modvlab_prov_c_add(2, 3) == 1005, "C export");
	modvlab_check(modvlab_prov_asm_add(2, 3) == 5, "asm export");
	modvlab_pass();
	return 0;
}
module_init(consumer_init);

static void __exit consumer_exit(void)
{
}
module_exit(consumer_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab: imports a module's C and assembly exports");
