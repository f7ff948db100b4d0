/* When the core's loops go parallel.  Below these sizes a loop runs on the
 * calling thread: waking a team costs more than the work, and far more on a
 * loaded machine (a thread that has to be scheduled in). */
#ifndef MS_CORE_PARALLEL_H
#define MS_CORE_PARALLEL_H

#define MS__PAR_MIN 4096       /* per-particle loops */
#define MS__PAR_MIN_METAS 256  /* per-meta-particle loops */
#define MS__PAR_MIN_PAIRS 65536 /* loops testing one distance per pair */
#define MS__PAR_MIN_DRIVERS 512 /* detection: each scans some hundred */
#define MS__PAR_MIN_STREAM 32768 /* per-particle loops that only stream a
                                    few numbers (memory-bound) */

#endif
