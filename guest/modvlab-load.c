// SPDX-License-Identifier: GPL-2.0
/*
 * modvlab-load: the in-guest loader. Runs a plan of module load attempts with
 * finit_module(2), and prints one KTAP result per attempt with the exact errno,
 * the taint mask and the kernel log lines that the attempt produced.
 *
 * Plan lines (one attempt each; '#' comments and empty lines are skipped):
 *	name|flags|repeat|module.ko|dep1.ko,dep2.ko[|check command]
 * flags: '-' or any of 'm' (MODULE_INIT_IGNORE_MODVERSIONS) and
 * 'v' (MODULE_INIT_IGNORE_VERMAGIC), and at most one of 'u' (the module, not
 * its deps, is loaded by a child process running as uid/gid 65534, so without
 * any capability) and 'c' (by a child that stays uid 0 but has dropped
 * CAP_SYS_MODULE from its bounding, permitted and effective sets), and 'd'
 * (the deps are loaded with the same m/v flags: a forced load of an old
 * module brings its old deps). A dep that is already loaded (EEXIST) is
 * used as it is and left loaded.
 * The optional check command runs (/bin/sh -c) while the module is loaded;
 * its exit status is reported as check=pass|fail (check=none without one).
 * Deps are loaded first and unloaded after. A loaded module is unloaded by
 * the name /proc/modules shows for it (its file name need not be its name).
 * repeat > 1 loads and unloads the module that many times and reports the
 * median load time (for the load-cost benchmark).
 *
 * Output, per attempt (the host parser in compare/ reads it):
 *	# dmesg <name>: <kernel log line>
 *	ok|not ok <n> <name> # <result> errno=<NAME> taint=<hex> ns=<median> ...
 * result: loaded, refused (finit_module failed), setup-failed (a dep failed).
 * "ok" means loaded; everything else is "not ok". "# modvlab: end" closes the
 * run, so a truncated log can never look complete.
 * Run as pid 1 (the /init of a guest without busybox), it mounts /dev,
 * /proc and /sys, runs /plan and reboots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef MODULE_INIT_IGNORE_MODVERSIONS
#define MODULE_INIT_IGNORE_MODVERSIONS 1
#define MODULE_INIT_IGNORE_VERMAGIC 2
#endif

#define MAX_DEPS 32
#define MAX_REPEAT 1000
#define MAX_MODULES 256
#define NOBODY 65534

static const char *errno_name(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case ENOEXEC: return "ENOEXEC";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case ENOKEY: return "ENOKEY";
	case EKEYREJECTED: return "EKEYREJECTED";
	case EBADMSG: return "EBADMSG";
	case EOVERFLOW: return "EOVERFLOW";
	case EPROTO: return "EPROTO";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case ETXTBSY: return "ETXTBSY";
	case ENOTSUP: return "ENOTSUP";
	}
	return "EUNKNOWN";
}

static unsigned long read_taint(void)
{
	char buf[64] = "";
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (!f)
		return ~0UL;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoul(buf, NULL, 10);
}

/* /dev/kmsg, positioned at the end: read() then returns only new records. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDWR | O_NONBLOCK);

	if (fd < 0)
		fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static int kmsg_warned;	/* said once that /dev/kmsg cannot be written */

/*
 * Print the records logged since kmsg_open() as "# dmesg <name>: text".
 * A record whose text printk had to truncate (it lost its newline) stays
 * open until the next record is stored, and /dev/kmsg does not return it
 * until then: so first log a marker of our own, which closes any open
 * record, then read up to it. The marker itself is not printed.
 */
static void kmsg_drain(int fd, const char *name)
{
	char rec[8192], marker[320];
	ssize_t n;
	int mlen = snprintf(marker, sizeof(marker), "modvlab-load: end of %s", name);
	int marked;

	if (fd < 0)
		return;
	/* one write(): dprintf() would lseek(SEEK_CUR), which /dev/kmsg refuses */
	snprintf(rec, sizeof(rec), "<15>%s\n", marker);	/* debug: kept off the console */
	marked = write(fd, rec, strlen(rec)) > 0;
	if (!marked && !kmsg_warned++)
		printf("# modvlab: cannot write /dev/kmsg (%s): a truncated kernel line "
		       "may show in the next case\n", strerror(errno));
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten records: skip on */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		/* "prio,seq,usec,flags;text\n continuation..." */
		char *text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		char *nl = strchr(text, '\n');
		if (nl)
			*nl = 0;
		if (marked && !strncmp(text, marker, mlen) && !text[mlen])
			break;
		for (char *p = text; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = ' ';
		printf("# dmesg %s: %s\n", name, text);
	}
	close(fd);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The name the kernel gives a module: its file name, '-' read as '_'. */
static void module_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	for (i = 0; i + 1 < len && b[i] && strcmp(b + i, ".ko"); i++)
		out[i] = b[i] == '-' ? '_' : b[i];
	out[i] = 0;
}

