// Every table in one file (drizzle sqlite-core). Columns are camelCase here, snake_case in SQL.
// Sections: evaluation (clients, submissions), interviews, outbox. Migrations are generated from this
// file by `npm run db:generate`; until the first release they are regenerated from scratch.
import { sql } from 'drizzle-orm'
import { randomBytes } from 'node:crypto'
import { OUTBOX_KIND_NAMES } from './outbox-kinds.ts'
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

// ── service ────────────────────────────────────────────────────────────────────────────────────────

/** Small key/value facts about this installation (e.g. the instance id used in client_id suffixes). */
export const meta = sqliteTable('meta', {
  key: text().primaryKey(),
  value: text().notNull(),
  updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
})

// ── evaluation ─────────────────────────────────────────────────────────────────────────────────────

/** API clients of the code-evaluation API (v3 and v4). The secret itself is never stored. */
export const clients = sqliteTable('clients', {
  id: integer().primaryKey({ autoIncrement: true }),
  name: text().notNull(),
  /** SHA-256 hex of the 40-character secret: the secret is random, so a slow hash buys nothing. */
  secretHash: text().notNull().unique(),
  /** First 4 characters, so an admin can tell secrets apart in `clients list`. */
  secretHint: text().notNull(),
  /** Submissions allowed in total; null = evaluation.default_quota from the config (0 = unlimited). */
  quota: integer(),
  /** Submissions accepted so far (v3 and v4): the quota's current_count. */
  used: integer().notNull().default(0),
  createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  revokedAt: integer({ mode: 'timestamp_ms' }),
  /**
   * Set on the one client that owns a company's interview-room runs: made by the server, its secret
   * never kept (no API request can use it), not listed by `clients list`, never counted against a quota.
   */
  roomOfCompany: integer().unique(),
})

/**
 * One v3 or v4 request and its outcome. The table is the queue of record: `state` goes
 * queued → running → compiled → completed; `attempt` is the claim token that makes completion exactly-once.
 */
