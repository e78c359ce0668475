// The admin's config: one zod schema that validates data/config.toml, writes its commented default,
// and renders the table of docs/admin/configuration.md. The only module that reads process.env.
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { join, resolve } from 'node:path'
import { validate as validateCron } from 'node-cron'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { z } from 'zod'

const section = <T extends z.ZodRawShape>(shape: T, description: string) =>
  z.object(shape).strict().prefault({} as never).describe(description)

export const ConfigSchema = z
  .object({
    server: section(
      {
        host: z.string().default('0.0.0.0').describe('Address the HTTP server listens on.'),
        port: z.number().int().min(0).max(65535).default(8080).describe('HTTP port (env PORT overrides).'),
        public_url: z
          .union([z.literal(''), z.url()])
          .default('')
          .describe('Base URL clients reach this server at; used in status_update_url, web_link, links (env ARBITER_PUBLIC_URL overrides); empty = http://localhost:{server.port}.'),
        body_limit_bytes: z.number().int().positive().default(2_097_152).describe('Largest request body accepted.'),
        min_free_disk_mb: z
          .number()
          .int()
          .min(0)
          .default(64)
          .describe("Free space the data directory's file system must keep: under it /health's disk part fails and /health answers 503 (jobs could not be stored)."),
        cors_origins: z
          .array(z.string())
          .default(['*'])
          .describe('Origins allowed to call the v4 API from a browser ("*" = any).'),
        max_connections_per_address: z
          .number()
          .int()
          .min(0)
          .max(1_000_000)
          .default(256)
          .describe(
            'Connections one client address may hold at once (an IPv6 one counted by its /64); the next gets 503 with Retry-After and is closed. Trusted proxies are not counted. 0 = no cap (docs/admin/connections.md).'
          ),
        first_request_timeout_sec: z
          .number()
          .positive()
          .max(300)
          .default(30)
          .describe("Seconds a new connection has to send its first request's headers; then it gets 408 and is closed (docs/admin/connections.md)."),
        body_bytes_in_flight_per_address: z
          .number()
          .int()
          .min(0)
          .default(16 * 1024 * 1024)
          .describe(
            "Bytes the request bodies one client address is still sending, but its oldest, may hold together (an IPv6 one counted by its /64); past it the body that would pass it is refused 429 with Retry-After. The oldest is neither refused nor counted here (server.body_bytes_in_flight counts it). 0 = no budget (docs/admin/connections.md)."
          ),
        body_bytes_in_flight: z
          .number()
          .int()
          .min(0)
          .default(512 * 1024 * 1024)
          .describe(
            "Bytes the request bodies all client addresses are still sending may hold together, the oldest of each too. Past it, a body whose address already holds its share (this ÷ the addresses sending) is refused like one past the per-address budget; at twice it every body is. 0 = no budget (docs/admin/connections.md)."
          ),
        keep_alive_timeout_sec: z
          .number()
          .positive()
          .max(600)
          .default(75)
          .describe(
            'Seconds a connection may stay idle between two requests before the server closes it (stated in each reply\'s Keep-Alive header). Keep it longer than the idle timeout of a proxy in front of the server (docs/admin/connections.md).'
          ),
        trusted_proxies: z
          .array(z.union([z.ipv4(), z.ipv6()]))
          .default(['127.0.0.1', '::1', '::ffff:127.0.0.1'])
          .describe(
            'Addresses of reverse proxies in front of the server: a request from one of them is counted against the address its X-Forwarded-For names (the nearest one not in this list), e.g. for the admin sign-in throttle. [] = never read X-Forwarded-For.'
          ),
      },
      'The HTTP server.'
    ),
    paths: section(
      {
        toolchains: z
          .string()
          .default('/var/lib/arbiter/toolchains')
          .describe('Directory holding the provisioned toolchain roots (outside the data directory on purpose).'),
        nsjail: z.string().default('/var/lib/arbiter/bin/nsjail').describe('The nsjail binary installed by scripts/install-nsjail.sh.'),
        supervisor: z
          .string()
          .default('/var/lib/arbiter/bin/arbiter-supervisor')
          .describe('The native jail supervisor built from sandbox/supervisor.c.'),
        jail_init: z
          .string()
          .default('/var/lib/arbiter/bin/arbiter-jail-init')
          .describe('The static init that runs as PID 1 of each jail, built from sandbox/jail-init.c.'),
        runs: z
          .string()
          .default('/var/lib/arbiter/runs')
          .describe('Scratch directory for per-run work folders (never inside the data directory, which jails must not see).'),
        compile_cache: z
          .string()
          .default('/var/lib/arbiter/compile-cache')
          .describe("Compiled programs kept for resubmissions of the same source (root's, outside the data directory: the unprivileged server must not be able to change what jails run)."),
      },
      'Where things live on disk.'
    ),
    pool: section(
      {
        size: z
          .number()
          .int()
          .min(0)
          .max(64)
          .default(availableParallelism())
          .describe('Jobs run at once on this machine (default: number of cores); 0 = none, every job goes to sandbox hosts through `queue.redis_url`.'),
        jail_socket: z
          .string()
          .default('')
          .describe('Unix socket of the root jail daemon (`src/jobs/jail-daemon.ts`) that runs the jobs, so this server needs no privileges; `{data_id}` in it stands for a short hash of the data directory\'s path (one daemon per data directory: a restored copy of the data beside the live one gets its own); empty = run the pool in this process (needs root; tests, development).'),
        jail_group: z
          .string()
          .default('arbiter')
          .describe("Group (name or gid) the jail daemon gives its socket directory (0750) and socket (0660): the only one that may submit jobs; the server's."),
        prepared_jails: z
          .boolean()
          .default(true)
          .describe('Run each step in a jail prepared ahead (one per worker and toolchain root, each run cloned into fresh namespaces and cgroups inside it; docs/sandbox/prepared-jails.md) rather than one nsjail start per step; false: the slower per-step nsjail, for comparison.'),
      },
      'The evaluation worker pool.'
    ),
    queue: section(
      {
        redis_url: z
          .string()
          .default('')
          .refine((u) => u === '' || /^rediss?:\/\//.test(u), 'must be redis:// or rediss:// (TLS)')
          .describe('Redis shared with sandbox hosts (`cli worker`), e.g. `redis://arbiter:PASSWORD@10.0.0.5:6379` or `rediss://…` for TLS; empty = the local queue only (env ARBITER_REDIS_URL overrides).'),
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9_-]{1,32}$/)
          .default('arbiter')
          .describe("Prefix of every Redis key (BullMQ's queues and the sandbox hosts' adverts); the API host and its sandbox hosts must agree."),
        lock_ms: z
          .number()
          .int()
          .min(1000)
          .default(30000)
          .describe("How long a sandbox host's hold on a job lasts without renewal (renewed every half of it while the job runs): a host killed mid-job gives the job back after about this long plus queue.stalled_check_ms."),
        stalled_check_ms: z
          .number()
          .int()
          .min(500)
          .default(15000)
          .describe("How often sandbox hosts look for jobs whose holder stopped renewing its lock (BullMQ's stalled-job check)."),
        reconcile_ms: z
          .number()
          .int()
          .min(200)
          .default(5000)
          .describe('How often the API host checks that each job it has out is still in Redis (re-sent when Redis lost it, retried when it failed there).'),
        advert_ttl_ms: z
          .number()
          .int()
          .min(1000)
          .default(15000)
          .describe("A sandbox host's advert (its languages and slots) expires this long after its last renewal (renewed every third of it); then it gets no new jobs."),
        blob_cache_bytes: z
          .number()
          .int()
          .min(0)
          .default(256 << 20)
          .describe("A sandbox host's cache of test data it fetched from Redis (large test sets go by reference, once per host): its size cap."),
      },
      'Sharing the queue with sandbox hosts through BullMQ on Redis (docs/admin/sandbox-hosts.md).'
    ),
    limits: section(
      {
        max_time_sec: z.number().positive().default(5).describe('Largest run time limit (CPU seconds); larger requests are clamped.'),
        default_time_sec: z.number().positive().default(5).describe('Run time limit when the request gives none.'),
        max_memory_kb: z.number().int().positive().default(262144).describe('Largest memory limit in KB; larger requests are clamped.'),
        default_memory_kb: z.number().int().positive().default(262144).describe('Memory limit when the request gives none.'),
        min_time_sec: z.number().positive().default(0.1).describe('Smallest run time limit; smaller requests are raised to it.'),
        min_memory_kb: z
          .number()
          .int()
          .min(1024)
          .default(16384)
          .describe('Smallest memory limit in KB; smaller requests (0.4 rounds to 0, which the jail would read as "no limit") are raised to it.'),
        wall_extra_sec: z
          .number()
          .min(0)
          .default(2)
          .describe('Wall-clock cap = time limit x 2 + this; catches sleeping programs.'),
        processes: z.number().int().min(1).default(64).describe('Most processes/threads a program may have at once.'),
        open_files: z.number().int().min(8).default(64).describe('Most open files per process.'),
        output_cap_bytes: z
          .number()
          .int()
          .positive()
          .default(1_048_576)
          .describe('Largest stdout (and stderr) a program may write; past it the run ends RE/SIGXFSZ.'),
        source_max_bytes: z.number().int().positive().default(262_144).describe('Largest source accepted.'),
        executable_max_bytes: z
          .number()
          .int()
          .positive()
          .default(1_048_576)
          .describe("Largest program accepted as it runs (Judge0's Executable, an ELF binary), in place of limits.source_max_bytes: a static hello is ~700 KB. Its Base64 must also fit in server.body_limit_bytes."),
        input_max_bytes: z.number().int().positive().default(1_048_576).describe('Largest stdin accepted.'),
        work_dir_bytes: z
          .number()
          .int()
          .min(1 << 20)
          .default(64 << 20)
          .describe("Bytes a run step may write in its work directory (/work: a tmpfs per job, fallocate included; counted in the program's memory too). Past it: RE SIGXFSZ."),
        work_dir_inodes: z.number().int().min(16).default(4096).describe('Files and directories a run step may create in /work. Past it: RE SIGXFSZ.'),
        compile_work_dir_bytes: z
          .number()
          .int()
          .min(1 << 20)
          .default(512 << 20)
          .describe('Bytes a compile step may write in /work (the compiled program stays there for the run). Past it: CE.'),
        compile_work_dir_inodes: z.number().int().min(16).default(16384).describe('Files and directories a compile step may create in /work. Past it: CE.'),
        compile_time_sec: z.number().positive().default(15).describe("Compile CPU time limit of a language whose manifest sets none (toolchains/languages/*.toml [compile_limits]); languages.compile_overrides wins over both."),
        compile_memory_kb: z
          .number()
          .int()
          .positive()
          .default(1_048_576)
          .describe("Compile memory limit in KB of a language whose manifest sets none; languages.compile_overrides wins over both."),
        compile_processes: z.number().int().min(1).default(128).describe("Compile process/thread limit of a language whose manifest sets none; languages.compile_overrides wins over both."),
        files_max_count: z.number().int().min(0).default(64).describe('Most extra files one job may carry into its work directory (Jobe file_list, Piston files).'),
        files_max_bytes: z
          .number()
          .int()
          .min(0)
          .default(16 << 20)
          .describe("Largest total size of a job's extra files."),
        compile_file_size_bytes: z
          .number()
          .int()
          .positive()
          .default(268_435_456)
          .describe('Largest file a compiler may write (the binary; its messages are read up to output_cap_bytes).'),
      },
      'Limits applied to every job.'
    ),
    languages: section(
      {
        enabled: z
          .array(z.string())
          .default([])
          .describe('Language codes (or aliases) offered by the v3/v4 API and the interview room, each also needing its toolchain provisioned; empty = every code whose toolchain is provisioned.'),
        compile_overrides: z
          .record(
            z.string(),
            z
              .object({
                time_sec: z.number().positive().optional(),
                memory_kb: z.number().int().positive().optional(),
                processes: z.number().int().positive().optional(),
              })
              .strict()
          )
          .default({})
          .describe('Per-code compile limits overriding the manifest, e.g. { GO = { time_sec = 30 } }; keys are codes or aliases in any case, and an unknown one stops the server at start.'),
      },
      'Languages.'
    ),
    evaluation: section(
      {
        default_quota: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('Submissions (v3 + v4) a client may make in total when `clients create` gave no --quota; 0 = unlimited.'),
        code_view_url: z
          .string()
          .default('')
          .describe('Prefix of web_link ({code_view_url}/<code_id>); empty = {public_url}/view.'),
        job_max_attempts: z
          .number()
          .int()
          .min(1)
          .default(3)
          .describe('Runs tried when the sandbox fails on our side before the submission completes with request_OK False.'),
        max_queued_per_client: z
          .number()
          .int()
          .min(0)
          .default(500)
          .describe('Submissions one client may have waiting to run; more are refused with 429 and Retry-After until some have started (0 = no cap). Interview-room runs are never counted.'),
      },
      'The code-evaluation API (v3 and v4).'
    ),
    jobe: section(
      {
        max_cpu_time_sec: z
          .number()
          .positive()
          .default(120)
          .describe("The Jobe API's largest cputime parameter (Jobe's cputime_upper_limit_secs): a run asking for more is refused with Jobe's 400. The Jobe API's runs may use up to this, past limits.max_time_sec."),
        wait_timeout_sec: z
          .number()
          .positive()
          .default(10)
          .describe('A Jobe run that has not finished this long after it was queued (beyond its own time limits) answers outcome 21, server overload (Jobe\'s jobe_wait_timeout); it still runs.'),
        file_cache_bytes: z
          .number()
          .int()
          .min(0)
          .default(256 << 20)
          .describe("Each client's cache of files uploaded with PUT files/{id}, counted in whole 4 KiB disk blocks (a 1-byte file costs 4 KiB): past it the client's least recently used files are evicted."),
        file_cache_files: z
          .number()
          .int()
          .min(1)
          .default(4096)
          .describe("File ids one client's cache of PUT files/{id} holds: past it the client's least recently used ids are evicted."),
        file_store_bytes: z
          .number()
          .int()
          .min(0)
          .default(1 << 30)
          .describe('All clients\' Jobe files together, in 4 KiB disk blocks: past it the client holding the most loses its least recently used files.'),
        file_store_files: z
          .number()
          .int()
          .min(1)
          .default(16384)
          .describe('File ids of all clients together: past it the client holding the most loses its least recently used ids.'),
        file_ttl_hours: z
          .number()
          .positive()
          .default(48)
          .describe("A Jobe file id unused this long is forgotten, its file deleted with its last id (Jobe deletes files unused for two days); CodeRunner uploads it again on the run's 404."),
        file_max_bytes: z.number().int().positive().default(16 << 20).describe('Largest file one PUT files/{id} may upload.'),
        max_memory_kb: z
          .number()
          .int()
          .min(16384)
          .default(1_572_864)
          .describe("The jail's memory cap (cgroup) of every Jobe run, in place of limits.max_memory_kb: above Jobe's largest address-space default (python3's 1000 MB) with room for what the cgroup counts besides it, so that memorylimit decides as on Jobe (a runaway python3 program ends with MemoryError, 12); lower it on a small machine and such runs end as 17."),
        request_max_bytes: z
          .number()
          .int()
          .min(1 << 20)
          .default(8 << 20)
          .describe("Largest POST runs body (PHP's default post_max_size, which bounds a native Jobe's); its source and its input may each be as large, in place of limits.source_max_bytes and limits.input_max_bytes."),
        output_max_bytes: z
          .number()
          .int()
          .min(1 << 20)
          .default(64 << 20)
          .describe('Most a Jobe run may write to stdout (and to stderr), in place of limits.output_cap_bytes: what it writes past streamsize is dropped and it runs on, as on Jobe; past this it is stopped (outcome 13).'),
        stream_max_bytes: z
          .number()
          .int()
          .min(2_048_000)
          .default(4_096_000)
          .describe("Most of stdout (and of stderr) a Jobe reply keeps: streamsize MB x 1,024,000 bytes (Jobe's 2 MB default: 2,048,000) up to this."),
      },
      'The Jobe API for Moodle CodeRunner (docs/api/jobe.md).'
    ),
    judge0: section(
      {
        wait_max_sec: z
          .number()
          .positive()
          .default(60)
          .describe('Longest a Judge0 `wait=true` request is held: past it the answer is 201 with the submission as it stands (In Queue or Processing, with its token and status), and it finishes as usual; poll it by token.'),
        reply_max_bytes: z
          .number()
          .int()
          .min(1 << 20)
          .default(16 << 20)
          .describe('Largest body one Judge0 reply carrying submissions may have (GET /submissions/{token}, GET /submissions/batch, POST with wait=true); a larger one is refused (413) before it is built. Every single submission fits in it with base64_encoded=true at the default limits.'),
      },
      'The Judge0 CE API under /judge0 (docs/api/judge0.md).'
    ),
    piston: section(
      {
        anonymous_client: z
          .string()
          .default('')
          .describe('Name of the client (`clients create`) that Piston requests without a key run as; empty = a key is always required (in the Authorization header or the base path /piston/<key>/api/v2).'),
        wait_sec: z
          .number()
          .positive()
          .default(300)
          .describe('Longest a Piston execute request waits for its run to start; one not started by then is withdrawn (never run) and answered 503.'),
      },
      'The Piston v2 API under /piston.'
    ),
    compile_cache: section(
      {
        max_bytes: z
          .number()
          .int()
          .min(0)
          .default(1_073_741_824)
          .describe('Size of the compile cache; the least recently used programs are evicted beyond it (each pool thread checks when what it knows of the cache passes this size, or after it stored a tenth of it since its last check: the cache may pass it by up to a tenth per thread). 0 turns the cache off.'),
      },
      'Compiled programs keyed by toolchain version, language, compile command and limits, and the source\'s hash: a resubmission skips the compile (result.compile_cached).'
    ),
    grading: section(
      {
        max_tests: z.number().int().positive().default(100).describe('Most test cases one graded submission may have.'),
        test_max_bytes: z
          .number()
          .int()
          .positive()
          .default(2_097_152)
          .describe("Largest input, and largest expected output, of one test case."),
        total_max_bytes: z
          .number()
          .int()
          .positive()
          .default(134_217_728)
          .describe("Largest sum of a problem's (or a graded submission's) test inputs and expected outputs."),
        checker_time_sec: z.number().positive().max(60).default(5).describe("A checker program's CPU time per test."),
        checker_memory_kb: z.number().int().min(16384).default(262144).describe("A checker program's memory."),
        judge_time_sec: z
          .number()
          .positive()
          .max(600)
          .default(10)
          .describe("How long judging one test's output with a built-in checker may take (they are linear in the output; this bounds what is left): past it the test is IE."),
        package_store_max_bytes: z
          .number()
          .int()
          .min(0)
          .default(1_073_741_824)
          .describe("Most bytes of package zips one client's problems keep for verifying them through the API (POST …/problems/<id>/verify). A package past it is still imported, its zip not kept (the reply's package.kept says so); 0 keeps none."),
      },
      'Graded submissions (v4 test_cases): compile once, run every test in a fresh jail, judge with a checker.'
    ),
    similarity: section(
      {
        max_submissions: z
          .number()
          .int()
          .min(2)
          .default(1500)
          .describe('Most submissions one similarity report may compare (a larger set is refused). The analysis needs about 0.4 MB per submission of 60 lines (2,000: 843 MB; 5,000: 2 GB): raise memory_mb with it.'),
        default_min_similarity: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe('Pairs at or above this similarity are listed when the request gives no min_similarity.'),
        max_pairs: z.number().int().min(1).default(1000).describe('Most pairs one report keeps (the most similar ones); the histogram counts every pair.'),
        max_fingerprint_share: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe('Fingerprints found in more than this share of the submissions count as common code and are ignored (1 = none are).'),
        time_limit_sec: z.number().int().min(1).default(600).describe('Wall-clock time one analysis may take before it fails.'),
        memory_mb: z.number().int().min(128).default(1024).describe('Resident memory the analysis process may use before it is stopped and the report fails.'),
        file_parse_sec: z
          .number()
          .positive()
          .default(5)
          .describe('CPU seconds the parser may spend on one submission; past it that submission is left out of the report (with the reason shown) and the others are compared.'),
        max_queued_per_client: z
          .number()
          .int()
          .min(0)
          .default(5)
          .describe("Reports one client may have waiting; one more is refused with 429 and Retry-After (0 = no cap). Clients' reports run in turn, whoever asked first."),
        submissions_per_quota_unit: z
          .number()
          .int()
          .min(1)
          .default(100)
          .describe("A report counts against the client's quota as one submission per this many submissions it compares, started (100: a report of 2-100 costs 1, of 1,500 costs 15)."),
      },
      'Similarity reports (Dolos): which submissions to a problem look copied. One analysis at a time, in a niced child process.'
    ),
    outbox: section(
      {
        timeout_ms: z.number().int().positive().default(5000).describe('How long one callback POST may take before it counts as failed.'),
        max_attempts: z.number().int().min(1).default(8).describe('Deliveries tried before a callback (or e-mail) is given up.'),
        backoff_ms: z
          .number()
          .int()
          .positive()
          .default(1000)
          .describe('Delay before the second attempt; it doubles per attempt (with jitter) up to backoff_max_ms.'),
        backoff_max_ms: z.number().int().positive().default(600_000).describe('Longest delay between two attempts.'),
        concurrency: z.number().int().min(1).default(16).describe('Deliveries in flight at once, shared by client, destination and e-mail (docs/admin/outbox.md).'),
        block_private_addresses: z
          .boolean()
          .default(false)
          .describe('Refuse callbacks to loopback, private and link-local addresses (off: appliances often call back into their LAN).'),
      },
      'Durable deliveries: v3/v4 callbacks and other outgoing messages.'
    ),
    interviews: section(
      {
        rate_per_minute: z.number().int().min(1).default(60).describe('Interview API calls one user may make per minute (spec: 60).'),
        rate_per_day: z.number().int().min(1).default(5000).describe('Interview API calls one user may make per day (spec: 5000).'),
        allow_private_resume_hosts: z
          .boolean()
          .default(false)
          .describe('Let resume_url point at loopback, private and link-local addresses (off = SSRF guard; tests turn it on).'),
        resume_timeout_ms: z.number().int().positive().default(10_000).describe('How long downloading one resume_url may take in total.'),
        resume_link_ttl_sec: z
          .number()
          .int()
          .positive()
          .default(86_400)
          .describe('How long the signed resume_url returned by B1 stays valid.'),
        support_email: z.string().default('support@example.com').describe('Address named in the ACCESSERROR message.'),
        max_duration_min: z
          .number()
          .int()
          .positive()
          .default(120)
          .describe('An interview counts as completed this long after it started, if nobody ended it earlier.'),
        start_time_grace_sec: z
          .number()
          .int()
          .min(0)
          .default(60)
          .describe('Clock-skew allowance: an update may set start_datetime this far in the past.'),
        sweep_cron: z
          .string()
          .refine((v) => validateCron(v), 'not a cron expression')
          .default('* * * * *')
          .describe('node-cron schedule of the sweep that moves interviews to ongoing / completed and sends the reports (6 fields = with seconds).'),
      },
      'The interview API (accounts, rate limits, resumes, lifecycle).'
    ),
    room: section(
      {
        session_ttl_min: z
          .number()
          .int()
          .min(1)
          .default(240)
          .describe('How long the session cookie an interview link gives stays valid; opening the link again gives a fresh one.'),
        time_limit_sec: z.number().positive().max(10).default(5).describe('CPU time limit of a run in the interview room.'),
        memory_limit_kb: z.number().int().positive().default(262144).describe('Memory limit (KB) of a run in the interview room.'),
        max_code_bytes: z
          .number()
          .int()
          .positive()
          .default(65536)
          .describe('Largest code, and largest input, the room keeps and runs; also the largest the shared document may grow, encoded with its editing history (past it, a code of at most half this size starts the document again from its text).'),
        max_streams_per_session: z
          .number()
          .int()
          .min(1)
          .max(100)
          .default(4)
          .describe('Open event streams (browser tabs of the room) one session may hold; one more is refused with 429.'),
        max_streams_per_room: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .default(16)
          .describe("Open event streams one room may hold. When it is full, a participant with fewer streams takes the oldest stream of the one holding most; otherwise 429."),
        stream_buffer_bytes: z
          .number()
          .int()
          .min(65536)
          .max(64 * 1024 * 1024)
          .default(1048576)
          .describe('Bytes an event stream may have waiting for a slow reader before it is closed (at least 4 × max_code_bytes is used, so one whole document always fits).'),
      },
      'The interview room behind the links: shared editor, runs in the sandbox, feedback.'
    ),
    retention: section(
      {
        submissions_days: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('Completed submissions older than this many days are deleted by the nightly sweep, and package verifies that ended that long ago; 0 = keep forever.'),
        outputs_days: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe("Days a completed submission keeps its program's stdout/stderr (the verdict stays); 0 = forever."),
        resumes_days: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('Days after its interview ended that a stored resume file is kept; 0 = forever.'),
        interviews_days: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('Finished (ended or deleted) interviews older than this many days are deleted with their participants, feedback and room; 0 = keep forever.'),
        outbox_days: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('Delivered and superseded outbox rows (callbacks, interview reports, e-mails) older than this many days are deleted with their attempts; failed ones are kept for `outbox retry`; 0 = keep forever.'),
        sweep_cron: z
          .string()
          .refine((v) => validateCron(v), 'not a cron expression')
          .default('17 3 * * *')
          .describe('node-cron schedule of the retention sweep (default nightly at 03:17).'),
      },
      'How long data is kept (applied by a nightly sweep; changes apply on SIGHUP).'
    ),
    admin: section(
      {
        sign_in_failures_per_minute: z
          .number()
          .int()
          .min(1)
          .default(5)
          .describe('Failed dashboard sign-ins allowed per client address per minute; past it, sign-in answers 429 with Retry-After.'),
        sign_in_failures_per_day: z.number().int().min(1).default(50).describe('The same, per day.'),
      },
      'The dashboard (/admin): sign-in throttling (changes apply on SIGHUP).'
    ),
    metrics: section(
      {
        enabled: z.boolean().default(true).describe('Serve GET /metrics (Prometheus text format); false = 404.'),
        token: z
          .string()
          .default('')
          .describe('The bearer token GET /metrics needs (`Authorization: Bearer <token>`, 401 otherwise); empty = the one made at first start, shown by `cli metrics token`.'),
        open: z.boolean().default(false).describe('true = GET /metrics answers whoever reaches the port, with no token (closed by default).'),
      },
      'GET /metrics for Prometheus (changes apply on SIGHUP).'
    ),
    smtp: section(
      {
        host: z
          .string()
          .default('')
          .describe('SMTP server for invitation and cancellation e-mails; empty = none: mail stays queued in the outbox (`cli outbox`).'),
        port: z.number().int().min(1).max(65535).default(587).describe('SMTP port (465 with secure = true; else 587 or 25).'),
        secure: z.boolean().default(false).describe('TLS from the first byte (port 465); false = STARTTLS when the server offers it.'),
        require_tls: z.boolean().default(false).describe('Refuse to send unless STARTTLS succeeds (with secure = false).'),
        reject_unauthorized: z.boolean().default(true).describe("Check the SMTP server's TLS certificate (false accepts a self-signed one)."),
        user: z.string().default('').describe('SMTP user name; empty = no authentication.'),
        password: z.string().default('').describe('SMTP password.'),
        from: z
          .string()
          .default('')
          .describe('From address, e.g. "Interviews <interviews@uni.example>"; empty = arbiter@<host of server.public_url>.'),
        timeout_ms: z.number().int().positive().default(30_000).describe('How long one SMTP delivery may take before it counts as failed.'),
        max_attempts: z
          .number()
          .int()
          .min(1)
          .default(200)
          .describe('Attempts per e-mail before it is given up; with the outbox backoff capped at 10 min, 200 outlast a day and a half of SMTP outage.'),
      },
      'Outgoing e-mail (nodemailer over SMTP), sent from the durable outbox.'
    ),
  })
  .strict()
  .refine((c) => c.pool.size > 0 || c.queue.redis_url !== '', {
    path: ['pool', 'size'],
    message: 'pool.size 0 needs queue.redis_url: without sandbox hosts nothing would run the jobs',
  })

