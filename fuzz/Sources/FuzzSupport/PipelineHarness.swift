import PlumbDrivers
import PlumbFusion
import PlumbOrientation

/// What the daemon does with the samples: gravity from one of the attitude filters (or the
/// accelerometer alone), then the orientation classifier. Fed the samples a garbled stream or a
/// user's recording gives: saturated values, NaN rows, times that jump or stand still.
public struct PipelineHarness {
    var pipeline: OrientationPipeline

    public init(choice: UInt8) {
        let fused: any GravityEstimator
        switch choice % 3 {
        case 0: fused = FusedGravity(MadgwickFilter())
        case 1: fused = FusedGravity(ComplementaryFilter())
        default: fused = FusedGravity(PlumbFilter())
        }
        pipeline = OrientationPipeline(fused: fused, usesGyroscope: choice & 0x04 == 0)
    }

    public mutating func feed(_ samples: some Sequence<IMUSample>) {
        for s in samples { _ = pipeline.process(s) }
        _ = pipeline.orientation
    }
}
