/* km_remote: the Redis client of the cache's remote storage (km_remote.h),
 * through hiredis. */
#include "km_remote.h"

#include <ctype.h>
#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "km_fs.h"
#include "ks_text.h"

#define DEFAULT_CONNECT_MS 100
#define DEFAULT_OPERATION_MS 10000

struct km_remote {
    char *shown;           /* the URL without its password */
    char *host, *path;     /* TCP host, or the socket's path */
    int port, db;
    char *user, *password; /* NULL: no AUTH */
    bool read_only;
    long connect_ms, operation_ms;
    redisContext *ctx;
    unsigned failures;
    bool off;
    void (*note)(const char *line, void *ctx);
    void *note_ctx;
};

void km_remote_note(km_remote *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    km_vnote(r->note, r->note_ctx, fmt, ap);
    va_end(ap);
}

/* ---- where it is -------------------------------------------------------- */

/* The value of the last "remote_storage = ..." line of a config file
 * (allocated), or NULL when the file or the line is not there, or (*oom)
 * when memory ran out reading it. */
static char *config_value(const char *path, bool *oom)
{
    char *text = NULL;
    if (km_read_file(path, &text, NULL, NULL) != KM_OK) {
        *oom = errno == ENOMEM;
        return NULL;
    }
    char *found = NULL, *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        while (isspace((unsigned char)*line))
            line++;
        if (*line == '#' || strncmp(line, "remote_storage", 14) != 0)
            continue;
        char *v = line + 14;
        while (*v == ' ' || *v == '\t')
            v++;
        if (*v != '=')
            continue;
        v++;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strlen(v);
        while (n && isspace((unsigned char)v[n - 1]))
            v[--n] = 0;
        free(found);
        if (!(found = strdup(v))) {
            *oom = true;
            break;
        }
    }
    free(text);
    return found;
}

char *km_remote_configured(const char *explicit_url, const char **from)
{
    static char where[4096];
    const char *dummy;
    if (!from)
        from = &dummy;
    char *url = NULL;
    bool oom = false;
    const char *env = getenv("KMRUN_REMOTE_STORAGE");
    if (explicit_url) {
        *from = "--remote-storage";
        oom = !(url = strdup(explicit_url));
    } else if (env) {
        *from = "KMRUN_REMOTE_STORAGE";
        oom = !(url = strdup(env));
    } else {
        const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
        char user[4096] = "";
        if (xdg && *xdg)
            snprintf(user, sizeof user, "%s/kmrun/config", xdg);
        else if (home && *home)
            snprintf(user, sizeof user, "%s/.config/kmrun/config", home);
        const char *files[] = {".kmrun/config", user};
        for (size_t i = 0; !url && !oom && i < 2; i++) {
            if (*files[i] && (url = config_value(files[i], &oom))) {
                snprintf(where, sizeof where, "%s", files[i]);
                *from = where;
            }
        }
    }
    if (url && !*url) {
        free(url); /* empty: off */
        url = NULL;
    }
    if (!url)
        errno = oom ? ENOMEM : 0;
    return url;
}

/* ---- the URL --------------------------------------------------------------- */

static int bad_url(km_error *err, const char *url, const char *why)
{
    return km_fail(err, KM_EXIT_USAGE,
                   "invalid remote storage '%s': %s (expected redis://[USER:PASSWORD@]HOST"
                   "[:PORT][/DB] or redis+unix:///PATH, then |read-only, |connect-timeout=MS, "
                   "|operation-timeout=MS)",
                   url, why);
}

static bool parse_ms(const char *text, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < 1 || v > 3600 * 1000)
        return false;
    *out = v;
    return true;
}

