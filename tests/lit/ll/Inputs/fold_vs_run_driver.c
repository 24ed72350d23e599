/* Driver of tests/lit/ll/fold-vs-run.mim: each operation once on run-time
 * inputs and once folded from the same inputs as literals; both must agree. */
#include <stdint.h>
#include <stdio.h>

uint64_t run_nfst_65535(uint64_t, uint64_t);
uint64_t fold_nfst_65535(uint64_t);
uint64_t run_iff_10(uint64_t, uint64_t);
uint64_t fold_iff_10(uint64_t);
uint64_t run_neg_200(uint64_t, uint64_t);
uint64_t fold_neg_200(uint64_t);
uint64_t run_shra_200(uint64_t, uint64_t);
uint64_t fold_shra_200(uint64_t);
uint64_t run_sl_10(uint64_t, uint64_t);
uint64_t fold_sl_10(uint64_t);
uint64_t run_relx_10(uint64_t, uint64_t);
uint64_t fold_relx_10(uint64_t);
uint64_t run_smin_10(uint64_t, uint64_t);
uint64_t fold_smin_10(uint64_t);
uint64_t run_shra_10(uint64_t, uint64_t);
uint64_t fold_shra_10(uint64_t);
uint64_t run_convs_10_i8(uint64_t, uint64_t);
uint64_t fold_convs_10_i8(uint64_t);
uint64_t run_convs_i8_1000(uint64_t, uint64_t);
uint64_t fold_convs_i8_1000(uint64_t);
uint64_t run_s2f_10(uint64_t, uint64_t);
uint64_t fold_s2f_10(uint64_t);
uint64_t run_shl_16(uint64_t, uint64_t);
uint64_t fold_shl_16(uint64_t);
uint64_t run_add_assoc_200(uint64_t, uint64_t);
uint64_t fold_add_assoc_200(uint64_t);
uint64_t run_sub_lit_200(uint64_t, uint64_t);
uint64_t fold_sub_lit_200(uint64_t);
uint64_t run_exp10(uint64_t, uint64_t);
uint64_t fold_exp10(uint64_t);
uint64_t run_sel3(uint64_t, uint64_t);
uint64_t fold_sel3(uint64_t);
uint64_t run_idx_1000(uint64_t, uint64_t);
uint64_t fold_idx_1000(uint64_t);
uint64_t run_nat_slot(uint64_t, uint64_t);
uint64_t fold_nat_slot(uint64_t);

int main(void) {
    int bad = 0;
    { uint64_t r = run_nfst_65535(UINT64_C(0), UINT64_C(0)), f = fold_nfst_65535(0); bad += r != f;
      printf("%s nfst_65535 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_iff_10(UINT64_C(2), UINT64_C(4)), f = fold_iff_10(0); bad += r != f;
      printf("%s iff_10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_neg_200(UINT64_C(5), UINT64_C(0)), f = fold_neg_200(0); bad += r != f;
      printf("%s neg_200 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_shra_200(UINT64_C(199), UINT64_C(1)), f = fold_shra_200(0); bad += r != f;
      printf("%s shra_200 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_sl_10(UINT64_C(9), UINT64_C(1)), f = fold_sl_10(0); bad += r != f;
      printf("%s sl_10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_relx_10(UINT64_C(1), UINT64_C(9)), f = fold_relx_10(0); bad += r != f;
      printf("%s relx_10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_smin_10(UINT64_C(9), UINT64_C(1)), f = fold_smin_10(0); bad += r != f;
      printf("%s smin_10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_shra_10(UINT64_C(9), UINT64_C(1)), f = fold_shra_10(0); bad += r != f;
      printf("%s shra_10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_convs_10_i8(UINT64_C(9), UINT64_C(0)), f = fold_convs_10_i8(0); bad += r != f;
      printf("%s convs_10_i8 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_convs_i8_1000(UINT64_C(255), UINT64_C(0)), f = fold_convs_i8_1000(0); bad += r != f;
      printf("%s convs_i8_1000 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_s2f_10(UINT64_C(9), UINT64_C(0)), f = fold_s2f_10(0); bad += r != f;
      printf("%s s2f_10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_shl_16(UINT64_C(3), UINT64_C(5)), f = fold_shl_16(0); bad += r != f;
      printf("%s shl_16 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_add_assoc_200(UINT64_C(150), UINT64_C(0)), f = fold_add_assoc_200(0); bad += r != f;
      printf("%s add_assoc_200 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_sub_lit_200(UINT64_C(3), UINT64_C(0)), f = fold_sub_lit_200(0); bad += r != f;
      printf("%s sub_lit_200 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_exp10(UINT64_C(4624106101774745600), UINT64_C(0)), f = fold_exp10(0); bad += r != f;
      printf("%s exp10 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_sel3(3, 0), f = fold_sel3(0); bad += r != f;
      printf("%s sel3 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_idx_1000(UINT64_C(1099511627775), 0), f = fold_idx_1000(0); bad += r != f;
      printf("%s idx_1000 run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    { uint64_t r = run_nat_slot(UINT64_C(42), 0), f = fold_nat_slot(0); bad += r != f;
      printf("%s nat_slot run=%llu fold=%llu\n", r == f ? "ok" : "FAIL", (unsigned long long)r, (unsigned long long)f); }
    printf("fold-vs-run: %d failures\n", bad);
    return bad != 0;
}
