import { describe, expect, it } from 'vitest'
import { AppError } from '../errors.ts'
import {
  argumentName,
  crossFieldProblem,
  dropBlankMembers,
  InterviewCreate,
  InterviewUpdate,
  phoneProblem,
  readRequest,
  ReportRequest,
} from './schemas.ts'

const creds = { client_id: 'x'.repeat(67), client_secret: 'y'.repeat(40) }
const valid = () => ({
  ...creds,
  title: 'T',
  start_datetime: '2030-05-01T10:00:00+05:30',
  candidate_details: { full_name: 'C', email_id: 'c@example.com' },
  interviewers: [{ full_name: 'I', email_id: 'i@example.com' }],
})

/** The ecode (and emessage for ARGMISSING) readRequest throws for a body. */
function codeOf(schema: Parameters<typeof readRequest>[0], body: unknown): string {
  try {
    readRequest(schema, body)
    return 'OK'
  } catch (e) {
    if (!(e instanceof AppError)) throw e
    return e.code === 'ARGMISSING' ? `ARGMISSING ${e.detail}` : e.code
  }
}

describe('readRequest (B2)', () => {
  const cases: [string, (b: any) => void, string][] = [
    ['valid', () => {}, 'OK'],
    ['title absent', (b) => delete b.title, "ARGMISSING Request argument missing: 'title'"],
    ['title null', (b) => (b.title = null), "ARGMISSING Request argument missing: 'title'"],
    ['title blank', (b) => (b.title = '   '), "ARGMISSING Request argument missing: 'title'"],
    ['title a number', (b) => (b.title = 5), 'BADDATA'],
    ['title too long', (b) => (b.title = 'x'.repeat(501)), 'BADDATA'],
    ['candidate email absent', (b) => delete b.candidate_details.email_id, "ARGMISSING Request argument missing: 'candidate_details.email_id'"],
    ['interviewer name absent', (b) => delete b.interviewers[0].full_name, "ARGMISSING Request argument missing: 'interviewers[0].full_name'"],
    ['candidate_details a string', (b) => (b.candidate_details = 'x'), 'BADDATA'],
    ['interviewers absent', (b) => delete b.interviewers, "ARGMISSING Request argument missing: 'interviewers'"],
    ['interviewers empty', (b) => (b.interviewers = []), 'MINONEINTERVIEWERREQUIRED'],
    ['interviewers an object', (b) => (b.interviewers = {}), 'BADDATA'],
    ['6 interviewers', (b) => (b.interviewers = Array.from({ length: 6 }, (_, i) => ({ full_name: 'I', email_id: `i${i}@x.io` }))), 'MAXINTERVIEWERSLIMITCROSSED'],
    ['5 interviewers', (b) => (b.interviewers = Array.from({ length: 5 }, (_, i) => ({ full_name: 'I', email_id: `i${i}@x.io` }))), 'OK'],
    ['11 eval params', (b) => (b.eval_params = Array.from({ length: 11 }, (_, i) => `p${i}`)), 'MAXEVALPARAMSLIMITCROSSED'],
    ['10 eval params', (b) => (b.eval_params = Array.from({ length: 10 }, (_, i) => `p${i}`)), 'OK'],
    ['eval param blank', (b) => (b.eval_params = ['']), 'BADDATA'],
    ['eval params null', (b) => (b.eval_params = null), 'OK'],
    ['bad candidate email', (b) => (b.candidate_details.email_id = 'nope'), 'INVALIDEMAIL'],
    ['bad interviewer email', (b) => (b.interviewers[0].email_id = 'a@b'), 'INVALIDEMAIL'],
    ['start without offset', (b) => (b.start_datetime = '2030-05-01T10:00:00'), 'BADDATA'],
    ['start not a date', (b) => (b.start_datetime = 'soon'), 'BADDATA'],
    ['start a number', (b) => (b.start_datetime = 1900000000), 'BADDATA'],
    ['phone without country code', (b) => (b.candidate_details.contact_number = '9876543210'), 'INVALIDCOUNTRYCODE'],
    ['phone unknown country code', (b) => (b.candidate_details.contact_number = '+999 1234567'), 'INVALIDCOUNTRYCODE'],
    ['phone too short', (b) => (b.candidate_details.contact_number = '+91 123'), 'INVALIDPHONENUMBER'],
    ['phone with letters', (b) => (b.candidate_details.contact_number = '+91 98765 4321x'), 'INVALIDPHONENUMBER'],
    ['phone blank = not given', (b) => (b.candidate_details.contact_number = ''), 'OK'],
    ['bad feedback_redirect_url', (b) => (b.interviewers[0].feedback_redirect_url = 'not a url'), 'INVALIDURL'],
    ['ftp feedback_redirect_url', (b) => (b.interviewers[0].feedback_redirect_url = 'ftp://x.io/a'), 'INVALIDURL'],
    ['bad resume_url', (b) => (b.candidate_details.resume_url = 'javascript:alert(1)'), 'INVALIDRESUMEURL'],
    ['bad callback_url', (b) => (b.callback_url = 'nope'), 'INVALIDURL'],
    ['inform flag a string', (b) => (b.inform_candidate = 'yes'), 'BADDATA'],
    ['unknown members are ignored', (b) => (b.extra = { deep: [1] }), 'OK'],
    // precedence: a missing argument wins over everything else
    ['missing and invalid', (b) => ((b.interviewers = []), delete b.title), "ARGMISSING Request argument missing: 'title'"],
    ['bad data before rule codes', (b) => ((b.interviewers = []), (b.title = 1)), 'BADDATA'],
  ]
  it.each(cases)('%s', (_name, mutate, want) => {
    const body = valid()
    mutate(body)
    expect(codeOf(InterviewCreate, body)).toBe(want)
  })
})

