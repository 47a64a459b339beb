// SPDX-License-Identifier: GPL-2.0
/*
 * The mutator of modvlab-fuzz: a splitmix64 stream seeded from (seed, index)
 * picks a seed module and one to five mutations of its ELF header, section
 * headers, symbols, strings, relocations, __versions, .modinfo, struct module
 * or raw bytes, maybe a truncation. Offsets come from the unmutated seed, so
 * mutations compose and (seed, index) always gives the same bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mutate.h"

/* --- the seeded stream ---------------------------------------------------- */

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
size_t generate(uint64_t seed, uint64_t index, struct seed *seeds, int nseeds,
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

unsigned char *slurp(const char *path, size_t *len)
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

int load_seeds(char **paths, int n, struct seed *seeds, size_t *maxlen)
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