export type Config = z.infer<typeof ConfigSchema> & { dataDir: string }

export class ConfigError extends Error {}

/** A short stable id of a data directory's path ({data_id} in pool.jail_socket). */
export const dataDirId = (dataDir: string): string => createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)

/** The data directory: ARBITER_DATA, else ./data beside the checkout. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.ARBITER_DATA ?? join(import.meta.dirname, '..', 'data'))
}

/**
 * A data directory that is not there is an error, never an empty one made in its place: a volume that
 * failed to mount would otherwise be served as an installation with no clients, problems or submissions.
 * `cli init` (and scripts/setup.sh) make a fresh one on purpose.
 */
export function requireDataDir(dataDir: string): void {
  let isDir: boolean
  try {
    isDir = statSync(dataDir).isDirectory()
  } catch {
    throw new ConfigError(
      `the data directory ${dataDir} does not exist (a volume that is not mounted? ARBITER_DATA naming another one?); nothing was created. ` +
        'For a fresh installation: npm run -s cli -- init (or npm start -- --init, or scripts/setup.sh)'
    )
  }
  if (!isDir) throw new ConfigError(`the data directory ${dataDir} is not a directory`)
}

/** `cli init`: a fresh data directory (0750) with the commented default config.toml; an existing one is left as it is. */
export function initDataDir(env: NodeJS.ProcessEnv = process.env): { data_dir: string; created: boolean } {
  const dataDir = dataDirFromEnv(env)
  const created = !existsSync(dataDir)
  mkdirSync(dataDir, { recursive: true, mode: 0o750 })
  loadConfig(env)
  return { data_dir: dataDir, created }
}

