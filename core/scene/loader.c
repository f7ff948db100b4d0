/* Plugin loader: scan directories, dlopen, check the ABI, keep scanning. */
#include "scene.h"

#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/base.h"

#ifndef MS_PLUGINDIR
#define MS_PLUGINDIR "/usr/local/lib/mergesplit/plugins"
#endif

/* The descriptor for each index is asked for until NULL; a file holding
 * more solvers than this is surely broken. */
#define MAX_SOLVERS_PER_FILE 256

static int push_refusal(ms_registry *r, const char *path, const char *why) {
  if (r->nrefused == r->cap_refused) {
    size_t c = r->cap_refused ? 2 * r->cap_refused : 8;
    if (ms__grow((void **)&r->refused, c, sizeof(char *))) return MS_ENOMEM;
    r->cap_refused = c;
  }
  size_t len = strlen(path) + strlen(why) + 3;
  char *line = malloc(len);
  if (!line) return MS_ENOMEM;
  snprintf(line, len, "%s: %s", path, why);
  r->refused[r->nrefused++] = line;
  return MS_OK;
}

static int valid_id(const char *id) {
  if (!id || !*id) return 0;
  for (; *id; id++)
    if (!((*id >= 'a' && *id <= 'z') || (*id >= '0' && *id <= '9') ||
          *id == '_'))
      return 0;
  return 1;
}

int ms__plugin_validate(const struct ms_plugin *d, char *why, size_t len) {
  if (d->abi_major != MS_ABI_MAJOR) {
    snprintf(why, len, "plugin ABI %u.%u, this core implements ABI %d.%d "
             "(major versions differ)", d->abi_major, d->abi_minor,
             MS_ABI_MAJOR, MS_ABI_MINOR);
    return MS_EABI;
  }
  if (d->abi_minor > MS_ABI_MINOR) {
    snprintf(why, len, "plugin needs ABI %u.%u, newer than this core's ABI "
             "%d.%d", d->abi_major, d->abi_minor, MS_ABI_MAJOR, MS_ABI_MINOR);
    return MS_EABI;
  }
  if (d->struct_size < MS_PLUGIN_V1_SIZE) {
    snprintf(why, len, "descriptor struct_size %u is smaller than ABI %d.0's "
             "%zu bytes", d->struct_size, MS_ABI_MAJOR,
             (size_t)MS_PLUGIN_V1_SIZE);
    return MS_EABI;
  }
  if (!valid_id(d->id)) {
    snprintf(why, len, "solver id %s%s%s is not [a-z0-9_]+",
             d->id ? "'" : "", d->id ? d->id : "NULL", d->id ? "'" : "");
    return MS_EPLUGIN;
  }
  const char *missing = !d->name ? "name" : !d->version ? "version" : NULL;
  /* Collective response comes in two halves (plugin.h): stating inertia
   * without taking the impulse back would not conserve momentum. */
  if (d->struct_size >= offsetof(struct ms_plugin, meta_response) +
                            sizeof d->meta_response &&
      d->meta_inertia && !d->meta_response)
    missing = "meta_response";
  /* ... and so does giving particles away: listed, then released. */
  if (d->struct_size >= offsetof(struct ms_plugin, release) +
                            sizeof d->release &&
      d->hand_over && !d->release)
    missing = "release";
  if (missing) {
    snprintf(why, len, "solver '%s': descriptor field '%s' is NULL", d->id,
             missing);
    return MS_EPLUGIN;
  }
  static const struct {
    const char *name;
    size_t off;
  } req[] = {
#define REQ(f) {#f, offsetof(struct ms_plugin, f)}
      REQ(create), REQ(destroy), REQ(view), REQ(begin_step),
      REQ(integrate), REQ(rewind), REQ(end_step)
#undef REQ
  };
  for (size_t i = 0; i < sizeof req / sizeof *req; i++) {
    void *fn;
    ms__memcpy(&fn, (const char *)d + req[i].off, sizeof fn);
    if (!fn) {
      snprintf(why, len, "solver '%s': required function '%s' is NULL",
               d->id, req[i].name);
      return MS_EPLUGIN;
    }
  }
  return MS_OK;
}

const struct ms__plugin *ms__registry_find(const ms_registry *reg,
                                           const char *id) {
  for (size_t i = 0; i < reg->n; i++)
    if (!strcmp(reg->p[i].desc.id, id)) return &reg->p[i];
  return NULL;
}

static int same_dir(const char *a, const char *b) {
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
  return na == nb && !strncmp(a, b, na);
}

