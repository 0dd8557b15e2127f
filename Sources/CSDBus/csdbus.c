/*
 * CSDBus: the net.hadess.SensorProxy object on sd-bus. See include/csdbus.h.
 *
 * Interface facts (names, signatures, "anyone may call, resources are freed when a client leaves
 * the bus"): iio-sensor-proxy 3.0's D-Bus reference, gdbus-net.hadess.SensorProxy.html (Debian 12).
 * sd-bus calls: sd-bus(3), sd_bus_add_object_vtable(3), sd_bus_emit_signal(3), sd_bus_wait(3),
 * sd_bus_get_fd(3) (systemd 252).
 */
#include "csdbus.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

const char *const plumb_sensor_proxy_name = "net.hadess.SensorProxy";
const char *const plumb_sensor_proxy_path = "/net/hadess/SensorProxy";
const char *const plumb_sensor_proxy_interface = "net.hadess.SensorProxy";

static const char *const method_names[PLUMB_METHOD_COUNT] = {
    "ClaimAccelerometer", "ReleaseAccelerometer",
    "ClaimLight", "ReleaseLight",
    "ClaimProximity", "ReleaseProximity",
};

static const char *const property_names[PLUMB_PROPERTY_COUNT] = {
    "HasAccelerometer", "AccelerometerOrientation",
    "HasAmbientLight", "LightLevelUnit", "LightLevel",
    "HasProximity", "ProximityNear",
};

static const char property_types[PLUMB_PROPERTY_COUNT] = { 'b', 's', 'b', 's', 'd', 'b', 'b' };

struct plumb_bus {
    sd_bus *bus;
    sd_bus_slot *object_slot;
    sd_bus_slot *match_slot;
    int wake_fd;
    plumb_bus_callbacks callbacks;
};

const char *plumb_property_name(int property) {
    return (property >= 0 && property < PLUMB_PROPERTY_COUNT) ? property_names[property] : NULL;
}

const char *plumb_method_name(int method) {
    return (method >= 0 && method < PLUMB_METHOD_COUNT) ? method_names[method] : NULL;
}

static int index_of(const char *const *names, int count, const char *name) {
    if (!name) return -1;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

/* --- the object ------------------------------------------------------------------------------ */

static int handle_method(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    struct plumb_bus *b = userdata;
    int method = index_of(method_names, PLUMB_METHOD_COUNT, sd_bus_message_get_member(m));
    const char *sender = sd_bus_message_get_sender(m);
    if (method < 0 || !b->callbacks.method)
        return sd_bus_error_set(ret_error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method");
    if (!sender)
        return sd_bus_error_set(ret_error, SD_BUS_ERROR_INVALID_ARGS, "The call has no sender");
    int r = b->callbacks.method(b->callbacks.context, method, sender);
    if (r < 0) return sd_bus_error_set_errno(ret_error, r);
    return sd_bus_reply_method_return(m, "");
}

static int handle_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
    (void)bus; (void)path; (void)interface;
    struct plumb_bus *b = userdata;
    int index = index_of(property_names, PLUMB_PROPERTY_COUNT, property);
    if (index < 0 || !b->callbacks.property)
        return sd_bus_error_set(ret_error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "Unknown property");
    plumb_bus_value value;
    memset(&value, 0, sizeof value);
    int r = b->callbacks.property(b->callbacks.context, index, &value);
    if (r < 0) return sd_bus_error_set_errno(ret_error, r);
    value.string[sizeof value.string - 1] = '\0';
    switch (property_types[index]) {
    case 'b': return sd_bus_message_append(reply, "b", value.boolean ? 1 : 0);
    case 'd': return sd_bus_message_append(reply, "d", value.number);
    default:  return sd_bus_message_append(reply, "s", value.string);
    }
}

static const sd_bus_vtable sensor_proxy_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("ClaimAccelerometer", "", "", handle_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseAccelerometer", "", "", handle_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimLight", "", "", handle_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseLight", "", "", handle_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimProximity", "", "", handle_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseProximity", "", "", handle_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("HasAccelerometer", "b", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerOrientation", "s", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasAmbientLight", "b", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevelUnit", "s", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevel", "d", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasProximity", "b", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ProximityNear", "b", handle_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END
};

/* NameOwnerChanged(name, old_owner, new_owner): a unique name whose new owner is empty has left. */
static int handle_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    struct plumb_bus *b = userdata;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (name && name[0] == ':' && new_owner && new_owner[0] == '\0' && b->callbacks.client_vanished)
        b->callbacks.client_vanished(b->callbacks.context, name);
    return 0;
}