/**
 * Reads <dataDir>/config.toml (writing the commented default when the directory has none), applies the
 * env overrides, validates. A missing data directory is not created: the defaults are returned (tools
 * and tests that need no data), and whatever needs the data calls requireDataDir first.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = dataDirFromEnv(env)
  const file = join(dataDir, 'config.toml')
  if (!existsSync(dataDir)) return parseConfig({}, env, dataDir, file)
  if (!existsSync(file)) writeFileSync(file, renderDefaultToml())
  let raw: Record<string, unknown>
  try {
    raw = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch (err) {
    throw new ConfigError(`${file}: not valid TOML: ${(err as Error).message}`)
  }
  return parseConfig(raw, env, dataDir, file)
}

/**
 * The root jail daemon's reading of <dataDir>/config.toml: the file must already exist, be a regular file
 * (not a link) owned by root and writable by no one else. The data directory belongs to the unprivileged
 * server, which must not be able to choose the binaries (paths.*) that root runs.
 */
export function loadRootOwnedConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = dataDirFromEnv(env)
  const file = join(dataDir, 'config.toml')
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (err) {
    throw new ConfigError(`${file}: cannot open (${(err as NodeJS.ErrnoException).code}); the jail daemon needs a root-owned config file`)
  }
  let text: string
  try {
    const st = fstatSync(fd)
    if (!st.isFile() || st.uid !== 0 || (st.mode & 0o022) !== 0)
      throw new ConfigError(`${file}: must be a regular file owned by root and writable only by root (chown root: and chmod 0640)`)
    text = readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
  let raw: Record<string, unknown>
  try {
    raw = parseToml(text) as Record<string, unknown>
  } catch (err) {
    throw new ConfigError(`${file}: not valid TOML: ${(err as Error).message}`)
  }
  return parseConfig(raw, {}, dataDir, file)
}

