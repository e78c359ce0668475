// The e-mails an interview owes (invites, updates, cancellations): one outbox row per recipient,
// rendered at once with the recipient's own link, in the transaction that made them due.
import { addressOf, mailFrom } from '../jobs/mailer.ts'
import { enqueueDelivery } from '../jobs/outbox.ts'
import { renderMail, type MailKind } from './invites.ts'
import type { Interview, LifeDeps, Recipient, Tx } from './records.ts'

// ── e-mails ────────────────────────────────────────────────────────────────────────────────────────

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '') || 'arbiter'
  } catch {
    return 'arbiter'
  }
}

/**
 * One outbox row per e-mail, rendered now (invites.ts) with the recipient's own link. Each recipient of
 * an interview is one group, so their mails go out in order and a failed old one gives way to a newer one.
 */
export function enqueueMails(deps: LifeDeps, tx: Tx, row: Interview, mails: { kind: MailKind; to: Recipient }[], everyone: Recipient[], now: Date) {
  if (mails.length === 0) return
  const from = mailFrom(deps.config)
  const organizer = { name: from.replace(/<[^<>]*>\s*$/, '').replace(/"/g, '').trim() || 'Arbiter', email: addressOf(from) }
  for (const { kind, to } of mails) {
    const message = renderMail({
      kind,
      interview: {
        id: row.id,
        title: row.title,
        startAt: row.startAt,
        offsetMin: row.startOffsetMin,
        durationMin: deps.config.interviews.max_duration_min,
        sequence: row.sequence,
      },
      recipient: to,
      others: everyone.filter((p) => p.email.toLowerCase() !== to.email.toLowerCase()).map((p) => ({ name: p.name, role: p.role })),
      from: organizer,
      uidDomain: hostOf(deps.config.server.public_url),
      now,
    })
    enqueueDelivery(
      tx,
      {
        kind: 'email',
        subjectId: row.id,
        target: to.email,
        body: JSON.stringify(message),
        contentType: 'application/json',
        groupKey: `mail:${row.id}:${to.email.toLowerCase()}`,
      },
      now
    )
  }
}
