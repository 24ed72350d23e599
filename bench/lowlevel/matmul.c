/* Matrix multiplication: the same algorithm as matmul.mim. */
double run(const double *a, const double *b, double *c, int n) {
    for (int i = 0; i < n * n; ++i) c[i] = 0;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k) {
            double aik = a[i * n + k];
            for (int j = 0; j < n; ++j) c[i * n + j] = c[i * n + j] + aik * b[k * n + j];
        }
    double s = 0;
    for (int i = 0; i < n * n; ++i) s = s + c[i];
    return s;
}
