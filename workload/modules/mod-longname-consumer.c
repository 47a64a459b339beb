// SPDX-License-Identifier: GPL-2.0
/* Imports mod-longname-provider's long-named export and checks it. */
#include <linux/module.h>
#include "modvlab.h"
#include "mod-longname.h"

static int __init longname_consumer_init(void)
{
	modvlab_check(modvlab_longname_export_whose_name_is_longer_than_a_versions_entry_holds(6) == 42, "long-named export");
	modvlab_pass();
	return 0;
}
module_init(longname_consumer_init);

static void __exit longname_consumer_exit(void)
{
}
module_exit(longname_consumer_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab: imports a symbol with a long name");
