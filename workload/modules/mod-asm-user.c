// SPDX-License-Identifier: GPL-2.0
/*
 * Imports common C exports and real x86 assembly exports and checks each
 * result: memcpy, memset (via volatile pointers, or gcc would inline them),
 * clear_page (clear_page_rep/_orig/_erms), copy_page, __get_user_4 and
 * __put_user_4 (on a page mapped into the loading process), csum_partial.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/checksum.h>
#include "modvlab.h"

static void *(*volatile do_memcpy)(void *, const void *, size_t) = memcpy;
static void *(*volatile do_memset)(void *, int, size_t) = memset;

/* Reference Internet checksum of an even-length buffer, folded to 16 bits. */
static u16 ref_csum(const u8 *p, int len)
{
	u32 s = 0;
	int i;

	for (i = 0; i < len; i += 2)
		s += p[i] | p[i + 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (u16)~s;
}

static int check_uaccess(void)
{
	unsigned long addr;
	u32 __user *up;
	u32 v = 0;
	int ret = 0;

	addr = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_PRIVATE, 0);
	modvlab_check(!IS_ERR_VALUE(addr), "vm_mmap: %ld", (long)addr);
	up = (u32 __user *)addr;
	if (put_user(0x5eed1234, up) || get_user(v, up) || v != 0x5eed1234) {
		pr_err(KBUILD_MODNAME ": modvlab: selftest failed: get/put_user: %x\n", v);
		ret = MODVLAB_SELFTEST_FAILED;
	}
	vm_munmap(addr, PAGE_SIZE);
	return ret;
}

static int __init asm_user_init(void)
{
	struct page *pa, *pb;
	u8 *a, *b, buf[64];
	int i, ret;

	do_memset(buf, 0xa5, sizeof(buf));
	modvlab_check(buf[0] == 0xa5 && buf[63] == 0xa5, "memset");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i * 7;
	modvlab_check((u16)csum_fold(csum_partial(buf, sizeof(buf), 0)) ==
		      ref_csum(buf, sizeof(buf)), "csum_partial");

	pa = alloc_page(GFP_KERNEL);
	pb = alloc_page(GFP_KERNEL);
	if (!pa || !pb) {
		ret = -ENOMEM;
		goto out;
	}
	a = page_address(pa);
	b = page_address(pb);
	do_memset(a, 0x3c, PAGE_SIZE);
	copy_page(b, a);
	ret = b[0] == 0x3c && b[PAGE_SIZE - 1] == 0x3c ? 0 : MODVLAB_SELFTEST_FAILED;
	if (ret) {
		pr_err(KBUILD_MODNAME ": modvlab: selftest failed: copy_page\n");
		goto out;
	}
	clear_page(b);
	do_memcpy(a, b, 128);
	if (a[0] || a[127] || a[128] != 0x3c) {
		pr_err(KBUILD_MODNAME ": modvlab: selftest failed: clear_page/memcpy\n");
		ret = MODVLAB_SELFTEST_FAILED;
		goto out;
	}
	ret = check_uaccess();
out:
	if (pa)
		__free_page(pa);
	if (pb)
		__free_page(pb);
	if (!ret)
		modvlab_pass();
	return ret;
}
module_init(asm_user_init);

static void __exit asm_user_exit(void)
{
}
module_exit(asm_user_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("modvlab: uses C and arch assembly exports, checks results");
