// See include/CFusionReference.h.
#include "CFusionReference.h"
#include <math.h>

void cfr_madgwick_run(const double *t, const double *gyroscope, const double *accelerometer, size_t count,
                      double beta, double *gravity, double quaternion[4]) {
    double qw = 1, qx = 0, qy = 0, qz = 0;
    if (count == 0) { quaternion[0] = qw; quaternion[1] = qx; quaternion[2] = qy; quaternion[3] = qz; return; }

    // Inclination from the first accelerometer sample: the smallest rotation taking it to +z.
    {
        const double *a = accelerometer;
        double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        double ax = a[0] / n, ay = a[1] / n, az = a[2] / n;
        // from (ax, ay, az) to (0, 0, 1): w = 1 + az, v = a × e_z = (ay, −ax, 0)
        double w = 1 + az, x = ay, y = -ax;
        double m = sqrt(w * w + x * x + y * y);
        qw = w / m; qx = x / m; qy = y / m; qz = 0;
    }
    double previous = t[0];
    gravity[0] = -2 * (qx * qz - qw * qy);
    gravity[1] = -2 * (qy * qz + qw * qx);
    gravity[2] = -(1 - 2 * (qx * qx + qy * qy));

    for (size_t i = 1; i < count; i++) {
        const double *g = gyroscope + 3 * i, *a = accelerometer + 3 * i;
        double dt = t[i] - previous;
        previous = t[i];
        if (!(dt > 0)) dt = 0;

        double dw = 0.5 * (-qx * g[0] - qy * g[1] - qz * g[2]);
        double dx = 0.5 * (qw * g[0] + qy * g[2] - qz * g[1]);
        double dy = 0.5 * (qw * g[1] - qx * g[2] + qz * g[0]);
        double dz = 0.5 * (qw * g[2] + qx * g[1] - qy * g[0]);

        double an = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (an > 0) {
            double ax = a[0] / an, ay = a[1] / an, az = a[2] / an;
            double f0 = 2 * (qx * qz - qw * qy) - ax;
            double f1 = 2 * (qw * qx + qy * qz) - ay;
            double f2 = 2 * (0.5 - qx * qx - qy * qy) - az;
            double gw = -2 * qy * f0 + 2 * qx * f1;
            double gx = 2 * qz * f0 + 2 * qw * f1 - 4 * qx * f2;
            double gy = -2 * qw * f0 + 2 * qz * f1 - 4 * qy * f2;
            double gz = 2 * qx * f0 + 2 * qy * f1;
            double n2 = gw * gw + gx * gx + gy * gy + gz * gz;
            if (n2 > 0) {
                double s = beta / sqrt(n2);
                dw -= s * gw; dx -= s * gx; dy -= s * gy; dz -= s * gz;
            }
        }
        qw += dw * dt; qx += dx * dt; qy += dy * dt; qz += dz * dt;
        double n = sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
        qw /= n; qx /= n; qy /= n; qz /= n;

        double *out = gravity + 3 * i;
        out[0] = -2 * (qx * qz - qw * qy);
        out[1] = -2 * (qy * qz + qw * qx);
        out[2] = -(1 - 2 * (qx * qx + qy * qy));
    }
    quaternion[0] = qw; quaternion[1] = qx; quaternion[2] = qy; quaternion[3] = qz;
}
