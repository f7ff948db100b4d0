"""Helpers for the output tests: TAP lines, VTK reading, and a PLY parser
written here from the format's description (independent of the core's
writer)."""
import sys
import xml.etree.ElementTree as ET

import numpy as np


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, detail=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, desc))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, desc))
            for line in str(detail).splitlines():
                print("# " + line)
        sys.stdout.flush()
        return cond

    def check(self, desc, fn):
        """Run fn(); a failed assertion or exception fails the case."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - any failure is reported
            return self.ok(False, desc, "%s: %s" % (type(e).__name__, e))
        return self.ok(True, desc)

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def read_vtp(path):
    """(points, {name: array}, field data) through VTK's XML reader; raises
    if VTK reports an error."""
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    class Errors:
        def __init__(self):
            self.seen = []

        def __call__(self, obj, event):
            self.seen.append(event)

    errs = Errors()
    rd = vtk.vtkXMLPolyDataReader()
    rd.AddObserver("ErrorEvent", errs)
    rd.GetExecutive().AddObserver("ErrorEvent", errs)
    rd.SetFileName(path)
    rd.Update()
    if errs.seen or rd.GetErrorCode():
        raise RuntimeError("%s: VTK could not read it" % path)
    o = rd.GetOutput()
    pd = o.GetPointData()
    arrays = {pd.GetArrayName(i): vtk_to_numpy(pd.GetArray(i))
              for i in range(pd.GetNumberOfArrays())}
    fd = o.GetFieldData()
    fields = {fd.GetArrayName(i): vtk_to_numpy(fd.GetArray(i))
              for i in range(fd.GetNumberOfArrays())}
    pts = o.GetPoints()
    points = vtk_to_numpy(pts.GetData()) if pts else np.zeros((0, 3))
    if o.GetNumberOfPolys():  # a surface: triangles of its points, no verts
        pc = vtk_to_numpy(o.GetPolys().GetConnectivityArray())
        po = vtk_to_numpy(o.GetPolys().GetOffsetsArray())
        if (o.GetNumberOfVerts() or len(pc) != 3 * o.GetNumberOfPolys() or
                not np.array_equal(po, 3 * np.arange(len(pc) // 3 + 1)) or
                pc.min() < 0 or pc.max() >= o.GetNumberOfPoints()):
            raise RuntimeError("%s: polygons are not triangles of its "
                               "points" % path)
        return points, arrays, fields
    if o.GetNumberOfVerts() != o.GetNumberOfPoints():
        raise RuntimeError("%s: %d vertex cells for %d points" %
                           (path, o.GetNumberOfVerts(), o.GetNumberOfPoints()))
    # vertex cell k holds exactly point k
    vc = o.GetVerts()
    n = o.GetNumberOfPoints()
    if not (np.array_equal(vtk_to_numpy(vc.GetConnectivityArray()),
                           np.arange(n)) and
            np.array_equal(vtk_to_numpy(vc.GetOffsetsArray()),
                           np.arange(n + 1))):
        raise RuntimeError("%s: vertex cells are not 0..%d" % (path, n - 1))
    return points, arrays, fields


def read_pvd(path):
    """[(timestep, part, file)] of a .pvd collection; every DataSet names
    its block (ParaView shows the name) after the system of its file."""
    root = ET.parse(path).getroot()
    assert root.get("type") == "Collection", path
    for d in root.iter("DataSet"):
        assert d.get("file").startswith(d.get("name") + "_"), d.attrib
    return [(float(d.get("timestep")), int(d.get("part")), d.get("file"))
            for d in root.iter("DataSet")]


PLY_TYPES = {"char": "i1", "uchar": "u1", "short": "i2", "ushort": "u2",
             "int": "i4", "uint": "u4", "float": "f4", "double": "f8",
             "int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2",
             "int32": "i4", "uint32": "u4", "float32": "f4", "float64": "f8"}


def read_ply(path, faces=None):
    """(comments, structured numpy array of the vertex element); a face
    element of triangles (uchar 3, int corners) goes to faces (a list)."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode("ascii").splitlines()
    if lines[0] != "ply":
        raise ValueError("%s: no 'ply' magic" % path)
    fmt = lines[1].split()
    if fmt[0] != "format" or fmt[2] != "1.0":
        raise ValueError("%s: bad format line %r" % (path, lines[1]))
    order = {"binary_little_endian": "<", "binary_big_endian": ">"}[fmt[1]]
    comments, fields, count, element, nface = [], [], None, None, 0
    for ln in lines[2:-1]:
        w = ln.split()
        if w[0] == "comment":
            comments.append(ln[8:])
        elif w[0] == "element":
            element = w[1]
            if element == "face" and count is not None:
                nface = int(w[2])
            elif element != "vertex":
                raise ValueError("%s: unexpected element %s" % (path, element))
            else:
                count = int(w[2])
        elif w[0] == "property" and element == "face":
            if w[1:] != ["list", "uchar", "int", "vertex_indices"]:
                raise ValueError("%s: face property %r" % (path, ln))
        elif w[0] == "property":
            if w[1] == "list":
                raise ValueError("%s: list property" % path)
            fields.append((w[2], order + PLY_TYPES[w[1]]))
        else:
            raise ValueError("%s: unexpected header line %r" % (path, ln))
    dt = np.dtype(fields)
    body = data[end:]
    if nface:
        fb = body[dt.itemsize * count:]
        ft = np.dtype([("n", "u1"), ("v", order + "i4", 3)])
        if len(fb) != ft.itemsize * nface:
            raise ValueError("%s: %d bytes of faces for %d" % (path, len(fb),
                                                              nface))
        f = np.frombuffer(fb, dtype=ft, count=nface)
        if (f["n"] != 3).any() or f["v"].min() < 0 or f["v"].max() >= count:
            raise ValueError("%s: faces are not triangles of its vertices" %
                             path)
        if faces is not None:
            faces.append(f["v"])
        body = body[:dt.itemsize * count]
    if len(body) != dt.itemsize * count:
        raise ValueError("%s: %d bytes of data for %d vertices of %d bytes" %
                         (path, len(body), count, dt.itemsize))
    return comments, np.frombuffer(body, dtype=dt, count=count)
