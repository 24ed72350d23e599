/* Linked into the unit tests that use mim_internal, in sanitizer builds.
 * A plugin such a test loads brings libmim.so.0 along (its dependency); the
 * test executable exports its own copy of libmim, and libmim.so.0's
 * references to its exported objects (the standard pass classes) bind to
 * the executable's, so AddressSanitizer sees the same globals registered
 * twice and reports an ODR violation that is none: one definition, used by
 * both. Only that check is turned off, only for these tests. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_odr_violation=0"; }