export const submissions = sqliteTable(
  'submissions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** The public id of a submission (a UUID); the column keeps HackerEarth v4's name for it, he_id. */
    publicId: text('he_id').notNull().unique('submissions_heId_unique'),
    /** v3 code_id, the key of web_link and of the output URL: 128 random bits, so the link is the secret. */
    codeId: text().notNull().unique(),
    /** The API client it belongs to; a room run's is its company's room client (clients.roomOfCompany). */
    clientId: integer()
      .notNull()
      .references(() => clients.id),
    /** The wire protocol that accepted it (a name in the protocol registry: v3, v4, jobe …), or 'room': a run from an interview room, queued like the rest (no protocol, no quota, no callback). */
    api: text().notNull(),
    /** The interview whose room asked for the run; null for the APIs' submissions. */
    interviewId: text(),
    compileOnly: integer({ mode: 'boolean' }).notNull().default(false),
    /** v3 async=1; v4 is always asynchronous. */
    async: integer({ mode: 'boolean' }).notNull().default(false),
    /** Claim order between classes (evaluation/fair-share.ts PRIORITY, set by every insert): 0 a room run, 1 the APIs' submissions. */
    priority: integer().notNull().default(1),
    /**
     * Fair share within a class: the client's turn (fair-share.ts fairRound). Claims take the lowest round
     * first (within a round a synchronous row before an asynchronous one), so a client's 500 queued rows
     * take rounds n…n+499 while another's one row takes the current one.
     */
    fairRound: integer().notNull().default(0),
    /** Canonical language code and the code as the client sent it. */
    language: text().notNull(),
    langRequested: text().notNull(),
    source: text().notNull(),
    input: text().notNull().default(''),
    timeLimitSec: real().notNull(),
    memoryLimitKb: integer().notNull(),
    /** The request's id and context as JSON text, echoed back exactly as sent (string, number, object). */
    requestIdJson: text(),
    contextJson: text(),
    callbackUrl: text(),
    state: text({ enum: ['queued', 'running', 'compiled', 'completed'] }).notNull().default('queued'),
    attempt: integer().notNull().default(0),
    /** 'OK' or the compiler's message; null until the compile step is over. */
    compileStatus: text(),
    /** AC | TLE | MLE | RE | CE | IE (IE: our own failure, request_OK False). */
    verdict: text(),
    statusDetail: text(),
    signal: text(),
    exitCode: integer(),
    timeUsedSec: real(),
    memoryUsedKb: integer(),
    stdout: text(),
    stderr: text(),
    /** Why the request failed on our side (v4 request_NOT_OK_reason); null when it did not. */
    failure: text(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    startedAt: integer({ mode: 'timestamp_ms' }),
    compiledAt: integer({ mode: 'timestamp_ms' }),
    completedAt: integer({ mode: 'timestamp_ms' }),
    /** Graded: the submission has test cases (submission_tests); null for a plain one. */
    checkerJson: text(),
    stopOnFirstFailure: integer({ mode: 'boolean' }).notNull().default(false),
    /** The program came from the compile cache (result.compile_cached). */
    compileCached: integer({ mode: 'boolean' }).notNull().default(false),
    /** Opaque JSON of the protocol that accepted it (what it must echo or needs to shape its reply). */
    protocolJson: text(),
    /** evaluation/model.ts JobSpec as JSON: extra files, argv overrides, limits beyond cpu/memory. */
    jobSpecJson: text(),
    /** evaluation/model.ts RawResult as JSON: each step as the jail reported it; null until completed. */
    rawResultJson: text(),
    /** The problem_id a graded submission was made against (kept after the problem is deleted): similarity reports select by it. */
    problemId: text(),
    /**
     * A Kattis/ICPC package's grading (packages/stored-grading.ts): its groups, each test's validator
     * flags, score.txt's rule; null for every other graded submission (the first failure decides).
     */
    gradingJson: text(),
    /** What that grading gave once completed: the verdict, score and each group's (the v4 reply's score.package). */
    gradedJson: text(),
  },
  (t) => [
    index('submissions_claim').on(t.state, t.priority, t.fairRound, t.async, t.id),
    // a client's queued rows: counted for the cap and their last round read, at each accept
    index('submissions_client').on(t.clientId, t.state, t.priority, t.async, t.fairRound),
    // an interview's room runs, deleted with it (interviews/retention.ts)
    index('submissions_interview').on(t.interviewId),
    index('submissions_problem').on(t.clientId, t.problemId),
  ]
)

/**
 * How many completed submissions there are by verdict and language: kept by triggers on `submissions`
 * (migration 0018), in the same transaction as each row's change, so /metrics reads a few rows instead
 * of grouping the whole table (1.7 s of the main thread at a million rows). Rows not completed are few
 * (capped per client) and counted from the claim index.
 */
export const submissionCounts = sqliteTable(
  'submission_counts',
  {
    verdict: text().notNull(),
    language: text().notNull(),
    n: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.verdict, t.language] })]
)

/**
 * Problems: a client's test set stored once, graded against by `problem_id`. The data of
 * each test lives in content-addressed files under <data>/problems/blobs (equal files stored once).
 */
export const problems = sqliteTable(
  'problems',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** The problem_id clients use: random, so ids of other clients' problems cannot be guessed. */
    publicId: text().notNull().unique(),
    clientId: integer()
      .notNull()
      .references(() => clients.id),
    name: text().notNull(),
    checkerJson: text().notNull(),
    timeLimitSec: real(),
    memoryLimitKb: integer(),
    testCount: integer().notNull(),
    totalBytes: integer().notNull(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    /** An imported package's grading (its groups, scores, per-group validator flags); null: the first failure decides. */
    gradingJson: text(),
    /** An API-imported package's zip, kept for its verify (a blob of <data>/problems/blobs), and its size (counted against grading.package_store_max_bytes). */
    packageHash: text(),
    packageBytes: integer(),
  },
  (t) => [index('problems_client').on(t.clientId), index('problems_package').on(t.packageHash)]
)

