/* n-body: the same algorithm as nbody.mim (body b at p[7b .. 7b+6]). */
#include <math.h>

static void advance(double *p) {
    const double dt = 0.01;
    for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 5; ++j) {
            double *a = p + 7 * i, *b = p + 7 * j;
            double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            double d2 = dx * dx + dy * dy + dz * dz;
            double mag = dt / (d2 * sqrt(d2));
            double fi = a[6] * mag, fj = b[6] * mag;
            a[3] -= dx * fj, b[3] += dx * fi;
            a[4] -= dy * fj, b[4] += dy * fi;
            a[5] -= dz * fj, b[5] += dz * fi;
        }
    for (int b = 0; b < 5; ++b) {
        double *q = p + 7 * b;
        q[0] += dt * q[3], q[1] += dt * q[4], q[2] += dt * q[5];
    }
}

static double energy(const double *p) {
    double e = 0;
    for (int i = 0; i < 5; ++i) {
        const double *a = p + 7 * i;
        e += 0.5 * a[6] * (a[3] * a[3] + a[4] * a[4] + a[5] * a[5]);
        for (int j = i + 1; j < 5; ++j) {
            const double *b = p + 7 * j;
            double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            e -= a[6] * b[6] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

double run(double *p, int steps) {
    for (int s = 0; s < steps; ++s) advance(p);
    return energy(p);
}