/* Keep solver src of file path; 1: refused (its id is taken in the same
 * directory: which one a scene gets would depend on file names). */
static int add_plugin(ms_registry *r, const struct ms_plugin *src,
                      const char *path, void *handle) {
  struct ms__plugin np;
  ms__memset(&np, 0, sizeof np);
  /* Never read past the plugin's struct_size. */
  size_t sz = src->struct_size < sizeof np.desc ? src->struct_size
                                                 : sizeof np.desc;
  ms__memcpy(&np.desc, src, sz);
  np.handle = handle;
  np.path = strdup(path);
  if (!np.path) return MS_ENOMEM;
  for (size_t i = 0; i < r->n; i++) {
    if (strcmp(r->p[i].desc.id, np.desc.id)) continue;
    if (same_dir(r->p[i].path, path)) {
      char why[1200];
      snprintf(why, sizeof why, "solver '%s' is also provided by %s%s; "
               "refused (one id per directory)", np.desc.id, r->p[i].path,
               strcmp(r->p[i].path, path) ? "" : " (twice in one file)");
      free(np.path);
      int rc = push_refusal(r, path, why);
      return rc ? rc : 1;
    }
    /* A later directory overrides an earlier one (the run says so). */
    np.shadowed = r->p[i].path;
    free(r->p[i].shadowed);
    r->p[i] = np;
    return MS_OK;
  }
  if (r->n == r->cap) {
    size_t c = r->cap ? 2 * r->cap : 8;
    if (ms__grow((void **)&r->p, c, sizeof *r->p)) {
      free(np.path);
      return MS_ENOMEM;
    }
    r->cap = c;
  }
  r->p[r->n++] = np;
  return MS_OK;
}

static int keep_handle(ms_registry *r, void *h) {
  if (r->nhandles == r->cap_handles) {
    size_t c = r->cap_handles ? 2 * r->cap_handles : 8;
    if (ms__grow((void **)&r->handles, c, sizeof(void *))) return MS_ENOMEM;
    r->cap_handles = c;
  }
  r->handles[r->nhandles++] = h;
  return MS_OK;
}

/* ---- probing a file in a child process ------------------------------- */
/* Loading a plugin runs its code: constructors, then the entry for every
 * index.  A child does that first, so a file that crashes, exits or hangs
 * there is refused with one line, and every other plugin still loads. */
#define PROBE_SECONDS 10

static void probe_child(const char *path, int out) {
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                             SIGINT, SIGTERM, SIGALRM};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    signal(sigs[i], SIG_DFL); /* not the host's handlers: die plainly */
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* a hang ends with its parent */
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  void *sym = h ? dlsym(h, MS_PLUGIN_ENTRY_SYMBOL) : NULL;
  if (sym) {
    ms_plugin_entry_fn entry;
    ms__memcpy(&entry, &sym, sizeof entry);
    char why[512];
    for (uint32_t i = 0; i < MAX_SOLVERS_PER_FILE; i++) {
      const struct ms_plugin *d = entry(i);
      if (!d) break;
      ms__plugin_validate(d, why, sizeof why); /* reads its strings */
    }
  }
  char done = 1;
  (void)!write(out, &done, 1);
  _exit(0);
}

/* Files that loaded in a child once, in this process: a test program
 * opens the registry hundreds of times. */
static struct probed {
  char *path;
  dev_t dev;
  ino_t ino;
  struct timespec mtime;
} *probed;
static size_t nprobed, cap_probed;
static pthread_mutex_t probed_lock = PTHREAD_MUTEX_INITIALIZER;

static int probed_before(const char *path, const struct stat *st) {
  int found = 0;
  pthread_mutex_lock(&probed_lock);
  for (size_t i = 0; i < nprobed && !found; i++)
    found = !strcmp(probed[i].path, path) && probed[i].dev == st->st_dev &&
            probed[i].ino == st->st_ino &&
            probed[i].mtime.tv_sec == st->st_mtim.tv_sec &&
            probed[i].mtime.tv_nsec == st->st_mtim.tv_nsec;
  pthread_mutex_unlock(&probed_lock);
  return found;
}

/* Out of memory: the file is probed again next time, nothing worse. */
static void remember_probed(const char *path, const struct stat *st) {
  pthread_mutex_lock(&probed_lock);
  size_t cap = cap_probed ? 2 * cap_probed : 32;
  if (nprobed == cap_probed && !ms__grow((void **)&probed, cap,
                                         sizeof *probed))
    cap_probed = cap;
  if (nprobed < cap_probed) {
    struct probed p = {strdup(path), st->st_dev, st->st_ino, st->st_mtim};
    if (p.path) probed[nprobed++] = p;
  }
  pthread_mutex_unlock(&probed_lock);
}

