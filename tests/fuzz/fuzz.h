/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the libFuzzer targets: a cursor over the input and a check that
 * aborts (so libFuzzer records the input), whatever NDEBUG says. */
#ifndef UVCUSE_FUZZ_H
#define UVCUSE_FUZZ_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
				#cond);                                                     \
			abort();                                                            \
		}                                                                           \
	} while (0)

/* A return that is 0 or a negative errno. */
#define FUZZ_CHECK_ERRNO(r) FUZZ_CHECK((r) == 0 || ((r) < 0 && (r) > -4096))

struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);
	return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);
	return lo | (uint32_t)fuzz_u16(in) << 16;
}

/* Up to len bytes of the input (fewer at its end): returns how many. */
static inline size_t fuzz_take(struct fuzz_in *in, size_t len, const uint8_t **out)
{
	if (len > in->n)
		len = in->n;
	*out = in->p;
	in->p += len;
	in->n -= len;
	return len;
}

/* len bytes into out, zeros past the input's end. */
static inline void fuzz_fill(struct fuzz_in *in, void *out, size_t len)
{
	const uint8_t *src;
	if (!len)
		return; /* out may be NULL then */
	size_t got = fuzz_take(in, len, &src);
	if (got)
		memcpy(out, src, got);
	memset((uint8_t *)out + got, 0, len - got);
}

/* A heap copy of exactly len bytes, so ASan sees any read past them
 * (malloc(0) is given one byte nobody may read). */
static inline uint8_t *fuzz_dup(const uint8_t *data, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	if (!p)
		abort();
	if (len)
		memcpy(p, data, len);
	return p;
}

#endif
