/* Pointer-pair maps (src/util/ptrmap.c): removal by backward shift keeps
 * every other entry findable, whatever probe runs it cuts (the World's
 * set of β-reductions in progress removes each entry when its reduction
 * ends). Checked against a plain array as the model, on a small table
 * where probe runs wrap around its end. */
#include "mim/ptrmap.h"
#include "unit.h"

#include <stdint.h>

#define KEYS 12

static const void *key(int i) { return (const void *)(uintptr_t)(0x1000 + 16 * i); }

/* Every key is present exactly when `in` says so, with value i + 1. */
static void check_model(const MimPairMap *m, bool in[KEYS][KEYS]) {
    size_t n = 0;
    for (int a = 0; a < KEYS; ++a)
        for (int b = 0; b < KEYS; ++b) {
            void **v = mim_pairmap_find(m, key(a), key(b));
            CHECK(!v == !in[a][b]);
            if (v) CHECK(*v == (void *)(uintptr_t)(a * KEYS + b + 1));
            n += in[a][b];
        }
    CHECK(m->len == n);
}

static void test_remove_keeps_the_rest(void) {
    MimPairMap m = {0};
    bool in[KEYS][KEYS] = {{false}};
    /* 7 of 16 slots (no growth past the first storage): long probe runs. */
    for (int i = 0; i < 7; ++i) {
        int a = (i * 5) % KEYS, b = (i * 7 + 3) % KEYS;
        mim_pairmap_put(&m, key(a), key(b), (void *)(uintptr_t)(a * KEYS + b + 1));
        in[a][b] = true;
    }
    check_model(&m, in);
    CHECK(!mim_pairmap_remove(&m, key(1), key(1))); /* absent */
    for (int i = 6; i >= 0; i -= 2) { /* every other, last first */
        int a = (i * 5) % KEYS, b = (i * 7 + 3) % KEYS;
        CHECK(mim_pairmap_remove(&m, key(a), key(b)));
        in[a][b] = false;
        check_model(&m, in);
    }
    /* Many puts and removes in LIFO order, as nested reductions do. */
    for (int round = 0; round < 3; ++round) {
        for (int a = 0; a < KEYS; ++a) {
            mim_pairmap_put(&m, key(a), key(round), (void *)(uintptr_t)(a * KEYS + round + 1));
            in[a][round] = true;
        }
        check_model(&m, in);
        for (int a = KEYS - 1; a >= 0; --a) {
            CHECK(mim_pairmap_remove(&m, key(a), key(round)));
            in[a][round] = false;
            check_model(&m, in);
        }
    }
    mim_pairmap_free(&m);
    MimPairMap empty = {0};
    CHECK(!mim_pairmap_remove(&empty, key(0), key(0)));
}

int main(void) {
    RUN(test_remove_keeps_the_rest);
    return unit_summary();
}