export const problemTests = sqliteTable(
  'problem_tests',
  {
    problemId: integer()
      .notNull()
      .references(() => problems.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    name: text().notNull(),
    /** SHA-256 (hex) of the input and of the expected output: their files' names. */
    inputHash: text().notNull(),
    outputHash: text().notNull(),
    inputBytes: integer().notNull(),
    outputBytes: integer().notNull(),
    points: real().notNull().default(1),
    timeLimitSec: real(),
  },
  (t) => [primaryKey({ columns: [t.problemId, t.position] }), index('problem_tests_input').on(t.inputHash), index('problem_tests_output').on(t.outputHash)]
)

/**
 * A verify of a stored package (POST …/problems/<id>/verify): every submission of the package's
 * submissions/ run through the queue as the client's submissions, one at a time; `runs` names the
 * submission of each run in order, so a verify the server stopped in resumes where it was.
 */
export const packageVerifies = sqliteTable(
  'package_verifies',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** The verify_id clients use: random, like a problem_id. */
    publicId: text().notNull().unique(),
    clientId: integer()
      .notNull()
      .references(() => clients.id),
    problemId: integer()
      .notNull()
      .references(() => problems.id, { onDelete: 'cascade' }),
    /** queued | running | done | failed */
    state: text().notNull(),
    /** Runs finished and runs to do (submissions in an offered language; known once the package is read). */
    done: integer().notNull().default(0),
    total: integer(),
    /** What it is doing now (reading the package, the accepted submissions for the time limit, the others). */
    stage: text().notNull(),
    /** The submission id of each run, in the order verify asks for them. */
    runsJson: text().notNull().default('[]'),
    /** The table so far, then the whole report (packages/verify.ts VerifyReport). */
    reportJson: text(),
    /** Why it failed (state failed). */
    failure: text(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    startedAt: integer({ mode: 'timestamp_ms' }),
    completedAt: integer({ mode: 'timestamp_ms' }),
  },
  (t) => [index('package_verifies_client_state').on(t.clientId, t.state), index('package_verifies_problem').on(t.problemId)]
)

/**
 * The test cases of a graded submission, in order, and each one's outcome once it has run (the
 * columns after expectedOutput stay null until then, so a poll shows them filling in).
 */
export const submissionTests = sqliteTable(
  'submission_tests',
  {
    submissionId: integer()
      .notNull()
      .references(() => submissions.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    /** The test's id as shown in result.tests (its name, or its 1-based number). */
    name: text().notNull(),
    input: text().notNull(),
    expectedOutput: text().notNull(),
    points: real().notNull().default(1),
    timeLimitSec: real(),
    /** AC | WA | TLE | MLE | RE | SKIPPED | IE; null while not run. */
    status: text(),
    statusDetail: text(),
    timeUsedSec: real(),
    memoryUsedKb: integer(),
    exitCode: integer(),
    signal: text(),
    earnedPoints: real(),
    checkerMessage: text(),
    stdout: text(),
    /** What an output validator's score.txt said (a scoring package), when it wrote one. */
    score: real(),
    /** The attempt (claim token) that wrote the outcome: a newer attempt overwrites it. */
    attempt: integer(),
  },
  (t) => [primaryKey({ columns: [t.submissionId, t.position] })]
)

// ── similarity reports ─────────────────────────────────────────────────────────────────────────────

/**
 * A similarity report over one client's submissions of one language family. The set of submissions is
 * fixed when it is asked for (submissionsJson), so a report re-run after a crash compares the same set.
 * `state` goes queued → running → completed | failed; `attempt` is the claim token, as for submissions.
 */
export const similarityReports = sqliteTable(
  'similarity_reports',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** The report_id clients use (UUID). */
    publicId: text().notNull().unique(),
    /** The key of the report page's link: 128 random bits, so the link is the secret (as web_link). */
    viewToken: text().notNull().unique(),
    clientId: integer()
      .notNull()
      .references(() => clients.id),
    /** What was asked for: a problem_id, or a list of he_ids (JSON). */
    problemId: text(),
    heIdsJson: text(),
    /** The Dolos language (similarity/languages.ts). */
    language: text().notNull(),
    minSimilarity: real().notNull(),
    template: text(),
    callbackUrl: text(),
    /** [{he_id, language}] in the order compared; lines are added when the report completes. */
    submissionsJson: text().notNull(),
    submissionCount: integer().notNull(),
    state: text({ enum: ['queued', 'running', 'completed', 'failed'] }).notNull().default('queued'),
    attempt: integer().notNull().default(0),
    /** 0–1 while running. */
    progress: real().notNull().default(0),
    stage: text(),
    /** Pairs at or above minSimilarity (the stored ones are at most similarity.max_pairs of them). */
    pairsAbove: integer(),
    /** Counts of every pair's similarity in 20 bins over [0, 1] (JSON). */
    histogramJson: text(),
    failure: text(),
    /** The analysis process's peak RSS and duration. */
    maxRssKb: integer(),
    durationMs: integer(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    startedAt: integer({ mode: 'timestamp_ms' }),
    completedAt: integer({ mode: 'timestamp_ms' }),
  },
  (t) => [index('similarity_reports_claim').on(t.state, t.id), index('similarity_reports_client').on(t.clientId, t.id)]
)

/** The kept pairs of a report, ranked (1 = most similar). */
export const similarityPairs = sqliteTable(
  'similarity_pairs',
  {
    reportId: integer()
      .notNull()
      .references(() => similarityReports.id, { onDelete: 'cascade' }),
    rank: integer().notNull(),
    leftHeId: text().notNull(),
    rightHeId: text().notNull(),
    similarity: real().notNull(),
    longestFragment: integer().notNull(),
    overlap: integer().notNull(),
    /** [{left_lines, right_lines}] (JSON). */
    fragmentsJson: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.rank] })]
)

