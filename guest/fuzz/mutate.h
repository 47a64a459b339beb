/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mutator of modvlab-fuzz (mutate.c): input (seed, index) made from the
 * seed modules, the same bytes on the host and in the guest.
 */
#ifndef MODVLAB_FUZZ_MUTATE_H
#define MODVLAB_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>

#define MAX_SEEDS 16

struct rng { uint64_t s; };

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

/* a whole file, malloc()ed; NULL (said on stdout) if unreadable */
unsigned char *slurp(const char *path, size_t *len);
/* read and parse the seed modules; -1 (said on stderr) if one is unusable */
int load_seeds(char **paths, int n, struct seed *seeds, size_t *maxlen);
/* input (seed, index) into out (the largest seed's size); its length */
size_t generate(uint64_t seed, uint64_t index, struct seed *seeds, int nseeds,
		unsigned char *out, int *which);

#endif