static bool parse_int(const char *text, size_t len, long lo, long hi, int *out)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, text, len);
    buf[len] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    if (*end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* Decodes %XX in place (a password may hold '@' or ':'). */
static void percent_decode(char *s)
{
    char *w = s;
    for (; *s; s++) {
        if (s[0] == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
            char hex[3] = {s[1], s[2], 0};
            *w++ = (char)strtol(hex, NULL, 16);
            s += 2;
        } else {
            *w++ = *s;
        }
    }
    *w = 0;
}

static int no_memory(km_error *err)
{
    return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the remote storage's URL");
}

/* What r holds is freed by km_remote_close, on failure too. */
static int parse_location(km_remote *r, const char *url, char *loc, km_error *err)
{
    r->port = 6379;
    if (strncmp(loc, "redis+unix://", 13) == 0) {
        char *p = loc + 13, *q = strchr(p, '?');
        if (q) {
            *q++ = 0;
            if (strncmp(q, "db=", 3) != 0 || !parse_int(q + 3, strlen(q + 3), 0, 1 << 20, &r->db))
                return bad_url(err, url, "a socket's only parameter is db=N");
        }
        if (*p != '/')
            return bad_url(err, url, "a socket's path must be absolute");
        r->path = strdup(p);
        if (!r->path || !(r->shown = ks_strf("redis+unix://%s", p)))
            return no_memory(err);
        return KM_OK;
    }
    if (strncmp(loc, "redis://", 8) != 0)
        return bad_url(err, url, "not a redis:// or redis+unix:// URL");
    char *p = loc + 8, *at = strrchr(p, '@');
    if (at) {
        *at = 0;
        char *colon = strchr(p, ':');
        if (colon) {
            *colon = 0;
            r->user = *p ? strdup(p) : NULL;
            r->password = strdup(colon + 1);
        } else {
            r->password = strdup(p);
        }
        if (!r->password || (*p && colon && !r->user))
            return no_memory(err);
        if (r->user)
            percent_decode(r->user);
        percent_decode(r->password);
        p = at + 1;
    }
    char *slash = strchr(p, '/');
    if (slash) {
        *slash = 0;
        if (slash[1] && !parse_int(slash + 1, strlen(slash + 1), 0, 1 << 20, &r->db))
            return bad_url(err, url, "the database must be a number");
    }
    char *close = *p == '[' ? strchr(p, ']') : NULL; /* [::1]:6380 */
    if (*p == '[' && !close)
        return bad_url(err, url, "an unclosed '['");
    char *colon = strrchr(close ? close : p, ':');
    if (colon) {
        if (!parse_int(colon + 1, strlen(colon + 1), 1, 65535, &r->port))
            return bad_url(err, url, "the port must be 1 to 65535");
        *colon = 0;
    }
    if (close) {
        if (close[1])
            return bad_url(err, url, "text after ']' that is not a port");
        *close = 0;
        p++;
    }
    if (!*p)
        return bad_url(err, url, "no host");
    r->host = strdup(p);
    if (!r->host ||
        !(r->shown = ks_strf("redis://%s%s%s:%d/%d", r->password ? (r->user ? r->user : "") : "",
                             r->password ? ":***@" : "", r->host, r->port, r->db)))
        return no_memory(err);
    return KM_OK;
}

int km_remote_open(const char *url, km_remote **out, km_error *err)
{
    *out = NULL;
    km_remote *r = calloc(1, sizeof *r);
    char *copy = strdup(url);
    if (!r || !copy) {
        free(r);
        free(copy);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
    }
    r->connect_ms = DEFAULT_CONNECT_MS;
    r->operation_ms = DEFAULT_OPERATION_MS;
    char *save = NULL, *loc = strtok_r(copy, "|", &save);
    int rc = loc ? parse_location(r, url, loc, err) : bad_url(err, url, "empty");
    for (char *a = NULL; rc == KM_OK && (a = strtok_r(NULL, "|", &save));) {
        if (strcmp(a, "read-only") == 0 || strcmp(a, "read-only=true") == 0)
            r->read_only = true;
        else if (strcmp(a, "read-only=false") == 0)
            r->read_only = false;
        else if (strncmp(a, "connect-timeout=", 16) == 0) {
            if (!parse_ms(a + 16, &r->connect_ms))
                rc = bad_url(err, url, "connect-timeout must be 1 to 3600000 milliseconds");
        } else if (strncmp(a, "operation-timeout=", 18) == 0) {
            if (!parse_ms(a + 18, &r->operation_ms))
                rc = bad_url(err, url, "operation-timeout must be 1 to 3600000 milliseconds");
        } else {
            char why[160];
            snprintf(why, sizeof why, "unknown attribute '%.100s'", a);
            rc = bad_url(err, url, why);
        }
    }
    free(copy);
    if (rc != KM_OK) {
        km_remote_close(r);
        return rc;
    }
    *out = r;
    return KM_OK;
}

static void disconnect(km_remote *r)
{
    if (r->ctx)
        redisFree(r->ctx);
    r->ctx = NULL;
}

void km_remote_close(km_remote *r)
{
    if (!r)
        return;
    disconnect(r);
    free(r->shown);
    free(r->host);
    free(r->path);
    free(r->user);
    free(r->password);
    free(r);
}

void km_remote_set_note(km_remote *r, void (*note)(const char *line, void *ctx), void *ctx)
{
    r->note = note;
    r->note_ctx = ctx;
}

const char *km_remote_shown(const km_remote *r)
{
    return r->shown;
}

bool km_remote_read_only(const km_remote *r)
{
    return r->read_only;
}

bool km_remote_off(const km_remote *r)
{
    return r->off;
}

unsigned km_remote_failures(const km_remote *r)
{
    return r->failures;
}

/* ---- talking to it ---------------------------------------------------------- */

static struct timeval tv_of(long ms)
{
    return (struct timeval){.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
}

/* A failure: counted, noted; the connection dropped (its state is
 * unknown); off after a timeout or KM_REMOTE_MAX_FAILURES. */
static int failed(km_remote *r, const char *what, const char *why, bool timeout)
{
    r->failures++;
    disconnect(r);
    if (timeout || r->failures >= KM_REMOTE_MAX_FAILURES) {
        r->off = true;
        km_remote_note(r, "remote storage %s: %s failed (%s); not asking it again in this "
                       "command (%u failure%s)",
                       r->shown, what, why, r->failures, r->failures == 1 ? "" : "s");
    } else {
        km_remote_note(r, "remote storage %s: %s failed (%s)", r->shown, what, why);
    }
    return KM_REMOTE_ERROR;
}

static bool is_timeout(const redisContext *c)
{
    return c->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK ||
                                      errno == ETIMEDOUT || errno == EINPROGRESS);
}

/* A reply that is an error, or none: a failure.  Returns the reply or NULL. */
static redisReply *command(km_remote *r, const char *what, int argc, const char **argv,
                           const size_t *lens)
{
    redisReply *reply = redisCommandArgv(r->ctx, argc, argv, lens);
    if (!reply) {
        char why[256];
        bool t = is_timeout(r->ctx);
        if (t)
            snprintf(why, sizeof why, "no answer within %ld ms (operation-timeout)",
                     r->operation_ms);
        else
            snprintf(why, sizeof why, "%s", r->ctx->errstr);
        failed(r, what, why, t);
        return NULL;
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        char why[256];
        snprintf(why, sizeof why, "the server said '%.200s'", reply->str);
        freeReplyObject(reply);
        failed(r, what, why, false);
        return NULL;
    }
    return reply;
}

/* Connected (and authenticated, the database selected), or false. */
static bool connected(km_remote *r)
{
    if (r->off)
        return false;
    if (r->ctx)
        return true;
    struct timeval ct = tv_of(r->connect_ms), ot = tv_of(r->operation_ms);
    r->ctx = r->path ? redisConnectUnixWithTimeout(r->path, ct)
                     : redisConnectWithTimeout(r->host, r->port, ct);
    if (!r->ctx) {
        failed(r, "connecting", "out of memory", false);
        return false;
    }
    if (r->ctx->err) {
        char why[256];
        bool t = is_timeout(r->ctx) || strstr(r->ctx->errstr, "timed out");
        if (t)
            snprintf(why, sizeof why, "no connection within %ld ms (connect-timeout)",
                     r->connect_ms);
        else
            snprintf(why, sizeof why, "%s", r->ctx->errstr);
        failed(r, "connecting", why, t);
        return false;
    }
    redisSetTimeout(r->ctx, ot);
    if (r->password) {
        const char *argv[3] = {"AUTH", r->user ? r->user : r->password, r->password};
        size_t lens[3] = {4, strlen(argv[1]), strlen(r->password)};
        redisReply *rep = command(r, "AUTH", r->user ? 3 : 2, argv, lens);
        if (!rep)
            return false;
        freeReplyObject(rep);
    }
    if (r->db) {
        char db[16];
        snprintf(db, sizeof db, "%d", r->db);
        const char *argv[2] = {"SELECT", db};
        size_t lens[2] = {6, strlen(db)};
        redisReply *rep = command(r, "SELECT", 2, argv, lens);
        if (!rep)
            return false;
        freeReplyObject(rep);
    }
    return true;
}

int km_remote_get(km_remote *r, const char *key, char **value, size_t *len)
{
    *value = NULL;
    *len = 0;
    unsigned before = r->failures;
    if (!connected(r))
        return r->failures > before ? KM_REMOTE_ERROR : KM_REMOTE_MISS;
    const char *argv[2] = {"GET", key};
    size_t lens[2] = {3, strlen(key)};
    redisReply *rep = command(r, "GET", 2, argv, lens);
    if (!rep)
        return KM_REMOTE_ERROR;
    int rc;
    if (rep->type == REDIS_REPLY_NIL) {
        rc = KM_REMOTE_MISS;
    } else if (rep->type != REDIS_REPLY_STRING) {
        km_remote_note(r, "remote storage %s: GET %s: not a string value", r->shown, key);
        rc = KM_REMOTE_ERROR;
    } else if ((size_t)rep->len > KM_REMOTE_MAX_VALUE) {
        km_remote_note(r, "remote storage %s: GET %s: %zu bytes, more than any value of ours",
                       r->shown, key, (size_t)rep->len);
        rc = KM_REMOTE_ERROR;
    } else if (!(*value = malloc((size_t)rep->len + 1))) {
        rc = KM_REMOTE_ERROR;
    } else {
        memcpy(*value, rep->str, (size_t)rep->len);
        (*value)[rep->len] = 0;
        *len = (size_t)rep->len;
        rc = KM_OK;
    }
    freeReplyObject(rep);
    return rc;
}

int km_remote_set(km_remote *r, const char *key, const void *value, size_t len)
{
    if (r->read_only)
        return KM_OK;
    unsigned before = r->failures;
    if (!connected(r))
        return r->failures > before ? KM_REMOTE_ERROR : KM_REMOTE_MISS;
    const char *argv[3] = {"SET", key, value};
    size_t lens[3] = {3, strlen(key), len};
    redisReply *rep = command(r, "SET", 3, argv, lens);
    if (!rep)
        return KM_REMOTE_ERROR;
    freeReplyObject(rep);
    return KM_OK;
}
