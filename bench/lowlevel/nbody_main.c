/* Driver shared by the Mim and the C version: the Jovian planets and the
 * sun (Computer Language Benchmarks Game constants), 5 000 000 steps. */
#include <stdio.h>
double run(double *p, int steps);
int main(int argc, char **argv) {
    (void)argv;
    const double pi = 3.141592653589793, solar = 4 * pi * pi, days = 365.24;
    double p[35] = {
        0, 0, 0, 0, 0, 0, solar,
        4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
        1.66007664274403694e-03 * days, 7.69901118419740425e-03 * days, -6.90460016972063023e-05 * days,
        9.54791938424326609e-04 * solar,
        8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
        -2.76742510726862411e-03 * days, 4.99852801234917238e-03 * days, 2.30417297573763929e-05 * days,
        2.85885980666130812e-04 * solar,
        1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
        2.96460137564761618e-03 * days, 2.37847173959480950e-03 * days, -2.96589568540237556e-05 * days,
        4.36624404335156298e-05 * solar,
        1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
        2.68067772490389322e-03 * days, 1.62824170038242295e-03 * days, -9.51592254519715870e-05 * days,
        5.15138902046611451e-05 * solar,
    };
    double px = 0, py = 0, pz = 0;
    for (int b = 0; b < 5; ++b) px += p[7 * b + 3] * p[7 * b + 6], py += p[7 * b + 4] * p[7 * b + 6], pz += p[7 * b + 5] * p[7 * b + 6];
    p[3] = -px / solar, p[4] = -py / solar, p[5] = -pz / solar;
    printf("%.9f\n", run(p, 5000000 + argc - 1));
    return 0;
}