/* --- connection ------------------------------------------------------------------------------ */

int plumb_bus_open(const char *address, plumb_bus **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    struct plumb_bus *b = calloc(1, sizeof *b);
    if (!b) return -ENOMEM;
    b->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (b->wake_fd < 0) { int e = -errno; free(b); return e; }

    int r;
    if (address) {
        r = sd_bus_new(&b->bus);
        if (r >= 0) r = sd_bus_set_address(b->bus, address);
        if (r >= 0) r = sd_bus_set_bus_client(b->bus, 1);
        if (r >= 0) r = sd_bus_set_description(b->bus, "plumb");
        if (r >= 0) r = sd_bus_start(b->bus);
    } else {
        r = sd_bus_open_system_with_description(&b->bus, "plumb");
    }
    if (r < 0) {
        sd_bus_unref(b->bus);
        close(b->wake_fd);
        free(b);
        return r;
    }
    *out = b;
    return 0;
}

void plumb_bus_close(plumb_bus *b) {
    if (!b) return;
    sd_bus_slot_unref(b->match_slot);
    sd_bus_slot_unref(b->object_slot);
    if (b->bus) {
        sd_bus_flush(b->bus);
        sd_bus_close(b->bus);
        sd_bus_unref(b->bus);
    }
    if (b->wake_fd >= 0) close(b->wake_fd);
    free(b);
}

const char *plumb_bus_unique_name(plumb_bus *b) {
    const char *name = NULL;
    if (!b || sd_bus_get_unique_name(b->bus, &name) < 0) return NULL;
    return name;
}

int plumb_bus_export(plumb_bus *b, const plumb_bus_callbacks *callbacks) {
    if (!b || !callbacks) return -EINVAL;
    if (b->object_slot) return -EALREADY;
    b->callbacks = *callbacks;
    int r = sd_bus_add_match(b->bus, &b->match_slot,
                             "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg2=''",
                             handle_name_owner_changed, b);
    if (r < 0) return r;
    return sd_bus_add_object_vtable(b->bus, &b->object_slot, plumb_sensor_proxy_path,
                                    plumb_sensor_proxy_interface, sensor_proxy_vtable, b);
}

int plumb_bus_request_name(plumb_bus *b) {
    if (!b) return -EINVAL;
    return sd_bus_request_name(b->bus, plumb_sensor_proxy_name, 0);
}

int plumb_bus_emit_changed(plumb_bus *b, const int *properties, size_t count) {
    if (!b || (!properties && count)) return -EINVAL;
    if (count == 0) return 0;
    if (count > PLUMB_PROPERTY_COUNT) return -E2BIG;
    char *names[PLUMB_PROPERTY_COUNT + 1];
    for (size_t i = 0; i < count; i++) {
        const char *name = plumb_property_name(properties[i]);
        if (!name) return -EINVAL;
        names[i] = (char *)name;
    }
    names[count] = NULL;
    return sd_bus_emit_properties_changed_strv(b->bus, plumb_sensor_proxy_path, plumb_sensor_proxy_interface, names);
}

/* --- the loop -------------------------------------------------------------------------------- */

