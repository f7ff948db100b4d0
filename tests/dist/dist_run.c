/* The proof of doc/distributed.md (section 5): one run of a scene spread
 * over MPI ranks by domain decomposition (core/step/domain.c), its frames
 * written by rank 0 as `mergesplit run` writes them.
 *
 *   mpirun -np P dist-run SCENE OUTDIR [FRAMES]
 *
 * Prints one JSON object (rank 0, standard output): the counts summed over
 * the ranks (pairs, approaching pairs, meta-particles, members: each found
 * on one rank, so they add up to the one-process run's), and what crossed
 * ranks per kind, in bytes and records, sent and received, for the busiest
 * rank and summed, with the ghosts of the first step (the model's G(P)
 * measured on the scene at rest). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mergesplit/core.h>

#include "../../core/run/run.h"
#include "../../core/step/step.h"

static void abort_all(const char *what) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "dist-run: rank %d: %s\n", rank, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static int mpi_alltoall(void *opaque, void *const *send, const size_t *scount,
                        void **recv, size_t *rcount) {
  (void)opaque;
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  unsigned long long *sc = malloc(2 * (size_t)size * sizeof *sc);
  int *si = malloc(4 * (size_t)size * sizeof *si);
  /* a rank that cannot go on must not leave the others in a collective */
  if (!sc || !si) abort_all("out of memory");
  unsigned long long *rc = sc + size;
  int *sd = si + size, *ri = si + 2 * size, *rd = si + 3 * size;
  for (int q = 0; q < size; q++) sc[q] = scount[q];
  MPI_Alltoall(sc, 1, MPI_UNSIGNED_LONG_LONG, rc, 1, MPI_UNSIGNED_LONG_LONG,
               MPI_COMM_WORLD);
  size_t so = 0, ro = 0;
  for (int q = 0; q < size; q++)
    if ((so += sc[q]) > INT_MAX || (ro += rc[q]) > INT_MAX)
      abort_all("more than 2 GB in one exchange (MPI_Alltoallv counts)");
  so = ro = 0;
  for (int q = 0; q < size; q++) {
    si[q] = (int)sc[q], sd[q] = (int)so, so += sc[q];
    ri[q] = (int)rc[q], rd[q] = (int)ro, ro += rc[q];
    rcount[q] = rc[q];
  }
  char *packed = malloc(so + 1), *in = malloc(ro + 1);
  if (!packed || !in) abort_all("out of memory");
  for (int q = 0; q < size; q++)
    if (sc[q]) memcpy(packed + sd[q], send[q], sc[q]);
  MPI_Alltoallv(packed, si, sd, MPI_BYTE, in, ri, rd, MPI_BYTE,
                MPI_COMM_WORLD);
  free(packed), free(sc), free(si);
  *recv = in;
  return MS_OK;
}

static int mpi_max(void *opaque, double *v, int n) {
  (void)opaque;
  MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return MS_OK;
}

/* Opening: the ranks agree whether any failed (a bad scene fails on all
 * alike, memory on one); the lowest failing rank prints its line, and
 * all stop. */
static void opened(int rank, int size, int rc, const char *what) {
  int first = rc ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return;
  if (rank == first) fprintf(stderr, "dist-run: %s\n", what);
  MPI_Finalize();
  exit(3);
}

static const char *const kinds[MS__DOM_KINDS] = {
    "ghost", "migrant", "link", "component", "result", "frame"};

/* Rank 0 prints the figures: the counts summed, and each rank's traffic
 * (received, sent: bytes and records per kind). */
static void report(const struct ms_sim *S, const struct ms__domain *D,
                   int rank, int size, double seconds) {
  const struct ms__counts *c = &S->run_counts;
  unsigned long long mine[4] = {c->pairs, c->approaching, c->metas,
                                c->members}, sum[4];
  MPI_Reduce(mine, sum, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  enum { N = 4 * MS__DOM_KINDS + 2 };
  unsigned long long t[N], *all = rank ? NULL : malloc((size_t)size * sizeof t);
  for (int k = 0; k < MS__DOM_KINDS; k++) {
    t[4 * k] = D->recvd.bytes[k], t[4 * k + 1] = D->sent.bytes[k];
    t[4 * k + 2] = D->recvd.records[k], t[4 * k + 3] = D->sent.records[k];
  }
  t[N - 2] = D->first_ghosts, t[N - 1] = D->max_ghosts;
  MPI_Gather(t, N, MPI_UNSIGNED_LONG_LONG, all, N, MPI_UNSIGNED_LONG_LONG, 0,
             MPI_COMM_WORLD);
  if (rank) return;
  printf("{\"ranks\": %d, \"steps\": %llu, \"frames\": %lld, "
         "\"seconds\": %.3f, \"axis\": %d, \"halo\": %.17g,\n"
         " \"pairs\": %llu, \"approaching\": %llu, \"metas\": %llu, "
         "\"members\": %llu,\n \"per_rank\": [",
         size, (unsigned long long)S->stepper.step, (long long)S->frame,
         seconds, D->axis, D->halo, sum[0], sum[1], sum[2], sum[3]);
  static const char *const what[4] = {"received_bytes", "sent_bytes",
                                      "received_records", "sent_records"};
  for (int r = 0; r < size; r++) {
    const unsigned long long *u = all + (size_t)r * N;
    printf("%s\n  {\"first_ghosts\": %llu, \"max_ghosts\": %llu", r ? "," : "",
           u[N - 2], u[N - 1]);
    for (int w = 0; w < 4; w++) {
      printf(", \"%s\": {", what[w]);
      for (int k = 0; k < MS__DOM_KINDS; k++)
        printf("%s\"%s\": %llu", k ? ", " : "", kinds[k], u[4 * k + w]);
      printf("}");
    }
    printf("}");
  }
  printf("]}\n");
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || argc > 4) {
    if (!rank) fprintf(stderr, "usage: dist-run SCENE OUTDIR [FRAMES]\n");
    MPI_Finalize();
    return 2;
  }
  struct ms_sim_options o = {.struct_size = sizeof o, .threads = 1,
                             .frames = argc == 4 ? atoll(argv[3]) : 0,
                             .output_dir = argv[2], .no_output = rank != 0,
                             .verbosity = MS_SINK_ERROR};
  char err[1200];
  ms_sim *S = NULL;
  opened(rank, size, ms_sim_open(argv[1], &o, &S, err, sizeof err), err);
  struct ms__transport T = {.rank = rank, .size = size,
                            .alltoall = mpi_alltoall, .max = mpi_max};
  struct ms__domain D;
  opened(rank, size, ms__domain_open(&D, &S->stepper, &T), S->err.msg);
  S->stepper.dom = &D;
  double t0 = MPI_Wtime();
  if (ms_sim_run(S)) abort_all(ms_sim_error(S));
  report(S, &D, rank, size, MPI_Wtime() - t0);
  S->stepper.dom = NULL;
  ms__domain_free(&D);
  ms_sim_close(S);
  MPI_Finalize();
  return 0;
}
