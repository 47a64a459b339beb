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
 */
#define MODVLAB_PROBE_USER(check, what)					\
static int __init probe_user_init(void)					\
{									\
	int ret = check();						\
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