static uint64_t monotonic_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int plumb_bus_run_once(plumb_bus *b, uint64_t timeout_usec) {
    if (!b) return -EINVAL;
    for (;;) {
        int r = sd_bus_process(b->bus, NULL);
        if (r < 0) return r;
        if (r == 0) break;
    }

    int fd = sd_bus_get_fd(b->bus);
    if (fd < 0) return fd;
    int events = sd_bus_get_events(b->bus);
    if (events < 0) return events;

    /* sd_bus_get_timeout() is an absolute CLOCK_MONOTONIC time, UINT64_MAX for none. */
    uint64_t until = UINT64_MAX, bus_deadline = UINT64_MAX;
    if (timeout_usec != UINT64_MAX) until = monotonic_usec() + timeout_usec;
    int r = sd_bus_get_timeout(b->bus, &bus_deadline);
    if (r < 0) return r;
    if (bus_deadline < until) until = bus_deadline;

    int poll_ms = -1;
    if (until != UINT64_MAX) {
        uint64_t now = monotonic_usec();
        uint64_t left = until > now ? until - now : 0;
        uint64_t ms = (left + 999) / 1000;
        poll_ms = ms > 60000 ? 60000 : (int)ms;
    }

    struct pollfd fds[2] = {
        { .fd = fd, .events = (short)events },
        { .fd = b->wake_fd, .events = POLLIN },
    };
    r = poll(fds, 2, poll_ms);
    if (r < 0) return errno == EINTR ? 0 : -errno;
    if (fds[1].revents & POLLIN) {
        uint64_t count;
        if (read(b->wake_fd, &count, sizeof count) < 0 && errno != EAGAIN) return -errno;
        return 1;
    }
    return 0;
}

int plumb_bus_wake(plumb_bus *b) {
    if (!b) return -EINVAL;
    uint64_t one = 1;
    if (write(b->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN) return -errno;
    return 0;
}

/* --- client side ----------------------------------------------------------------------------- */

static void copy_error(const sd_bus_error *e, char *out, size_t size) {
    if (!out || size == 0) return;
    snprintf(out, size, "%s: %s", e->name ? e->name : "?", e->message ? e->message : "");
}

int plumb_bus_call(plumb_bus *b, const char *member, char *error, size_t error_size) {
    if (!b || !member) return -EINVAL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(b->bus, plumb_sensor_proxy_name, plumb_sensor_proxy_path,
                               plumb_sensor_proxy_interface, member, &e, &reply, "");
    if (r < 0) copy_error(&e, error, error_size);
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

int plumb_bus_get_string(plumb_bus *b, const char *property, char *value, size_t value_size) {
    if (!b || !property || !value || value_size == 0) return -EINVAL;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    char *text = NULL;
    int r = sd_bus_get_property_string(b->bus, plumb_sensor_proxy_name, plumb_sensor_proxy_path,
                                       plumb_sensor_proxy_interface, property, &e, &text);
    sd_bus_error_free(&e);
    if (r < 0) return r;
    snprintf(value, value_size, "%s", text);
    free(text);
    return 0;
}

int plumb_bus_get_property_string(plumb_bus *b, const char *destination, const char *path,
                                  const char *interface, const char *property, uint64_t timeout_usec,
                                  char *value, size_t value_size, char *error_name, size_t error_name_size,
                                  char *error, size_t error_size) {
    if (!b || !destination || !path || !interface || !property || !value || value_size == 0) return -EINVAL;
    if (error_name && error_name_size) error_name[0] = 0;
    if (error && error_size) error[0] = 0;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    const char *text = NULL;
    int r = sd_bus_message_new_method_call(b->bus, &call, destination, path, "org.freedesktop.DBus.Properties", "Get");
    /* NO_AUTO_START: reading a property must not start an activatable service that is not
     * running (power-profiles-daemon is one); its absence is the answer. */
    if (r >= 0) r = sd_bus_message_set_auto_start(call, 0);
    if (r >= 0) r = sd_bus_message_append(call, "ss", interface, property);
    if (r >= 0) {
        r = sd_bus_call(b->bus, call, timeout_usec, &e, &reply);
        if (r < 0) {
            copy_error(&e, error, error_size);
            if (error_name && error_name_size) snprintf(error_name, error_name_size, "%s", e.name ? e.name : "");
        }
    }
    if (r >= 0) {
        /* A variant holding anything but a string is not what the caller asked for. */
        r = sd_bus_message_read(reply, "v", "s", &text);
        if (r < 0) r = -EBADMSG;
        else snprintf(value, value_size, "%s", text);
    }
    sd_bus_error_free(&e);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
    return r < 0 ? r : 0;
}
