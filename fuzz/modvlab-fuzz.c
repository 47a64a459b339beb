// SPDX-License-Identifier: GPL-2.0
/*
 * modvlab-fuzz: a structured mutation fuzzer of the module loader. One file,
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
 * Guest: /init reads /fuzz.args, one of
 *	run SEED FIRST COUNT HEALTH_EVERY HEALTH.ko SEED.ko...
 *	files HEALTH_EVERY HEALTH.ko INPUT.ko...
 * and prints on the console, for the host (fuzz/run.py):
 *	F <n>                   input n is about to be loaded
 *	L <n> <name> <unload errno>   it loaded (and was unloaded)
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
#include <time.h>
#include <unistd.h>

#define MAX_SEEDS 16
#define MAX_STUCK 64

/* --- the seeded stream ---------------------------------------------------- */

struct rng { uint64_t s; };

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? next(r) % n : 0;
}

/* --- the seed modules, parsed once ---------------------------------------- */

struct sec { uint64_t hdr, off, size, entsize; uint32_t type, link; };

struct seed {
	unsigned char *b;
	size_t len;
	unsigned int nsec;
	struct sec *s;
	int symtab, strtab, shstrtab, versions, modinfo, thismod;
	int rela[64];
	int nrela;
};

static uint64_t get(const unsigned char *b, size_t len, uint64_t off, int w)
{
	uint64_t v = 0;

	if (off > len || len - off < (uint64_t)w)
		return 0;
	for (int i = w - 1; i >= 0; i--)
		v = v << 8 | b[off + i];
	return v;
}

static void put(unsigned char *b, size_t len, uint64_t off, int w, uint64_t v)
{
	if (off > len || len - off < (uint64_t)w)
		return;
	for (int i = 0; i < w; i++, v >>= 8)
		b[off + i] = v & 0xff;
}

static const char *sec_name(const struct seed *sd, int i)
{
	const struct sec *t = &sd->s[sd->shstrtab];
	uint64_t n = get(sd->b, sd->len, sd->s[i].hdr, 4);

	if (sd->shstrtab < 0 || n >= t->size || t->off + t->size > sd->len)
		return "";
	if (!memchr(sd->b + t->off + n, 0, t->size - n))
		return "";
	return (const char *)sd->b + t->off + n;
}

static int parse_seed(struct seed *sd)
{
	const unsigned char *b = sd->b;
	uint64_t shoff;

	if (sd->len < 64 || memcmp(b, "\177ELF\2\1", 6))
		return -1;
	shoff = get(b, sd->len, 40, 8);
	sd->nsec = get(b, sd->len, 60, 2);
	if (get(b, sd->len, 58, 2) != 64 || shoff > sd->len || sd->nsec > (sd->len - shoff) / 64)
		return -1;
	sd->s = calloc(sd->nsec, sizeof(*sd->s));
	if (!sd->s)
		return -1;
	sd->symtab = sd->strtab = sd->versions = sd->modinfo = sd->thismod = -1;
	sd->shstrtab = get(b, sd->len, 62, 2);
	if (sd->shstrtab >= (int)sd->nsec)
		sd->shstrtab = -1;
	for (unsigned int i = 0; i < sd->nsec; i++) {
		struct sec *s = &sd->s[i];

		s->hdr = shoff + 64ULL * i;
		s->type = get(b, sd->len, s->hdr + 4, 4);
		s->off = get(b, sd->len, s->hdr + 24, 8);
		s->size = get(b, sd->len, s->hdr + 32, 8);
		s->link = get(b, sd->len, s->hdr + 40, 4);
		s->entsize = get(b, sd->len, s->hdr + 56, 8);
		if (s->type == 8 || s->off > sd->len || s->size > sd->len - s->off)
			s->size = 0;	/* no bytes in the file to mutate */
	}
	for (unsigned int i = 1; i < sd->nsec; i++) {
		const char *n = sec_name(sd, i);

		if (sd->s[i].type == 2 && sd->symtab < 0) {
			sd->symtab = i;
			if (sd->s[i].link < sd->nsec)
				sd->strtab = sd->s[i].link;
		} else if (sd->s[i].type == 4 && sd->nrela < 64) {
			sd->rela[sd->nrela++] = i;
		}
		if (!strcmp(n, "__versions"))
			sd->versions = i;
		else if (!strcmp(n, ".modinfo"))
			sd->modinfo = i;
		else if (!strcmp(n, ".gnu.linkonce.this_module"))
			sd->thismod = i;
	}
	return 0;
}

