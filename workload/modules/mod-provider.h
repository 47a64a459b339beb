/* SPDX-License-Identifier: GPL-2.0 */
/* The C prototypes of mod-provider's exports, the C one and the assembly one. */
#ifndef MOD_PROVIDER_H
#define MOD_PROVIDER_H

int modvlab_prov_c_add(int a, int b);
int modvlab_prov_asm_add(int a, int b);

#endif