// ── interviews ─────────────────────────────────────────────────────────────────────────────────────

/** Customer companies of the interview API: the feature switch and the credit balance. */
export const companies = sqliteTable('companies', {
  id: integer().primaryKey({ autoIncrement: true }),
  name: text().notNull(),
  interviewsEnabled: integer({ mode: 'boolean' }).notNull().default(true),
  /** One credit is spent per created interview, atomically with the insert. */
  credits: integer().notNull().default(0),
  /**
   * Key of the HE-Signature HMAC on report callbacks. Kept in clear on purpose: signing needs it, and
   * `companies secret` shows it to the admin who configures the receiver.
   */
  webhookSecret: text()
    .notNull()
    .$defaultFn(() => randomBytes(32).toString('hex')),
  createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
})

/** A company's API users. Neither credential is stored: only SHA-256 hashes (both are random keys). */
export const users = sqliteTable(
  'users',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    companyId: integer()
      .notNull()
      .references(() => companies.id),
    /** Lower-cased; matched against interviewer e-mails for the member view of reports. */
    email: text().notNull(),
    role: text({ enum: ['super_admin', 'member'] }).notNull(),
    clientIdHash: text().notNull().unique(),
    /** Start and end of the client_id, so `users list` can tell users apart without storing it. */
    clientIdHint: text().notNull(),
    secretHash: text().notNull(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    revokedAt: integer({ mode: 'timestamp_ms' }),
  },
  (t) => [uniqueIndex('users_active_email').on(t.companyId, t.email).where(sql`revoked_at is null`)]
)

/** One scheduled interview. `id` is a UUID as 32 lowercase hex characters. Deleted rows are kept (deletedAt). */
export const interviews = sqliteTable(
  'interviews',
  {
    id: text().primaryKey(),
    companyId: integer()
      .notNull()
      .references(() => companies.id),
    createdBy: integer()
      .notNull()
      .references(() => users.id),
    title: text().notNull(),
    startAt: integer({ mode: 'timestamp_ms' }).notNull(),
    /** The UTC offset start_datetime was written with, so replies use the client's own zone. */
    startOffsetMin: integer().notNull(),
    candidateName: text().notNull(),
    candidateEmail: text().notNull(),
    /** E.164, e.g. +919876543210. */
    candidateContact: text(),
    /** File name under <data>/resumes/, null without a resume. */
    resumeFile: text(),
    evalParams: text({ mode: 'json' }).$type<string[]>().notNull(),
    callbackUrl: text(),
    informCandidate: integer({ mode: 'boolean' }).notNull().default(true),
    informInterviewers: integer({ mode: 'boolean' }).notNull().default(true),
    /** Raised on every update (iCalendar SEQUENCE of the invites). */
    sequence: integer().notNull().default(0),
    /** Lifecycle markers (status.ts): set once, never cleared, so the status never goes back. */
    startedAt: integer({ mode: 'timestamp_ms' }),
    endedAt: integer({ mode: 'timestamp_ms' }),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
    deletedAt: integer({ mode: 'timestamp_ms' }),
  },
  (t) => [index('interviews_company').on(t.companyId), index('interviews_due').on(t.endedAt, t.startAt)]
)

