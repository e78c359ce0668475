# Drives the real Judge0 clients from PyPI (installed by scripts/install-test-clients.sh) against a
# running Arbiter, each exactly as its documentation shows, with nothing changed but the base URL and
# the token. `python judge0-clients.py SCENARIO` prints one JSON object; judge0-clients.e2e.test.ts
# starts the server, runs each scenario as a subprocess and checks what the clients saw.
# Environment: ARBITER_JUDGE0 (base URL, …/judge0), ARBITER_SECRET, ARBITER_CALLBACK (a receiver URL),
# ARBITER_RECEIVER (the receiver's base URL, for scenarios that name their own callback path).
import asyncio
import base64
import json
import os
import sys

BASE = os.environ["ARBITER_JUDGE0"]
SECRET = os.environ["ARBITER_SECRET"]
RECEIVER = os.environ.get("ARBITER_RECEIVER", "")

C_HELLO = """
#include <stdio.h>

int main() {
    int a, b;
    scanf("%d %d", &a, &b);
    printf("%d\\n", a + b);
    char name[10];
    scanf("%s", name);
    printf("Hello, %s!\\n", name);
    return 0;
}
"""
JAVA_HELLO = """
public class Main {
    public static void main(String[] args) {
        System.out.println("hello, world");
    }
}
"""


def sub(s):
    """What a test needs of a judge0.Submission."""
    return {
        "stdout": s.stdout,
        "stderr": s.stderr,
        "compile_output": s.compile_output,
        "status": int(s.status) if s.status is not None else None,
        "status_name": str(s.status) if s.status is not None else None,
        "time": s.time,
        "memory": s.memory,
        "token": str(s.token),
        "exit_code": s.exit_code,
        "created_at": s.created_at.isoformat() if s.created_at else None,
        "finished_at": s.finished_at.isoformat() if s.finished_at else None,
        "wall_time": s.wall_time,
        "message": s.message,
    }


# ── the official SDK (judge0) ─────────────────────────────────────────────────────────────────────


def sdk_client():
    import judge0

    return judge0.Client(endpoint=BASE, headers={"X-Auth-Token": SECRET})


def official_languages():
    import judge0

    client = sdk_client()
    return {
        "version": client.version,
        "languages": [[l.id, l.name] for l in client.languages],
        "supported": {n: client.is_language_supported(getattr(judge0, n)) for n in ["PYTHON", "C", "CPP", "JAVA", "GO", "RUST", "MULTI_FILE", "BASH"]},
        "config_max_batch": client.config.max_submission_batch_size,
        "statuses": client.get_statuses(),
        "language_71": client.get_language(71).model_dump(),
    }


def official_run():
    import judge0

    client = sdk_client()
    py = judge0.run(client=client, source_code="print('hello, world')", language=judge0.PYTHON)
    c = judge0.run(client=client, source_code=C_HELLO, stdin="\n3 5\nBob\n", language=judge0.C)
    java = judge0.run(client=client, source_code=JAVA_HELLO, language=judge0.JAVA)
    cpp = judge0.run(client=client, source_code='#include <iostream>\nint main(){ auto f = [](auto x){ return x * 2; }; std::cout << f(21) << "\\n"; }', language=judge0.CPP)
    return {"python": sub(py), "c": sub(c), "java": sub(java), "cpp": sub(cpp)}


GROOVY_SUM = """
def (a, b) = System.in.newReader().readLine().split(' ').collect { it as int }
println "${a} + ${b} = ${a + b}"
"""
# which GCC compiled it, and its default C dialect's __STDC_VERSION__ under the entry's -std
GCC_VERSION = '#include <stdio.h>\nint main(void){ int n; if (scanf("%d", &n) != 1) return 1; printf("%d %d.%d %ld\\n", n * 2, __GNUC__, __GNUC_MINOR__, __STDC_VERSION__); return 0; }'
GXX_VERSION = '#include <cstdio>\nint main(){ int n; if (std::scanf("%d", &n) != 1) return 1; std::printf("%d %d.%d %ld\\n", n * 2, __GNUC__, __GNUC_MINOR__, __cplusplus); }'
# std::optional is declared from C++17 on: a compile error in g++'s default gnu++14
CPP17_ONLY = '#include <cstdio>\n#include <optional>\nint main(){ std::optional<int> o = 42; std::printf("%d\\n", *o); }'


