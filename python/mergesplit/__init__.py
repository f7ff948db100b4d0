"""mergesplit: couple particle solvers by merging and splitting, from Python.

    import mergesplit
    with mergesplit.Simulation.from_file("configs/default.cfg",
                                         overrides={"coupling.alpha": 0.5}) as s:
        s.advance(0.1)
        x = s.systems["cloth"].fields["position"]   # NumPy, (count, 3), no copy

A field is the solver's own memory: read it between steps; "position" and
"velocity" may be written there (the next step starts from them), every
other field is read-only.  Take a field again after every step, frame,
advance or run (a solver may move its arrays); an array stays readable
after close().  Errors raise
mergesplit.Error with the library's one-line message (.message, .status).
"""
import json as _json
import os as _os

from . import _core

__all__ = ["Simulation", "System", "Error", "version"]
version = _core.version


class Error(RuntimeError):
    """A scene that cannot be opened or a run that failed."""

    def __init__(self, message, status):
        super().__init__(message)
        self.message = message
        self.status = status


def _value(v):
    """A Python value in the scene file's syntax."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        # an array is all integers or all floats: mixed numbers are floats
        if any(isinstance(x, float) for x in v) and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            v = [float(x) for x in v]
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError("override values are bool, int, float, str or a list of them, not %r" % (v,))


def _overrides(o):
    if o is None:
        return None
    if isinstance(o, dict):
        return ["%s=%s" % (k, _value(v)) for k, v in o.items()]
    return [str(x) for x in o]


def _build_tree_plugins():
    """Beside the build tree's plugins, when imported from the build tree."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    d = _os.path.join(here, "..", "..", "plugins", ".libs")
    return [_os.path.normpath(d)] if _os.path.isdir(d) else []


def _call(f, *a):
    """A call into _core, its errors as mergesplit.Error."""
    try:
        return f(*a)
    except _core.Error as e:
        raise Error(*e.args) from None


class _Fields:
    """A system's fields by name: each access reads the current view."""

    def __init__(self, raw, index):
        self._raw, self._i = raw, index

    def __getitem__(self, name):
        return self._raw.field(self._i, name)

    def __contains__(self, name):
        return name in self.keys()

    def keys(self):
        return self._raw.fields(self._i)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())


class System:
    """One system of the scene: its name, solver and fields."""

    def __init__(self, raw, index, name, solver):
        # the run's _core object, not the Simulation: no reference cycle
        self.index, self.name, self.solver = index, name, solver
        self.fields = _Fields(raw, index)
        self._raw = raw

    def add_force(self, force):
        """Forces [N] on this system's particles over the next step only:
        an array of (count, 3) floats (or 3 * count); a second call before
        the step adds to the first.  The solver receives them as external
        forces; gravity stays the scene's."""
        _call(self._raw.add_force, self.index, force)

    def __repr__(self):
        return "<mergesplit.System %r (%s)>" % (self.name, self.solver)


class Simulation:
    """A run of a scene.  Use from_file(); close() or a with-block ends it."""

    def __init__(self, path, overrides=None, threads=0, frames=0,
                 output_dir=None, report=None, resume=None, plugin_paths=(),
                 text=None, base_dir=None, keep_report=True, blas_threads=0):
        try:
            self._sim = _core.Sim(str(path), _overrides(overrides), int(threads),
                                  int(frames),
                                  None if output_dir is None else str(output_dir),
                                  None if report is None else str(report),
                                  None if resume is None else str(resume),
                                  [str(p) for p in plugin_paths] + _build_tree_plugins(),
                                  None if text is None else str(text),
                                  None if base_dir is None else str(base_dir),
                                  bool(keep_report), int(blas_threads))
        except _core.Error as e:
            raise Error(*e.args) from None
        self.systems = {n: System(self._sim, i, n, s)
                        for i, (n, s) in enumerate(self._sim.systems())}

    @classmethod
    def from_file(cls, path, overrides=None, **options):
        """Open the scene file at path; overrides: {"KEY": value} or
        ["KEY=VALUE"], as mergesplit run --set; options: threads, frames,
        output_dir (frames written there; none by default), report,
        resume, plugin_paths, keep_report (default True: sim.report
        holds every frame in memory, about 2 kB each; False for very
        long runs), blas_threads (OpenBLAS threads of the implicit
        solvers, process-wide; 0: 1, as mergesplit run --blas-threads)."""
        return cls(path, overrides, **options)

    @classmethod
    def from_string(cls, text, overrides=None, name="<string>", base_dir=None,
                    **options):
        """Open a scene given as text, in the scene file's syntax; errors
        name it `name` ("NAME:LINE: ..."), @include is relative to base_dir
        (default: the working directory); overrides and options as in
        from_file()."""
        return cls(name, overrides, text=text, base_dir=base_dir, **options)

    def step(self):
        """One step (a frame that ends is written)."""
        _call(self._sim.step)

    def frame(self):
        """Finish the next frame."""
        _call(self._sim.frame)

    def advance(self, t):
        """Step until the simulated time reaches t (no step is shortened)."""
        _call(self._sim.advance, float(t))

    def run(self):
        """Every remaining frame."""
        _call(self._sim.run)

    def checkpoint(self, path):
        """Write a checkpoint (resume with Simulation(..., resume=path))."""
        _call(self._sim.checkpoint, str(path))

    def _clock(key, doc):
        return property(lambda self: self._sim.info()[key], doc=doc)

    time = _clock("time", "Simulated time [s].")
    steps = _clock("steps", "Steps taken.")
    frames_done = _clock("frames_done", "Frames finished.")
    frames_total = _clock("frames_total", "Frames the run makes.")
    del _clock

    @property
    def done(self):
        i = self._sim.info()
        return i["frames_done"] >= i["frames_total"]

    @property
    def report(self):
        """The run's report as it stands, a dict: the JSON document
        `mergesplit run --report` writes -- "frames" (one dict per frame
        finished: energy, momentum per system, merges, penetrations, ...),
        "totals", "timing" (seconds and ms per step per phase) and
        "status" ("running" while frames remain)."""
        return _json.loads(_call(self._sim.report))

    @property
    def metrics(self):
        """The run's figures so far (penetrations, energy, ...), a dict."""
        return self._sim.metrics()

    def close(self):
        self._sim.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
