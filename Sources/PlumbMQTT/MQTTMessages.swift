import Foundation

/// The JSON payloads and Home Assistant discovery configs the publisher sends.
public enum MQTTMessages {
    /// One orientation change: `{"seq": 3, "t_s": 12.5, "deviceOrientation": "faceUp",
    /// "interfaceOrientation": "portrait"}`. `seq` counts changes from 1 per run, so a subscriber
    /// can see that none is missing.
    public static func orientation(seq: Int, t: Double, device: String, interface: String) -> String {
        "{\"seq\": \(seq), \"t_s\": \(number(t, 3)), \"deviceOrientation\": \"\(escape(device))\", \"interfaceOrientation\": \"\(escape(interface))\"}"
    }

    /// Gravity in the device frame (unit vector, pointing down; x right, y up the screen, z out of
    /// it) and the attitude it implies: pitch, the screen's tilt back from flat face up about x
    /// (90° standing in portrait), and roll, its tilt about y (±90° in landscape).
    public static func gravity(t: Double, x: Double, y: Double, z: Double) -> String {
        let (pitch, roll) = attitude(x: x, y: y, z: z)
        return "{\"t_s\": \(number(t, 3)), \"x\": \(number(x, 4)), \"y\": \(number(y, 4)), \"z\": \(number(z, 4)), \"pitch_deg\": \(number(pitch, 1)), \"roll_deg\": \(number(roll, 1))}"
    }

    /// Pitch and roll in degrees from gravity (see ``gravity(t:x:y:z:)``).
    public static func attitude(x: Double, y: Double, z: Double) -> (pitch: Double, roll: Double) {
        let n = (x * x + y * y + z * z).squareRoot()
        guard n > 0 else { return (0, 0) }
        let pitch = atan2(-y, -z) * 180 / .pi
        let roll = asin(max(-1, min(1, x / n))) * 180 / .pi
        return (pitch, roll)
    }

    /// Home Assistant MQTT discovery: retained configs under
    /// `<discoveryPrefix>/sensor/<node>/<object>/config` making the device and interface
    /// orientation (and, with gravity on, pitch and roll) sensors of one device, with our
    /// availability topic. (Home Assistant docs, "MQTT Discovery": topic format, `~` not used.)
    public static func discovery(_ s: MQTTSettings) -> [(topic: String, payload: String)] {
        let device = "{\"identifiers\": [\"plumb_\(escape(s.node))\"], \"name\": \"\(escape(s.node)) orientation\", \"manufacturer\": \"Plumb\", \"model\": \"6-axis IMU\"}"
        func sensor(_ object: String, _ name: String, topic: String, template: String, extra: String = "") -> (String, String) {
            let payload = "{\"name\": \"\(name)\", \"unique_id\": \"plumb_\(escape(s.node))_\(object)\", \"object_id\": \"\(escape(s.node))_\(object)\", "
                + "\"state_topic\": \"\(escape(topic))\", \"value_template\": \"\(template)\", "
                + "\"availability_topic\": \"\(escape(s.availabilityTopic))\", \"payload_available\": \"online\", \"payload_not_available\": \"offline\", "
                + "\(extra)\"qos\": \(s.qos), \"device\": \(device)}"
            return (topicFor(s, object), payload)
        }
        var configs = [
            sensor("device_orientation", "Device orientation", topic: s.orientationTopic, template: "{{ value_json.deviceOrientation }}",
                   extra: "\"icon\": \"mdi:phone-rotate-landscape\", "),
            sensor("interface_orientation", "Interface orientation", topic: s.orientationTopic, template: "{{ value_json.interfaceOrientation }}",
                   extra: "\"icon\": \"mdi:screen-rotation\", "),
        ]
        if s.gravityRate > 0 {
            configs.append(sensor("pitch", "Pitch", topic: s.gravityTopic, template: "{{ value_json.pitch_deg }}",
                                  extra: "\"unit_of_measurement\": \"°\", \"state_class\": \"measurement\", "))
            configs.append(sensor("roll", "Roll", topic: s.gravityTopic, template: "{{ value_json.roll_deg }}",
                                  extra: "\"unit_of_measurement\": \"°\", \"state_class\": \"measurement\", "))
        }
        return configs
    }

    /// Every discovery topic this node may have published (to clear them when discovery is off).
    public static func discoveryTopics(_ s: MQTTSettings) -> [String] {
        ["device_orientation", "interface_orientation", "pitch", "roll"].map { topicFor(s, $0) }
    }

    static func topicFor(_ s: MQTTSettings, _ object: String) -> String {
        "\(s.discoveryPrefix)/sensor/\(s.node)/\(object)/config"
    }

    static func number(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "null" }
        return String(format: "%.\(digits)f", value)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
