// SPDX-License-Identifier: GPL-2.0
/*
 * modvlab-fuzz: a structured mutation fuzzer of the module loader (the guest
 * driver here, the mutator in mutate.c). One program,
 * built twice: static as the guest's /init (it loads thousands of inputs in
 * one boot) and for the host (it writes input N, so the host can save or
 * minimize exactly what the guest loaded).
 *
 * An input is named by (seed, index): a splitmix64 stream seeded from both
 * picks one of the seed modules (the good .ko files, in the order given) and
 * one to five mutations of its ELF header, section headers, symbol table,
 * string tables, relocations, __versions, .modinfo, struct module section,
 * raw bytes, and maybe a truncation. Offsets come from parsing the unmutated
 * seed, so mutations compose and the same (seed, index) is the same bytes.
 *
 * Host:  modvlab-fuzz write SEED INDEX OUT.ko SEED.ko...
 *        modvlab-fuzz cand SEED INDEX OUT.ko POSITIONS SEED.ko...
 *        (no loading mode runs unless the program is pid 1, a guest's /init)
 * Guest: /init reads /fuzz.args, one of
 *	run SEED FIRST COUNT HEALTH_EVERY HEALTH.ko SEED.ko...
 *	files HEALTH_EVERY HEALTH.ko INPUT.ko...
 *	cands SEED INDEX HEALTH_EVERY HEALTH.ko SEED.ko...
 *	wait
 * "wait" prints "# fuzz: waiting" and reads the arguments, one line, from
 * the console: the host snapshots the guest there once (fuzz/snapshot.py)
 * and restores it for every run instead of booting again.
 * "cands" (after "wait": minimizing in a restored guest) then reads lines
 * of byte positions ("a-b,c,..."), up to a line ".": candidate k is input
 * INDEX's seed module with input INDEX's bytes at those positions (and its
 * length), written to /in/k.ko and loaded as with "files".
 * and prints on the console, for the host (fuzz/run.py):
 *	F <n>                   input n is about to be loaded
 *	L <n> <name> <unload errno>   it loaded (and was unloaded)
 *	h <n> <name> <unload errno>   the health check after it did
 *	S <n> <kernel log line> a kernel bug report logged during input n
 *	H <n> <errno>           the health check after input n failed
 *	R <n> <errno>           (files) input n was refused
 *	T <n> <ms>              every 100 inputs: ms since the first (the rate
 *	                        of a boot that dies later)
 *	# fuzz end inputs=N loaded=N splats=N unhealthy=N ms=N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "mutate.h"

#define MAX_STUCK 64

/* --- the guest driver ----------------------------------------------------- */

static const char *const splats[] = {	/* core/classify.py SPLATS */
	"Oops", "BUG:", "kernel BUG at", "WARNING:", "KASAN", "Kernel panic",
	"general protection fault", "UBSAN:",
};

static int kmsg = -1;
static char stuck[MAX_STUCK][64];
static int nstuck;

/* Kernel log records since the last call; prints them as S lines if one is a splat. */
static int check_kmsg(unsigned long n)
{
	static char rec[8192], keep[16384];
	size_t kept = 0;
	int bad = 0;
	ssize_t got;

	if (kmsg < 0)
		return 0;
	while ((got = read(kmsg, rec, sizeof(rec) - 1)) != 0) {
		if (got < 0) {
			if (errno == EPIPE)
				continue;
			break;
		}
		rec[got] = 0;
		char *text = strchr(rec, ';');

		text = text ? text + 1 : rec;
		text[strcspn(text, "\n")] = 0;
		for (size_t i = 0; i < sizeof(splats) / sizeof(splats[0]); i++)
			bad |= !!strstr(text, splats[i]);
		if (kept + strlen(text) + 32 < sizeof(keep))
			kept += sprintf(keep + kept, "S %lu %s\n", n, text);
	}
	if (bad)
		fputs(keep, stdout);
	return bad;
}

static int is_stuck(const char *name)
{
	for (int i = 0; i < nstuck; i++)
		if (!strcmp(stuck[i], name))
			return 1;
	return 0;
}

/*
 * After a load that succeeded: unload every module that is not stuck, and
 * say so with tag 'L' after an input, 'h' after the health check (the
 * host tells an input that loaded from the health check after it).
 */
