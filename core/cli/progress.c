/* Progress display (see cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static struct {
  int on, tty, drawn;
  double t_wall0, sim_t0, last_draw, last_wall, rate;
  uint64_t last_steps;
  /* wall seconds per simulated second over the recent frames, and where
   * the last frame ended */
  double pace, pace_wall, pace_sim;
} P;

/* Weight of the newest frame in the pace: about the last 5 frames count,
 * so the ETA follows a run that slows down when contact starts. */
#define PACE_WEIGHT 0.25

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void progress_start(int quiet, double time, uint64_t steps) {
  memset(&P, 0, sizeof P);
  P.on = !quiet;
  P.tty = isatty(STDERR_FILENO);
  P.t_wall0 = P.last_wall = now();
  P.sim_t0 = P.pace_sim = time; /* a resumed run starts at its checkpoint */
  P.pace_wall = P.t_wall0;
  P.last_steps = steps;
}

static int columns(void) {
  struct winsize ws;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
    return ws.ws_col < 500 ? ws.ws_col : 500;
  return 80;
}

/* "1:02:03", "4:05", or "?" */
static void fmt_eta(char *buf, size_t len, double s) {
  if (!(s >= 0) || s > 1e7) {
    snprintf(buf, len, "?");
    return;
  }
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* Remaining wall time at the recent frames' pace (before the first frame
 * ends: at the pace since the start). */
static double eta(const struct ms_progress *p, double wall) {
  double done = p->time - P.sim_t0, rest = p->end_time - p->time;
  if (P.pace > 0) return P.pace * rest;
  if (!(done > 0)) return -1;
  return (wall - P.t_wall0) * rest / done;
}

static void update_pace(const struct ms_progress *p, double wall) {
  double ds = p->time - P.pace_sim;
  if (!(ds > 0)) return;
  double pace = (wall - P.pace_wall) / ds;
  P.pace = P.pace > 0 ? P.pace + PACE_WEIGHT * (pace - P.pace) : pace;
  P.pace_wall = wall;
  P.pace_sim = p->time;
}

/* "frame F/N [####------] t=T s R steps/s ETA E P particles M meta", the
 * bar as wide as the terminal allows, the line cut to its width. */
static void draw_bar(const struct ms_progress *p, double wall) {
  char head[64], tail[256], line[1024], e[32];
  fmt_eta(e, sizeof e, eta(p, wall));
  int h = snprintf(head, sizeof head, "frame %lld/%lld ",
                   (long long)p->frame, (long long)p->frames_total);
  int t = snprintf(tail, sizeof tail, " t=%.4g s %.0f steps/s ETA %s %zu "
                   "particles %llu meta", p->time, P.rate, e, p->particles,
                   (unsigned long long)p->metas);
  int cols = columns(), bar = cols - 1 - h - t - 2;
  bar = bar < 10 ? 10 : bar > 40 ? 40 : bar;
  double f = p->end_time > 0 ? p->time / p->end_time : 1;
  int k = (int)((f > 1 ? 1 : f) * bar + 0.5), n = 0;
  n += snprintf(line + n, sizeof line - (size_t)n, "%s[", head);
  for (int i = 0; i < bar; i++) line[n++] = i < k ? '#' : '-';
  snprintf(line + n, sizeof line - (size_t)n, "]%s", tail);
  if ((int)strlen(line) > cols - 1) line[cols - 1] = '\0';
  fprintf(stderr, "\r%s\033[K", line);
  fflush(stderr);
  P.drawn = 1;
}

static void plain_line(const struct ms_progress *p, double wall) {
  char e[32];
  fmt_eta(e, sizeof e, eta(p, wall));
  fprintf(stderr, "mergesplit: frame %lld/%lld  t = %.6g s  steps %llu "
          "(%.0f/s)  particles %zu  meta-particles %llu  ETA %s\n",
          (long long)p->frame, (long long)p->frames_total, p->time,
          (unsigned long long)p->steps, P.rate, p->particles,
          (unsigned long long)p->metas, e);
}

void progress_update(void *opaque, const struct ms_progress *p) {
  (void)opaque;
  if (!P.on) return;
  double wall = now();
  if (p->frame_done) update_pace(p, wall);
  if (!P.tty && !p->frame_done) return;
  if (P.tty && !p->frame_done && wall - P.last_draw < 0.1) return;
  double dt = wall - P.last_wall;
  if (dt > 0) { /* steps per second over the last interval, smoothed */
    double r = (double)(p->steps - P.last_steps) / dt;
    P.rate = P.rate > 0 && P.tty ? 0.7 * P.rate + 0.3 * r : r;
  }
  P.last_wall = wall;
  P.last_steps = p->steps;
  P.last_draw = wall;
  if (P.tty) draw_bar(p, wall);
  else plain_line(p, wall);
}

void progress_clear(void) {
  if (P.tty && P.drawn) {
    fputs("\r\033[K", stderr);
    P.drawn = 0;
  }
}

void progress_finish(void) {
  if (P.tty && P.drawn) fputc('\n', stderr);
  P.drawn = 0;
}