/* Give up CAP_SYS_MODULE for good: 'u' by becoming nobody, 'c' by dropping it. */
static int drop_privilege(int how)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const unsigned int bit = 1U << (CAP_SYS_MODULE % 32);
	const int word = CAP_SYS_MODULE / 32;

	if (how == 'u') {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			return errno;
		return 0;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0) ||
	    syscall(SYS_capget, &h, d))
		return errno;
	d[word].effective &= ~bit;
	d[word].permitted &= ~bit;
	d[word].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d) || syscall(SYS_capget, &h, d))
		return errno;
	return (d[word].effective | d[word].permitted) & bit ? EPERM : 0;
}

/*
 * finit_module from a child that first gives up CAP_SYS_MODULE. Returns the
 * errno of finit_module, or -(errno) if the privilege could not be dropped.
 */
static int load_unprivileged(int fd, int flags, int how)
{
	int pipefd[2], res[2] = { -1, EIO }, status;
	pid_t pid;

	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(pipefd[0]);
		res[0] = drop_privilege(how);
		if (!res[0])
			res[1] = syscall(SYS_finit_module, fd, "", flags) ? errno : 0;
		if (write(pipefd[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], res, sizeof(res)) != sizeof(res))
		res[0] = EIO;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return res[0] ? -res[0] : res[1];
}

/*
 * Returns 0 or the errno of finit_module; *ns gets the syscall's duration.
 * how: 0, or 'u'/'c' to load without CAP_SYS_MODULE (load_unprivileged()).
 */
static int load(const char *path, int flags, int how, long long *ns)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long long t0;
	int ret, err = 0;

	if (fd < 0)
		return errno;
	t0 = now_ns();
	if (how) {
		err = load_unprivileged(fd, flags, how);
	} else {
		ret = syscall(SYS_finit_module, fd, "", flags);
		if (ret)
			err = errno;
	}
	if (ns)
		*ns = now_ns() - t0;
	close(fd);
	return err;
}

static int unload(const char *path)
{
	char name[256];

	module_name(path, name, sizeof(name));
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;
}

/* The names in /proc/modules; returns how many, -1 if it cannot be read. */
static int modules_list(char (*names)[64], int max)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s", names[n]) == 1)
			n++;
	fclose(f);
	return n;
}

static char before_names[MAX_MODULES][64], now_names[MAX_MODULES][64];

/*
 * Unload the module a successful load added: the name that is in
 * /proc/modules now and was not in before_names (nbefore of them). A module
 * file may be named unlike the module it holds (the robustness corpus), so
 * the file name is only the fallback.
 */
static int unload_new(const char *path, int nbefore)
{
	int n = nbefore < 0 ? -1 : modules_list(now_names, MAX_MODULES);

	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < nbefore && strcmp(now_names[i], before_names[j]))
			j++;
		if (j == nbefore)
			return syscall(SYS_delete_module, now_names[i], O_NONBLOCK) ? errno : 0;
	}
	return unload(path);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long samples[MAX_REPEAT];

