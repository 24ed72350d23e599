/* Mandelbrot: the same algorithm as mandelbrot.mim. */
int run(int n) {
    int count = 0;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            double zr = 0, zi = 0;
            int k = 0;
            while (k < 50 && zr * zr + zi * zi <= 4.0) {
                double t = zr * zr - zi * zi + (2.0 * x / n - 1.5);
                zi = 2.0 * (zr * zi) + (2.0 * y / n - 1.0);
                zr = t;
                ++k;
            }
            count += zr * zr + zi * zi <= 4.0;
        }
    return count;
}
