extension Configuration {
    /// A complete configuration, as `plumb config example` prints it: every key but the
    /// classifier's single values (settleTime, hysteresis, maxRotationRate, maxWait, dwellMargin,
    /// dwellMaxRotationRate), which would override the preset in both energy modes. JSON has no comments, so the key reference follows in
    /// ``keyReference``.
    public static let exampleText = """
        {
          "board": "auto",
          "imu": {
            "bus": "/dev/i2c-1",
            "address": "0x68",
            "part": "auto",
            "rate": 200,
            "accelerometerRange": 4,
            "gyroscopeRange": 2000,
            "interrupt": "board"
          },
          "mounting": { "x": "+x", "y": "+y", "z": "+z" },
          "calibration": "/var/lib/plumb/calibration.json",
          "filter": { "kind": "plumb", "timeConstant": 3 },
          "orientation": {
            "preset": "steady",
            "lowEnergy": "auto",
            "interfaceOrientations": ["portrait", "landscapeLeft", "landscapeRight", "portraitUpsideDown"]
          },
          "outputs": {
            "level": { "enabled": false, "image": "/usr/local/share/plumb/level.png" },
            "kiosk": { "enabled": true, "method": "wlr-randr", "output": "HDMI-A-1", "holdOff": 1 },
            "leds": { "enabled": true, "map": { "faceUp": "ACT" } },
            "dbus": { "enabled": false, "bus": "system" },
            "mqtt": { "enabled": false, "url": "mqtts://broker.lan:8883", "caFile": "/etc/plumb/mqtt-ca.pem",
                      "username": "plumb", "password": "change-me", "qos": 1, "gravityRate": 1, "homeAssistant": true }
          },
          "logLevel": "info"
        }

        """

    /// One line per key: its path, allowed values and default.
    public static let keyReference = """
        board                          auto or a board id (plumb boards)                 default auto
        imu.bus                        /dev/i2c-N                                        default the board's
        imu.address                    "0x08"..."0x77" or a number                       default the board's (0x68)
        imu.part                       auto or \(IMUSettings.parts.joined(separator: ", "))
                                                                                         default auto
        imu.rate                       1...1666 Hz (MPU-6050 family 3.9...1000)         default 100
        imu.accelerometerRange         2, 4, 8, 16, 32 g                                 default 4
        imu.gyroscopeRange             125, 250, 500, 1000, 2000, 4000 °/s               default 2000
        imu.fifoCompression            true, false (LSM6DSO generation at high rates)   default true
        imu.interrupt                  "board", "poll" or {"chip": LABEL|PATH, "line": NAME|OFFSET}
                                                                                         default "board"
        mounting.x, .y, .z             +x -x +y -y +z -z (a rotation)                    default +x +y +z
        calibration                    an absolute path                                  default none
        filter.kind                    plumb, madgwick, complementary                    default plumb
        filter.beta                    0...2 rad/s (madgwick only)                       default 0.033
        filter.timeConstant            0.01...60 s (plumb, complementary)                default 3 (plumb), 5 (complementary)
        orientation.preset             responsive, steady                                default responsive
        orientation.settleTime         0...10 s, both energy modes                       default the preset's
        orientation.hysteresis         0...44 degrees, both energy modes                 default the preset's
        orientation.maxRotationRate    0...10000 °/s, 0 = no gate, both energy modes     default the preset's
                                       (responsive: 0.05 s, 4°, 60 °/s; steady: 0.03 s, 18°, 50 °/s;
                                       low-energy mode: 0.1 s, 8°, 90 °/s; steady 0.1 s, 15°, 60 °/s)
        orientation.maxWait            0...60 s, 0 = off, both energy modes              default the preset's
                                       (the time cap: also accept a face once up has lain in its 45° cone this long;
                                       none, but steady's low-energy mode waits 0.6 s)
        orientation.dwellMargin        0...44 degrees, needs a time cap, both modes      default the preset's
                                       (how far inside the 45° boundary up must be then; 0, steady low-energy 12°)
        orientation.dwellMaxRotationRate  0...10000 °/s, 0 = no gate, needs a time cap   default the preset's
                                       (the time cap accepts nothing faster; none, steady low-energy 80 °/s)
        orientation.lowEnergy          auto, on, off                                     default auto
        orientation.interfaceOrientations  portrait, portraitUpsideDown, landscapeLeft, landscapeRight
                                                                                         default all four
        outputs.level                  {"enabled", "image" (required), "framebuffer"}    default off
        outputs.kiosk                  {"enabled", "method": fbcon|wlr-randr|xrandr|command, "output", "command", "holdOff" (s, default 1)}
                                                                                         default off
        outputs.leds                   {"enabled", "map": {ORIENTATION: LED name}}       default off
        outputs.dbus                   {"enabled", "bus": "system" or a D-Bus address}   default off
                                       (net.hadess.SensorProxy, as plumb dbus; the sensor runs only while claimed
                                       when dbus is the only output)
        outputs.mqtt                   {"enabled", "url": mqtt://HOST[:PORT]|mqtts://... (required), "prefix" (plumb),
                                        "qos" (0|1|2, 1), "clientId" (plumb-HOSTNAME), "username", "password",
                                        "caFile" (required for mqtts), "certFile", "keyFile", "keepAlive" (s, 30),
                                        "queueSize" (100), "gravityRate" (Hz, 1; 0 none), "homeAssistant" (true),
                                        "discoveryPrefix" (homeassistant), "reconnectMinimum" (s, 1), "reconnectMaximum" (s, 60)}
                                                                                         default off
        logLevel                       debug, info, notice, warning, error               default info

        """
}
