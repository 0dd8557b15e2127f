// The version-neutral libgpiod shim declared in cgpiod.h.
//
// libgpiod 1.6: docs in Debian's /usr/include/gpiod.h (gpiod_line_request, gpiod_line_event_wait,
// gpiod_line_event_read_multiple). libgpiod 2.x: /usr/include/gpiod.h of libgpiod-dev 2.1.3
// (line settings, line config, request config, gpiod_chip_request_lines, edge event buffers).
#define _GNU_SOURCE
#include "cgpiod.h"

#include <gpiod.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define PLUMB_GPIOD_V1 1
#else
#define PLUMB_GPIOD_V1 0
#endif

enum { EVENT_CAPACITY = 64 };

struct plumb_gpio_line {
    unsigned int offset;
#if PLUMB_GPIOD_V1
    struct gpiod_chip *chip;
    struct gpiod_line *line;
    struct gpiod_line_event events[EVENT_CAPACITY];
#else
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *buffer;
#endif
};

static void copy_text(char *dst, size_t size, const char *src) {
    if (size == 0) return;
    snprintf(dst, size, "%s", src ? src : "");
}

// ---- chips -----------------------------------------------------------------------------------

static void chip_describe(struct gpiod_chip *chip, plumb_gpio_result *result) {
#if PLUMB_GPIOD_V1
    copy_text(result->chip_name, sizeof result->chip_name, gpiod_chip_name(chip));
    copy_text(result->chip_label, sizeof result->chip_label, gpiod_chip_label(chip));
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) return;
    copy_text(result->chip_name, sizeof result->chip_name, gpiod_chip_info_get_name(info));
    copy_text(result->chip_label, sizeof result->chip_label, gpiod_chip_info_get_label(info));
    gpiod_chip_info_free(info);
#endif
}

static const char *chip_label(struct gpiod_chip *chip, char *buffer, size_t size) {
#if PLUMB_GPIOD_V1
    copy_text(buffer, size, gpiod_chip_label(chip));
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    copy_text(buffer, size, info ? gpiod_chip_info_get_label(info) : "");
    if (info) gpiod_chip_info_free(info);
#endif
    return buffer;
}

static unsigned int chip_num_lines(struct gpiod_chip *chip) {
#if PLUMB_GPIOD_V1
    return gpiod_chip_num_lines(chip);
#else
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    unsigned int n = info ? (unsigned int)gpiod_chip_info_get_num_lines(info) : 0;
    if (info) gpiod_chip_info_free(info);
    return n;
#endif
}

/// The offset of the line named `name` on `chip`, or -1 (errno ENOENT).
static int chip_find_line(struct gpiod_chip *chip, const char *name) {
#if PLUMB_GPIOD_V1
    struct gpiod_line *line = gpiod_chip_find_line(chip, name);
    if (!line) return -1;
    return (int)gpiod_line_offset(line);
#else
    return gpiod_chip_get_line_offset_from_name(chip, name);
#endif
}

static int compare_chip_numbers(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/// The numbers N of every /dev/gpiochipN, in order; returns the count (at most `max`).
static int list_chips(int *numbers, int max) {
    DIR *dir = opendir("/dev");
    if (!dir) return 0;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL && count < max) {
        int n;
        char tail;
        if (sscanf(entry->d_name, "gpiochip%d%c", &n, &tail) == 1) numbers[count++] = n;
    }
    closedir(dir);
    qsort(numbers, (size_t)count, sizeof numbers[0], compare_chip_numbers);
    return count;
}

static struct gpiod_chip *open_chip_number(int n) {
    char path[64];
    snprintf(path, sizeof path, "/dev/gpiochip%d", n);
    return gpiod_chip_open(path);
}

static bool all_digits(const char *s) {
    if (!*s) return false;
    for (; *s; s++) if (*s < '0' || *s > '9') return false;
    return true;
}

