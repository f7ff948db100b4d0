/* mergesplit._core: the library's run control and state (core.h) for
 * Python.  A thin layer: mergesplit/__init__.py gives it its Python shape
 * (Simulation, systems, fields).  Steps run with the GIL released; a
 * field is a NumPy array over the plugin's own memory (zero copy), kept
 * alive by the simulation and valid until the next step. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <string.h>

#include <mergesplit/core.h>

static PyObject *Error; /* mergesplit.Error: the one-line message, .status */

typedef struct {
  PyObject_HEAD
  ms_sim *sim;
  int closed;      /* close() was called: no more calls */
  int busy;        /* a call is stepping (with the GIL released) */
  Py_ssize_t exports; /* field arrays alive: their memory is the run's */
} SimObject;

static PyObject *fail(int status, const char *msg) {
  PyObject *e = Py_BuildValue("(si)", msg && *msg ? msg : ms_strerror(status),
                              status);
  if (e) PyErr_SetObject(Error, e), Py_DECREF(e);
  return NULL;
}

static int open_ok(SimObject *self) {
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "the simulation is stepping in "
                    "another thread");
    return 0;
  }
  if (self->sim && !self->closed) return 1;
  PyErr_SetString(PyExc_ValueError, "the simulation is closed");
  return 0;
}

/* Free the run once it is closed and no field array points into it. */
static void release(SimObject *self) {
  if (self->sim && self->exports == 0) {
    ms_sim *s = self->sim;
    self->sim = NULL;
    Py_BEGIN_ALLOW_THREADS
    ms_sim_close(s);
    Py_END_ALLOW_THREADS
  }
}

/* The base of a field array: while it lives, the run's memory does. */
static void export_done(PyObject *capsule) {
  SimObject *self = PyCapsule_GetPointer(capsule, "mergesplit.export");
  if (!self) return;
  self->exports--;
  if (self->closed) release(self);
  Py_DECREF(self);
}

/* A sequence of str (or None) as a NULL-terminated array of UTF-8
 * strings that live as long as *keep (a new reference, or NULL). */
static const char **strings(PyObject *list, const char *what,
                            PyObject **keep) {
  *keep = NULL;
  if (list == Py_None) return PyMem_Calloc(1, sizeof(char *));
  PyObject *seq = PySequence_Fast(list, what);
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  const char **out = PyMem_Calloc((size_t)n + 1, sizeof *out);
  for (Py_ssize_t i = 0; out && i < n; i++) {
    PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
    if (!PyUnicode_Check(s) || !(out[i] = PyUnicode_AsUTF8(s))) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "%s: every item must be a str", what);
      PyMem_Free(out);
      out = NULL;
    }
  }
  if (out) *keep = seq;
  else Py_DECREF(seq);
  return out;
}

static int Sim_init(SimObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"path", "overrides", "threads", "frames",
                          "output_dir", "report", "resume", "plugin_paths",
                          "text", "base_dir", "keep_report", "blas_threads",
                          NULL};
  const char *path, *out = NULL, *report = NULL, *resume = NULL;
  const char *text = NULL, *dir = NULL;
  PyObject *ov = Py_None, *pp = Py_None;
  int threads = 0, keep = 1, blas = 0;
  long long frames = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OiLzzzOzzpi", names, &path,
                                   &ov, &threads, &frames, &out, &report,
                                   &resume, &pp, &text, &dir, &keep, &blas))
    return -1;
  if (blas < 0) {
    PyErr_SetString(PyExc_ValueError, "blas_threads must be >= 0");
    return -1;
  }
  if (self->sim || self->closed) {
    PyErr_SetString(PyExc_RuntimeError, "the simulation is already open");
    return -1;
  }
  PyObject *ko, *kp = NULL;
  const char **o = strings(ov, "overrides", &ko),
             **p = o ? strings(pp, "plugin_paths", &kp) : NULL;
  if (!o || !p) return PyMem_Free(o), Py_XDECREF(ko), -1;
  struct ms_sim_options opt = {.struct_size = sizeof opt, .threads = threads,
                               .frames = frames, .output_dir = out,
                               .no_output = out == NULL, .report_path = report,
                               .resume_path = resume, .plugin_paths = p,
                               .overrides = o, .verbosity = MS_SINK_ERROR,
                               .keep_report = keep, .blas_threads = blas};
  char err[2048];
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = text ? ms_sim_open_string(text, path, dir, &opt, &self->sim, err,
                                 sizeof err)
            : ms_sim_open(path, &opt, &self->sim, err, sizeof err);
  Py_END_ALLOW_THREADS
  PyMem_Free(o), PyMem_Free(p);
  Py_XDECREF(ko), Py_XDECREF(kp);
  if (rc) return fail(rc, err), -1;
  return 0;
}

