/* Driver of tests/lit/ll/memory.mim: passes C buffers and structs to the
 * extern Mim functions and prints what they computed or returned. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
    int32_t a;
    double b;
};

int32_t sum(const int32_t *p, int32_t n);
void fill(int64_t *p, int32_t n);
int32_t *make(int32_t n);
void pair(struct pair *p);
int32_t local(void);
int32_t scratch(void);
struct node {
    int32_t value;
    struct node *next;
};
int32_t list_sum(struct node *l);

int main(void) {
    int32_t xs[] = {10, 20, 30};
    printf("sum=%d\n", sum(xs, 3));
    int64_t ys[5] = {-1, -1, -1, -1, -1};
    fill(ys, 5);
    printf("fill=%lld %lld %lld %lld %lld\n", (long long)ys[0], (long long)ys[1], (long long)ys[2],
           (long long)ys[3], (long long)ys[4]);
    int32_t *zs = make(3);
    printf("make=%d %d %d\n", zs[0], zs[1], zs[2]);
    free(zs);
    struct pair p = {7, 2.5};
    pair(&p);
    printf("pair=%d %g\n", p.a, p.b);
    printf("local=%d\n", local());
    printf("scratch=%d\n", scratch());
    struct node c = {100, NULL}, b = {10, &c}, a = {1, &b};
    printf("list=%d\n", list_sum(&a));
    return 0;
}