/**
 * The candidate and the interviewers of an interview, each with an auto-login link token (stored as
 * its SHA-256). An update or delete revokes every current row; an update inserts fresh ones.
 */
export const interviewParticipants = sqliteTable(
  'interview_participants',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    interviewId: text()
      .notNull()
      .references(() => interviews.id),
    role: text({ enum: ['candidate', 'interviewer'] }).notNull(),
    fullName: text().notNull(),
    /** As the client wrote it (replies key links by it); compared case-insensitively. */
    email: text().notNull(),
    feedbackRedirectUrl: text(),
    /** Order of the interviewers as given. */
    position: integer().notNull(),
    tokenHash: text().notNull().unique(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    revokedAt: integer({ mode: 'timestamp_ms' }),
  },
  (t) => [index('interview_participants_interview').on(t.interviewId, t.revokedAt)]
)

/** Feedback of one interviewer (by lower-cased e-mail, so it survives link re-minting on update). */
export const interviewFeedback = sqliteTable(
  'interview_feedback',
  {
    interviewId: text()
      .notNull()
      .references(() => interviews.id),
    interviewerEmail: text().notNull(),
    /** Overall verdict. */
    result: text(),
    /** Rating key → {rating 1–5, comment}; labels are added when the report is rendered. */
    ratings: text({ mode: 'json' }).$type<Record<string, { rating: number; comment: string }>>().notNull(),
    /** eval_param → {rating 1–5, comment}. */
    evalParamsRatings: text({ mode: 'json' }).$type<Record<string, { rating: number; comment: string }>>().notNull(),
    submittedAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.interviewId, t.interviewerEmail] })]
)

// ── interview room ─────────────────────────────────────────────────────────────────────────────────

/**
 * A browser session of the room, made when a participant opens their link: the cookie is random and only
 * its SHA-256 is stored. It dies with its participant (links re-minted by B3, revoked by B5) and at expiry.
 */
export const roomSessions = sqliteTable(
  'room_sessions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    tokenHash: text().notNull().unique(),
    participantId: integer()
      .notNull()
      .references(() => interviewParticipants.id),
    interviewId: text()
      .notNull()
      .references(() => interviews.id),
    /** Sent back in the x-csrf-token header of every POST (not a credential on its own). */
    csrfToken: text().notNull(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('room_sessions_expiry').on(t.expiresAt)]
)

/**
 * Which room session owns which Yjs client id (room/client-ids.ts): the first session to write under an
 * id owns it, across restarts; it goes with its session.
 */
export const roomClientIds = sqliteTable(
  'room_client_ids',
  {
    interviewId: text().notNull(),
    clientId: integer().notNull(),
    sessionId: integer()
      .notNull()
      .references(() => roomSessions.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.interviewId, t.clientId] }), index('room_client_ids_session').on(t.sessionId)]
)

/** The shared editor of an interview: what every participant sees, kept across restarts. */
export const roomStates = sqliteTable('room_states', {
  interviewId: text()
    .primaryKey()
    .references(() => interviews.id),
  language: text().notNull(),
  code: text().notNull(),
  input: text().notNull(),
  /** Raised on every change; clients apply the newest. */
  version: integer().notNull(),
  /** The last run's result as shown in the room (JSON), null before the first run. */
  lastRunJson: text(),
  /** The editor's Yjs document, compacted (Y.encodeStateAsUpdate); `code` mirrors its text. */
  docState: blob({ mode: 'buffer' }),
  updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
})

/** Rate-limit windows (http/rate-limit.ts), in SQLite so that a restart does not reset them. */
export const rateCounters = sqliteTable(
  'rate_counters',
  {
    /** e.g. "user:12". */
    subject: text().notNull(),
    window: text({ enum: ['minute', 'day'] }).notNull(),
    /** The window runs from the first call it counted, for its length (a minute or a day). */
    startedAt: integer({ mode: 'timestamp_ms' }).notNull(),
    count: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.window] })]
)

