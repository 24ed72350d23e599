/* Whether AddressSanitizer (and its leak checker) watches this build: some
 * economies of the plain build would hide from it what it is there to see. */
#ifndef MIM_UTIL_SANITIZER_H
#define MIM_UTIL_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define MIM_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MIM_ASAN_BUILD 1
#endif
#endif

#endif
