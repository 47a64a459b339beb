/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mod-provider, assembly half: a function defined and exported from a module's
 * own .S file. Its C prototype is in mod-provider.h, which genksyms sees only
 * because Kbuild forces it on this object's C flags (cmd_gensymtypes_S
 * otherwise includes only <asm/asm-prototypes.h>).
 */
#include <linux/linkage.h>
/* EXPORT_SYMBOL for assembly: <asm/export.h>, until upstream folded it into
 * <linux/export.h>, which assembly includes since */
#if __has_include(<asm/export.h>)
#include <asm/export.h>
#else
#include <linux/export.h>
#endif

#ifdef MODVLAB_PROVIDER_V2
/* int modvlab_prov_asm_add(u64 packed): high half + low half */
SYM_FUNC_START(modvlab_prov_asm_add)
	movq	%rdi, %rax
	shrq	$32, %rax
	addl	%edi, %eax
	RET
SYM_FUNC_END(modvlab_prov_asm_add)
#else
/* int modvlab_prov_asm_add(int a, int b) */
SYM_FUNC_START(modvlab_prov_asm_add)
	leal	(%rdi,%rsi), %eax
	RET
SYM_FUNC_END(modvlab_prov_asm_add)
#endif
EXPORT_SYMBOL(modvlab_prov_asm_add)
