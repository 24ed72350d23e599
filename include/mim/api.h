/* What every public header shares: MIM_API marks the functions and objects
 * that libmim exports (it is built with hidden visibility, so everything
 * else stays internal and cannot clash with a plugin's or embedder's own
 * names), and MIM_NORETURN spells "does not return" for C and C++. The
 * headers wrap their declarations in extern "C" for C++ embedders. */
#ifndef MIM_API_H
#define MIM_API_H

#if defined(__GNUC__) || defined(__clang__)
#define MIM_API __attribute__((visibility("default")))
#else
#define MIM_API
#endif

#ifdef __cplusplus
#define MIM_NORETURN [[noreturn]]
#else
#define MIM_NORETURN _Noreturn
#endif

#endif