/* --- the mutations -------------------------------------------------------- */

/* A value worth trying for a field that now holds cur (limit: a count or size). */
static uint64_t interesting(struct rng *r, uint64_t cur, uint64_t limit, int width)
{
	static const uint64_t fixed[] = {
		0, 1, 2, 3, 4, 7, 8, 16, 24, 32, 56, 63, 64, 0x7f, 0x80, 0xff, 0x100,
		0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
		~0ULL - 63, 0xfff1, 0xfff2, 0xff00,
	};
	uint64_t v;

	switch (below(r, 8)) {
	case 0: case 1: v = fixed[below(r, sizeof(fixed) / sizeof(fixed[0]))]; break;
	case 2: v = cur + 1 + below(r, 64); break;
	case 3: v = cur - 1 - below(r, 64); break;
	case 4: v = cur ^ (1ULL << below(r, width * 8)); break;
	case 5: v = limit + below(r, 3) - 1; break;
	case 6: v = below(r, limit + 1); break;
	default: v = next(r); break;
	}
	return width == 8 ? v : v & ((1ULL << (width * 8)) - 1);
}

static const struct { uint8_t off, w; } ehdr_fields[] = {
	{ 4, 1 }, { 5, 1 }, { 6, 1 }, { 7, 1 }, { 16, 2 }, { 18, 2 }, { 20, 4 },
	{ 24, 8 }, { 32, 8 }, { 40, 8 }, { 48, 4 }, { 52, 2 }, { 54, 2 }, { 56, 2 },
	{ 58, 2 }, { 60, 2 }, { 62, 2 },
};

/* name type flags addr offset size link info addralign entsize */
static const struct { uint8_t off, w; } shdr_fields[] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 }, { 40, 4 },
	{ 44, 4 }, { 48, 8 }, { 56, 8 },
};

/* a section worth mutating: often one the loader reads by index or name */
static int pick_section(struct rng *r, const struct seed *sd)
{
	int special[] = { sd->symtab, sd->strtab, sd->shstrtab, sd->versions,
			  sd->modinfo, sd->thismod,
			  sd->nrela ? sd->rela[below(r, sd->nrela)] : -1 };
	int i = special[below(r, sizeof(special) / sizeof(special[0]))];

	if (below(r, 3) == 0 || i < 0)
		i = below(r, sd->nsec);
	return i;
}

static void mutate_shdr(struct rng *r, const struct seed *sd, unsigned char *b, size_t len)
{
	static const uint32_t types[] = { 0, 1, 2, 3, 4, 8, 9, 11, 14, 0x6fffffff, 0x70000000 };
	const struct sec *s = &sd->s[pick_section(r, sd)];
	int f = below(r, 10);
	uint64_t at = s->hdr + shdr_fields[f].off, v;
	int w = shdr_fields[f].w;

	v = get(b, len, at, w);
	if (f == 1 && below(r, 2))
		v = types[below(r, sizeof(types) / sizeof(types[0]))];
	else if ((f == 6 || f == 7) && below(r, 2))
		v = below(r, 2) ? below(r, sd->nsec + 2) : sd->nsec + below(r, 0x10000);
	else
		v = interesting(r, v, f == 0 ? 0x200 : f == 4 || f == 5 ? len : sd->nsec, w);
	put(b, len, at, w, v);
}