def official_new_languages():
    """Groovy by the SDK's own alias (88 in its 1.13.1 table); the older GCCs by Judge0's ids: 48, 49, 53 and
    54 (no alias names them), 50 and 52 by the SDK's C and CPP aliases."""
    import judge0

    client = sdk_client()
    groovy = judge0.run(client=client, source_code=GROOVY_SUM, stdin="2 40\n", language=judge0.GROOVY)
    groovy_ce = judge0.run(client=client, source_code="println(1", language=judge0.GROOVY)
    groovy_re = judge0.run(client=client, source_code="throw new IllegalStateException('boom')", language=judge0.GROOVY)
    gcc48 = judge0.run(client=client, source_code=GCC_VERSION, stdin="21\n", language=48)
    gcc49 = judge0.run(client=client, source_code=GCC_VERSION, stdin="4\n", language=49)
    gcc49_ce = judge0.run(client=client, source_code="int main(void) { return 0 }", language=49)
    gcc50 = judge0.run(client=client, source_code=GCC_VERSION, stdin="5\n", language=judge0.C)
    cpp52 = judge0.run(client=client, source_code=GXX_VERSION, stdin="26\n", language=judge0.CPP)
    cpp53 = judge0.run(client=client, source_code=GXX_VERSION, stdin="1\n", language=53)
    cpp54 = judge0.run(client=client, source_code=GXX_VERSION, stdin="27\n", language=54)
    cpp52_17 = judge0.run(client=client, submissions=judge0.Submission(source_code=CPP17_ONLY, language=52))
    cpp52_17_asked = judge0.run(client=client, submissions=judge0.Submission(source_code=CPP17_ONLY, language=52, compiler_options="-std=gnu++17"))
    return {
        "supported": {n: client.is_language_supported(getattr(judge0, n)) for n in ["GROOVY"]} | {str(i): client.is_language_supported(i) for i in [48, 49, 50, 52, 53, 54]},
        "names": {str(l.id): l.name for l in client.languages if l.id in (48, 49, 50, 52, 53, 54, 88)},
        "gcc50": sub(gcc50),
        "cpp52": sub(cpp52),
        "cpp53": sub(cpp53),
        "cpp54": sub(cpp54),
        "cpp52_17": sub(cpp52_17),
        "cpp52_17_asked": sub(cpp52_17_asked),
        "groovy": sub(groovy),
        "groovy_ce": sub(groovy_ce),
        "groovy_re": sub(groovy_re),
        "gcc48": sub(gcc48),
        "gcc49": sub(gcc49),
        "gcc49_ce": sub(gcc49_ce),
    }