/// Opens the chip `spec` names (path, name, number or label), or searches every chip for
/// `line_name` when `spec` is empty. Sets `*offset` when found by line name.
static struct gpiod_chip *open_chip(const char *spec, const char *line_name, int *found_offset) {
    *found_offset = -1;
    if (spec && *spec) {
        if (spec[0] == '/') return gpiod_chip_open(spec);
        if (all_digits(spec)) return open_chip_number(atoi(spec));
        if (strchr(spec, '/') == NULL) {
            char path[128];
            snprintf(path, sizeof path, "/dev/%s", spec);
            struct gpiod_chip *chip = gpiod_chip_open(path);
            if (chip || errno != ENOENT) return chip;
        }
    } else if (!line_name || !*line_name) {
        errno = EINVAL;
        return NULL;
    }
    // By label, or by line name across all chips.
    int numbers[256];
    int count = list_chips(numbers, 256);
    int saved = ENOENT;
    for (int i = 0; i < count; i++) {
        struct gpiod_chip *chip = open_chip_number(numbers[i]);
        if (!chip) { saved = errno; continue; }
        if (spec && *spec) {
            char label[64];
            if (strcmp(chip_label(chip, label, sizeof label), spec) == 0) return chip;
        } else {
            int offset = chip_find_line(chip, line_name);
            if (offset >= 0) { *found_offset = offset; return chip; }
        }
        gpiod_chip_close(chip);
    }
    errno = saved;
    return NULL;
}

static plumb_gpio_status status_for_errno(int error_number, plumb_gpio_status fallback) {
    switch (error_number) {
    case EBUSY: return PLUMB_GPIO_LINE_BUSY;
    case EACCES: case EPERM: return PLUMB_GPIO_PERMISSION;
    default: return fallback;
    }
}

// ---- request ---------------------------------------------------------------------------------