/* one field of one entry of an array section (symbols, relocations, ...) */
static void mutate_entry(struct rng *r, const struct sec *s, unsigned char *b, size_t len,
			 const uint8_t (*fields)[2], int nfields, uint64_t esize, uint64_t limit)
{
	uint64_t n = s->size / esize, at;
	int f = below(r, nfields), w = fields[f][1];

	if (!n)
		return;
	at = s->off + below(r, n) * esize + fields[f][0];
	put(b, len, at, w, interesting(r, get(b, len, at, w), limit, w));
}

static void mutate_bytes(struct rng *r, const struct sec *s, unsigned char *b, size_t len)
{
	uint64_t off = s ? s->off : 0, size = s ? s->size : len;
	int n = 1 + below(r, 4);

	if (!size)
		return;
	while (n--) {
		uint64_t at = off + below(r, size);

		switch (below(r, 4)) {
		case 0: b[at] ^= 1 << below(r, 8); break;
		case 1: b[at] = b[at] ? 0 : 'A'; break;	/* a NUL appears or goes */
		case 2: b[at] = 0xff; break;
		default: b[at] = next(r); break;
		}
	}
}

/* the symbol table: st_name st_info st_other st_shndx st_value st_size */
static const uint8_t sym_fields[][2] = { { 0, 4 }, { 4, 1 }, { 5, 1 }, { 6, 2 }, { 8, 8 }, { 16, 8 } };
/* a relocation: r_offset, symbol index, type, r_addend */
static const uint8_t rela_fields[][2] = { { 0, 8 }, { 12, 4 }, { 8, 4 }, { 16, 8 } };
/* a __versions entry: crc, first bytes of the name, its last byte */
static const uint8_t vers_fields[][2] = { { 0, 8 }, { 8, 8 }, { 63, 1 } };

static size_t mutate_once(struct rng *r, const struct seed *sd, unsigned char *b, size_t len)
{
	const struct sec *s;
	int i;

	switch (below(r, 16)) {
	case 0:		/* an ELF header field */
		i = below(r, sizeof(ehdr_fields) / sizeof(ehdr_fields[0]));
		put(b, len, ehdr_fields[i].off, ehdr_fields[i].w,
		    interesting(r, get(b, len, ehdr_fields[i].off, ehdr_fields[i].w),
				i >= 13 ? sd->nsec : len, ehdr_fields[i].w));
		break;
	case 1: case 2: case 3: case 4:		/* a section header field */
		mutate_shdr(r, sd, b, len);
		break;
	case 5: case 6:		/* a symbol */
		if (sd->symtab >= 0)
			mutate_entry(r, &sd->s[sd->symtab], b, len, sym_fields, 6, 24, sd->nsec);
		break;
	case 7:		/* a string table: .strtab or .shstrtab */
		i = below(r, 2) ? sd->strtab : sd->shstrtab;
		if (i >= 0)
			mutate_bytes(r, &sd->s[i], b, len);
		break;
	case 8: case 9:		/* a relocation */
		if (sd->nrela) {
			s = &sd->s[sd->rela[below(r, sd->nrela)]];
			mutate_entry(r, s, b, len, rela_fields, 4, 24,
				     sd->symtab >= 0 ? sd->s[sd->symtab].size / 24 : 64);
		}
		break;
	case 10:	/* a __versions entry */
		if (sd->versions >= 0)
			mutate_entry(r, &sd->s[sd->versions], b, len, vers_fields, 3, 64, 64);
		break;
	case 11:	/* .modinfo strings */
		if (sd->modinfo >= 0)
			mutate_bytes(r, &sd->s[sd->modinfo], b, len);
		break;
	case 12:	/* struct module: an 8-byte word */
		if (sd->thismod >= 0 && sd->s[sd->thismod].size >= 8) {
			s = &sd->s[sd->thismod];
			uint64_t at = s->off + 8 * below(r, s->size / 8);

			put(b, len, at, 8, interesting(r, get(b, len, at, 8), 0x1000, 8));
		}
		break;
	case 13:	/* bytes of one section */
		mutate_bytes(r, &sd->s[pick_section(r, sd)], b, len);
		break;
	case 14:	/* bytes anywhere */
		mutate_bytes(r, NULL, b, len);
		break;
	default:	/* a truncation */
		return below(r, 2) ? below(r, len) : len - 1 - below(r, 64 < len ? 64 : len - 1);
	}
	return len;
}