def official_judge0_forms():
    """Judge0's 89 (a zip of scripts, as the SDK's Filesystem of Files) and 44 (a binary's bytes), as the
    SDK's README shows them. stdin: {"executable": base64 of a static hello, "hostile": base64 of a
    static program that tries what the jail refuses, "port": a host TCP port}."""
    import judge0
    from judge0 import File, Filesystem

    given = json.load(sys.stdin)
    client = sdk_client()
    # (a stdin that reads as Base64, such as "jail\n", this SDK decodes when it builds the Submission)

    def project(files, **kw):
        fs = Filesystem(content=[File(name=n, content=c) for n, c in files.items()])
        # the SDK encodes source_code whatever it is: "" is Judge0's blank source of a project
        return judge0.run(client=client, submissions=judge0.Submission(source_code="", language=judge0.MULTI_FILE, additional_files=fs, **kw))

    built = project(
        {
            "compile": "gcc -O2 -o sum sum.c && python3 -c 'print(\"compiled\")'\n",
            "run": "read -r a b\n./sum $a $b\n",
            "sum.c": '#include <stdio.h>\n#include <stdlib.h>\nint main(int c,char**v){printf("%d\\n",atoi(v[1])+atoi(v[2]));return 0;}\n',
        },
        stdin="40 2\n",
    )
    compile_error = project({"compile": "echo checking\necho 'no compiler for this' >&2\nexit 1\n", "run": "echo never\n"})
    nzec = project({"run": "echo partial\nexit 3\n"})
    hostile = project(
        {
            "run": "\n".join(
                [
                    "unshare -U true 2>/dev/null; echo unshare=$?",
                    "cat /etc/shadow >/dev/null 2>&1; echo shadow=$?",
                    "touch /usr/x 2>/dev/null; echo write_root=$?",
                    f"(exec 3<>/dev/tcp/127.0.0.1/{given['port']}) 2>/dev/null; echo loopback=$?",
                    "getent hosts example.com >/dev/null 2>&1; echo dns=$?",
                ]
            )
            + "\n"
        }
    )
    executable = judge0.run(client=client, source_code=base64.b64decode(given["executable"]), language=judge0.EXECUTABLE, stdin="the jail!\n")
    not_elf = judge0.run(client=client, source_code=b"this is not a program\n", language=judge0.EXECUTABLE)
    hostile_exe = judge0.run(client=client, source_code=base64.b64decode(given["hostile"]), language=judge0.EXECUTABLE)
    return {
        "supported": {n: client.is_language_supported(getattr(judge0, n)) for n in ["MULTI_FILE", "EXECUTABLE"]},
        "built": sub(built),
        "compile_error": sub(compile_error),
        "nzec": sub(nzec),
        "hostile": sub(hostile),
        "executable": sub(executable),
        "not_elf": sub(not_elf),
        "hostile_exe": sub(hostile_exe),
    }


def official_test_cases():
    import judge0

    client = sdk_client()
    results = judge0.run(
        client=client,
        source_code="print(f'Hello, {input()}!')",
        language=judge0.PYTHON,
        test_cases=[
            ("Bob", "Hello, Bob!"),
            {"input": "Alice", "expected_output": "Hello, Alice!"},
            ["Charlie", "Hello, Bob!"],
        ],
    )
    return {"results": [sub(r) for r in results]}


def official_batch():
    import judge0

    client = sdk_client()
    submissions = [
        judge0.Submission(source_code=f"print({i} * {i})", language=judge0.PYTHON) for i in range(25)
    ] + [
        judge0.Submission(source_code='#include <stdio.h>\nint main(){ puts("c"); return 0; }', language=judge0.C),
        judge0.Submission(source_code="int main( { }", language=judge0.C),
        judge0.Submission(source_code="import sys\nsys.exit(3)", language=judge0.PYTHON),
        judge0.Submission(source_code="while True: pass", language=judge0.PYTHON, cpu_time_limit=0.5),
    ]
    results = judge0.run(client=client, submissions=submissions)
    return {"results": [sub(r) for r in results]}


def official_async_and_wait():
    import judge0

    client = sdk_client()
    created = judge0.async_run(client=client, source_code="import time\ntime.sleep(0.2)\nprint('late')", language=judge0.PYTHON)
    before = int(created.status) if created.status is not None else None
    done = judge0.wait(client=client, submissions=created)
    return {"token": str(created.token), "status_before": before, "done": sub(done)}


BURN_C = "#include <stdio.h>\n#include <time.h>\nint main(void) { while ((double)clock() / CLOCKS_PER_SEC < %s) ; puts(\"done\"); return 0; }\n"
DEEP_C = (
    "#include <stdio.h>\n__attribute__((noinline)) static long down(long n) { volatile char pad[1000]; pad[0] = (char)n; if (n == 0) return 0; long r = down(n - 1); return r + 1 + pad[0] - pad[0]; }\n"
    "int main(void) { printf(\"%ld\", down(40000)); return 0; }\n"
)


