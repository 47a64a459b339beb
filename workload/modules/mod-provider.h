/* SPDX-License-Identifier: GPL-2.0 */
/* The C prototypes of mod-provider's exports, the C one and the assembly one. */
#ifndef MOD_PROVIDER_H
#define MOD_PROVIDER_H

#include <linux/types.h>

int modvlab_prov_c_add(int a, int b);
#ifdef MODVLAB_PROVIDER_V2
/* v2 changed the assembly export's prototype: both operands in one u64 */
int modvlab_prov_asm_add(u64 packed);
#else
int modvlab_prov_asm_add(int a, int b);
#endif

#endif