// ── outbox ─────────────────────────────────────────────────────────────────────────────────────────

/**
 * Durable deliveries (callbacks, e-mails): a row is committed in the same transaction as the state it
 * reports, then jobs/outbox.ts sends it, retrying with backoff. Generic: `kind` picks the sender.
 */
export const outbox = sqliteTable(
  'outbox',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** storage/outbox-kinds.ts: which sender delivers it. */
    kind: text({ enum: OUTBOX_KIND_NAMES }).notNull(),
    /** What the delivery is about (a submission id, an interview id), so a sender needs no parsing. */
    subjectId: text(),
    /** URL for callbacks, address for e-mails. */
    target: text().notNull(),
    body: text().notNull(),
    contentType: text().notNull(),
    /** Extra headers as a JSON object. */
    headersJson: text(),
    /**
     * A delivery sent once just before this one, on its first attempt, as JSON {body, headers}: v4's
     * CODE_COMPILED of a job that ended before it was reported, in its REQUEST_COMPLETED's row. It is
     * what a row of its own before this one in the group would be, with that row's rule: one that fails
     * is dropped and the newer state sent (jobs/outbox.ts sendLead).
     */
    leadJson: text(),
    /** A callback's HTTP method (null: POST; Judge0 CE's callbacks are PUTs); null for e-mails. */
    method: text({ enum: ['POST', 'PUT'] }),
    /** Rows of one group are sent in id order; a failed row is dropped once a later one of its group exists. */
    groupKey: text(),
    /** At most one row per key (e.g. one CODE_COMPILED callback per submission, even across restarts). */
    dedupeKey: text().unique(),
    /**
     * Whose share of the delivery slots it uses (jobs/outbox-shares.ts): `client:<id>` for an API
     * client's callbacks, `company:<id>` for interview reports, `email` for every e-mail.
     */
    share: text(),
    /** Where it goes, as the slots are shared: a callback URL's origin, `smtp` for e-mails. */
    destination: text(),
    state: text({ enum: ['pending', 'delivered', 'failed', 'superseded'] }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    nextAt: integer({ mode: 'timestamp_ms' }).notNull(),
    lastError: text(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    deliveredAt: integer({ mode: 'timestamp_ms' }),
  },
  (t) => [index('outbox_due').on(t.state, t.nextAt), index('outbox_group').on(t.groupKey, t.state)]
)

/**
 * How many outbox rows there are by kind and state: kept by triggers on `outbox` (migration 0018) in each
 * row's own transaction, so /metrics reads a few rows; the outbox keeps its delivered rows.
 */
export const outboxCounts = sqliteTable(
  'outbox_counts',
  {
    kind: text().notNull(),
    state: text().notNull(),
    n: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.state] })]
)

/** Every attempt at a delivery: when, how long it took, and what went wrong (null = delivered). */
export const outboxAttempts = sqliteTable(
  'outbox_attempts',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** The outbox row (no foreign key, so old rows can be pruned without their history). */
    outboxId: integer().notNull(),
    attempt: integer().notNull(),
    at: integer({ mode: 'timestamp_ms' }).notNull(),
    ms: integer().notNull(),
    error: text(),
  },
  (t) => [index('outbox_attempts_row').on(t.outboxId)]
)

/** Admins of the /admin dashboard: a token made by `cli admin create`, stored as its SHA-256 only. */
export const admins = sqliteTable('admins', {
  id: integer().primaryKey({ autoIncrement: true }),
  name: text().notNull().unique(),
  tokenHash: text().notNull().unique(),
  createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  revokedAt: integer({ mode: 'timestamp_ms' }),
})

/**
 * The dashboard's sessions, kept server-side so signing out (or revoking the admin) ends a session at
 * once: the cookie holds a random token, only its SHA-256 is stored.
 */
export const adminSessions = sqliteTable(
  'admin_sessions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    tokenHash: text().notNull().unique(),
    adminId: integer()
      .notNull()
      .references(() => admins.id),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('admin_sessions_admin').on(t.adminId)]
)