static void unload_all(unsigned long n, char tag)
{
	char line[512], name[64];
	FILE *f = fopen("/proc/modules", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s", name) != 1 || is_stuck(name))
			continue;
		int err = syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;

		printf("%c %lu %s %d\n", tag, n, name, err);
		if (err && nstuck < MAX_STUCK)
			strcpy(stuck[nstuck++], name);
	}
	if (f)
		fclose(f);
}

static int load(const unsigned char *b, size_t len)
{
	return syscall(SYS_init_module, b, len, "") ? errno : 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Load count inputs (from the mutator, or files when paths is set), each
 * followed every health_every inputs by the health check.
 */
static int drive(uint64_t seed, unsigned long first, unsigned long count, int health_every,
		 const char *health_path, struct seed *seeds, int nseeds, size_t maxlen,
		 char **paths)
{
	size_t hlen = 0, len = 0;
	unsigned char *health = slurp(health_path, &hlen), *buf = NULL;
	unsigned long loaded = 0, nsplat = 0, unhealthy = 0, done = 0;
	long long t0 = now_ms();
	int which, fails = 0, err;

	if (!health)
		return 1;
	if (!paths && !(buf = malloc(maxlen)))
		return 1;
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	printf("# fuzz start seed=%llu first=%lu count=%lu health_every=%d\n",
	       (unsigned long long)seed, first, count, health_every);
	for (unsigned long n = first; n < first + count; n++, done++) {
		if (paths) {
			free(buf);
			buf = slurp(paths[n - first], &len);
			if (!buf)
				continue;
		} else {
			len = generate(seed, n, seeds, nseeds, buf, &which);
		}
		if (done && done % 100 == 0)
			printf("T %lu %lld\n", done, now_ms() - t0);
		printf("F %lu\n", n);
		err = load(buf, len);
		if (!err) {
			loaded++;
			unload_all(n, 'L');
		} else if (paths) {
			printf("R %lu %d\n", n, err);	/* files: say why */
		}
		if (health_every && (n + 1) % health_every == 0) {
			int err = load(health, hlen);

			if (!err)
				unload_all(n, 'h');
			else if (err != EEXIST || nstuck == 0) {
				printf("H %lu %d\n", n, err);
				unhealthy++;
				if (++fails >= 3) {
					done++;
					printf("# fuzz: the health check fails, stopping\n");
					break;
				}
			}
			if (!err)
				fails = 0;
		}
		nsplat += check_kmsg(n);
	}
	printf("# fuzz end inputs=%lu loaded=%lu splats=%lu unhealthy=%lu ms=%lld\n",
	       done, loaded, nsplat, unhealthy, now_ms() - t0);
	fflush(stdout);
	return 0;
}

/*
 * Candidate files for the minimizer (fuzz/minimize.py's build()): the seed
 * input index derives from, cut or grown to the input's length, with the
 * input's bytes at the positions each line of stdin lists.
 */
static void build_cand(const struct seed *s, const unsigned char *data, size_t len,
		       char *spec, unsigned char *out)
{
	memcpy(out, s->b, len < s->len ? len : s->len);
	if (len > s->len)
		memcpy(out + s->len, data + s->len, len - s->len);
	while (*spec >= '0' && *spec <= '9') {
		unsigned long a = strtoul(spec, &spec, 10), b = a;

		if (*spec == '-')
			b = strtoul(spec + 1, &spec, 10);
		for (; a <= b && a < len; a++)
			out[a] = data[a];
		if (*spec == ',')
			spec++;
	}
}

static int write_file(const char *path, const unsigned char *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b, 1, len, f) != len || fclose(f)) {
		printf("# fuzz: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

static int cands(uint64_t seed, uint64_t index, int health_every, const char *health,
		 struct seed *seeds, int nseeds, size_t maxlen)
{
	static char line[4096], path[64], *paths[256];
	unsigned char *data = malloc(maxlen), *out = malloc(maxlen);
	int which, n = 0;
	size_t len;

	if (!data || !out)
		return 1;
	len = generate(seed, index, seeds, nseeds, data, &which);
	mkdir("/in", 0755);
	while (n < 256 && fgets(line, sizeof(line), stdin) && strcmp(line, ".\n")) {
		build_cand(&seeds[which], data, len, line, out);
		snprintf(path, sizeof(path), "/in/%d.ko", n);
		if (write_file(path, out, len))
			return 1;
		paths[n++] = strdup(path);
	}
	return drive(0, 0, n, health_every, health, NULL, 0, 0, paths);
}

/* As /init: the console, /proc and /dev/kmsg, the arguments from /fuzz.args. */
static int guest_init(int *argc, char ***argv)
{
	static char buf[4096], *args[MAX_SEEDS + 16];
	size_t len = 0;
	unsigned char *a;
	int n = 0;

	mkdir("/proc", 0755);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("dev", "/dev", "devtmpfs", 0, NULL);
	a = slurp("/fuzz.args", &len);
	if (!a || len >= sizeof(buf))
		return -1;
	memcpy(buf, a, len);
	if (!strncmp(buf, "wait", 4)) {
		struct termios t;

		/* no echo: the console is the host's log */
		if (!tcgetattr(0, &t)) {
			t.c_lflag &= ~(ECHO | ECHONL);
			tcsetattr(0, TCSANOW, &t);
		}
		printf("# fuzz: waiting\n");
		if (!fgets(buf, sizeof(buf), stdin))
			return -1;
	}
	args[n++] = "modvlab-fuzz";
	for (char *p = strtok(buf, " \t\n"); p && n < MAX_SEEDS + 15; p = strtok(NULL, " \t\n"))
		args[n++] = p;
	args[n] = NULL;
	*argc = n;
	*argv = args;
	printf("# modvlab: guest up (fuzz)\n");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: modvlab-fuzz write SEED INDEX OUT.ko SEED.ko...\n"
		"       modvlab-fuzz cand SEED INDEX OUT.ko POSITIONS SEED.ko...\n"
		"as a guest's /init only (they load modules):\n"
		"       modvlab-fuzz run SEED FIRST COUNT HEALTH_EVERY HEALTH.ko SEED.ko...\n"
		"       modvlab-fuzz files HEALTH_EVERY HEALTH.ko INPUT.ko...\n"
		"       modvlab-fuzz cands SEED INDEX HEALTH_EVERY HEALTH.ko SEED.ko... < LINES\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct seed seeds[MAX_SEEDS];
	int as_init = getpid() == 1, rc = 2, which;
	size_t maxlen;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (as_init && guest_init(&argc, &argv))
		printf("# fuzz: cannot read /fuzz.args\n");
	else if (argc >= 6 && !strcmp(argv[1], "write")) {
		uint64_t seed = strtoull(argv[2], NULL, 0), index = strtoull(argv[3], NULL, 0);

		if (load_seeds(argv + 5, argc - 5, seeds, &maxlen))
			return 1;
		unsigned char *buf = malloc(maxlen);
		size_t len = generate(seed, index, seeds, argc - 5, buf, &which);
		FILE *f = fopen(argv[4], "wb");

		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			fprintf(stderr, "modvlab-fuzz: cannot write %s\n", argv[4]);
			return 1;
		}
		printf("%d\n", which);	/* the seed it derives from */
		return 0;
	} else if (argc >= 7 && !strcmp(argv[1], "cand")) {
		/* host: one candidate of cands, for the host's own check */
		if (load_seeds(argv + 6, argc - 6, seeds, &maxlen))
			return 1;
		unsigned char *data = malloc(maxlen), *out = malloc(maxlen);
		size_t len = generate(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
				      seeds, argc - 6, data, &which);

		build_cand(&seeds[which], data, len, argv[5], out);
		return write_file(argv[4], out, len) ? 1 : 0;
	} else if (!as_init) {
		/* the modes below load modules: only ever in a guest, as its /init */
		return usage();
	} else if (argc >= 8 && !strcmp(argv[1], "run")) {
		if (!load_seeds(argv + 7, argc - 7, seeds, &maxlen))
			rc = drive(strtoull(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
				   strtoul(argv[4], NULL, 0), atoi(argv[5]), argv[6],
				   seeds, argc - 7, maxlen, NULL);
	} else if (argc >= 7 && !strcmp(argv[1], "cands")) {
		if (!load_seeds(argv + 6, argc - 6, seeds, &maxlen))
			rc = cands(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
				   atoi(argv[4]), argv[5], seeds, argc - 6, maxlen);
	} else if (argc >= 4 && !strcmp(argv[1], "files")) {
		rc = drive(0, 0, argc - 4, atoi(argv[2]), argv[3], NULL, 0, 0, argv + 4);
	}
	if (rc)
		printf("# fuzz: exit %d\n", rc);
	if (!as_init)		/* not reached; never reboot a host */
		return rc;
	sync();
	reboot(RB_AUTOBOOT);	/* -no-reboot: QEMU exits */
	return 0;
}