static void run_case(int n, char *line)
{
	char *name = strsep(&line, "|");
	char *flagstr = strsep(&line, "|");
	char *repstr = strsep(&line, "|");
	char *mod = strsep(&line, "|");
	char *depstr = line ? strsep(&line, "|") : NULL;
	char *check = line && *line ? line : NULL;
	const char *cres = "none";
	char *deps[MAX_DEPS];
	int depflags = 0, ndeps = 0, flags = 0, err = 0, derr = 0, uerr = 0, i, r, repeat;
	int how = 0, nbefore;
	unsigned long t0, t1;
	const char *result;
	long long ns = 0;
	int kfd;

	if (!name || !flagstr || !repstr || !mod || !*mod) {
		printf("not ok %d %s # plan-error malformed plan line\n", n,
		       name && *name ? name : "?");
		return;
	}
	for (char *f = flagstr; *f; f++) {
		if (*f == 'm')
			flags |= MODULE_INIT_IGNORE_MODVERSIONS;
		else if (*f == 'v')
			flags |= MODULE_INIT_IGNORE_VERMAGIC;
		else if (*f == 'u' || *f == 'c')
			how = *f;
		else if (*f == 'd')
			depflags = 1;
	}
	depflags = depflags ? flags : 0;
	repeat = atoi(repstr);
	if (repeat < 1)
		repeat = 1;
	if (repeat > MAX_REPEAT)
		repeat = MAX_REPEAT;
	while (depstr && *depstr && ndeps < MAX_DEPS) {
		char *d = strsep(&depstr, ",");

		if (*d)
			deps[ndeps++] = d;
	}

	printf("# case %s: module=%s flags=%s deps=%d\n", name, mod, flagstr, ndeps);
	fflush(stdout);
	t0 = read_taint();
	kfd = kmsg_open();
	for (i = 0; i < ndeps; i++) {
		derr = load(deps[i], depflags, 0, NULL);
		if (derr == EEXIST) {	/* already there: use it, leave it */
			memmove(&deps[i], &deps[i + 1], (ndeps - i - 1) * sizeof(deps[0]));
			ndeps--;
			i--;
			derr = 0;
			continue;
		}
		if (derr)
			break;
	}
	if (derr) {
		result = "setup-failed";
		err = derr;
		ndeps = i;
	} else {
		nbefore = modules_list(before_names, MAX_MODULES);
		for (r = 0; r < repeat; r++) {
			err = load(mod, flags, how, &samples[r]);
			if (err)
				break;
			if (check && r == 0) {
				fflush(stdout);
				cres = system(check) == 0 ? "pass" : "fail";
			}
			uerr = unload_new(mod, nbefore);
			if (uerr)
				break;
		}
		result = err ? "refused" : "loaded";
		if (err < 0) {	/* could not drop the privilege: not a result */
			result = "setup-failed";
			err = -err;
		}
		if (!err && !uerr) {
			qsort(samples, repeat, sizeof(samples[0]), cmp_ll);
			ns = samples[repeat / 2];
		} else {
			ns = samples[r];
		}
	}
	for (i = ndeps - 1; i >= 0; i--)
		if (unload(deps[i]) && !uerr)
			uerr = EBUSY;
	t1 = read_taint();
	kmsg_drain(kfd, name);
	printf("%s %d %s # %s errno=%s taint=0x%lx taint_before=0x%lx ns=%lld repeat=%d unload=%s%s%s\n",
	       !err ? "ok" : "not ok", n, name, result, errno_name(err), t1, t0,
	       ns, repeat, errno_name(uerr), check ? " check=" : "", check ? cres : "");
	fflush(stdout);
}

static int run_plan(const char *path)
{
	char line[4096];
	int total = 0, n = 0;
	struct utsname u;
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("# modvlab: cannot open plan %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && line[0] != '\n')
			total++;
	rewind(f);
	uname(&u);
	printf("KTAP version 1\n");
	printf("# modvlab: release=%s version=%s taint=0x%lx\n", u.release,
	       u.version, read_taint());
	printf("1..%d\n", total);
	fflush(stdout);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || line[0] == 0)
			continue;
		run_case(++n, line);
	}
	fclose(f);
	printf("# modvlab: end cases=%d taint=0x%lx\n", n, read_taint());
	fflush(stdout);
	return 0;
}

/*
 * As the guest's /init (pid 1), for an architecture the lab has no busybox
 * for: do what guest/init does (mount, run /plan, reboot) without a shell.
 * QEMU runs with -no-reboot, so the reboot ends it.
 */
static int run_as_init(void)
{
	int rc;

	mount("dev", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sys", "/sys", "sysfs", 0, NULL);
	printf("# modvlab: guest up\n");
	rc = run_plan("/plan");
	if (rc)
		printf("# modvlab: loader failed rc=%d\n", rc);
	sync();
	reboot(RB_AUTOBOOT);
	return rc;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getpid() == 1)
		return run_as_init();
	if (argc == 3 && !strcmp(argv[1], "-p"))
		return run_plan(argv[2]);
	if (argc >= 2 && argc <= 3) {
		/* one-off: modvlab-load module.ko [flags] */
		long long ns;
		int flags = 0, err;

		if (argc == 3) {
			flags |= strchr(argv[2], 'm') ? MODULE_INIT_IGNORE_MODVERSIONS : 0;
			flags |= strchr(argv[2], 'v') ? MODULE_INIT_IGNORE_VERMAGIC : 0;
		}
		err = load(argv[1], flags, 0, &ns);
		printf("%s errno=%s ns=%lld taint=0x%lx\n", err ? "refused" : "loaded",
		       errno_name(err), ns, read_taint());
		return err ? 1 : 0;
	}
	fprintf(stderr, "usage: modvlab-load -p PLAN | modvlab-load MODULE.ko [mv]\n");
	return 2;
}
