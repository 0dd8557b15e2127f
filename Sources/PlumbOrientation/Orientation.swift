/// Which way the device is held, from the direction of gravity in the device frame.
///
/// Device frame: x to the right of the screen, y up the screen, z out of the screen (towards the
/// viewer). The device's "up" (the direction opposite gravity) selects the case:
///
/// | up along | case |
/// |---|---|
/// | +y | ``portrait`` |
/// | −y | ``portraitUpsideDown`` |
/// | +x | ``landscapeLeft`` (turned a quarter counter-clockwise from portrait: the right edge up, as UIKit has it with the home button on the right) |
/// | −x | ``landscapeRight`` (the left edge up) |
/// | +z | ``faceUp`` |
/// | −z | ``faceDown`` |
///
/// The raw values are the names used in JSON and in `PLUMB_DEVICE_ORIENTATION`; ``uikitValue`` is
/// `UIDeviceOrientation`'s integer, for code ported from iOS.
public enum DeviceOrientation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case unknown
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight
    case faceUp
    case faceDown

    /// `UIDeviceOrientation`'s raw value (unknown 0, portrait 1, upside down 2, landscape left 3,
    /// landscape right 4, face up 5, face down 6).
    public var uikitValue: Int {
        switch self {
        case .unknown: 0
        case .portrait: 1
        case .portraitUpsideDown: 2
        case .landscapeLeft: 3
        case .landscapeRight: 4
        case .faceUp: 5
        case .faceDown: 6
        }
    }

    /// True for the four upright cases, the ones that have an interface orientation.
    public var isUpright: Bool { interfaceOrientation != nil }

    /// True for ``faceUp`` and ``faceDown``.
    public var isFlat: Bool { self == .faceUp || self == .faceDown }

    /// The interface orientation this device orientation selects, with UIKit's convention that
    /// device landscapeLeft shows interface landscapeRight and vice versa; `nil` for faceUp,
    /// faceDown and unknown (they leave the interface as it is).
    public var interfaceOrientation: InterfaceOrientation? {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeLeft: .landscapeRight
        case .landscapeRight: .landscapeLeft
        case .unknown, .faceUp, .faceDown: nil
        }
    }

    /// The unit vector in the device frame that points up in this orientation; `nil` for unknown.
    public var upAxis: SIMD3<Double>? {
        switch self {
        case .portrait: SIMD3(0, 1, 0)
        case .portraitUpsideDown: SIMD3(0, -1, 0)
        case .landscapeLeft: SIMD3(1, 0, 0)
        case .landscapeRight: SIMD3(-1, 0, 0)
        case .faceUp: SIMD3(0, 0, 1)
        case .faceDown: SIMD3(0, 0, -1)
        case .unknown: nil
        }
    }

    /// The six known orientations, in the order of their axes (+y, −y, +x, −x, +z, −z).
    public static let faces: [DeviceOrientation] = [.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown]

    public var description: String { rawValue }
}

/// The orientation of the user interface: the four upright cases only.
///
/// UIKit's convention: interface landscapeLeft is what device landscapeRight shows (the content
/// is rotated so its top follows the device's left edge, now up).
public enum InterfaceOrientation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case portrait
    case portraitUpsideDown
    case landscapeLeft
    case landscapeRight

    /// `UIInterfaceOrientation`'s raw value (portrait 1, upside down 2, landscape left 4,
    /// landscape right 3).
    public var uikitValue: Int {
        switch self {
        case .portrait: 1
        case .portraitUpsideDown: 2
        case .landscapeLeft: 4
        case .landscapeRight: 3
        }
    }

    /// The device orientation that shows this interface orientation.
    public var deviceOrientation: DeviceOrientation {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeLeft: .landscapeRight
        case .landscapeRight: .landscapeLeft
        }
    }

    /// The rotation of the content, in degrees counter-clockwise as the seed library's
    /// `affineTransform` has it: portrait 0, landscapeLeft 90, portraitUpsideDown 180,
    /// landscapeRight 270.
    public var rotationDegrees: Int {
        switch self {
        case .portrait: 0
        case .landscapeLeft: 90
        case .portraitUpsideDown: 180
        case .landscapeRight: 270
        }
    }

    /// ``rotationDegrees`` in radians.
    public var rotationAngle: Double { Double(rotationDegrees) * .pi / 180 }

    /// The 2-D rotation that turns portrait content into this orientation (the seed's
    /// `affineTransform`).
    public var affineTransform: AffineTransform2D { AffineTransform2D(rotationAngle: rotationAngle) }

    public var description: String { rawValue }
}
