/* km_hash: SHA-256 (OpenSSL's libcrypto) for cache keys and image hashes.
 * Strings and numbers go in length-prefixed, so that no two different
 * sequences of fields hash alike ("ab","c" vs "a","bc"). */
#ifndef KM_HASH_H
#define KM_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"

typedef struct km_digest {
    unsigned char b[32];
} km_digest;

#define KM_HEX_LEN 65 /* 64 hex digits and a NUL */

typedef struct km_hasher {
    void *ctx; /* EVP_MD_CTX; NULL once memory ran out */
} km_hasher;

/* A hasher that could not start or go on (libcrypto ran out of memory)
 * stays failed: what is added after is ignored, and km_hasher_final says
 * false, its digest zeros, which no key may use.  Checking final's answer
 * is enough; init's says the same earlier. */
bool km_hasher_init(km_hasher *h);
void km_hasher_bytes(km_hasher *h, const void *data, size_t n);
void km_hasher_str(km_hasher *h, const char *s);   /* length, then bytes */
void km_hasher_u64(km_hasher *h, uint64_t v);
void km_hasher_digest(km_hasher *h, const km_digest *d);
/* The digest into *out, the context freed; false (*out zeros) when the
 * hasher failed. */
bool km_hasher_final(km_hasher *h, km_digest *out);

void km_digest_hex(const km_digest *d, char out[KM_HEX_LEN]);
int km_digest_parse(const char *hex, km_digest *out); /* 0 on success */

/* The SHA-256 of a file's content.  Its failures are KM_EXIT_SYSTEM, an
 * open's or a read's (errno theirs) or memory's (errno ENOMEM). */
int km_hash_file(const char *path, km_digest *out, km_error *err);

/* The same from an open descriptor, read to its end; `shown` names it. */
int km_hash_fd(int fd, const char *shown, km_digest *out, km_error *err);

/* km_hash_file of a file that should be text: *nul_at is the offset of
 * its first NUL byte, or -1 when it has none.  Reading stops at that byte
 * (then *out is not the file's digest): one NUL is enough to know that the
 * file is not text, however large it is. */
int km_hash_text_file(const char *path, km_digest *out, long long *nul_at, km_error *err);

#endif
