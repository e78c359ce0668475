"""Drives the real Python Piston clients (aiopyston, piston_rspy) as their documentation shows, for
src/e2e/piston.e2e.test.ts: reads {client, base, key?, calls: [...]} as JSON on stdin, makes each call
(`gather: true` makes them at once), prints one JSON result per call. Only the base URL (and key) differ
from the clients' documented use."""
import asyncio
import json
import os
import sys


async def aiopyston_calls(spec):
    from pyston import File, PystonClient
    from pyston.exceptions import ExecutionError, InvalidLanguage, UnexpectedError, TooManyRequests

    client = PystonClient(api_key=spec.get("key"), base_url=spec["base"])

    async def one(call):
        try:
            if call["op"] == "runtimes":
                rts = await client.runtimes()
                return {"runtimes": [{"language": r.language, "version": r.version, "aliases": r.aliases, "runtime": r.runtime} for r in rts]}
            if call["op"] == "languages":
                return {"languages": sorted(await client.languages())}
            if call["op"] == "get_runtimes":
                return {"runtimes": [repr(r) for r in await client.get_runtimes(call["language"])]}
            files = [File(f["content"], f.get("name", "")) for f in call["files"]]
            kwargs = {k: call[k] for k in ("version", "stdin", "args", "run_timeout", "compile_timeout", "run_memory_limit", "compile_memory_limit") if k in call}
            out = await client.execute(call["language"], files, **kwargs)
            return {"raw": out.raw_json, "str": str(out), "success": out.success,
                    "run_stdout": out.run_stage.stdout if out.run_stage else None,
                    "compile_code": out.compile_stage.code if out.compile_stage else None}
        except (ExecutionError, InvalidLanguage, UnexpectedError, TooManyRequests) as e:
            return {"error": type(e).__name__, "message": str(e)}

    try:
        if spec.get("gather"):
            return await asyncio.gather(*(one(c) for c in spec["calls"]))
        return [await one(c) for c in spec["calls"]]
    finally:
        await client.close_session()


async def rspy_calls(spec):
    import piston_rspy

    client = piston_rspy.Client.with_url_and_key(spec["base"], spec["key"]) if spec.get("key") else piston_rspy.Client.with_url(spec["base"])

    def result(r):
        return None if r is None else {"stdout": r.stdout, "stderr": r.stderr, "output": r.output, "code": r.code, "signal": r.signal, "ok": r.is_ok()}

    async def one(call):
        try:
            if call["op"] == "runtimes":
                rts = await client.fetch_runtimes()
                return {"runtimes": [{"language": r.language, "version": r.version, "aliases": list(r.aliases)} for r in rts]}
            executor = piston_rspy.Executor().set_language(call["language"]).set_version(call.get("version", "*"))
            for f in call["files"]:
                executor = executor.add_file(piston_rspy.File(name=f.get("name", ""), content=f["content"], encoding=f.get("encoding", "utf8")))
            if "stdin" in call:
                executor = executor.set_stdin(call["stdin"])
            if "args" in call:
                executor = executor.add_args(call["args"])
            if "run_timeout" in call:
                executor = executor.set_run_timeout(call["run_timeout"])
            if "run_memory_limit" in call:
                executor = executor.set_run_memory_limit(call["run_memory_limit"])
            if "compile_timeout" in call:
                executor = executor.set_compile_timeout(call["compile_timeout"])
            if "compile_memory_limit" in call:
                executor = executor.set_compile_memory_limit(call["compile_memory_limit"])
            r = await client.execute(executor)
            return {"language": r.language, "version": r.version, "status": r.status, "is_ok": r.is_ok(), "run": result(r.run), "compile": result(r.compile)}
        except RuntimeError as e:
            return {"error": "RuntimeError", "message": str(e)}

    if spec.get("gather"):
        return await asyncio.gather(*(one(c) for c in spec["calls"]))
    return [await one(c) for c in spec["calls"]]


def main():
    spec = json.load(sys.stdin)
    runner = {"aiopyston": aiopyston_calls, "rspy": rspy_calls}[spec["client"]]
    print(json.dumps(asyncio.run(runner(spec))))
    sys.stdout.flush()
    # piston_rspy's Rust runtime keeps a thread that may still hold the GIL while the interpreter
    # finalizes, which aborts the process after every call has been answered and printed
    # (PyGILState_Release ... finalizing): leave without finalizing once the output is out
    os._exit(0)


if __name__ == "__main__":
    main()
