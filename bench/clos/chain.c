/* The C version of chain.mim: closures as function pointers with explicit
 * environments on the heap (freed after each chain ran). */
#include <stdlib.h>

typedef struct Clos {
    int (*code)(void *env, int acc);
    void *env;
} Clos;

typedef struct Next {
    unsigned i, s;
    Clos k;
} Next;

static int init_code(void *env, int acc) {
    (void)env;
    return acc;
}

static int next_code(void *env, int acc) {
    Next *n = env;
    return n->k.code(n->k.env, (int)((unsigned)acc + n->i * n->s));
}

int run(int reps) {
    unsigned total = 0;
    static Next *envs[1000];
    for (unsigned s = 0; s < (unsigned)reps; s++) {
        Clos k = {init_code, NULL};
        for (unsigned i = 1; i < 1000; i++) {
            Next *e = malloc(sizeof *e);
            e->i = i, e->s = s, e->k = k;
            envs[i] = e;
            k = (Clos){next_code, e};
        }
        total += (unsigned)k.code(k.env, 0);
        for (unsigned i = 1; i < 1000; i++) free(envs[i]);
    }
    return (int)total;
}