/* MS_OK: the file loads in a child (or it cannot be probed: loaded as
 * before); otherwise why[] says what happened. */
static int probe(const char *path, char *why, size_t len) {
  struct stat st;
  int known = stat(path, &st) == 0;
  if (known && probed_before(path, &st)) return MS_OK;
  int fd[2];
  if (pipe(fd)) return MS_OK;
  pid_t pid = fork();
  if (pid == 0) probe_child(path, fd[1]);
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    return MS_OK;
  }
  struct pollfd p = {fd[0], POLLIN, 0};
  char done = 0;
  int ready;
  do ready = poll(&p, 1, PROBE_SECONDS * 1000);
  while (ready < 0 && errno == EINTR);
  if (ready > 0 && read(fd[0], &done, 1) != 1) done = 0;
  close(fd[0]);
  if (ready == 0) kill(pid, SIGKILL);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  if (done) {
    if (known) remember_probed(path, &st);
    return MS_OK;
  }
  if (ready == 0)
    snprintf(why, len, "did not finish loading within %d s (a constructor "
             "or the entry that never returns?)", PROBE_SECONDS);
  else if (WIFSIGNALED(ws))
    snprintf(why, len, "crashed while loading: SIG%s (in a constructor or "
             "the entry)", sigabbrev_np(WTERMSIG(ws)) ? sigabbrev_np(
             WTERMSIG(ws)) : "?");
  else
    snprintf(why, len, "called exit(%d) while loading (in a constructor or "
             "the entry)", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
  return MS_EPLUGIN;
}

static int load_file(ms_registry *r, const char *path) {
  char why[512];
  if (probe(path, why, sizeof why)) return push_refusal(r, path, why);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    return push_refusal(r, path, e ? e : "dlopen failed");
  }
  ms_plugin_entry_fn entry;
  void *sym = dlsym(h, MS_PLUGIN_ENTRY_SYMBOL);
  if (!sym) {
    dlclose(h);
    return push_refusal(r, path, "no entry symbol '" MS_PLUGIN_ENTRY_SYMBOL
                                 "' (not a mergesplit plugin)");
  }
  ms__memcpy(&entry, &sym, sizeof entry);
  int kept = 0, rc = MS_OK;
  uint32_t i = 0;
  for (; i < MAX_SOLVERS_PER_FILE; i++) {
    const struct ms_plugin *d = entry(i);
    if (!d) break;
    if (ms__plugin_validate(d, why, sizeof why)) {
      if ((rc = push_refusal(r, path, why))) break;
      continue;
    }
    if ((rc = add_plugin(r, d, path, h)) == 1) {
      rc = MS_OK;
      continue;
    }
    if (rc) break;
    kept++;
  }
  if (rc == MS_OK && i == 0)
    rc = push_refusal(r, path, "exports no solver (entry returned NULL for "
                               "index 0)");
  if (rc == MS_OK && i == MAX_SOLVERS_PER_FILE)
    rc = push_refusal(r, path, "entry never returned NULL");
  if (kept) return rc ? rc : keep_handle(r, h);
  dlclose(h);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_so_suffix(const char *name) {
  size_t n = strlen(name);
  return n > 3 && !strcmp(name + n - 3, ".so");
}

/* Every *.so of a directory, in name order (a missing directory is fine). */
static int scan_dir(ms_registry *r, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return MS_OK;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = MS_OK;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!has_so_suffix(e->d_name)) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      if (ms__grow((void **)&names, cap, sizeof(char *))) {
        rc = MS_ENOMEM;
        break;
      }
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len))) {
      rc = MS_ENOMEM;
      break;
    }
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (names) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    if (rc == MS_OK) rc = load_file(r, names[i]);
    free(names[i]);
  }
  free(names);
  return rc;
}

/* The directories to scan, in order: the installed one, the environment's,
 * the caller's. */
static size_t plugin_dirs(const char *const *extra, char ***out) {
  size_t n = 0, cap = 16;
  char **dirs = malloc(cap * sizeof *dirs);
  if (!dirs) return *out = NULL, 0;
  dirs[n++] = strdup(MS_PLUGINDIR);
  const char *env = getenv("MERGESPLIT_PLUGIN_PATH");
  while (env && *env) {
    const char *colon = strchr(env, ':');
    size_t len = colon ? (size_t)(colon - env) : strlen(env);
    if (len && n < cap - 1) dirs[n++] = strndup(env, len);
    env += len + (colon ? 1 : 0);
  }
  for (size_t i = 0; extra && extra[i]; i++) {
    if (n == cap) {
      cap *= 2;
      if (ms__grow((void **)&dirs, cap, sizeof *dirs)) break;
    }
    dirs[n++] = strdup(extra[i]);
  }
  *out = dirs;
  return n;
}

