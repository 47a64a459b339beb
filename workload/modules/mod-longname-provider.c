// SPDX-License-Identifier: GPL-2.0
/* Exports a function whose name is too long for a basic __versions entry. */
#include <linux/export.h>
#include <linux/module.h>
#include "modvlab.h"
#include "mod-longname.h"

int modvlab_longname_export_whose_name_is_longer_than_a_versions_entry_holds(int x)
{
	return x * 7;
}
EXPORT_SYMBOL(modvlab_longname_export_whose_name_is_longer_than_a_versions_entry_holds);

static int __init longname_provider_init(void)
{
	modvlab_pass();
	return 0;
}
module_init(longname_provider_init);

static void __exit longname_provider_exit(void)
{
}
module_exit(longname_provider_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab: exports a symbol with a long name");