#if PLUMB_GPIOD_V1
static int request_v1(struct plumb_gpio_line *handle, const plumb_gpio_config *config, plumb_gpio_result *result) {
    struct gpiod_line *line = gpiod_chip_get_line(handle->chip, handle->offset);
    if (!line) return -1;
    copy_text(result->line_name, sizeof result->line_name, gpiod_line_name(line));
    struct gpiod_line_request_config rc;
    memset(&rc, 0, sizeof rc);
    rc.consumer = config->consumer ? config->consumer : "plumb";
    if (config->output) {
        rc.request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT;
    } else {
        switch (config->edge) {
        case PLUMB_GPIO_EDGE_RISING: rc.request_type = GPIOD_LINE_REQUEST_EVENT_RISING_EDGE; break;
        case PLUMB_GPIO_EDGE_FALLING: rc.request_type = GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE; break;
        case PLUMB_GPIO_EDGE_BOTH: rc.request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES; break;
        default: rc.request_type = GPIOD_LINE_REQUEST_DIRECTION_INPUT; break;
        }
    }
    if (config->active_low) rc.flags |= GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW;
    switch (config->bias) {
    case PLUMB_GPIO_BIAS_DISABLED: rc.flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case PLUMB_GPIO_BIAS_PULL_UP: rc.flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case PLUMB_GPIO_BIAS_PULL_DOWN: rc.flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    default: break;
    }
    if (gpiod_line_request(line, &rc, config->initial_value ? 1 : 0) < 0) {
        int saved = errno;
        if (saved == EBUSY && gpiod_line_update(line) == 0)
            copy_text(result->consumer, sizeof result->consumer, gpiod_line_consumer(line));
        errno = saved;
        return -1;
    }
    handle->line = line;
    return 0;
}
#else
static int request_v2(struct plumb_gpio_line *handle, struct gpiod_chip *chip, const plumb_gpio_config *config,
                      plumb_gpio_result *result) {
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, handle->offset);
    if (info) {
        copy_text(result->line_name, sizeof result->line_name, gpiod_line_info_get_name(info));
        gpiod_line_info_free(info);
    }
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    int rc = -1;
    if (!settings || !line_config || !request_config) goto done;
    if (config->output) {
        if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) < 0) goto done;
        if (gpiod_line_settings_set_output_value(settings, config->initial_value ? GPIOD_LINE_VALUE_ACTIVE
                                                                                  : GPIOD_LINE_VALUE_INACTIVE) < 0) goto done;
    } else {
        if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) < 0) goto done;
        enum gpiod_line_edge edge = GPIOD_LINE_EDGE_NONE;
        switch (config->edge) {
        case PLUMB_GPIO_EDGE_RISING: edge = GPIOD_LINE_EDGE_RISING; break;
        case PLUMB_GPIO_EDGE_FALLING: edge = GPIOD_LINE_EDGE_FALLING; break;
        case PLUMB_GPIO_EDGE_BOTH: edge = GPIOD_LINE_EDGE_BOTH; break;
        default: break;
        }
        if (gpiod_line_settings_set_edge_detection(settings, edge) < 0) goto done;
        if (gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC) < 0) goto done;
    }
    enum gpiod_line_bias bias = GPIOD_LINE_BIAS_AS_IS;
    switch (config->bias) {
    case PLUMB_GPIO_BIAS_DISABLED: bias = GPIOD_LINE_BIAS_DISABLED; break;
    case PLUMB_GPIO_BIAS_PULL_UP: bias = GPIOD_LINE_BIAS_PULL_UP; break;
    case PLUMB_GPIO_BIAS_PULL_DOWN: bias = GPIOD_LINE_BIAS_PULL_DOWN; break;
    default: break;
    }
    if (gpiod_line_settings_set_bias(settings, bias) < 0) goto done;
    gpiod_line_settings_set_active_low(settings, config->active_low != 0);
    if (gpiod_line_config_add_line_settings(line_config, &handle->offset, 1, settings) < 0) goto done;
    gpiod_request_config_set_consumer(request_config, config->consumer ? config->consumer : "plumb");
    handle->request = gpiod_chip_request_lines(chip, request_config, line_config);
    if (!handle->request) {
        int saved = errno;
        if (saved == EBUSY) {
            struct gpiod_line_info *busy = gpiod_chip_get_line_info(chip, handle->offset);
            if (busy) {
                copy_text(result->consumer, sizeof result->consumer, gpiod_line_info_get_consumer(busy));
                gpiod_line_info_free(busy);
            }
        }
        errno = saved;
        goto done;
    }
    if (!config->output) {
        handle->buffer = gpiod_edge_event_buffer_new(EVENT_CAPACITY);
        if (!handle->buffer) {
            int saved = errno;
            gpiod_line_request_release(handle->request);
            handle->request = NULL;
            errno = saved;
            goto done;
        }
    }
    rc = 0;
done:;
    int saved = errno;
    if (settings) gpiod_line_settings_free(settings);
    if (line_config) gpiod_line_config_free(line_config);
    if (request_config) gpiod_request_config_free(request_config);
    errno = saved;
    return rc;
}
#endif

