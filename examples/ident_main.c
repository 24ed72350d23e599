/* Calls ident_len of examples/ident.mim from C and checks it against the
 * same scan written in C. */
#include <ctype.h>
#include <stdio.h>

int ident_len(const char *s);

static int c_ident_len(const char *s) {
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    int n = 1;
    while (isalnum((unsigned char)s[n]) || s[n] == '_') ++n;
    return n;
}

int main(void) {
    const char *inputs[] = {"hello world", "_tmp1+x", "9lives", "", "a", "x_y_Z9;"};
    int bad = 0;
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; ++i) {
        int got = ident_len(inputs[i]), want = c_ident_len(inputs[i]);
        printf("%-12s %d (C: %d)\n", inputs[i], got, want);
        bad |= got != want;
    }
    return bad;
}
