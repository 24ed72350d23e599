/* A library planted in the current directory under a plugin's file name:
 * loading it runs its constructor, which leaves a file behind. */
#include <stdio.h>

__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen("planted-code-ran", "w");
    if (f) fclose(f);
}
