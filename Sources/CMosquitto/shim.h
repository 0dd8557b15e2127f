// libmosquitto (Debian's libmosquitto-dev): the MQTT 3.1.1 client behind PlumbMQTT.
#include <mosquitto.h>