describe('readRequest (B3, B4)', () => {
  it('ignores resume_url on update', () => {
    const body = { ...valid(), candidate_details: { ...valid().candidate_details, resume_url: 'x' } }
    expect(codeOf(InterviewUpdate, body)).toBe('OK')
  })
  it('needs an interview_id for a report', () =>
    expect(codeOf(ReportRequest, creds)).toBe("ARGMISSING Request argument missing: 'interview_id'"))
  it('refuses a report filter of the wrong type', () =>
    expect(codeOf(ReportRequest, { ...creds, interview_id: 'a', filters: { interviewer_emails: 'x' } })).toBe('BADDATA'))
})

describe('crossFieldProblem', () => {
  const body = (candidate: string, ...interviewers: string[]) => ({
    candidate_details: { email_id: candidate },
    interviewers: interviewers.map((email_id) => ({ email_id })),
  })
  it.each([
    [body('c@x.io', 'i@x.io', 'j@x.io'), null],
    [body('c@x.io', 'C@X.io'), 'INTERVIEWERCANDIDATECONFLICT'],
    [body('c@x.io', 'i@x.io', ' I@x.io'), 'DUPLICATEINTERVIEWER'],
    [{ ...body('c@x.io', 'i@x.io'), eval_params: ['a', 'a'] }, 'BADDATA'],
  ])('%j → %s', (input, want) => expect(crossFieldProblem(input)).toBe(want))
})

describe('helpers', () => {
  it('names nested arguments', () => expect(argumentName(['interviewers', 2, 'email_id'])).toBe('interviewers[2].email_id'))
  it('does not let a "__proto__" member fill in missing ones', () => {
    const body = JSON.parse(`{"__proto__": {"title": "x"}}`)
    const { title: _t, ...rest } = valid()
    expect(codeOf(InterviewCreate, { ...rest, ...body })).toBe("ARGMISSING Request argument missing: 'title'")
  })
  it('drops null and blank members but not array items', () =>
    expect(dropBlankMembers({ a: '', b: null, c: ' x ', d: [''], e: { f: ' ' } })).toEqual({ c: ' x ', d: [''], e: {} }))
  it.each([
    ['+91 98765 43210', null],
    ['+1 (202) 555-0143', null],
    ['0091 98765 43210', null],
    ['98765 43210', 'INVALIDCOUNTRYCODE'],
    ['+999 12345678', 'INVALIDCOUNTRYCODE'],
    ['+44 12', 'INVALIDPHONENUMBER'],
    ['call +919876543210', 'INVALIDPHONENUMBER'],
  ])('phone %s', (v, want) => expect(phoneProblem(v)).toBe(want))
})
