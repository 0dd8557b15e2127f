// A small, version-neutral API over libgpiod, compiled against libgpiod 1.6 (Debian 12) or 2.x
// (bookworm-backports 2.1.3, Debian 13 2.2.1). The version is detected at compile time: only the
// v1 header defines GPIOD_LINE_BULK_MAX_LINES (neither header has a version macro).
//
// One handle requests one line, as an edge-event input or as an output. Every function that can
// fail returns a negative value (or NULL) and leaves errno set.
#ifndef PLUMB_CGPIOD_H
#define PLUMB_CGPIOD_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which edges an input reports.
typedef enum {
    PLUMB_GPIO_EDGE_NONE = 0,
    PLUMB_GPIO_EDGE_RISING = 1,
    PLUMB_GPIO_EDGE_FALLING = 2,
    PLUMB_GPIO_EDGE_BOTH = 3,
} plumb_gpio_edge;

/// Bias (pull resistor) setting.
typedef enum {
    PLUMB_GPIO_BIAS_AS_IS = 0,
    PLUMB_GPIO_BIAS_DISABLED = 1,
    PLUMB_GPIO_BIAS_PULL_UP = 2,
    PLUMB_GPIO_BIAS_PULL_DOWN = 3,
} plumb_gpio_bias;

/// Why a request failed (with errno for the details).
typedef enum {
    PLUMB_GPIO_OK = 0,
    PLUMB_GPIO_CHIP_NOT_FOUND = 1,
    PLUMB_GPIO_LINE_NOT_FOUND = 2,
    PLUMB_GPIO_LINE_BUSY = 3,
    PLUMB_GPIO_PERMISSION = 4,
    PLUMB_GPIO_REQUEST_FAILED = 5,
} plumb_gpio_status;

/// What to request.
typedef struct {
    /// A chip path ("/dev/gpiochip0"), name ("gpiochip0"), number ("0") or label ("pinctrl-rp1");
    /// NULL or "" searches every chip for `line_name`.
    const char *chip;
    /// A line name such as "GPIO17", or NULL to use `offset`.
    const char *line_name;
    unsigned int offset;
    /// 1 for an output, 0 for an input.
    int output;
    /// For an input: which edges to report.
    plumb_gpio_edge edge;
    plumb_gpio_bias bias;
    int active_low;
    /// For an output: the initial logical value.
    int initial_value;
    const char *consumer;
} plumb_gpio_config;

/// The outcome of a request: on failure, what failed and (for a busy line) who holds it.
typedef struct {
    plumb_gpio_status status;
    int error_number;
    /// The chip's name ("gpiochip0") and label, once it was found.
    char chip_name[64];
    char chip_label[64];
    /// The line's offset and name, once it was found.
    unsigned int offset;
    char line_name[64];
    /// For PLUMB_GPIO_LINE_BUSY: the consumer holding the line ("" when the kernel does not say).
    char consumer[64];
} plumb_gpio_result;

/// One edge event.
typedef struct {
    /// CLOCK_MONOTONIC nanoseconds (uAPI v1 on Linux >= 5.7; v2 requested explicitly).
    uint64_t timestamp_ns;
    /// 1 rising, 2 falling.
    int rising;
} plumb_gpio_event;

typedef struct plumb_gpio_line plumb_gpio_line;

/// Requests a line. Returns NULL on failure, with `result` saying why.
plumb_gpio_line *plumb_gpio_request(const plumb_gpio_config *config, plumb_gpio_result *result);

/// Waits for an edge: 1 when one is queued, 0 on timeout, -1 on error (errno).
/// A negative timeout waits forever.
int plumb_gpio_wait(plumb_gpio_line *line, int64_t timeout_ns);

/// Reads up to `max` queued events (blocks when none is queued). Returns the count or -1.
int plumb_gpio_read(plumb_gpio_line *line, plumb_gpio_event *events, int max);

/// Reads the line's logical value: 0, 1, or -1 on error.
int plumb_gpio_get_value(plumb_gpio_line *line);

/// Sets an output's logical value. Returns 0 or -1.
int plumb_gpio_set_value(plumb_gpio_line *line, int value);

/// Releases the line and frees the handle.
void plumb_gpio_release(plumb_gpio_line *line);

/// The libgpiod major API version this shim was compiled against (1 or 2).
int plumb_gpio_api_major(void);

/// The libgpiod version string reported by the loaded library ("1.6.3", "2.1.3").
const char *plumb_gpio_library_version(void);

#ifdef __cplusplus
}
#endif
#endif