static void Sim_dealloc(SimObject *self) {
  if (self->sim) ms_sim_close(self->sim); /* no array is left: they hold us */
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Closed at once; freed when the last field array goes too. */
static PyObject *Sim_close(SimObject *self, PyObject *unused) {
  (void)unused;
  if (self->busy) {
    PyErr_SetString(PyExc_RuntimeError, "the simulation is stepping in "
                    "another thread");
    return NULL;
  }
  self->closed = 1;
  release(self);
  Py_RETURN_NONE;
}

/* step(), frame(), run(), advance(t): the GIL released meanwhile. */
enum { STEP, FRAME, RUN, ADVANCE };
static PyObject *go(SimObject *self, int what, double t) {
  if (!open_ok(self)) return NULL;
  int rc;
  ms_sim *s = self->sim;
  self->busy = 1; /* set and tested with the GIL held */
  Py_BEGIN_ALLOW_THREADS
  rc = what == STEP    ? ms_sim_step(s)
       : what == FRAME ? ms_sim_frame(s)
       : what == RUN   ? ms_sim_run(s)
                       : ms_sim_advance(s, t);
  Py_END_ALLOW_THREADS
  self->busy = 0;
  if (rc == MS_EINVAL && what == ADVANCE)
    return fail(rc, "advance: the time is not a number");
  if (rc) return fail(rc, ms_sim_error(self->sim));
  Py_RETURN_NONE;
}
static PyObject *Sim_step(SimObject *s, PyObject *u) { (void)u; return go(s, STEP, 0); }
static PyObject *Sim_frame(SimObject *s, PyObject *u) { (void)u; return go(s, FRAME, 0); }
static PyObject *Sim_run(SimObject *s, PyObject *u) { (void)u; return go(s, RUN, 0); }
static PyObject *Sim_advance(SimObject *s, PyObject *a) {
  double t = PyFloat_AsDouble(a);
  if (t == -1.0 && PyErr_Occurred()) return NULL;
  return go(s, ADVANCE, t);
}

static PyObject *Sim_info(SimObject *self, PyObject *unused) {
  (void)unused;
  if (!open_ok(self)) return NULL;
  ms_sim *s = self->sim;
  return Py_BuildValue("{s:d,s:K,s:L,s:L,s:n,s:K}", "time", ms_sim_time(s),
                       "steps", (unsigned long long)ms_sim_steps(s),
                       "frames_done", (long long)ms_sim_frames_done(s),
                       "frames_total", (long long)ms_sim_frames_total(s),
                       "particles", (Py_ssize_t)ms_sim_particles(s), "metas",
                       (unsigned long long)ms_sim_metas(s));
}

static PyObject *Sim_systems(SimObject *self, PyObject *unused) {
  (void)unused;
  if (!open_ok(self)) return NULL;
  uint32_t n = ms_sim_system_count(self->sim);
  PyObject *l = PyList_New(n);
  for (uint32_t s = 0; l && s < n; s++) {
    PyObject *t = Py_BuildValue("(ss)", ms_sim_system_name(self->sim, s),
                                ms_sim_system_solver(self->sim, s));
    if (!t) return Py_DECREF(l), NULL;
    PyList_SET_ITEM(l, s, t);
  }
  return l;
}

static int np_type(uint32_t t) {
  switch (t) {
  case MS_TYPE_F64: return NPY_FLOAT64;
  case MS_TYPE_F32: return NPY_FLOAT32;
  case MS_TYPE_I32: return NPY_INT32;
  case MS_TYPE_U32: return NPY_UINT32;
  case MS_TYPE_U8: return NPY_UINT8;
  case MS_TYPE_I64: return NPY_INT64;
  }
  return -1;
}

/* fields(s): the names of system s's fields. */
static PyObject *Sim_fields(SimObject *self, PyObject *arg) {
  unsigned long s = PyLong_AsUnsignedLong(arg);
  if (PyErr_Occurred() || !open_ok(self)) return NULL;
  struct ms_view v;
  if (ms_sim_view(self->sim, (uint32_t)s, &v))
    return PyErr_Format(PyExc_IndexError, "no system %lu", s);
  PyObject *l = PyList_New(v.field_count);
  for (uint32_t f = 0; l && f < v.field_count; f++) {
    PyObject *u = PyUnicode_FromString(v.fields[f].name);
    if (!u) return Py_DECREF(l), NULL;
    PyList_SET_ITEM(l, f, u);
  }
  return l;
}

/* field(s, name): the plugin's array, (count,) or (count, components);
 * writable for "position" and "velocity" only. */
static PyObject *Sim_field(SimObject *self, PyObject *args) {
  unsigned int s;
  const char *name;
  if (!PyArg_ParseTuple(args, "Is", &s, &name) || !open_ok(self)) return NULL;
  struct ms_field f;
  size_t count;
  int rc = ms_sim_field(self->sim, s, name, &f, &count);
  if (rc == MS_ERANGE) return PyErr_Format(PyExc_IndexError, "no system %u", s);
  if (rc) return PyErr_Format(PyExc_KeyError, "system '%s' has no field '%s'",
                              ms_sim_system_name(self->sim, s), name);
  int type = np_type(f.type);
  if (type < 0)
    return PyErr_Format(PyExc_TypeError, "field '%s': unknown element type",
                        name);
  npy_intp dims[2] = {(npy_intp)count, (npy_intp)f.components};
  PyArray_Descr *d = PyArray_DescrFromType(type);
  if (!d) return NULL;
  npy_intp size = (npy_intp)d->elsize;
  Py_DECREF(d);
  npy_intp strides[2] = {(npy_intp)f.stride, size};
  int writable = !strcmp(name, "position") || !strcmp(name, "velocity");
  int nd = f.components == 1 ? 1 : 2;
  PyObject *a = PyArray_New(&PyArray_Type, nd, dims, type, strides, f.data,
                            (int)size, writable ? NPY_ARRAY_WRITEABLE : 0,
                            NULL);
  if (!a) return NULL;
  /* the array keeps the run's memory: close() waits for it */
  PyObject *base = PyCapsule_New(self, "mergesplit.export", export_done);
  if (!base) return Py_DECREF(a), NULL;
  Py_INCREF(self);
  self->exports++;
  if (PyArray_SetBaseObject((PyArrayObject *)a, base)) /* steals base */
    return Py_DECREF(a), NULL;
  return a;
}

static PyObject *Sim_metrics(SimObject *self, PyObject *unused) {
  (void)unused;
  if (!open_ok(self)) return NULL;
  struct ms_metrics m = {.struct_size = sizeof m};
  ms_sim_metrics(self->sim, &m);
  return Py_BuildValue(
      "{s:K,s:d,s:d,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:d,s:K,s:d,s:d,s:d,s:d,s:O,s:K}",
      "steps", (unsigned long long)m.steps, "step_seconds", m.step_seconds,
      "max_speed", m.max_speed, "penetrations",
      (unsigned long long)m.penetrations, "max_penetrations",
      (unsigned long long)m.max_penetrations, "through_sheet",
      (unsigned long long)m.through_sheet, "through_solid",
      (unsigned long long)m.through_solid, "inside_solid",
      (unsigned long long)m.inside_solid, "sheet_crossings",
      (unsigned long long)m.sheet_crossings, "metas",
      (unsigned long long)m.metas, "meta_size_mean", m.meta_size_mean,
      "meta_size_max", (unsigned long long)m.meta_size_max, "energy_start",
      m.energy_start, "energy_end", m.energy_end, "energy_scale",
      m.energy_scale, "energy_max_rise", m.energy_max_rise, "energy_complete",
      m.energy_complete ? Py_True : Py_False, "handed_over",
      (unsigned long long)m.handed_over);
}

static PyObject *Sim_checkpoint(SimObject *self, PyObject *arg) {
  const char *path = PyUnicode_AsUTF8(arg);
  if (!path || !open_ok(self)) return NULL;
  int rc;
  ms_sim *s = self->sim;
  self->busy = 1;
  Py_BEGIN_ALLOW_THREADS
  rc = ms_sim_checkpoint(s, path);
  Py_END_ALLOW_THREADS
  self->busy = 0;
  if (rc) return fail(rc, ms_sim_error(self->sim));
  Py_RETURN_NONE;
}

/* add_force(s, forces): any array-like of 3 * count floats. */
static PyObject *Sim_add_force(SimObject *self, PyObject *args) {
  unsigned int s;
  PyObject *obj;
  if (!PyArg_ParseTuple(args, "IO", &s, &obj) || !open_ok(self)) return NULL;
  PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(
      obj, NPY_FLOAT64, 0, 2, NPY_ARRAY_IN_ARRAY);
  if (!a) return NULL;
  npy_intp n = PyArray_SIZE(a);
  struct ms_view v;
  int rc = ms_sim_view(self->sim, s, &v);
  int nd = PyArray_NDIM(a);
  if (rc == MS_OK && (n % 3 || (size_t)(n / 3) != v.count || nd == 0 ||
                      (nd == 2 && PyArray_DIM(a, 1) != 3))) {
    Py_DECREF(a);
    return PyErr_Format(PyExc_ValueError, "add_force: system '%s' has %zu "
                        "particles: give %zu x 3 forces, not %zd values",
                        ms_sim_system_name(self->sim, s), v.count, v.count,
                        (Py_ssize_t)n);
  }
  if (rc == MS_OK)
    rc = ms_sim_add_force(self->sim, s, PyArray_DATA(a), (size_t)(n / 3));
  Py_DECREF(a);
  if (rc == MS_ERANGE) return PyErr_Format(PyExc_IndexError, "no system %u", s);
  if (rc == MS_EINVAL)
    return PyErr_Format(PyExc_ValueError, "add_force: a force that is not "
                        "finite (system '%s')", ms_sim_system_name(self->sim, s));
  if (rc == MS_ESTATE)
    return fail(rc, "add_force: the run has failed");
  if (rc) return fail(rc, ms_sim_error(self->sim));
  Py_RETURN_NONE;
}

/* The report as it stands, a JSON str. */
static PyObject *Sim_report(SimObject *self, PyObject *unused) {
  (void)unused;
  if (!open_ok(self)) return NULL;
  char *json;
  size_t len;
  int rc = ms_sim_report(self->sim, &json, &len);
  if (rc == MS_ENOTSUP)
    return fail(rc, "the report is not kept: open the simulation with "
                "keep_report=True");
  if (rc) return fail(rc, "the report: out of memory");
  PyObject *r = PyUnicode_DecodeUTF8(json, (Py_ssize_t)len, "replace");
  ms_free(json);
  return r;
}

static PyMethodDef Sim_methods[] = {
    {"close", (PyCFunction)Sim_close, METH_NOARGS, "Close the run (frees it)."},
    {"step", (PyCFunction)Sim_step, METH_NOARGS, "One step."},
    {"frame", (PyCFunction)Sim_frame, METH_NOARGS, "Finish the next frame."},
    {"run", (PyCFunction)Sim_run, METH_NOARGS, "Every remaining frame."},
    {"advance", (PyCFunction)Sim_advance, METH_O, "Step until time t."},
    {"info", (PyCFunction)Sim_info, METH_NOARGS, "Clock and counts."},
    {"systems", (PyCFunction)Sim_systems, METH_NOARGS,
     "[(name, solver)] in the scene's order."},
    {"fields", (PyCFunction)Sim_fields, METH_O, "Field names of system s."},
    {"field", (PyCFunction)Sim_field, METH_VARARGS,
     "field(s, name): the plugin's array (zero copy)."},
    {"metrics", (PyCFunction)Sim_metrics, METH_NOARGS, "The run's figures."},
    {"checkpoint", (PyCFunction)Sim_checkpoint, METH_O,
     "Write a checkpoint to path."},
    {"add_force", (PyCFunction)Sim_add_force, METH_VARARGS,
     "add_force(s, forces): forces on system s over the next step."},
    {"report", (PyCFunction)Sim_report, METH_NOARGS,
     "The report as it stands (JSON)."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject SimType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mergesplit._core.Sim",
    .tp_basicsize = sizeof(SimObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A run of a scene (core.h ms_sim).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Sim_init,
    .tp_dealloc = (destructor)Sim_dealloc,
    .tp_methods = Sim_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core", "mergesplit's core library.", -1,
    NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
  import_array();
  if (PyType_Ready(&SimType) < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Error = PyErr_NewExceptionWithDoc(
      "mergesplit.Error", "A run failed: args are (message, status).",
      PyExc_RuntimeError, NULL);
  /* the module gets its own references; the global keeps one */
  if (!Error || PyModule_AddObjectRef(m, "Error", Error) ||
      PyModule_AddObjectRef(m, "Sim", (PyObject *)&SimType) ||
      PyModule_AddStringConstant(m, "version", ms_version()))
    return Py_DECREF(m), NULL;
  return m;
}
