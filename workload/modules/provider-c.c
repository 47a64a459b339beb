// SPDX-License-Identifier: GPL-2.0
/* mod-provider, C half: one C export; init checks the assembly export too. */
#include <linux/module.h>
#include "modvlab.h"
#include "mod-provider.h"

int modvlab_prov_c_add(int a, int b)
{
	return a + b + 1000;
}
EXPORT_SYMBOL(modvlab_prov_c_add);

static int __init provider_init(void)
{
#ifdef MODVLAB_PROVIDER_V2
	modvlab_check(modvlab_prov_asm_add((u64)2 << 32 | 3) == 5, "asm add v2");
#else
	modvlab_check(modvlab_prov_asm_add(2, 3) == 5, "asm add");
#endif
	modvlab_pass();
	return 0;
}
module_init(provider_init);

static void __exit provider_exit(void)
{
}
module_exit(provider_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab: exports a C and an assembly function");
