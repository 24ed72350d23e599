/* Harness of tests/lit/autodiff/rev-alias.mim: the gradient of
 * f = Σ_i a_i b_i + Σ_i t_i², t_i = Σ_{j<i} a_j b_j (then f = t_n + Σ t_i²)
 * against the analytic one: with T_k = 1 + Σ_{k<i<n} 2 t_i,
 * ∂a_k = b_k T_k, ∂b_k = a_k T_k. Integer-valued inputs keep every sum
 * exact, so the comparison is exact. Also one buffer for both arguments
 * with one shadow for both (f = Σ a_i² + …: ∂a_k = 2 a_k T_k). */
#include <stdio.h>
#include <stdlib.h>

double rdot(double *, double *, double *, double *, long);
double vdot(double *, double *, long);

static int check(const char *what, long n, int same) {
    double *a = malloc((size_t)(n + 1) * sizeof *a), *b = malloc((size_t)(n + 1) * sizeof *b);
    double *da = calloc((size_t)(n + 1), sizeof *da), *db = calloc((size_t)(n + 1), sizeof *db);
    double *t = malloc((size_t)(n + 1) * sizeof *t);
    for (long i = 0; i < n; ++i) a[i] = (double)(i % 7) - 3, b[i] = same ? a[i] : (double)(i % 5) - 1;
    double f = same ? rdot(a, da, a, da, n) : rdot(a, da, b, db, n);
    double s = 0;
    for (long i = 0; i < n; ++i) t[i] = s, s += a[i] * b[i];
    int ok = f == (same ? vdot(a, a, n) : vdot(a, b, n));
    double tail = 1;
    for (long k = n - 1; k >= 0; --k) {
        double wa = b[k] * tail, wb = a[k] * tail;
        if (same ? da[k] != wa + wb : da[k] != wa || db[k] != wb) ok = 0;
        tail += 2 * t[k];
    }
    printf("%s %s (n = %ld)\n", ok ? "ok" : "FAIL", what, n);
    free(a), free(b), free(da), free(db), free(t);
    return ok;
}

int main(void) {
    check("distinct buffers", 1000, 0);
    check("distinct buffers", 3, 0);
    check("one buffer for both", 1000, 1);
    check("one buffer for both", 0, 1);
    return 0;
}
