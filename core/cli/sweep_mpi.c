/* mergesplit sweep under MPI: rank 0 hands out variant numbers one at a
 * time to whichever rank has a free slot (itself included), so ranks that
 * draw slow variants take fewer.  Every run writes its own directory on
 * the shared file system; rank 0 then reads them all for the summary, as
 * a serial sweep does. */
#include <stdlib.h>

#include "cli.h"

/* Started as one of several ranks: Open MPI's and MPICH/Slurm's (PMI)
 * launchers say how many.  One rank (srun -n 1, an array task) is a
 * plain run. */
int sweep_ranks(void) {
  const char *n = getenv("OMPI_COMM_WORLD_SIZE");
  if (!n) n = getenv("PMI_SIZE");
  int v = n ? atoi(n) : 1;
  return v > 1 ? v : 1;
}

static int under_mpirun(void) { return sweep_ranks() > 1; }

int sweep_local_ranks(void) {
  const char *n = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (!n) n = getenv("MPI_LOCALNRANKS");
  int v = n ? atoi(n) : 1;
  return v > 0 ? v : 1;
}

#ifndef MS_WITH_MPI

int sweep_mpi(struct sweep *w, size_t *failed, int *summarise) {
  (void)failed, (void)summarise;
  return under_mpirun() && w->index < 0 ? -2 : -1;
}

#else

#include <mpi.h>
#include <time.h>

enum { TAG_ASK = 1, TAG_GIVE = 2 };

struct coordinator {
  struct sweep *w;
  int ranks, stopped; /* ranks told there is no more */
};

static long take(struct sweep *w) {
  return w->next < w->count ? (long)w->next++ : -1;
}

/* Answer every request waiting; a rank told -1 asks no more. */
static void serve(void *opaque) {
  struct coordinator *c = opaque;
  int flag = 1;
  while (flag) {
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &st);
    if (!flag) break;
    MPI_Recv(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    long i = take(c->w);
    MPI_Send(&i, 1, MPI_LONG, st.MPI_SOURCE, TAG_GIVE, MPI_COMM_WORLD);
    if (i < 0) c->stopped++;
  }
}

static long next_coordinator(void *opaque) {
  struct coordinator *c = opaque;
  return take(c->w);
}

static long next_worker(void *opaque) {
  long i;
  (void)opaque;
  MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ASK, MPI_COMM_WORLD);
  MPI_Recv(&i, 1, MPI_LONG, 0, TAG_GIVE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return i;
}

int sweep_mpi(struct sweep *w, size_t *failed, int *summarise) {
  if (w->index >= 0 || !under_mpirun()) return -1;
  int rank, ranks;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  size_t mine;
  if (rank == 0) {
    struct coordinator c = {w, ranks, 0};
    w->serve = serve, w->serve_opaque = &c;
    mine = sweep_work(w, next_coordinator, &c);
    struct timespec nap = {0, 2000000};
    while (c.stopped < ranks - 1) serve(&c), nanosleep(&nap, NULL);
  } else {
    mine = sweep_work(w, next_worker, NULL);
  }
  unsigned long long f = mine, total = 0;
  MPI_Reduce(&f, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
             MPI_COMM_WORLD);
  MPI_Finalize();
  *failed = (size_t)total;
  *summarise = rank == 0;
  return 0;
}

#endif
