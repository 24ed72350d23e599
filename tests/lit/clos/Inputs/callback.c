/* The C side: call the Mim continuation k with x * 3 (k's code takes its
 * environment first; it never returns: it calls exit). */
typedef struct {
    void (*code)(void *env, int x);
    void *env;
} Clos;

void call_back(Clos k, int x) { k.code(k.env, x * 3); }
