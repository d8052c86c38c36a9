/* remote_envelope: the remote's values, packed and checked (km_remote.h).
 *
 *   KMRUN-REMOTE 1\n
 *   {"key":HEX,"kind":K,"compression":"zstd"|"none","bytes":N,
 *    "stored_bytes":M,"sha256":HEX,"files":[{"name","bytes","sha256"}],
 *    "meta":{...}}\n
 *   M bytes: the payload (the files one after the other), compressed
 *
 * Unpacking trusts nothing: the header's form, the key and kind it claims,
 * the stored length, the compression (one zstd frame whose content size is
 * N, at most KM_REMOTE_MAX_VALUE), the payload's SHA-256 and each file's
 * name, size and SHA-256. */
#include "km_remote.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/sha.h>

#include "km_json.h"

#ifdef KM_HAVE_ZSTD
#include <zstd.h>
#endif

#define MAGIC "KMRUN-REMOTE 1\n"

const char *km_remote_compression(void)
{
#ifdef KM_HAVE_ZSTD
    return "zstd";
#else
    return "none";
#endif
}

#define HEX_LEN (2 * SHA256_DIGEST_LENGTH + 1)

static void hex_of(const void *data, size_t n, char hex[HEX_LEN])
{
    unsigned char d[SHA256_DIGEST_LENGTH];
    SHA256(data, n, d);
    for (size_t i = 0; i < sizeof d; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

char *km_remote_pack(const char *kind, const char *key, const km_remote_file *files,
                     size_t nfiles, const cJSON *meta, size_t *len)
{
    size_t raw_len = 0;
    for (size_t i = 0; i < nfiles; i++)
        raw_len += files[i].bytes;
    char *raw = malloc(raw_len ? raw_len : 1);
    if (!raw)
        return NULL;
    /* the header whole or no envelope: one short of a field is refused */
    km_json_mark m = km_json_watch();
    cJSON *head = cJSON_CreateObject(), *list = cJSON_CreateArray();
    size_t at = 0;
    for (size_t i = 0; i < nfiles; i++) {
        char hex[HEX_LEN];
        memcpy(raw + at, files[i].data, files[i].bytes);
        at += files[i].bytes;
        hex_of(files[i].data, files[i].bytes, hex);
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "name", files[i].name);
        cJSON_AddNumberToObject(f, "bytes", (double)files[i].bytes);
        cJSON_AddStringToObject(f, "sha256", hex);
        if (!cJSON_AddItemToArray(list, f))
            cJSON_Delete(f);
    }
    char *stored = raw;
    size_t stored_len = raw_len;
    const char *compression = "none";
#ifdef KM_HAVE_ZSTD
    size_t bound = ZSTD_compressBound(raw_len);
    char *z = malloc(bound ? bound : 1);
    size_t zn = z ? ZSTD_compress(z, bound, raw, raw_len, 3) : 0;
    if (z && !ZSTD_isError(zn)) {
        stored = z;
        stored_len = zn;
        compression = "zstd";
    } else {
        free(z);
    }
#endif
    char hex[HEX_LEN];
    hex_of(raw, raw_len, hex);
    cJSON_AddStringToObject(head, "key", key);
    cJSON_AddStringToObject(head, "kind", kind);
    cJSON_AddStringToObject(head, "compression", compression);
    cJSON_AddNumberToObject(head, "bytes", (double)raw_len);
    cJSON_AddNumberToObject(head, "stored_bytes", (double)stored_len);
    cJSON_AddStringToObject(head, "sha256", hex);
    if (!cJSON_AddItemToObject(head, "files", list))
        cJSON_Delete(list);
    if (meta) {
        cJSON *copy = cJSON_Duplicate(meta, 1);
        if (!cJSON_AddItemToObject(head, "meta", copy))
            cJSON_Delete(copy);
    }
    char *line = km_json_ran_out(m) ? NULL : cJSON_PrintUnformatted(head);
    cJSON_Delete(head);
    char *out = NULL;
    if (line) {
        size_t ml = strlen(MAGIC), ll = strlen(line);
        *len = ml + ll + 1 + stored_len;
        out = malloc(*len);
        if (out) {
            memcpy(out, MAGIC, ml);
            memcpy(out + ml, line, ll);
            out[ml + ll] = '\n';
            memcpy(out + ml + ll + 1, stored, stored_len);
        }
    }
    free(line);
    if (stored != raw)
        free(stored);
    free(raw);
    return out;
}

void km_remote_unpacked_free(km_remote_unpacked *u)
{
    free(u->files);
    cJSON_Delete(u->meta);
    free(u->payload);
    memset(u, 0, sizeof *u);
}

static int bad(km_remote_unpacked *u, cJSON *head, char *why, size_t n, const char *fmt,
               const char *arg)
{
    snprintf(why, n, fmt, arg);
    cJSON_Delete(head);
    km_remote_unpacked_free(u);
    return KM_REMOTE_ERROR;
}

static bool is_size(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= KM_REMOTE_MAX_VALUE &&
           v->valuedouble == (double)(size_t)v->valuedouble;
}

int km_remote_unpack(const char *value, size_t len, const char *kind, const char *key,
                     km_remote_unpacked *u, char *why, size_t n)
{
    memset(u, 0, sizeof *u);
    size_t ml = strlen(MAGIC);
    if (len < ml || memcmp(value, MAGIC, ml) != 0)
        return bad(u, NULL, why, n, "%snot a kmrun value (no KMRUN-REMOTE 1 header)", "");
    const char *nl = memchr(value + ml, '\n', len - ml);
    if (!nl || nl - (value + ml) > 1 << 20)
        return bad(u, NULL, why, n, "%sits header line is cut or too long", "");
    char *line = strndup(value + ml, (size_t)(nl - (value + ml)));
    km_json_mark m = km_json_watch();
    cJSON *head = line ? cJSON_Parse(line) : NULL;
    free(line);
    if (!head && (!line || km_json_ran_out(m))) /* says nothing of the value */
        return bad(u, head, why, n, "%sout of memory", "");
    if (!head)
        return bad(u, head, why, n, "%sits header is not JSON", "");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(head, "key"),
                *kd = cJSON_GetObjectItemCaseSensitive(head, "kind"),
                *comp = cJSON_GetObjectItemCaseSensitive(head, "compression"),
                *bytes = cJSON_GetObjectItemCaseSensitive(head, "bytes"),
                *sbytes = cJSON_GetObjectItemCaseSensitive(head, "stored_bytes"),
                *sha = cJSON_GetObjectItemCaseSensitive(head, "sha256"),
                *files = cJSON_GetObjectItemCaseSensitive(head, "files");
    if (!cJSON_IsString(k) || !cJSON_IsString(kd) || !cJSON_IsString(comp) || !is_size(bytes) ||
        !is_size(sbytes) || !cJSON_IsString(sha) || !cJSON_IsArray(files))
        return bad(u, head, why, n, "%sits header is damaged", "");
    if (strcmp(k->valuestring, key) != 0)
        return bad(u, head, why, n, "it claims another key, %.16s...", k->valuestring);
    if (strcmp(kd->valuestring, kind) != 0)
        return bad(u, head, why, n, "it is a %.32s, not what was asked for", kd->valuestring);
    size_t stored_len = len - (size_t)(nl + 1 - value);
    if ((size_t)sbytes->valuedouble != stored_len)
        return bad(u, head, why, n, "%sits length is not what its header says (truncated or "
                   "padded)", "");
    size_t raw_len = (size_t)bytes->valuedouble;
    const char *stored = nl + 1;
    u->payload = malloc(raw_len ? raw_len : 1);
    if (!u->payload)
        return bad(u, head, why, n, "%sout of memory", "");
    if (strcmp(comp->valuestring, "none") == 0) {
        if (stored_len != raw_len)
            return bad(u, head, why, n, "%sits lengths disagree", "");
        memcpy(u->payload, stored, raw_len);
    } else if (strcmp(comp->valuestring, "zstd") == 0) {
#ifdef KM_HAVE_ZSTD
        unsigned long long content = ZSTD_getFrameContentSize(stored, stored_len);
        if (content != raw_len)
            return bad(u, head, why, n, "%sits zstd frame is damaged or not its length", "");
        size_t got = ZSTD_decompress(u->payload, raw_len ? raw_len : 1, stored, stored_len);
        if (ZSTD_isError(got) || got != raw_len)
            return bad(u, head, why, n, "%sit does not decompress", "");
#else
        return bad(u, head, why, n, "%sit is compressed with zstd, which this kmrun was built "
                   "without", "");
#endif
    } else {
        return bad(u, head, why, n, "unknown compression '%.32s'", comp->valuestring);
    }
    char hex[HEX_LEN];
    hex_of(u->payload, raw_len, hex);
    if (strcmp(hex, sha->valuestring) != 0)
        return bad(u, head, why, n, "%sits payload does not match its sha256", "");
    size_t nf = (size_t)cJSON_GetArraySize(files), at = 0;
    u->files = calloc(nf ? nf : 1, sizeof *u->files);
    if (!u->files)
        return bad(u, head, why, n, "%sout of memory", "");
    const cJSON *f;
    cJSON_ArrayForEach(f, files) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "name"),
                    *fb = cJSON_GetObjectItemCaseSensitive(f, "bytes"),
                    *fs = cJSON_GetObjectItemCaseSensitive(f, "sha256");
        if (!cJSON_IsString(name) || !*name->valuestring || strchr(name->valuestring, '/') ||
            name->valuestring[0] == '.' || !is_size(fb) || !cJSON_IsString(fs) ||
            (size_t)fb->valuedouble > raw_len - at)
            return bad(u, head, why, n, "%sits list of files is damaged", "");
        size_t fl = (size_t)fb->valuedouble;
        hex_of(u->payload + at, fl, hex);
        if (strcmp(hex, fs->valuestring) != 0)
            return bad(u, head, why, n, "its file '%.64s' does not match its sha256",
                       name->valuestring);
        u->files[u->nfiles++] = (km_remote_file){name->valuestring, u->payload + at, fl};
        at += fl;
    }
    if (at != raw_len)
        return bad(u, head, why, n, "%sits files do not fill its payload", "");
    /* The names point into head: keep it as meta's parent. */
    u->meta = head;
    return KM_OK;
}