/*
 * Input (seed, index): its bytes in out (at least the largest seed's size);
 * returns its length and the seed module it derives from in *which.
 */
static size_t generate(uint64_t seed, uint64_t index, struct seed *seeds, int nseeds,
		       unsigned char *out, int *which)
{
	struct rng r = { seed * 0x2545f4914f6cdd1dULL ^ (index + 1) * 0x9e3779b97f4a7c15ULL };
	int n, k = below(&r, nseeds);
	const struct seed *sd = &seeds[k];
	size_t len = sd->len;

	next(&r);
	memcpy(out, sd->b, sd->len);
	/* mostly one mutation, sometimes a combination of up to five */
	n = below(&r, 4) ? 1 : 2 + below(&r, 4);
	while (n--)
		len = mutate_once(&r, sd, out, len);
	*which = k;
	return len;
}

/* --- files ---------------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *b = NULL;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !(b = malloc(st.st_size + 1)) ||
	    read(fd, b, st.st_size) != st.st_size) {
		fprintf(stdout, "# fuzz: cannot read %s: %s\n", path, strerror(errno));
		free(b);
		b = NULL;
	} else {
		*len = st.st_size;
	}
	if (fd >= 0)
		close(fd);
	return b;
}

static int load_seeds(char **paths, int n, struct seed *seeds, size_t *maxlen)
{
	if (n < 1 || n > MAX_SEEDS) {
		fprintf(stderr, "modvlab-fuzz: want 1..%d seed modules\n", MAX_SEEDS);
		return -1;
	}
	*maxlen = 0;
	for (int i = 0; i < n; i++) {
		memset(&seeds[i], 0, sizeof(seeds[i]));
		seeds[i].b = slurp(paths[i], &seeds[i].len);
		if (!seeds[i].b || parse_seed(&seeds[i])) {
			fprintf(stderr, "modvlab-fuzz: %s: not a usable ELF64 module\n", paths[i]);
			return -1;
		}
		if (seeds[i].len > *maxlen)
			*maxlen = seeds[i].len;
	}
	return 0;
}

/* --- the guest driver ----------------------------------------------------- */

static const char *const splats[] = {	/* compare/classify.py SPLATS */
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

/* After a load that succeeded: unload every module that is not stuck. */
static void unload_all(unsigned long n)
{
	char line[512], name[64];
	FILE *f = fopen("/proc/modules", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s", name) != 1 || is_stuck(name))
			continue;
		int err = syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;

		printf("L %lu %s %d\n", n, name, err);
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
			unload_all(n);
		} else if (paths) {
			printf("R %lu %d\n", n, err);	/* files: say why */
		}
		if (health_every && (n + 1) % health_every == 0) {
			int err = load(health, hlen);

			if (!err)
				unload_all(n);
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
		"       modvlab-fuzz run SEED FIRST COUNT HEALTH_EVERY HEALTH.ko SEED.ko...\n"
		"       modvlab-fuzz files HEALTH_EVERY HEALTH.ko INPUT.ko...\n");
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
	} else if (argc >= 8 && !strcmp(argv[1], "run")) {
		if (!load_seeds(argv + 7, argc - 7, seeds, &maxlen))
			rc = drive(strtoull(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
				   strtoul(argv[4], NULL, 0), atoi(argv[5]), argv[6],
				   seeds, argc - 7, maxlen, NULL);
	} else if (argc >= 4 && !strcmp(argv[1], "files")) {
		rc = drive(0, 0, argc - 4, atoi(argv[2]), argv[3], NULL, 0, 0, argv + 4);
	} else if (!as_init) {
		return usage();
	}
	if (!as_init)
		return rc;
	sync();
	reboot(RB_AUTOBOOT);	/* -no-reboot: QEMU exits */
	return 0;
}
