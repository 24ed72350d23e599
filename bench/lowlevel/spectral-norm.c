/* Spectral norm: the same algorithm as spectral-norm.mim. */
#include <math.h>

static double A(int i, int j) {
    int s = i + j;
    return 1.0 / (double)((int)((unsigned)(s * (s + 1)) >> 1) + i + 1);
}

static void mulAv(const double *v, double *out, int n, int t) {
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += A(t ? j : i, t ? i : j) * v[j];
        out[i] = sum;
    }
}

static void mulAtAv(const double *v, double *out, double *tmp, int n) {
    mulAv(v, tmp, n, 0);
    mulAv(tmp, out, n, 1);
}

static double dot(const double *a, const double *b, int n) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

double run(double *u, double *v, double *tmp, int n) {
    for (int k = 0; k < 10; ++k) {
        mulAtAv(u, v, tmp, n);
        mulAtAv(v, u, tmp, n);
    }
    return sqrt(dot(u, v, n) / dot(v, v, n));
}
