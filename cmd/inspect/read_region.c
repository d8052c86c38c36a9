/* kmrun read-region: a region's bytes from a run that has stopped, as raw
 * bytes, a hex dump, 32-bit words or JSON. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_opts.h"

/* The order of --format's choices in the table (cmd/cmd.c). */
enum format { FORMAT_RAW, FORMAT_HEX, FORMAT_U32, FORMAT_JSON };

static int parse_bytes(const char *option, const char *text, uint64_t *out)
{
    if (!kmrun_parse_size(text, out, NULL))
        return cmd_usage_error("read-region",
                              "invalid %s %s (expected bytes, or a number with KiB, MiB or GiB)",
                              option, CMD_QUOTED(text));
    return KMRUN_OK;
}

static uint32_t word_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void hex_dump(const unsigned char *p, uint64_t n, uint64_t base)
{
    for (uint64_t i = 0; i < n; i += 16) {
        printf("%08llx:", (unsigned long long)(base + i));
        for (uint64_t k = 0; k < 16; k++) {
            if (k % 2 == 0)
                putchar(' ');
            if (i + k < n)
                printf("%02x", p[i + k]);
            else
                fputs("  ", stdout);
        }
        fputs("  ", stdout);
        for (uint64_t k = 0; k < 16 && i + k < n; k++)
            putchar(p[i + k] >= 0x20 && p[i + k] < 0x7f ? p[i + k] : '.');
        putchar('\n');
    }
}

int cmd_read_region(int argc, char **argv)
{
    const char *run = NULL, *run_dir = NULL;
    int cluster = 0, c;
    enum format format = FORMAT_HEX;
    uint64_t offset = 0, length = 0;
    int has_length = 0;
    cmd_opts opts;
    cmd_opts_start(&opts, "read-region", argc, argv);
    while ((c = cmd_opts_next(&opts)) != CMD_OPTS_END) {
        switch (c) {
        case 'r':
            run = optarg;
            break;
        case 'R':
            run_dir = optarg;
            break;
        case 'c': /* 1|2|3: cmd_opts_next refused anything else */
            cluster = opts.choice + 1;
            break;
        case 'f': /* the table's order: raw|hex|u32|json */
            format = (enum format)opts.choice;
            break;
        case 'o':
            if (parse_bytes("offset", optarg, &offset) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'l':
            if (parse_bytes("length", optarg, &length) != KMRUN_OK)
                return KMRUN_USAGE;
            has_length = 1;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (optind + 1 != argc)
        return cmd_usage_error("read-region", optind == argc ? "missing the region's name"
                                                            : "expected one region name");
    const char *name = argv[optind];
    char *dir = NULL;
    void *data = NULL;
    size_t n = 0;
    int got_cluster = 0;
    kmrun_error *err = NULL;
    int rc = kmrun_run_folder_find(run_dir, run, &dir, &err);
    if (rc == KMRUN_OK)
        rc = kmrun_run_folder_read(dir, name, cluster, &data, &n, &got_cluster, &err);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
    } else if (offset > n) {
        fprintf(stderr, "kmrun: offset %llu is past the end of region %s (%zu bytes)\n",
                (unsigned long long)offset, CMD_QUOTED(name), n);
        rc = KMRUN_USAGE;
    } else if (has_length && length > n - offset) {
        fprintf(stderr,
                "kmrun: offset %llu and length %llu run past the end of region %s (%zu bytes)\n",
                (unsigned long long)offset, (unsigned long long)length, CMD_QUOTED(name), n);
        rc = KMRUN_USAGE;
    } else if (format == FORMAT_U32 && (offset % 4 || (has_length ? length : n - offset) % 4)) {
        fputs("kmrun: --format u32 needs an offset and a length that are multiples of 4\n",
              stderr);
        rc = KMRUN_USAGE;
    } else {
        if (!has_length)
            length = n - offset;
        const unsigned char *p = (const unsigned char *)data + offset;
        if (format == FORMAT_RAW) {
            fwrite(p, 1, length, stdout);
        } else if (format == FORMAT_HEX) {
            hex_dump(p, length, offset);
        } else if (format == FORMAT_U32) {
            for (uint64_t i = 0; i < length; i += 4)
                printf("%u\n", word_at(p + i));
        } else {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "run", dir);
            cJSON_AddStringToObject(o, "name", name);
            cJSON_AddNumberToObject(o, "cluster", got_cluster);
            cJSON_AddNumberToObject(o, "offset", (double)offset);
            cJSON_AddNumberToObject(o, "length", (double)length);
            if (offset % 4 == 0 && length % 4 == 0) {
                cJSON *words = cJSON_AddArrayToObject(o, "u32");
                for (uint64_t i = 0; i < length; i += 4)
                    cJSON_AddItemToArray(words, cJSON_CreateNumber(word_at(p + i)));
            } else {
                char *hex = malloc(length * 2 + 1);
                for (uint64_t i = 0; i < length; i++)
                    sprintf(hex + 2 * i, "%02x", p[i]);
                hex[length * 2] = 0;
                cJSON_AddStringToObject(o, "hex", hex);
                free(hex);
            }
            char *text = cJSON_Print(o);
            printf("%s\n", text);
            free(text);
            cJSON_Delete(o);
        }
    }
    free(data);
    free(dir);
    return rc;
}