export function parseConfig(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  dataDir: string,
  source = 'config'
): Config {
  const merged = structuredClone(raw) as Record<string, Record<string, unknown>>
  const server = (merged.server ??= {})
  if (env.PORT !== undefined && env.PORT !== '') server.port = Number(env.PORT)
  if (env.ARBITER_PUBLIC_URL) server.public_url = env.ARBITER_PUBLIC_URL
  if (env.ARBITER_REDIS_URL) (merged.queue ??= {}).redis_url = env.ARBITER_REDIS_URL
  const parsed = ConfigSchema.safeParse(merged)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = i.path.join('.') || (i.code === 'unrecognized_keys' ? i.keys.join(', ') : '(root)')
      return `  ${key}: ${i.message}`
    })
    throw new ConfigError(`${source}: invalid configuration\n${lines.join('\n')}`)
  }
  const cfg = parsed.data
  // unset, the links the server hands out follow the port it listens on (PORT or server.port); so does
  // the old default that earlier versions wrote into every config.toml
  // one jail daemon per data directory: a copy of config.toml in another directory names another socket
  cfg.pool.jail_socket = cfg.pool.jail_socket.replaceAll('{data_id}', dataDirId(dataDir))
  const own = cfg.server.public_url.replace(/\/+$/, '')
  cfg.server.public_url = own === '' || own === 'http://localhost:8080' ? `http://localhost:${cfg.server.port}` : own
  return { ...cfg, dataDir }
}