static void plugin_dirs_free(char **dirs, size_t n) {
  for (size_t i = 0; i < n; i++) free(dirs[i]);
  free(dirs);
}

int ms_registry_open(const char *const *extra, ms_registry **out) {
  ms_registry *r = calloc(1, sizeof *r);
  *out = NULL;
  if (!r) return MS_ENOMEM;
  char **dirs;
  size_t nd = plugin_dirs(extra, &dirs);
  if (!dirs) {
    free(r);
    return MS_ENOMEM;
  }
  int rc = MS_OK;
  r->dirs = dirs;
  for (size_t i = 0; i < nd; i++) {
    int again = !dirs[i]; /* a directory named twice is scanned once */
    for (size_t j = 0; j < r->ndirs && !again; j++)
      again = !strcmp(dirs[i], r->dirs[j]);
    if (again) {
      free(dirs[i]);
      continue;
    }
    r->dirs[r->ndirs++] = dirs[i];
    if (rc == MS_OK) rc = scan_dir(r, dirs[i]);
  }
  if (rc) {
    ms_registry_close(r);
    return rc;
  }
  *out = r;
  return MS_OK;
}

size_t ms_registry_count(const ms_registry *reg) { return reg->n; }

int ms_registry_get(const ms_registry *reg, size_t i,
                    struct ms_plugin_info *out) {
  if (i >= reg->n) return MS_EINVAL;
  const struct ms__plugin *p = &reg->p[i];
  out->id = p->desc.id;
  out->name = p->desc.name;
  out->version = p->desc.version;
  out->license = p->desc.license ? p->desc.license : "";
  out->description = p->desc.description ? p->desc.description : "";
  out->path = p->path;
  out->abi_major = p->desc.abi_major;
  out->abi_minor = p->desc.abi_minor;
  out->shadowed = p->shadowed;
  return MS_OK;
}

size_t ms_registry_refusal_count(const ms_registry *reg) {
  return reg->nrefused;
}

const char *ms_registry_refusal(const ms_registry *reg, size_t i) {
  return i < reg->nrefused ? reg->refused[i] : NULL;
}

char *ms__registry_missing(const ms_registry *reg, const char *id, char *buf,
                           size_t len) {
  char dirs[1024];
  if (reg->n == 0)
    snprintf(buf, len, "no plugin provides solver '%s': %s", id,
             ms_registry_none_found(reg, dirs, sizeof dirs));
  else
    snprintf(buf, len, "no plugin provides solver '%s' (see 'mergesplit "
             "plugins')", id);
  return buf;
}

const char *ms_registry_dir(const ms_registry *reg, size_t i) {
  return i < reg->ndirs ? reg->dirs[i] : NULL;
}

char *ms_registry_none_found(const ms_registry *reg, char *buf, size_t len) {
  int k = snprintf(buf, len, "no plugins found in ");
  size_t at = k > 0 ? (size_t)k : 0;
  for (size_t i = 0; i < reg->ndirs && at < len; i++) {
    struct stat st;
    int there = stat(reg->dirs[i], &st) == 0 && S_ISDIR(st.st_mode);
    k = snprintf(buf + at, len - at, "%s%s%s", i ? ", " : "",
                     reg->dirs[i], there ? "" : " (missing)");
    at += k > 0 ? (size_t)k : 0;
  }
  if (at < len)
    snprintf(buf + at, len - at, "; install plugins there, or add a "
             "directory with MERGESPLIT_PLUGIN_PATH=DIR or --plugin-path DIR");
  return buf;
}

void ms_registry_close(ms_registry *reg) {
  if (!reg) return;
  for (size_t i = 0; i < reg->n; i++) {
    free(reg->p[i].path);
    free(reg->p[i].shadowed);
  }
  for (size_t i = 0; i < reg->nrefused; i++) free(reg->refused[i]);
  for (size_t i = 0; i < reg->nhandles; i++) dlclose(reg->handles[i]);
  plugin_dirs_free(reg->dirs, reg->ndirs);
  free(reg->p);
  free(reg->refused);
  free(reg->handles);
  free(reg);
}
