/* Harness of tests/lit/autodiff/control-flow.mim: derivatives of functions
 * with branches and loops against the analytic derivative (written here
 * independently) and a central finite difference of the exported value. */
#include <math.h>
#include <stdio.h>

double v_br(double), d_br(double);
double v_pw(double, int), d_pw(double, int), v_pl(double, int), d_pl(double, int);
double v_sq(double, int), d_sq(double, int), v_nest(double, int), d_nest(double, int);
double v_two(double, double, int), dx_two(double, double, int), dy_two(double, double, int);

static double rel(double got, double want) { return fabs(got - want) / fmax(1.0, fabs(want)); }

static void check(const char *name, double x, int n, double got, double want, double fd) {
    if (rel(got, want) < 1e-9 && rel(got, fd) < 1e-6) printf("ok %s(%g, %d)\n", name, x, n);
    else printf("FAIL %s(%g, %d): got %.17g, analytic %.17g, finite difference %.17g\n", name, x, n, got, want, fd);
}

#define FD(f, x, n) (((f)((x) + 1e-6, n) - (f)((x) - 1e-6, n)) / 2e-6)

static double nest_d(double x, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) s += i * cos(x * i + j);
    return s;
}

int main(void) {
    double xs[2] = {0.5, 1.75};
    for (int k = 0; k < 2; ++k) {
        double x = xs[k], y = x * x + 1;
        double want = x < 1 ? y + x * 2 * x : 3 * 2 * x + 2 * y * 2 * x;
        check("br", x, 0, d_br(x), want, (v_br(x + 1e-6) - v_br(x - 1e-6)) / 2e-6);
    }
    int ns[3] = {0, 1, 7};
    for (int k = 0; k < 3; ++k) {
        int n = ns[k];
        double x = 1.25;
        double want = n ? n * pow(x, n - 1) : 0;
        check("pw", x, n, d_pw(x, n), want, FD(v_pw, x, n));
        check("pl", x, n, d_pl(x, n), want, FD(v_pl, x, n));
        double e = pow(2, n); /* x^(2^n) */
        check("sq", 1.01, n, d_sq(1.01, n), e * pow(1.01, e - 1), FD(v_sq, 1.01, n));
        check("nest", 0.3, n + 2, d_nest(0.3, n + 2), nest_d(0.3, n + 2), FD(v_nest, 0.3, n + 2));
    }
    check("pw", -0.8, 5, d_pw(-0.8, 5), 5 * pow(-0.8, 4), FD(v_pw, -0.8, 5));
    check("pl", -0.8, 5, d_pl(-0.8, 5), 5 * pow(-0.8, 4), FD(v_pl, -0.8, 5));
    check("sq", 1.0001, 10, d_sq(1.0001, 10), pow(2, 10) * pow(1.0001, pow(2, 10) - 1), FD(v_sq, 1.0001, 10));
    check("nest", 1.1, 9, d_nest(1.1, 9), nest_d(1.1, 9), FD(v_nest, 1.1, 9));
    for (int n = 1; n <= 5; n += 2) {
        double x = 0.3, y = 0.7, wx = 0, wy = 0, h = 1e-6;
        for (int i = 0; i < n; ++i) {
            wx += i * exp(x * i) * sin(y) + 2 * x * i * i;
            wy += exp(x * i) * cos(y);
        }
        check("dx two", x, n, dx_two(x, y, n), wx, (v_two(x + h, y, n) - v_two(x - h, y, n)) / (2 * h));
        check("dy two", y, n, dy_two(x, y, n), wy, (v_two(x, y + h, n) - v_two(x, y - h, n)) / (2 * h));
    }
    /* a long loop: linear time and memory (the backward sweep recurses n deep) */
    double x = 1.0 + 1e-6, d = d_pl(x, 100000);
    if (rel(d, 100000 * pow(x, 99999)) < 1e-9) printf("long ok\n");
    else printf("FAIL long: %.17g vs %.17g\n", d, 100000 * pow(x, 99999));
    return 0;
}
