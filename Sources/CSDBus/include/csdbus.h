/*
 * CSDBus: the net.hadess.SensorProxy object on sd-bus (libsystemd), behind a small C API Swift can call.
 *
 * sd-bus describes an object with a table built from function-like macros (SD_BUS_VTABLE_START,
 * SD_BUS_METHOD, SD_BUS_PROPERTY), which Swift cannot import; the table lives in csdbus.c and every
 * method call and property read comes back to Swift through the callbacks below.
 *
 * Threading: a plumb_bus is used from one thread (the bus thread), except plumb_bus_wake(), which any
 * thread may call to make a plumb_bus_run_once() in progress return.
 *
 * Every function that can fail returns 0 (or a documented positive value) on success and a negative
 * errno on failure, as sd-bus does.
 */
#ifndef CSDBUS_H
#define CSDBUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The methods of net.hadess.SensorProxy, in the order iio-sensor-proxy documents them. */
typedef enum {
    PLUMB_METHOD_CLAIM_ACCELEROMETER = 0,
    PLUMB_METHOD_RELEASE_ACCELEROMETER,
    PLUMB_METHOD_CLAIM_LIGHT,
    PLUMB_METHOD_RELEASE_LIGHT,
    PLUMB_METHOD_CLAIM_PROXIMITY,
    PLUMB_METHOD_RELEASE_PROXIMITY,
    PLUMB_METHOD_COUNT
} plumb_method;

/** The properties of net.hadess.SensorProxy (D-Bus type in the comment). */
typedef enum {
    PLUMB_PROPERTY_HAS_ACCELEROMETER = 0,  /* b */
    PLUMB_PROPERTY_ACCELEROMETER_ORIENTATION, /* s */
    PLUMB_PROPERTY_HAS_AMBIENT_LIGHT,      /* b */
    PLUMB_PROPERTY_LIGHT_LEVEL_UNIT,       /* s */
    PLUMB_PROPERTY_LIGHT_LEVEL,            /* d */
    PLUMB_PROPERTY_HAS_PROXIMITY,          /* b */
    PLUMB_PROPERTY_PROXIMITY_NEAR,         /* b */
    PLUMB_PROPERTY_COUNT
} plumb_property;

/** A property value filled in by the Swift side: the field matching the property's type is read. */
typedef struct {
    int boolean;
    double number;
    char string[64];
} plumb_bus_value;

/** What the bus thread calls back into. `context` is passed back unchanged. */
typedef struct {
    void *context;
    /** A method call from `sender` (its unique bus name). Returns 0, or a negative errno to reply
     *  with an error. */
    int (*method)(void *context, int method, const char *sender);
    /** A property read (Get, GetAll or a PropertiesChanged being built). Returns 0 or a negative errno. */
    int (*property)(void *context, int property, plumb_bus_value *value);
    /** A unique bus name left the bus (NameOwnerChanged with an empty new owner). */
    void (*client_vanished)(void *context, const char *name);
} plumb_bus_callbacks;

typedef struct plumb_bus plumb_bus;

/** The bus name, object path and interface iio-sensor-proxy uses. */
extern const char *const plumb_sensor_proxy_name;
extern const char *const plumb_sensor_proxy_path;
extern const char *const plumb_sensor_proxy_interface;
/** The property's D-Bus name ("HasAccelerometer"), or NULL when out of range. */
const char *plumb_property_name(int property);
/** The method's D-Bus name ("ClaimAccelerometer"), or NULL when out of range. */
const char *plumb_method_name(int method);

/** Connects to the bus at `address` (a D-Bus address such as "unix:path=/run/x"), or to the system
 *  bus when `address` is NULL (sd_bus_open_system honours DBUS_SYSTEM_BUS_ADDRESS). */
int plumb_bus_open(const char *address, plumb_bus **out);
/** Closes the connection and frees everything; NULL is ignored. */
void plumb_bus_close(plumb_bus *bus);
/** This connection's unique name (":1.42"), valid until close. */
const char *plumb_bus_unique_name(plumb_bus *bus);

/** Registers /net/hadess/SensorProxy with the net.hadess.SensorProxy interface and subscribes to
 *  NameOwnerChanged for names that leave the bus. `callbacks` is copied. */
int plumb_bus_export(plumb_bus *bus, const plumb_bus_callbacks *callbacks);
/** Requests net.hadess.SensorProxy: 0 when owned, -EEXIST when another connection owns it,
 *  -EACCES when the bus policy does not allow this user to own it. */
int plumb_bus_request_name(plumb_bus *bus);
/** Emits org.freedesktop.DBus.Properties.PropertiesChanged for the given properties; their values
 *  are read through the property callback. */
int plumb_bus_emit_changed(plumb_bus *bus, const int *properties, size_t count);

/** Dispatches every message that is ready, then waits until the bus has more work, its next
 *  timeout passes, `timeout_usec` passes (UINT64_MAX: no limit) or plumb_bus_wake() is called.
 *  This is sd_bus_wait() with one more file descriptor (the wake-up eventfd) in the poll set.
 *  Returns 1 when woken, 0 otherwise, negative errno on failure (-ECONNRESET: the bus went away). */
int plumb_bus_run_once(plumb_bus *bus, uint64_t timeout_usec);
/** Makes a plumb_bus_run_once() in progress (or the next one) return. Safe from any thread. */
int plumb_bus_wake(plumb_bus *bus);

/** Client side, for tests and tools: calls `member` (no arguments, no result) on
 *  net.hadess.SensorProxy. On a D-Bus error reply returns a negative errno and copies the error
 *  name and message into `error` (may be NULL). */
int plumb_bus_call(plumb_bus *bus, const char *member, char *error, size_t error_size);
/** Client side: reads a string property of net.hadess.SensorProxy into `value`. */
int plumb_bus_get_string(plumb_bus *bus, const char *property, char *value, size_t value_size);
/** Client side: reads the string property `interface`.`property` of the object `path` of the
 *  service `destination` (org.freedesktop.DBus.Properties.Get), waiting at most `timeout_usec`.
 *  The call carries NO_AUTO_START: a service that is not running is not started by the read.
 *  On a D-Bus error reply returns a negative errno and copies the error name alone into
 *  `error_name` and "name: message" into `error` (either may be NULL). -EBADMSG: the property is
 *  not a string. */
int plumb_bus_get_property_string(plumb_bus *bus, const char *destination, const char *path,
                                  const char *interface, const char *property, uint64_t timeout_usec,
                                  char *value, size_t value_size, char *error_name, size_t error_name_size,
                                  char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