plumb_gpio_line *plumb_gpio_request(const plumb_gpio_config *config, plumb_gpio_result *result) {
    memset(result, 0, sizeof *result);
    int found_offset = -1;
    errno = 0;
    struct gpiod_chip *chip = open_chip(config->chip, config->line_name, &found_offset);
    if (!chip) {
        result->error_number = errno;
        result->status = status_for_errno(errno, PLUMB_GPIO_CHIP_NOT_FOUND);
        if (!(config->chip && *config->chip)) result->status = PLUMB_GPIO_LINE_NOT_FOUND;
        return NULL;
    }
    chip_describe(chip, result);
    unsigned int offset = config->offset;
    if (found_offset >= 0) {
        offset = (unsigned int)found_offset;
    } else if (config->line_name && *config->line_name) {
        int found = chip_find_line(chip, config->line_name);
        if (found < 0) {
            result->error_number = errno ? errno : ENOENT;
            result->status = PLUMB_GPIO_LINE_NOT_FOUND;
            gpiod_chip_close(chip);
            return NULL;
        }
        offset = (unsigned int)found;
    }
    result->offset = offset;
    if (offset >= chip_num_lines(chip)) {
        result->error_number = EINVAL;
        result->status = PLUMB_GPIO_LINE_NOT_FOUND;
        gpiod_chip_close(chip);
        return NULL;
    }
    struct plumb_gpio_line *handle = calloc(1, sizeof *handle);
    if (!handle) {
        result->error_number = ENOMEM;
        result->status = PLUMB_GPIO_REQUEST_FAILED;
        gpiod_chip_close(chip);
        return NULL;
    }
    handle->offset = offset;
#if PLUMB_GPIOD_V1
    handle->chip = chip;
    if (request_v1(handle, config, result) < 0) {
        result->error_number = errno;
        result->status = status_for_errno(errno, PLUMB_GPIO_REQUEST_FAILED);
        gpiod_chip_close(chip);
        free(handle);
        errno = result->error_number;
        return NULL;
    }
#else
    int rc = request_v2(handle, chip, config, result);
    int saved = errno;
    gpiod_chip_close(chip);  // a v2 request outlives its chip handle
    if (rc < 0) {
        result->error_number = saved;
        result->status = status_for_errno(saved, PLUMB_GPIO_REQUEST_FAILED);
        free(handle);
        errno = saved;
        return NULL;
    }
#endif
    return handle;
}

// ---- events and values -----------------------------------------------------------------------

int plumb_gpio_wait(plumb_gpio_line *line, int64_t timeout_ns) {
#if PLUMB_GPIOD_V1
    if (timeout_ns < 0) return gpiod_line_event_wait(line->line, NULL);
    struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000), .tv_nsec = (long)(timeout_ns % 1000000000) };
    return gpiod_line_event_wait(line->line, &ts);
#else
    return gpiod_line_request_wait_edge_events(line->request, timeout_ns);
#endif
}

int plumb_gpio_read(plumb_gpio_line *line, plumb_gpio_event *events, int max) {
    if (max > EVENT_CAPACITY) max = EVENT_CAPACITY;
    if (max <= 0) { errno = EINVAL; return -1; }
#if PLUMB_GPIOD_V1
    int n = gpiod_line_event_read_multiple(line->line, line->events, (unsigned int)max);
    for (int i = 0; i < n; i++) {
        events[i].timestamp_ns = (uint64_t)line->events[i].ts.tv_sec * 1000000000u + (uint64_t)line->events[i].ts.tv_nsec;
        events[i].rising = line->events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE ? 1 : 2;
    }
    return n;
#else
    if (!line->buffer) { errno = EINVAL; return -1; }
    int n = gpiod_line_request_read_edge_events(line->request, line->buffer, (size_t)max);
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->buffer, (unsigned long)i);
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
        events[i].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE ? 1 : 2;
    }
    return n;
#endif
}

int plumb_gpio_get_value(plumb_gpio_line *line) {
#if PLUMB_GPIOD_V1
    return gpiod_line_get_value(line->line);
#else
    return (int)gpiod_line_request_get_value(line->request, line->offset);
#endif
}

int plumb_gpio_set_value(plumb_gpio_line *line, int value) {
#if PLUMB_GPIOD_V1
    return gpiod_line_set_value(line->line, value ? 1 : 0);
#else
    return gpiod_line_request_set_value(line->request, line->offset,
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
#endif
}

void plumb_gpio_release(plumb_gpio_line *line) {
    if (!line) return;
#if PLUMB_GPIOD_V1
    gpiod_line_release(line->line);
    gpiod_chip_close(line->chip);
#else
    if (line->buffer) gpiod_edge_event_buffer_free(line->buffer);
    gpiod_line_request_release(line->request);
#endif
    free(line);
}

int plumb_gpio_api_major(void) { return PLUMB_GPIOD_V1 ? 1 : 2; }

const char *plumb_gpio_library_version(void) {
#if PLUMB_GPIOD_V1
    return gpiod_version_string();
#else
    return gpiod_api_version();
#endif
}