def official_limits():
    # the SDK's own Submission attributes for isolate's -x, -k and the repeated runs
    import judge0

    client = sdk_client()
    submissions = [
        # a roomy wall clock (10 s, within the server's maximum): at a load average of 18 its 1.2 s of CPU took 5.0 s of wall time, the default limit
        judge0.Submission(source_code=BURN_C % "1.2", language=judge0.C, cpu_time_limit=1, cpu_extra_time=0.5, wall_time_limit=10),
        judge0.Submission(source_code=DEEP_C, language=judge0.C, stack_limit=128000),
        judge0.Submission(source_code=DEEP_C, language=judge0.C, stack_limit=8000),
        judge0.Submission(source_code=BURN_C % "0.2", language=judge0.C, number_of_runs=3),
    ]
    results = judge0.run(client=client, submissions=submissions)
    return {"results": [sub(r) for r in results]}


def official_implicit_client():
    # the SDK's documented self-hosted set-up: the endpoint and headers from the environment
    os.environ["JUDGE0_CE_ENDPOINT"] = BASE
    os.environ["JUDGE0_CE_AUTH_HEADERS"] = json.dumps({"X-Auth-Token": SECRET})
    import judge0

    result = judge0.run(source_code="print('implicit')", language=judge0.PYTHON)
    return sub(result)


def official_bad_token():
    import judge0

    try:
        judge0.Client(endpoint=BASE, headers={"X-Auth-Token": "not-a-secret"})
    except RuntimeError as e:
        return {"error": str(e), "cause": str(e.__cause__)}
    return {"error": None}


def official_errors():
    # a refused attribute reaches the SDK's caller as httpx's HTTPStatusError, the 422 body on its response
    import httpx
    import judge0

    client = sdk_client()
    out = {}
    for name, kwargs in [
        ("memory_floor", {"memory_limit": 8192}),
        ("cpu_floor", {"cpu_time_limit": 0.05}),
        ("network", {"enable_network": True}),
        ("too_many_runs", {"number_of_runs": 21}),
    ]:
        try:
            judge0.run(client=client, source_code="print(1)", language=judge0.PYTHON, **kwargs)
            out[name] = None
        except httpx.HTTPStatusError as e:
            out[name] = {"status": e.response.status_code, "body": e.response.json()}
    # a batch with one refused submission: the SDK's own check of each reply
    try:
        judge0.run(client=client, submissions=[judge0.Submission(source_code="print(2)", language=judge0.PYTHON), judge0.Submission(source_code="print(3)", language=judge0.PYTHON, memory_limit=100)])
        out["batch"] = None
    except Exception as e:  # whatever the SDK raises for it
        out["batch"] = {"type": type(e).__name__, "message": str(e)[:300]}
    return out


def official_callback():
    # the SDK's Submission.callback_url: async_run, then its documented wait
    import judge0

    client = sdk_client()
    created = judge0.async_run(client=client, source_code="print('sdk called back')", language=judge0.PYTHON, callback_url=f"{RECEIVER}/official-cb")
    done = judge0.wait(client=client, submissions=created)
    return sub(done)



def official_every_language():
    # one program (and, where given, one that does not compile) per Judge0 id, all created through
    # the SDK's batches at once and waited for with its own wait; the refused ids one by one, as the
    # SDK raises for each. stdin: {"runs": [{"id", "source", "stdin"}], "refused": [ids]}
    import httpx
    import judge0

    wanted = json.load(sys.stdin)
    client = sdk_client()
    def files(f):
        return judge0.Filesystem(content=[judge0.File(name=n, content=c) for n, c in f.items()])

    # a multi-file program (89) is its files, with the SDK's blank source
    submissions = [
        judge0.Submission(source_code=r["source"], language=r["id"], stdin=r.get("stdin"), **({"additional_files": files(r["files"])} if r.get("files") else {}))
        for r in wanted["runs"]
    ]
    results = judge0.run(client=client, submissions=submissions)
    refused = {}
    for language_id in wanted["refused"]:
        # the SDK refuses an id /languages does not list before sending it, as against a Judge0 without
        # it; what the server answers is then its own request (body, params, headers) sent as it would
        refused[language_id] = {}
        try:
            judge0.run(client=client, source_code="x", language=language_id)
        except RuntimeError as e:
            refused[language_id]["sdk"] = str(e)
        submission = judge0.Submission(source_code="x", language=language_id)
        response = client.client.post("/submissions", json=submission.as_body(client), params={"base64_encoded": "true", "wait": "false"}, headers=client.headers)
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as e:
            refused[language_id].update(status=e.response.status_code, body=e.response.json())
    return {"results": [sub(r) for r in results], "refused": refused}

