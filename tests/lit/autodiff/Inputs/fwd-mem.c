/* Harness of tests/lit/autodiff/fwd-mem.mim: directional derivatives of
 * functions over malloc'd F64 arrays, computed in forward mode with shadow
 * arrays, against the analytic ones (written here) and central finite
 * differences along the same direction. */
#include "grad-check.h"

double jdot(double *, double *, double *, double *, long);
double jsumsq(double *, double *, long);
double jlse(double *, double *, long);
double jsoftmax(double *, double *, double *, double *, long, long);
double jmlp(double *, double *, double *, double *, double *, double *, double *, double *, long, long, long);
double vsumsq(double *, long), vlse(double *, long), vsoftmax(double *, double *, long, long);
double vmlp(double *, double *, double *, double *, long, long, long);

static void check(const char *name, double got, double want, double fd) {
    if (rel(got, want) < 1e-9 && rel(got, fd) < 1e-6) printf("ok %s\n", name);
    else printf("FAIL %s: got %.17g, analytic %.17g, finite difference %.17g\n", name, got, want, fd);
}

static double f_dot(double *a, double *b, long n) {
    double r = 0;
    for (long i = 0; i < n; ++i) r += a[i] * b[i];
    return r;
}

int main(void) {
    const double h = 1e-6;
    for (long n = 3; n <= 1000; n *= 10) {
        double *a = vec(n, 1.0, 0.1), *b = vec(n, 0.5, 0.7), *da = vec(n, 1.0, 2.0), *db = vec(n, 0.3, 1.1);
        double want = 0, fd;
        for (long i = 0; i < n; ++i) want += da[i] * b[i] + a[i] * db[i];
        double *ap = moved(a, da, h, n), *am = moved(a, da, -h, n), *bp = moved(b, db, h, n), *bm = moved(b, db, -h, n);
        fd = (f_dot(ap, bp, n) - f_dot(am, bm, n)) / (2 * h);
        check("dot", jdot(a, da, b, db, n), want, fd);
        double *z = calloc((size_t)n, sizeof *z);
        want = 0;
        for (long i = 0; i < n; ++i) want += 2 * a[i] * da[i];
        fd = (vsumsq(ap, n) - vsumsq(am, n)) / (2 * h);
        check("sumsq", jsumsq(a, da, n), want, fd);
        double s = 0, sd = 0;
        for (long i = 0; i < n; ++i) s += exp(a[i]), sd += exp(a[i]) * da[i];
        fd = (vlse(ap, n) - vlse(am, n)) / (2 * h);
        check("lse", jlse(a, da, n), sd / s, fd);
        double *out = calloc((size_t)n, sizeof *out), *dout = calloc((size_t)n, sizeof *dout);
        long k = n / 2;
        double sk = exp(a[k]) / s, wantk = sk * (da[k] - sd / s);
        fd = (vsoftmax(ap, out, n, k) - vsoftmax(am, out, n, k)) / (2 * h);
        double got = jsoftmax(a, da, out, dout, n, k);
        check("softmax", got, wantk, fd);
        /* the whole output's tangent is in its shadow */
        double worst = 0;
        for (long i = 0; i < n; ++i) worst = fmax(worst, rel(dout[i], exp(a[i]) / s * (da[i] - sd / s)));
        check("softmax shadow", worst < 1e-9 ? 1 : 0, 1, 1);
        free(a), free(b), free(da), free(db), free(ap), free(am), free(bp), free(bm), free(z), free(out), free(dout);
    }
    /* MLP: d inputs, hh hidden, o outputs */
    long d = 7, hh = 5, o = 3;
    double *w1 = vec(d * hh, 0.4, 0.2), *w2 = vec(hh * o, 0.6, 0.9), *x = vec(d, 1.0, 0.5), *y = vec(o, 0.8, 1.7);
    double *dw1 = vec(d * hh, 1.0, 3.0), *dw2 = vec(hh * o, 1.0, 4.0);
    double want = 0;
    for (long kk = 0; kk < o; ++kk) {
        double zk = 0, dz = 0;
        for (long j = 0; j < hh; ++j) {
            double u = 0, du = 0;
            for (long i = 0; i < d; ++i) u += w1[j * d + i] * x[i], du += dw1[j * d + i] * x[i];
            double t = tanh(u), dt = (1 - t * t) * du;
            zk += w2[kk * hh + j] * t, dz += dw2[kk * hh + j] * t + w2[kk * hh + j] * dt;
        }
        want += 2 * (zk - y[kk]) * dz;
    }
    double *zx = calloc((size_t)d, sizeof(double)), *zy = calloc((size_t)o, sizeof(double));
    double *w1p = moved(w1, dw1, h, d * hh), *w1m = moved(w1, dw1, -h, d * hh);
    double *w2p = moved(w2, dw2, h, hh * o), *w2m = moved(w2, dw2, -h, hh * o);
    double fd = (vmlp(w1p, w2p, x, y, d, hh, o) - vmlp(w1m, w2m, x, y, d, hh, o)) / (2 * h);
    check("mlp", jmlp(w1, dw1, w2, dw2, x, zx, y, zy, d, hh, o), want, fd);
    /* the primal result is the loss itself */
    double loss = 0;
    for (long kk = 0; kk < o; ++kk) {
        double zk = 0;
        for (long j = 0; j < hh; ++j) {
            double u = 0;
            for (long i = 0; i < d; ++i) u += w1[j * d + i] * x[i];
            zk += w2[kk * hh + j] * tanh(u);
        }
        loss += (zk - y[kk]) * (zk - y[kk]);
    }
    check("mlp value", vmlp(w1, w2, x, y, d, hh, o), loss, loss);
    free(w1), free(w2), free(x), free(y), free(dw1), free(dw2), free(zx), free(zy), free(w1p), free(w1m), free(w2p), free(w2m);
    return 0;
}
