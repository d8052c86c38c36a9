/* km_hash: SHA-256 through OpenSSL's EVP interface (km_hash.h). */
#include "km_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHA-256 fetched once.  OpenSSL's configuration file is not read: it
 * cannot change what SHA-256 is, and reading it is a third of a warm
 * build's own time. */
static EVP_MD *sha256(void)
{
    static EVP_MD *md;
    if (!md) {
        OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
        md = EVP_MD_fetch(NULL, "SHA256", NULL);
    }
    return md;
}

bool km_hasher_init(km_hasher *h)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    /* fails only when memory runs out (SHA-256 is always there) */
    if (ctx && EVP_DigestInit_ex(ctx, sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        ctx = NULL;
    }
    h->ctx = ctx;
    return ctx != NULL;
}

void km_hasher_bytes(km_hasher *h, const void *data, size_t n)
{
    if (h->ctx && EVP_DigestUpdate(h->ctx, data, n) != 1) {
        EVP_MD_CTX_free(h->ctx);
        h->ctx = NULL;
    }
}

void km_hasher_u64(km_hasher *h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    km_hasher_bytes(h, b, sizeof b);
}

void km_hasher_str(km_hasher *h, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    km_hasher_u64(h, n);
    km_hasher_bytes(h, s, n);
}

void km_hasher_digest(km_hasher *h, const km_digest *d)
{
    km_hasher_bytes(h, d->b, sizeof d->b);
}

bool km_hasher_final(km_hasher *h, km_digest *out)
{
    unsigned int n = 0;
    bool ok = h->ctx && EVP_DigestFinal_ex(h->ctx, out->b, &n) == 1 && n == sizeof out->b;
    if (!ok)
        memset(out->b, 0, sizeof out->b);
    EVP_MD_CTX_free(h->ctx);
    h->ctx = NULL;
    return ok;
}

void km_digest_hex(const km_digest *d, char out[KM_HEX_LEN])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[d->b[i] >> 4];
        out[2 * i + 1] = digits[d->b[i] & 15];
    }
    out[64] = 0;
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int km_digest_parse(const char *hex, km_digest *out)
{
    for (int i = 0; i < 32; i++) {
        int hi = nibble(hex[2 * i]), lo = hi < 0 ? -1 : nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out->b[i] = (unsigned char)(hi << 4 | lo);
    }
    return hex[64] == 0 ? 0 : -1;
}

/* The SHA-256 of what fd holds, read to its end; with nul_at, stopping at
 * its first NUL byte. */
static int hash_fd(int fd, const char *shown, km_digest *out, long long *nul_at, km_error *err)
{
    if (nul_at)
        *nul_at = -1;
    long long at = 0;
    km_hasher h;
    km_hasher_init(&h);
    unsigned char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", shown);
            (void)km_hasher_final(&h, out); /* frees it; the read's error wins */
            return rc;
        }
        const unsigned char *nul = nul_at ? memchr(buf, 0, (size_t)n) : NULL;
        if (nul) {
            *nul_at = at + (nul - buf);
            km_hasher_bytes(&h, buf, (size_t)(nul - buf));
            break;
        }
        km_hasher_bytes(&h, buf, (size_t)n);
        at += n;
    }
    if (!km_hasher_final(&h, out)) {
        int rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory hashing '%s'", shown);
        errno = ENOMEM; /* km_hash.h: how a caller tells it from a read's failure */
        return rc;
    }
    return KM_OK;
}

int km_hash_fd(int fd, const char *shown, km_digest *out, km_error *err)
{
    return hash_fd(fd, shown, out, NULL, err);
}

static int hash_path(const char *path, km_digest *out, long long *nul_at, km_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", path);
    int rc = hash_fd(fd, path, out, nul_at, err);
    close(fd);
    return rc;
}

int km_hash_file(const char *path, km_digest *out, km_error *err)
{
    return hash_path(path, out, NULL, err);
}

int km_hash_text_file(const char *path, km_digest *out, long long *nul_at, km_error *err)
{
    return hash_path(path, out, nul_at, err);
}
