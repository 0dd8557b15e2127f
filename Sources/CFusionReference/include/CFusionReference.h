// A plain C implementation of Madgwick's 6-axis (IMU) update, the same equations as
// PlumbFusion's MadgwickFilter (S. O. H. Madgwick, "An efficient orientation filter for inertial
// and inertial/magnetic sensor arrays", 2010, eqs. 12/13/25/26/33/34), written for this project.
// It exists only as the speed reference of `plumb bench fusion`: compiled with -O2, it is what a C
// programmer would write, and the Swift filter is measured against it in the same run.
#ifndef CFUSIONREFERENCE_H
#define CFUSIONREFERENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Runs the filter over `count` samples and writes gravity (unit vector toward the earth, sensor
/// frame) for each into `gravity` (3 doubles per sample).
///
/// `t` holds timestamps in s; `gyroscope` (rad/s) and `accelerometer` (m/s²) 3 doubles per sample.
/// The first sample sets the inclination from the accelerometer (as the Swift filter does); the
/// sample period of every later sample is the difference of timestamps. `beta` in rad/s.
/// Returns the final quaternion (w, x, y, z) in `quaternion`.
void cfr_madgwick_run(const double *t, const double *gyroscope, const double *accelerometer, size_t count,
                      double beta, double *gravity, double quaternion[4]);

#ifdef __cplusplus
}
#endif

#endif