type Described = { description?: string; _zod: { def: { innerType?: Described; shape?: Record<string, Described> } } }

const unwrapObject = (s: Described): Record<string, Described> => {
  let cur: Described | undefined = s
  while (cur && !cur._zod.def.shape) cur = cur._zod.def.innerType
  return cur?._zod.def.shape ?? {}
}

/** One walk over the schema: [section, key, description, default] rows. */
export function describeConfig(): { section: string; key: string; description: string; value: unknown }[] {
  const defaults = ConfigSchema.parse({}) as Record<string, Record<string, unknown>>
  const rows = []
  for (const [sectionName, sectionSchema] of Object.entries(unwrapObject(ConfigSchema as unknown as Described))) {
    for (const [key, keySchema] of Object.entries(unwrapObject(sectionSchema))) {
      rows.push({ section: sectionName, key, description: keySchema.description ?? '', value: defaults[sectionName][key] })
    }
  }
  return rows
}

/** docs/admin/configuration.md's table of config keys, rendered from the schema. */
export function configTable(): string {
  const cell = (v: unknown) => '`' + JSON.stringify(v) + '`'
  const rows = describeConfig().map((r) =>
    `| \`${r.section}.${r.key}\` | ${r.section === 'pool' && r.key === 'size' ? 'number of cores' : cell(r.value)} | ${r.description} |`
  )
  return ['| key | default | meaning |', '|---|---|---|', ...rows].join('\n')
}

