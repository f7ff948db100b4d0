/* Which BLAS CHOLMOD uses in this process.  CHOLMOD links libblas.so.3,
 * which Debian resolves through the alternatives system: OpenBLAS when
 * installed, else the reference BLAS (~13x slower for CHOLMOD here). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/core.h>

#include "base.h"

const char *ms_blas_info(int *is_openblas) {
  static char line[PATH_MAX + 256];
  int openblas = 0;
  /* Resolve dgemm_ the way CHOLMOD does: through its own dependencies. */
  void *h = dlopen("libcholmod.so.3", RTLD_LAZY | RTLD_LOCAL);
  if (!h) h = dlopen("libblas.so.3", RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    snprintf(line, sizeof line, "none found (neither libcholmod.so.3 nor "
             "libblas.so.3 loads)");
  } else {
    void *sym = dlsym(h, "dgemm_");
    Dl_info info;
    char real[PATH_MAX];
    const char *file = "?";
    if (sym && dladdr(sym, &info) && info.dli_fname)
      file = realpath(info.dli_fname, real) ? real : info.dli_fname;
    void *cfg = dlsym(h, "openblas_get_config");
    if (cfg) {
      char *(*get)(void);
      memcpy(&get, &cfg, sizeof get);
      openblas = 1;
      snprintf(line, sizeof line, "OpenBLAS (%s) %s", get(), file);
    } else {
      snprintf(line, sizeof line, "%s (not OpenBLAS: install "
               "libopenblas0-pthread)", file);
    }
    dlclose(h);
  }
  if (is_openblas) *is_openblas = openblas;
  return line;
}

/* CHOLMOD reaches OpenBLAS twice (libblas.so.3 directly, libopenblas.so.0
 * through Debian's LAPACK), two copies with a thread count each; only the
 * ones already loaded are touched, so a run without an implicit solver
 * starts no BLAS. */
int ms__blas_set_threads(int n) {
  static const char *const names[] = {"libblas.so.3", "libopenblas.so.0",
                                      "liblapack.so.3"};
  int set = 0;
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    void *h = dlopen(names[k], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h) continue;
    void *sym = dlsym(h, "openblas_set_num_threads");
    if (sym) {
      void (*fn)(int);
      memcpy(&fn, &sym, sizeof fn);
      fn(n);
      set++;
    }
    dlclose(h);
  }
  return set;
}
