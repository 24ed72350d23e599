/* fannkuch-redux: the same algorithm as fannkuch-redux.mim. */
int run(int *perm, int *perm1, int *count, int *out, int n) {
    int maxflips = 0, permcount = 0, checksum = 0, r = n;
    for (int i = 0; i < n; ++i) perm1[i] = i;
    for (;;) {
        for (; r != 1; --r) count[r - 1] = r;
        for (int i = 0; i < n; ++i) perm[i] = perm1[i];
        int flips = 0, k;
        while ((k = perm[0]) != 0) {
            for (int i = 0, j = k; i < j; ++i, --j) {
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            ++flips;
        }
        maxflips = flips > maxflips ? flips : maxflips;
        checksum += permcount & 1 ? -flips : flips;
        for (r = 1;; ++r) {
            if (r == n) {
                *out = checksum;
                return maxflips;
            }
            int p0 = perm1[0];
            for (int i = 0; i < r; ++i) perm1[i] = perm1[i + 1];
            perm1[r] = p0;
            if (--count[r] > 0) break;
        }
        ++permcount;
    }
}