// smol-toml writes an object as a [table] header, which would swallow the keys that follow
const isEmptyTable = (v: unknown) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0

export function renderDefaultToml(): string {
  const out = ['# Arbiter configuration. Every key is optional; shown here with its default.', '# Env PORT, ARBITER_PUBLIC_URL, ARBITER_REDIS_URL and ARBITER_DATA override the file.', '']
  const sections = unwrapObject(ConfigSchema as unknown as Described)
  let current = ''
  for (const row of describeConfig()) {
    if (row.section !== current) {
      current = row.section
      out.push(`# ${sections[current].description ?? ''}`, `[${current}]`)
    }
    out.push(`# ${row.description}`)
    // pool.size defaults to this machine's cores: leave it commented so another machine recomputes it
    const line = isEmptyTable(row.value) ? `${row.key} = {}` : stringifyToml({ [row.key]: row.value }).trim()
    out.push(row.section === 'pool' && row.key === 'size' ? `# ${line}` : line)
  }
  return out.join('\n') + '\n'
}

/**
 * Missing, zero or negative → the default; larger than the cap → the cap; smaller than the floor →
 * the floor (never refused, as the spec sets a too-large value to the maximum). The floor matters: a
 * limit rounded down to 0 would reach the jail as "no limit".
 */
export function clampLimit(value: number | undefined, fallback: number, max: number, min: number): number {
  if (value === undefined || !Number.isFinite(value) || value <= 0) return Math.max(min, Math.min(fallback, max))
  return Math.max(min, Math.min(value, max))
}

/**
 * The most a job may ask for, over every face's own caps (the interview room's, the Jobe API's): the
 * jail daemon, the sandbox hosts and the pool bound what they take by these, so the layers below the
 * core name no protocol's keys. A face with caps of its own adds them here.
 */
export function jobCeilings(config: Config) {
  const { limits, room, jobe } = config
  return {
    timeSec: Math.max(limits.max_time_sec, room.time_limit_sec, jobe.max_cpu_time_sec),
    memoryKb: Math.max(limits.max_memory_kb, room.memory_limit_kb, jobe.max_memory_kb),
    outputBytes: Math.max(limits.output_cap_bytes, jobe.output_max_bytes),
    /** A run's stdout and stderr as read back (a Jobe run's stream cap may pass the output cap). */
    streamBytes: Math.max(limits.output_cap_bytes, jobe.stream_max_bytes),
    sourceBytes: Math.max(limits.source_max_bytes, limits.executable_max_bytes, room.max_code_bytes, jobe.request_max_bytes),
    inputBytes: Math.max(limits.input_max_bytes, room.max_code_bytes, jobe.request_max_bytes),
  }
}
