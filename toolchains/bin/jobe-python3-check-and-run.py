# Jobe's python3 syntax check and the run in one interpreter, as src/jobe/languages.ts
# (PY_CHECK_AND_RUN) describes it. Provisioning compiles this file once with the root's python3
# (python-precompile): each run loads the code object and compiles only the program.
# The loader's names (_f, _c) and this function's leave __main__ before the program runs.
def _arbiter_run():
    import sys, os, io
    for name in ('_arbiter_run', '_f', '_c'): globals().pop(name, None)
    marker, f = sys.argv[1], sys.argv[2]
    def fail(text):
        sys.stderr.write(marker + '\n' + text)
        sys.stderr.flush()
    real, sys.stderr = sys.stderr, io.StringIO()
    try:
        with open(f, 'rb') as s: code = compile(s.read(), f, 'exec', dont_inherit=True)
    except Exception as e:
        sys.stderr = real
        fail(''.join(__import__('traceback').format_exception_only(SyntaxError, e)).replace('File "<string>"', 'File "%s"' % f) if type(e) is SyntaxError else 'Sorry: %s: %s' % (type(e).__name__, e))
        sys.exit(1)
    warned, sys.stderr = sys.stderr.getvalue(), real
    if warned:
        fail(warned)
        sys.exit(0)
    p = os.path.abspath(f)
    co = type(code)
    fix = lambda c: c.replace(co_filename=p, co_consts=tuple(fix(k) if isinstance(k, co) else k for k in c.co_consts))
    code = fix(code)
    sys.argv = sys.argv[2:]
    o = sys.orig_argv
    i = len(o) - len(sys.argv) - 3
    if o[i] == '-c': sys.orig_argv = o[:i] + o[i + 3:]
    if sys.path and sys.path[0] == '' and not sys.flags.safe_path: sys.path[0] = os.path.dirname(p)
    g = globals()
    g['__file__'], g['__cached__'] = p, None
    g['__loader__'] = sys.modules['_frozen_importlib_external'].SourceFileLoader('__main__', p)
    hook = sys.excepthook
    def strip(t, e, b):
        while b is not None and b.tb_frame.f_code.co_filename != p: b = b.tb_next
        try: sys.stdout.flush()
        except Exception: pass
        return hook(t, e.with_traceback(b) if isinstance(e, BaseException) else e, b)
    sys.excepthook = strip
    return code
exec(_arbiter_run())
