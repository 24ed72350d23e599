/* Growable arrays as macros over a {data, len, cap} struct.
 *   MIM_VEC(int) v = {0};  mim_vec_push(&v, 3);  mim_vec_free(&v);
 * Elements live in heap memory owned by the vector (mim/xalloc.h: running out
 * of memory aborts). Each MIM_VEC(T) is a distinct struct type, so a vector
 * passed between functions needs a typedef: typedef MIM_VEC(MimDef *) Defs;
 * mim_vec_push(v, x) may move v->data before x is read: x must not read v.
 * Public so that plugins grow arrays the same way as libmim. */
#ifndef MIM_VEC_H
#define MIM_VEC_H

#include "mim/xalloc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define MIM_VEC(T) struct { T *data; size_t len, cap; }

#define mim_vec_reserve(v, n)                                                            \
    do {                                                                                 \
        if ((n) > (v)->cap) {                                                            \
            size_t c_ = (v)->cap ? (v)->cap * 2 : 8;                                     \
            while (c_ < (n)) c_ *= 2;                                                    \
            if (c_ > SIZE_MAX / sizeof *(v)->data) mim_xalloc_fail();                        \
            (v)->data = mim_xrealloc((v)->data, c_ * sizeof *(v)->data);                 \
            (v)->cap = c_;                                                               \
        }                                                                                \
    } while (0)

#define mim_vec_push(v, x)                                                               \
    do {                                                                                 \
        mim_vec_reserve((v), (v)->len + 1);                                              \
        (v)->data[(v)->len++] = (x);                                                     \
    } while (0)

#define mim_vec_pop(v) ((v)->data[--(v)->len])
#define mim_vec_last(v) ((v)->data[(v)->len - 1])
#define mim_vec_free(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

#endif
