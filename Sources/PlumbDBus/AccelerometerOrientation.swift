/// The value of iio-sensor-proxy's `AccelerometerOrientation` property: which edge of the screen,
/// as it is mounted in the device, points up.
///
/// The raw values are the strings the property carries. The names describe an edge, not a rotation:
/// `leftUp` means the screen's left edge points to the sky, which is the device turned a quarter
/// turn clockwise from portrait as its user sees it.
///
/// iio-sensor-proxy 3.0 D-Bus reference (`gdbus-net.hadess.SensorProxy.html`): "undefined",
/// "normal", "bottom-up", "left-up", "right-up"; there is no face-up or face-down value.
/// iio-sensor-proxy `src/orientation.c` picks `right-up` when the accelerometer's x axis (pointing
/// to the screen's right edge, as in the kernel's IIO frame) reads upward and `left-up` when it
/// reads downward, and `normal` / `bottom-up` likewise from y.
public enum AccelerometerOrientation: String, Sendable, CaseIterable, Equatable {
    /// No reading yet (iio-sensor-proxy's value before the first orientation is known).
    case undefined
    /// The screen's top edge points up: portrait as the panel is mounted.
    case normal
    /// The screen's bottom edge points up: upside down.
    case bottomUp = "bottom-up"
    /// The screen's left edge points up.
    case leftUp = "left-up"
    /// The screen's right edge points up.
    case rightUp = "right-up"

    /// The rotation a compositor applies to keep the desktop upright, in degrees counter-clockwise,
    /// as mutter's `MetaOrientationManager` maps these strings: normal → 0, left-up → 90,
    /// bottom-up → 180, right-up → 270 (undefined leaves the screen as it is, shown as 0).
    ///
    /// GNOME/mutter `src/backends/meta-orientation-manager.c` (`MTK_MONITOR_TRANSFORM_90` for
    /// left-up; wl_output transforms turn counter-clockwise).
    public var compositorRotationDegrees: Int {
        switch self {
        case .undefined, .normal: return 0
        case .leftUp: return 90
        case .bottomUp: return 180
        case .rightUp: return 270
        }
    }
}

import PlumbOrientation

extension AccelerometerOrientation {
    /// The property value for an interface orientation.
    ///
    /// Interface orientation follows UIKit: interface landscapeLeft is what the device shows when
    /// it is turned a quarter clockwise, its left edge up (device landscapeRight, the home button on
    /// the left), and the content turns 90° counter-clockwise (``InterfaceOrientation/rotationDegrees``).
    /// iio-sensor-proxy calls that position "left-up", and mutter turns the desktop 90° for it. So:
    ///
    /// | interface orientation | property | mutter |
    /// |---|---|---|
    /// | portrait | normal | 0° |
    /// | landscapeLeft | left-up | 90° |
    /// | portraitUpsideDown | bottom-up | 180° |
    /// | landscapeRight | right-up | 270° |
    ///
    /// Sources: Apple UIKit `UIInterfaceOrientation.landscapeLeft` / `UIDeviceOrientation.landscapeRight`;
    /// iio-sensor-proxy `src/orientation.c` (x axis down → left-up); GNOME/mutter
    /// `src/backends/meta-orientation-manager.c` (left-up → `MTK_MONITOR_TRANSFORM_90`).
    public init(_ interface: InterfaceOrientation) {
        switch interface {
        case .portrait: self = .normal
        case .portraitUpsideDown: self = .bottomUp
        case .landscapeLeft: self = .leftUp
        case .landscapeRight: self = .rightUp
        }
    }
}
