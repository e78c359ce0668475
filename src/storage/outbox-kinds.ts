// The kinds of outbox delivery: one list, one sender each (jobs/outbox.ts Senders, wired in main.ts). A kind is stored in
// outbox.kind; its subject (the submission or interview it is about) in outbox.subject_id.
export const OUTBOX_KINDS = {
  callback: 'a submission callback (the stored body sent with the row\'s method, POST unless it says PUT), or a similarity report\'s; subject: the submission id, or similarity:<report_id>',
  interview_report: 'the signed interview report callback (HE-Signature); subject: the interview id',
  email: 'an interview e-mail (invite, update, cancellation) to one recipient; subject: the interview id',
} as const

export type OutboxKind = keyof typeof OUTBOX_KINDS
/** The column's values (drizzle's enum wants a tuple). */
export const OUTBOX_KIND_NAMES = Object.keys(OUTBOX_KINDS) as [OutboxKind, ...OutboxKind[]]

export const isOutboxKind = (s: string): s is OutboxKind => Object.hasOwn(OUTBOX_KINDS, s)
