/* SPDX-License-Identifier: GPL-2.0 */
/* The skeleton every probe user shares: init runs its check, exit does nothing. */
#ifndef MODVLAB_PROBE_USER_H
#define MODVLAB_PROBE_USER_H

#include <linux/module.h>
#include <linux/modvlab_probe.h>
#include "modvlab.h"

/*
 * MODVLAB_PROBE_USER(check, "what it does"): the module's init calls
 * check(), which uses modvlab_check() and returns 0 when every result is
 * right; then the self-test is reported passed. A failed check returns
 * MODVLAB_SELFTEST_FAILED from init, so the host sees "loaded-misbehaved".
 * (The way kselftest_module.h's KSTM_MODULE_LOADERS shares one skeleton.)
 * Every probe user also has one parameter, and first checks that the
 * kernel found it in its __param section: a kernel whose struct
 * kernel_param differs (G8) reads that section with another entry size.
 */
#define MODVLAB_PROBE_USER(check, what)					\
static int modvlab_param = 1;						\
module_param(modvlab_param, int, 0444);					\
MODULE_PARM_DESC(modvlab_param, "a parameter the kernel must find");	\
									\
static int __init probe_user_init(void)					\
{									\
	int ret;							\
									\
	modvlab_check(THIS_MODULE->num_kp == 1 &&			\
		      THIS_MODULE->kp == &__param_modvlab_param,		\
		      "the kernel found %u module parameters, not 1",	\
		      THIS_MODULE->num_kp);				\
	ret = check();							\
									\
	if (!ret)							\
		modvlab_pass();						\
	return ret;							\
}									\
module_init(probe_user_init);						\
									\
static void __exit probe_user_exit(void)				\
{									\
}									\
module_exit(probe_user_exit);						\
									\
MODULE_LICENSE("GPL");							\
MODULE_DESCRIPTION("modvlab probe user: " what)

#endif
