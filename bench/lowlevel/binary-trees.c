/* binary-trees in C, the same algorithm as binary-trees.mim: perfect trees
 * of malloc'd nodes (a leaf has two null children), counted and freed. */
#include <stdlib.h>

typedef struct Node {
    struct Node *left, *right;
} Node;

static Node *make(int d) {
    Node *p = malloc(sizeof *p);
    if (d > 0) {
        Node *l = make(d - 1);
        p->right = make(d - 1);
        p->left = l;
    } else {
        p->left = p->right = NULL;
    }
    return p;
}

static long check(const Node *p) { return p->left ? 1 + check(p->left) + check(p->right) : 1; }

static void dispose(Node *p) {
    if (p->left) {
        dispose(p->left);
        dispose(p->right);
    }
    free(p);
}

static long churn(int d) {
    Node *t = make(d);
    long c = check(t);
    dispose(t);
    return c;
}

long run(int n) {
    int maxd = n > 6 ? n : 6;
    long acc = churn(maxd + 1);
    Node *longlived = make(maxd);
    for (int d = 4; d <= maxd; d += 2)
        for (int i = 1 << (maxd - d + 4); i > 0; --i) acc += churn(d);
    acc += check(longlived);
    dispose(longlived);
    return acc;
}
