# The Python module `mergesplit` (configure --enable-python; on by default
# when python3-dev and python3-numpy are installed): the package's Python
# part and its C extension _core, linked with libmergesplit.  In the build
# tree, PYTHONPATH=python imports it (python/mergesplit/_core.so is a link
# to the extension libtool built).
EXTRA_DIST += python/mergesplit/__init__.py python/mergesplit/_core.c
if MS_PYTHON
mspythondir = $(PYTHON_SITE)/mergesplit
mspython_DATA = python/mergesplit/__init__.py
mspython_LTLIBRARIES = python/mergesplit/_core.la
python_mergesplit__core_la_SOURCES = python/mergesplit/_core.c
python_mergesplit__core_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
python_mergesplit__core_la_CFLAGS = $(AM_CFLAGS) -Wno-missing-prototypes \
	-fno-strict-aliasing
python_mergesplit__core_la_LDFLAGS = -module -avoid-version -shared \
	-shrext $(PYTHON_EXT_SUFFIX)
python_mergesplit__core_la_LIBADD = core/libmergesplit.la

all-local: python/mergesplit/_core$(PYTHON_EXT_SUFFIX)
python/mergesplit/_core$(PYTHON_EXT_SUFFIX): python/mergesplit/_core.la
	$(AM_V_GEN)rm -f $@ && $(LN_S) .libs/_core$(PYTHON_EXT_SUFFIX) $@
CLEANFILES += python/mergesplit/_core$(PYTHON_EXT_SUFFIX)
endif
# the package's .la is of no use to Python (nor to libtool's uninstall,
# which then forgets the .so)
install-data-hook: remove-python-la
remove-python-la:
	-test "$(MS_HAVE_PYTHON)" != yes || \
	  rm -f $(DESTDIR)$(PYTHON_SITE)/mergesplit/_core.la
uninstall-local:
	-test "$(MS_HAVE_PYTHON)" != yes || \
	  rm -f $(DESTDIR)$(PYTHON_SITE)/mergesplit/_core$(PYTHON_EXT_SUFFIX)
.PHONY: remove-python-la
