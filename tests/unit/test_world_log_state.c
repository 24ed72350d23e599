/* Per-World logging and plugin state (include/mim/world.h): what the refly
 * plugin's %refly.dbg and reify/reflect stand on. A World logs nothing until
 * told, then exactly the levels up to its own; an heir logs like its parent.
 * Plugin state is per World and per plugin, made once, released with its
 * World (the sanitizer build reports a leak if fini is not called), and not
 * inherited. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "mim/world.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static MimLoc here(void) { return (MimLoc){"x.mim", {3, 5}, {3, 9}}; }

static void test_log_levels(void) {
    MimWorld *w = mim_world_new();
    CHECK(!mim_world_logs(w, 0)); /* silent by default */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    mim_world_set_log(w, out, 2);
    CHECK(mim_world_logs(w, 0) && mim_world_logs(w, 2) && !mim_world_logs(w, 3));
    mim_world_log(w, 0, here(), "e%d", 1);
    mim_world_log(w, 2, here(), "i");
    mim_world_log(w, 3, here(), "v"); /* above the level: dropped */
    MimWorld *heir = mim_world_inherit(w);
    mim_world_log(heir, 1, here(), "w from heir");
    mim_world_log(heir, 4, here(), "d from heir");
    fclose(out);
    CHECK(buf && strcmp(buf, "E:x.mim:3:5-3:9: e1\nI:x.mim:3:5-3:9: i\nW:x.mim:3:5-3:9: w from heir\n") == 0);
    free(buf);
    mim_world_free(heir);
    mim_world_free(w);
}

typedef struct Counter {
    int *released;
    int *payload; /* owned: fini must free it */
} Counter;

static void counter_fini(void *state) {
    Counter *c = state;
    ++*c->released;
    free(c->payload);
}

static void test_plugin_state(void) {
    int released = 0;
    MimWorld *a = mim_world_new(), *b = mim_world_new();
    CHECK(mim_world_plugin_state(a, 0x100, 0, NULL) == NULL); /* none yet, none made */
    Counter *ca = mim_world_plugin_state(a, 0x100, sizeof(Counter), counter_fini);
    CHECK(ca && !ca->released && !ca->payload); /* zeroed */
    ca->released = &released;
    ca->payload = malloc(16);
    CHECK(mim_world_plugin_state(a, 0x100, sizeof(Counter), counter_fini) == ca); /* the same block */
    CHECK(mim_world_plugin_state(a, 0x100, 0, NULL) == ca);
    /* another plugin, another World, an heir: each its own */
    Counter *other = mim_world_plugin_state(a, 0x200, sizeof(Counter), NULL);
    Counter *cb = mim_world_plugin_state(b, 0x100, sizeof(Counter), counter_fini);
    CHECK(other && other != ca && cb && cb != ca);
    cb->released = &released;
    MimWorld *heir = mim_world_inherit(a);
    CHECK(mim_world_plugin_state(heir, 0x100, 0, NULL) == NULL);
    mim_world_free(heir);
    CHECK(released == 0);
    mim_world_free(a);
    CHECK(released == 1);
    mim_world_free(b);
    CHECK(released == 2);
}

int main(void) {
    RUN(test_log_levels);
    RUN(test_plugin_state);
    return unit_summary();
}