# ── judge0-client (async) ─────────────────────────────────────────────────────────────────────────


async def _poll(client, token):
    for _ in range(600):
        detail = await client.get_submission(token)
        if detail.status.id > 2:
            return detail
        await asyncio.sleep(0.05)
    raise TimeoutError(token)


async def _client_run():
    from judge0_client import Judge0Client, MultiFileSubmission, SingleFileSubmission

    out = {}
    async with Judge0Client(base_url=BASE, auth_token=SECRET) as client:
        req = SingleFileSubmission(language_id=71, source_code="print('sum =', int(input()) + 2)", stdin="40\n")
        created = await client.create_submission(req)
        detail = await _poll(client, created.token)
        out["python"] = detail.model_dump()
        req = SingleFileSubmission(
            language_id=71,
            source_code="import helper; print(helper.answer())",
            additional_files={"helper.py": "def answer():\n    return 42\n"},
        )
        out["additional_files"] = (await _poll(client, (await client.create_submission(req)).token)).model_dump()
        # Judge0's 89: a run script and what it runs, as judge0-client zips them
        req = MultiFileSubmission(additional_files={"run": "python3 main.py\n", "main.py": "print(6 * 7)\n"})
        out["multi_file"] = (await _poll(client, (await client.create_submission(req)).token)).model_dump()
        req = SingleFileSubmission(language_id=54, source_code="#include <cstdio>\nint main(int c, char** v){ for (int i = 1; i < c; i++) printf(\"[%s]\", v[i]); }", command_line_arguments="a 'b c' $HOME;id", compiler_options="-DX=1 -Wall")
        out["arguments"] = (await _poll(client, (await client.create_submission(req)).token)).model_dump()
        req = SingleFileSubmission(language_id=50, source_code="int main(void) { return 1 / 0 * 0 + x; }")
        out["compile_error"] = (await _poll(client, (await client.create_submission(req)).token)).model_dump()
        out["about"] = (await client.get_about()).model_dump()
        out["workers"] = [w.model_dump() for w in await client.get_workers()]
    return out


def client_run():
    return asyncio.run(_client_run())


async def _client_errors():
    from judge0_client import Judge0Client, Judge0Error, SingleFileSubmission

    out = {}
    async with Judge0Client(base_url=BASE, auth_token=SECRET) as client:
        for name, req in [
            ("network", SingleFileSubmission(language_id=71, source_code="print(1)", enable_network=True)),
            ("cpu_limit", SingleFileSubmission(language_id=71, source_code="print(1)", cpu_time_limit=1000)),
            ("memory_floor", SingleFileSubmission(language_id=71, source_code="print(1)", memory_limit=8192)),
        ]:
            try:
                await client.create_submission(req)
                out[name] = None
            except Judge0Error as e:
                out[name] = str(e)
        try:
            await client.get_submission("00000000-0000-4000-8000-000000000000")
            out["unknown_token"] = None
        except Judge0Error as e:
            out["unknown_token"] = str(e)
    async with Judge0Client(base_url=BASE, auth_token="wrong") as client:
        try:
            await client.get_about()
            out["bad_token"] = None
        except Judge0Error as e:
            out["bad_token"] = str(e)
    return out


def client_errors():
    return asyncio.run(_client_errors())


