# Jobe's python3 syntax check and the run in one interpreter, as src/jobe/languages.ts
# (PY_CHECK_AND_RUN_PYC) describes it. Provisioning compiles this file once with the root's python3
# into a .pyc (python-precompile) that python3 runs as its script: each run compiles only the program.
# (A test may load it with -c instead, to put an audit hook first.) These functions' names (and a
# -c loader's _f, _c) leave __main__ before the program runs.
class _Compiled(BaseException): pass
def _quick(sys, src, _Compiled=_Compiled):
    # compile() sets up the ast module's types before it compiles (PyAST_Check), ~2.4 ms of a run in
    # the jail; exec() of the bytes compiles as compile(src, '<string>', 'exec') would, without them.
    # The trace hook takes the module's code object at its 'call' event, before its first instruction,
    # and stops it there (a codec's search function may start first: only the module's frame counts).
    # Anything but that clean stop (an error, a warning on stderr) and the caller compiles again with
    # compile() for the check's exact text; so does __main__.py, a module name the default warning
    # filters single out where '<string>' has none.
    me, got = sys._getframe(), []
    def trace(frame, event, arg):
        if frame.f_back is me and frame.f_code.co_name == '<module>' and frame.f_code.co_filename == '<string>':
            sys.settrace(None)
            got.append(frame.f_code)
            raise _Compiled
    sys.settrace(trace)
    try: exec(src, {})
    except _Compiled: return got[0]
    except Exception: return None
    finally: sys.settrace(None)
def _arbiter_run():
    import sys, os, io
    quick = _quick
    for name in ('_arbiter_run', '_quick', '_Compiled', '_f', '_c'): globals().pop(name, None)
    # this driver in the command line: its .pyc's path, or -c under a test's loader
    me, marker, f = sys.argv[0], sys.argv[1], sys.argv[2]
    def fail(text):
        sys.stderr.write(marker + '\n' + text)
        sys.stderr.flush()
    real, sys.stderr = sys.stderr, io.StringIO()
    try:
        with open(f, 'rb') as s: src = s.read()
        code = quick(sys, src) if f != '__main__.py' else None
        if code is None or sys.stderr.getvalue():
            # 3.13 keeps a warning's (text, line) in the caller's module registry: once shown by the
            # quick compile it would not be shown again
            sys.stderr = io.StringIO()
            globals().pop('__warningregistry__', None)
            code = compile(src, f, 'exec', dont_inherit=True)
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
    n = 3 if me == '-c' else 2
    i = len(o) - len(sys.argv) - n
    if i >= 0 and o[i] == me: sys.orig_argv = o[:i] + o[i + n:]
    # python3 put this driver's folder (or '' for -c) first, as it puts the script's
    if sys.path and not sys.flags.safe_path: sys.path[0] = os.path.dirname(p)
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
