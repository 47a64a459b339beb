/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the workload modules: how a self-test reports its verdict. */
#ifndef MODVLAB_H
#define MODVLAB_H

#include <linux/errno.h>
#include <linux/printk.h>

/*
 * A module whose self-test fails returns this from init, so the host can tell
 * "loaded but misbehaved" (the kernel let in something incompatible) apart
 * from a refusal by the loader.
 */
#define MODVLAB_SELFTEST_FAILED (-ENOTRECOVERABLE)

#define modvlab_check(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			pr_err(KBUILD_MODNAME ": modvlab: selftest failed: " fmt "\n",	\
			       ##__VA_ARGS__);				\
			return MODVLAB_SELFTEST_FAILED;			\
		}							\
	} while (0)

#define modvlab_pass() pr_info(KBUILD_MODNAME ": modvlab: selftest ok\n")

#endif