async def _client_callback():
    from judge0_client import Judge0Client, SingleFileSubmission

    async with Judge0Client(base_url=BASE, auth_token=SECRET) as client:
        req = SingleFileSubmission(language_id=71, source_code="print('called back')", callback_url=os.environ["ARBITER_CALLBACK"])
        created = await client.create_submission(req)
        return {"token": created.token}


def client_callback():
    return asyncio.run(_client_callback())


async def _client_info():
    # its documented get_isolate() and get_license(): Judge0's /isolate and /license, text
    from judge0_client import Judge0Client

    async with Judge0Client(base_url=BASE, auth_token=SECRET) as client:
        return {"isolate": await client.get_isolate(), "license": await client.get_license()}


def client_info():
    return asyncio.run(_client_info())


# ── judge0api ─────────────────────────────────────────────────────────────────────────────────────


def api_run():
    import judge0api as api

    client = api.Client(BASE, auth_token=SECRET)
    out = {}
    s = api.submission.submit(client, b"print(f'Hello {input()}')", 71, stdin=b"Judge0", expected_output=b"Hello Judge0")
    out["wait"] = {"stdout": s["stdout"], "status": s.status, "token": s.token, "time": s.time}
    wrong = api.submission.submit(client, b"print('nope')", 71, expected_output=b"Hello Judge0")
    out["wrong"] = {"stdout": wrong["stdout"], "status": wrong.status}
    client.wait = False
    queued = api.submission.submit(client, b"#include <stdio.h>\nint main(){ printf(\"%d\\n\", 6 * 7); }", 50)
    import time

    for _ in range(400):
        got = api.submission.get(client, queued.token)
        if got.status and got.status["id"] > 2:
            break
        time.sleep(0.05)
    out["polled"] = {"stdout": got["stdout"], "status": got.status, "language_id": got.language_id, "memory": got.memory, "exit_code": got.exit_code}
    return out


def api_errors():
    # a refused attribute: requests' HTTPError from its raise_for_status, Judge0's 422 body on the response
    import judge0api as api
    import requests

    client = api.Client(BASE, auth_token=SECRET)
    out = {}
    for name, kwargs in [("memory_floor", {"memory_limit": 8192}), ("cpu_ceiling", {"cpu_time_limit": 1000}), ("runs", {"number_of_runs": 0})]:
        try:
            api.submission.submit(client, b"print(1)", 71, **kwargs)
            out[name] = None
        except requests.HTTPError as e:
            out[name] = {"status": e.response.status_code, "body": e.response.json()}
    try:
        api.submission.submit(client, b"print(1)", 99999)
        out["language"] = None
    except requests.HTTPError as e:
        out["language"] = {"status": e.response.status_code, "body": e.response.json()}
    return out


def api_callback():
    # submit's **kwargs are "any other extra arguments to be sent to the judge", but it sends only its
    # fixed list of fields: callback_url never leaves the client
    import judge0api as api

    client = api.Client(BASE, auth_token=SECRET)
    s = api.submission.submit(client, b"print('api called back')", 71, callback_url=f"{RECEIVER}/api-cb")
    return {"token": s.token, "stdout": s["stdout"], "status": s.status, "kept_locally": getattr(s, "callback_url", None)}


def api_bad_token():
    import judge0api as api
    import requests

    try:
        api.Client(BASE, auth_token="not-a-secret")
    except requests.HTTPError as e:
        return {"status": e.response.status_code}
    return {"status": None}


SCENARIOS = {
    f.__name__: f
    for f in [
        official_languages, official_run, official_new_languages, official_test_cases, official_batch, official_async_and_wait, official_limits, official_implicit_client, official_bad_token,
        official_errors, official_callback, official_every_language, official_judge0_forms,
        client_run, client_errors, client_callback, client_info,
        api_run, api_bad_token, api_errors, api_callback,
    ]
}

if __name__ == "__main__":
    print(json.dumps(SCENARIOS[sys.argv[1]](), default=str))
